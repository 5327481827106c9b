/**
 * Burn buys do not track volume (issue 61, item 11): a buy that tracks it makes the treasury's
 * volume accumulators gather incentives nobody claims. Read with the SDK's own program coders
 * from the IDLs the SDK packages ship: the byte `track_volume` is decoded, not assumed.
 */
import { describe, expect, test } from "bun:test";
import { BN, type BorshInstructionCoder } from "@coral-xyz/anchor";
import { GLOBAL_SIZE, userVolumeAccumulatorPda } from "@pump-fun/pump-sdk";
import { MINT_SIZE, MintLayout } from "@solana/spl-token";
import { Keypair, PublicKey } from "@solana/web3.js";
import type { AccountSnapshot } from "../../src/chain/ports";
import { createPumpLaunchProgram, encodeBuyExactQuoteIn, encodeBuyExactSolIn } from "../../src/chain/pump";
import { PUMP_AMM_PROGRAM_ID, PUMP_PROGRAM_ID, TOKEN_2022_PROGRAM_ID, pumpPdas } from "../../src/chain/pump/layout";
import {
  AMM_IDL,
  PUMP_IDL,
  ammProgram,
  bondingCurveBytes,
  idlAccountDisc,
  idlInstruction,
  mapReader,
  pumpProgram,
} from "../chain/support/fixtures";

const snap = (owner: PublicKey, data: Uint8Array): AccountSnapshot => ({
  lamports: 1_000_000n,
  owner: owner.toBase58(),
  executable: false,
  data,
});

function mintBytes(supply: bigint): Uint8Array {
  const b = Buffer.alloc(MINT_SIZE);
  MintLayout.encode(
    {
      mintAuthorityOption: 0,
      mintAuthority: PublicKey.default,
      supply,
      decimals: 6,
      isInitialized: true,
      freezeAuthorityOption: 0,
      freezeAuthority: PublicKey.default,
    },
    b,
  );
  return new Uint8Array(b);
}

/** pump's Global with the fields a curve buy reads (offsets as test/chain/pump-buy-burn.test.ts checks them). */
function globalBytes(feeRecipient: PublicKey): Uint8Array {
  const g = Buffer.alloc(GLOBAL_SIZE);
  Buffer.from(idlAccountDisc(PUMP_IDL, "Global")).copy(g);
  g.writeUInt8(1, 8);
  feeRecipient.toBuffer().copy(g, 41);
  g.writeBigUInt64LE(1_073_000_000_000_000n, 73);
  g.writeBigUInt64LE(30_000_000_000n, 81);
  g.writeBigUInt64LE(793_100_000_000_000n, 89);
  g.writeBigUInt64LE(1_000_000_000_000_000n, 97);
  g.writeBigUInt64LE(95n, 105);
  g.writeBigUInt64LE(30n, 154);
  for (let i = 0; i < 7; i++) feeRecipient.toBuffer().copy(g, 162 + 32 * i);
  return new Uint8Array(g);
}

/** The instruction's arguments as the SDK's coder decodes them from the IDL. */
function decoded(coder: typeof pumpProgram.coder, data: Uint8Array) {
  const ix = (coder.instruction as BorshInstructionCoder).decode(Buffer.from(data));
  if (!ix) throw new Error("the IDL's coder does not know this instruction");
  return ix as { name: string; data: { trackVolume: { 0: boolean } } };
}

describe("track_volume", () => {
  const mint = Keypair.generate().publicKey;
  const creator = Keypair.generate().publicKey;
  const treasury = Keypair.generate().publicKey;
  const launch = createPumpLaunchProgram(
    mapReader(
      new Map([
        [mint.toBase58(), snap(TOKEN_2022_PROGRAM_ID, mintBytes(1_000_000_000_000_000n))],
        [
          pumpPdas.bondingCurve(mint).toBase58(),
          snap(PUMP_PROGRAM_ID, bondingCurveBytes({ complete: false, creator })),
        ],
        [pumpPdas.global().toBase58(), snap(PUMP_PROGRAM_ID, globalBytes(Keypair.generate().publicKey))],
      ]),
    ),
    { random: () => 0 },
  );

  test("a burn buy on the curve is buy_exact_sol_in with track_volume false", async () => {
    const plan = await launch.buildBurnBuy(
      { mint: mint.toBase58(), creator: creator.toBase58() },
      treasury,
      10_000_000n,
      100,
    );
    const buy = plan.instructions.at(-1)!;
    const ix = decoded(pumpProgram.coder, buy.data);
    expect(ix.name).toBe("buyExactSolIn");
    expect(ix.data.trackVolume).toEqual({ 0: false });
  });

  test("a deployer's own first buy still tracks its volume (its incentives are the deployer's)", async () => {
    const deployer = Keypair.generate().publicKey;
    const [transaction] = await launch.buildCreate({
      mint: Keypair.generate().publicKey.toBase58(),
      creator: creator.toBase58(),
      deployer: deployer.toBase58(),
      name: "Named",
      symbol: "NMD",
      uri: "https://example.com/m.json",
      firstBuyLamports: 10_000_000n,
    });
    const ix = decoded(pumpProgram.coder, transaction!.at(-1)!.data);
    expect(ix.name).toBe("buyExactSolIn");
    expect(ix.data.trackVolume).toEqual({ 0: true });
  });

  test("the encoders write the byte the SDK's coders write, for both venues", () => {
    const args = { spendable: new BN(123_456_789), min: new BN(42) };
    for (const track of [false, true]) {
      const curve = pumpProgram.coder.instruction.encode("buyExactSolIn", {
        spendableSolIn: args.spendable,
        minTokensOut: args.min,
        trackVolume: { 0: track },
      });
      expect(encodeBuyExactSolIn(123_456_789n, 42n, track).toString("hex")).toBe(curve.toString("hex"));
      const pool = ammProgram.coder.instruction.encode("buyExactQuoteIn", {
        spendableQuoteIn: args.spendable,
        minBaseAmountOut: args.min,
        trackVolume: { 0: track },
      });
      expect(encodeBuyExactQuoteIn(123_456_789n, 42n, track).toString("hex")).toBe(pool.toString("hex"));
      expect(decoded(ammProgram.coder, encodeBuyExactQuoteIn(1n, 1n, track)).data.trackVolume).toEqual({ 0: track });
    }
  });

  test("the volume accumulators are still the treasury's accounts a buy funds: the IDLs create them whatever track_volume says", () => {
    // Both buys name user_volume_accumulator (writable, seeds ["user_volume_accumulator", user]) and
    // their docs ask the payer for its rent with no condition on track_volume.
    for (const [idl, name] of [
      [PUMP_IDL, "buy_exact_sol_in"],
      [AMM_IDL, "buy_exact_quote_in"],
    ] as const) {
      const ix = idlInstruction(idl, name) as ReturnType<typeof idlInstruction> & { docs?: string[] };
      expect(ix.accounts.find((a) => a.name === "user_volume_accumulator")?.writable).toBe(true);
      expect((ix.docs ?? []).some((line) => line.includes("user_volume_accumulator: rent.minimum_balance"))).toBe(true);
    }
    const named = launch.buyRentAccounts(mint.toBase58(), treasury.toBase58());
    expect(named).toContain(userVolumeAccumulatorPda(treasury).toBase58());
    expect(named).toContain(userVolumeAccumulatorPda(treasury, PUMP_AMM_PROGRAM_ID).toBase58());
  });
});
