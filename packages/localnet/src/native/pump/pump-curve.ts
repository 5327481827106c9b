/**
 * pump's bonding curve, emulated: `create_v2`, `buy`, `buy_exact_sol_in`, `sell` and
 * `collect_creator_fee`, with the accounts they read at genesis. Legacy `create` is not emulated:
 * it CPIs into Metaplex Token Metadata, whose program cannot be loaded offline, so it is refused
 * as an instruction the local chain does not emulate (101, with a log line saying so).
 */
import { PublicKey, SystemProgram } from "@solana/web3.js";
import type { InstructionHandler } from "../anchor";
import type { InvokeContext, NativeProgram } from "../runtime";
import { checkAccounts, PUMP_FEES_ID, pumpPda } from "./pump-accounts";
import { createV2 } from "./pump-curve-create";
import { curveGenesisAccounts } from "./pump-curve-genesis";
import { bn, codec } from "./pump-curve-state";
import { buy, buyExactSolIn, sell } from "./pump-curve-trade";

/** Units collect_creator_fee's own work costs; its System transfer is charged as it runs. */
const COLLECT_UNITS = 8_000;

/**
 * Permissionless: the vault's lamports above its rent-exempt minimum go to `creator`, by a System
 * transfer the vault PDA signs. A creator owned by pump_fees is a sharing config, whose fees move
 * only through `distribute_creator_fees` (6049).
 */
function collectCreatorFee(ctx: InvokeContext): void {
  ctx.consume(COLLECT_UNITS);
  const keys = checkAccounts(codec(), "collectCreatorFee", ctx);
  const creator = keys.key("creator");
  const vault = keys.key("creatorVault");
  if (ctx.get(creator)?.owner.equals(PUMP_FEES_ID)) throw codec().error("CreatorMigratedToSharingConfig");
  const lamports = ctx.get(vault)?.lamports ?? 0n;
  const floor = ctx.minimumBalanceForRentExemption(0);
  const fee = lamports > floor ? lamports - floor : 0n;
  if (fee > 0n)
    ctx.invoke(SystemProgram.transfer({ fromPubkey: vault, toPubkey: creator, lamports: fee }), [
      pumpPda.creatorVault(creator).seeds,
    ]);
  ctx.emitEvent(
    codec().encodeEvent("CollectCreatorFeeEvent", {
      timestamp: bn(ctx.clock.unixTimestamp),
      creator,
      creatorFee: bn(fee),
      quoteMint: PublicKey.default,
    }),
  );
}

export const curveHandlers: Record<string, InstructionHandler> = {
  createV2,
  buy,
  buyExactSolIn,
  sell,
  collectCreatorFee,
};

export const curveGenesis: NativeProgram["genesisAccounts"] = () => curveGenesisAccounts();
