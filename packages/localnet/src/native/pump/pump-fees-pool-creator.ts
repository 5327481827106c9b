/**
 * pump_amm's side of fee sharing: `migrate_pool_coin_creator`, which pump_fees CPIs when a
 * graduated coin opts in (the pool's coin_creator becomes the sharing config). Exported as pump_amm
 * handlers for pump-amm.ts to merge into its table.
 */
import { type PublicKey, TransactionInstruction } from "@solana/web3.js";
import { BN } from "@coral-xyz/anchor";
import { anchorError, type InstructionHandler, pumpCodecs } from "../anchor";
import {
  checkAccounts,
  loadPool,
  loadSharingConfig,
  POOL_COIN_CREATOR_OFFSET,
  POOL_CREATOR_OFFSET,
  PUMP_AMM_PROGRAM,
  type SeedField,
  withKeyAt,
} from "./pump-fees-checks";

const amm = () => pumpCodecs().pumpAmm;

const MIGRATE_POOL_CREATOR_UNITS = 8_000;

/** Seeds naming the pool's own fields ("pool.index", …), read from the pool passed. */
const poolFieldSeed =
  (get: (address: PublicKey) => { data: Uint8Array } | null): SeedField =>
  (path, accounts) => {
    const account = get(accounts.key("pool"));
    if (!account || account.data.length < POOL_COIN_CREATOR_OFFSET + 32) return null;
    const at = (offset: number, length: number) => account.data.slice(offset, offset + length);
    switch (path) {
      case "pool.index":
        return at(9, 2);
      case "pool.creator":
        return at(POOL_CREATOR_OFFSET, 32);
      case "pool.baseMint":
        return at(43, 32);
      case "pool.quoteMint":
        return at(75, 32);
      default:
        return null;
    }
  };

const migratePoolCoinCreator: InstructionHandler = (ctx) => {
  ctx.consume(MIGRATE_POOL_CREATOR_UNITS);
  const accounts = checkAccounts(
    amm(),
    "migratePoolCoinCreator",
    ctx,
    poolFieldSeed((a) => ctx.get(a)),
  );
  const poolAddress = accounts.key("pool");
  const pool = loadPool(ctx, poolAddress);
  const sharingConfig = accounts.key("sharingConfig");
  const config = loadSharingConfig(ctx, sharingConfig);
  if (!config.mint.equals(pool.baseMint))
    throw anchorError("ConstraintHasOne", "sharing_config: has one constraint violated (mint)");
  if (pool.coinCreator.equals(sharingConfig)) throw amm().error("CreatorVaultMigratedToSharingConfig");
  ctx.set(poolAddress, withKeyAt(pool.account, POOL_COIN_CREATOR_OFFSET, sharingConfig));
  ctx.emitEvent(
    amm().encodeEvent("MigratePoolCoinCreatorEvent", {
      timestamp: new BN(ctx.clock.unixTimestamp.toString()),
      baseMint: pool.baseMint,
      pool: poolAddress,
      sharingConfig,
      oldCoinCreator: pool.coinCreator,
      newCoinCreator: sharingConfig,
    }),
  );
};

/** pump_amm instructions of fee sharing, for pump-amm.ts's handler table. */
export const ammSharingHandlers: Record<string, InstructionHandler> = { migratePoolCoinCreator };

/** pump_amm's `migrate_pool_coin_creator` as pump_fees CPIs it. */
export function migratePoolCoinCreatorIx(accounts: {
  pool: PublicKey;
  sharingConfig: PublicKey;
  eventAuthority: PublicKey;
}): TransactionInstruction {
  return new TransactionInstruction({
    programId: PUMP_AMM_PROGRAM,
    keys: [
      { pubkey: accounts.pool, isSigner: false, isWritable: true },
      { pubkey: accounts.sharingConfig, isSigner: false, isWritable: false },
      { pubkey: accounts.eventAuthority, isSigner: false, isWritable: false },
      { pubkey: PUMP_AMM_PROGRAM, isSigner: false, isWritable: false },
    ],
    data: Buffer.from(amm().instructionDiscriminator("migratePoolCoinCreator")),
  });
}
