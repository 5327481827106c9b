/**
 * pump's announced next version (the `programLayout: "v3"` fault rule), as pump-public-docs
 * @2293f9a describes it: `buy_v3` / `sell_v3` trade at today's prices and fees but keep the
 * protocol and creator fees on the curve (`BondingCurve.creator_fee` / `protocol_fees`, the curve
 * growing to hold them), `sweep_creator_fee` pays the creator's into its vault; today's trades go
 * on paying per trade without losing what the curve keeps. Under "current" none of it exists.
 */
import { describe, expect, test } from "bun:test";
import {
  GLOBAL_PDA,
  PUMP_FEE_CONFIG_PDA,
  PUMP_PROGRAM_ID,
  PUMP_SDK,
  creatorVaultPda,
  getBuySolAmountFromTokenAmount,
  getSellSolAmountFromTokenAmount,
  userVolumeAccumulatorPda,
} from "@pump-fun/pump-sdk";
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  NATIVE_MINT,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import { Keypair, PublicKey, SystemProgram, TransactionInstruction } from "@solana/web3.js";
import type { LocalNode } from "../../src/node";
import {
  SOL,
  big,
  bn,
  createCoin,
  pumpEvents,
  snapshot,
  state,
  tokenAmount,
  userAta,
  type Coin,
} from "./curve-support";
import { pumpNode, send } from "./helpers";
import { lamportsAsNumber } from "../../src/lamports";

const TX_FEE = 5_000n;
const hex = (h: string) => Buffer.from(h, "hex");
const DISC = {
  buyV3: hex("07051dc4f5176550"),
  sellV3: hex("1c92de7726c469d5"),
  sweepCreatorFee: hex("20f6bf3408c949ba"),
  tradeEvent: hex("bddb7fd34ee661ee"),
  sweepEvent: hex("742b4dbd117a482b"),
};
const EVENT_AUTHORITY = PublicKey.findProgramAddressSync([Buffer.from("__event_authority")], PUMP_PROGRAM_ID)[0];

const u64 = (v: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(v);
  return b;
};
const meta = (pubkey: PublicKey, isWritable = false, isSigner = false) => ({ pubkey, isWritable, isSigner });

/** TRADE_V3.md's 17 accounts for a SOL-paired coin, as a wallet would build them from the docs. */
function tradeV3(c: Coin, data: Buffer, user: Keypair = c.user): TransactionInstruction {
  const buyback = state(c.node, c.mint).global.buybackFeeRecipients[0]!;
  return new TransactionInstruction({
    programId: PUMP_PROGRAM_ID,
    keys: [
      meta(GLOBAL_PDA),
      meta(c.mint),
      meta(NATIVE_MINT),
      meta(TOKEN_2022_PROGRAM_ID),
      meta(TOKEN_PROGRAM_ID),
      meta(c.curve, true),
      meta(getAssociatedTokenAddressSync(c.mint, c.curve, true, TOKEN_2022_PROGRAM_ID), true),
      meta(getAssociatedTokenAddressSync(NATIVE_MINT, c.curve, true, TOKEN_PROGRAM_ID), true),
      meta(user.publicKey, true, true),
      meta(userAta(c.mint, user.publicKey), true),
      meta(getAssociatedTokenAddressSync(NATIVE_MINT, user.publicKey, true, TOKEN_PROGRAM_ID), true),
      meta(userVolumeAccumulatorPda(user.publicKey), true),
      meta(PUMP_FEE_CONFIG_PDA),
      meta(buyback, true),
      meta(SystemProgram.programId),
      meta(EVENT_AUTHORITY),
      meta(PUMP_PROGRAM_ID),
    ],
    data,
  });
}

const buyV3 = (c: Coin, amount: bigint, maxSol: bigint, user?: Keypair) =>
  tradeV3(c, Buffer.concat([DISC.buyV3, u64(amount), u64(maxSol)]), user);
const sellV3 = (c: Coin, amount: bigint, minSol: bigint) =>
  tradeV3(c, Buffer.concat([DISC.sellV3, u64(amount), u64(minSol)]));

/** SWEEP_FEES.md's 13 accounts of `sweep_creator_fee` for a SOL-paired coin. */
function sweepCreatorFee(c: Coin, payer: PublicKey, recipient = creatorVaultPda(c.creator)): TransactionInstruction {
  return new TransactionInstruction({
    programId: PUMP_PROGRAM_ID,
    keys: [
      meta(payer, true, true),
      meta(GLOBAL_PDA),
      meta(c.mint),
      meta(NATIVE_MINT),
      meta(TOKEN_PROGRAM_ID),
      meta(ASSOCIATED_TOKEN_PROGRAM_ID),
      meta(SystemProgram.programId),
      meta(c.curve, true),
      meta(getAssociatedTokenAddressSync(NATIVE_MINT, c.curve, true, TOKEN_PROGRAM_ID), true),
      meta(recipient, true),
      meta(getAssociatedTokenAddressSync(NATIVE_MINT, recipient, true, TOKEN_PROGRAM_ID), true),
      meta(EVENT_AUTHORITY),
      meta(PUMP_PROGRAM_ID),
    ],
    data: DISC.sweepCreatorFee,
  });
}

/** The curve's v3 fields (creator_fee at 125, protocol_fees at 133) and its length. */
function kept(node: LocalNode, curve: PublicKey): { length: number; creatorFee: bigint; protocolFees: bigint } {
  const data = Buffer.from(node.getAccount(curve)!.data);
  const at = (o: number) => (data.length >= o + 8 ? data.readBigUInt64LE(o) : 0n);
  return { length: data.length, creatorFee: at(125), protocolFees: at(133) };
}

function sdkBuyCost(c: Coin, tokens: bigint): bigint {
  const s = state(c.node, c.mint);
  return big(
    getBuySolAmountFromTokenAmount({
      global: s.global,
      feeConfig: s.feeConfig,
      mintSupply: s.global.tokenTotalSupply,
      bondingCurve: s.curve,
      amount: bn(tokens),
      quoteMint: s.curve.quoteMint,
    }),
  );
}

/** The event with `disc` among the transaction's self-CPI events, checked equal to its `Program data:` log. */
function event(record: Parameters<typeof pumpEvents>[0], disc: Buffer): Buffer {
  const { inner, logged } = pumpEvents(record);
  const found = inner.find((e) => e.subarray(0, 8).equals(disc));
  if (!found) throw new Error(`no event ${disc.toString("hex")}`);
  expect(logged.some((e) => e.equals(found))).toBe(true);
  return found.subarray(8);
}

/** TradeEvent's `fee_recipient` (after mint, amounts, is_buy, user, timestamp, four reserves), `creator_fee` and the v3 tail. */
function tradeFields(body: Buffer) {
  return {
    feeRecipient: new PublicKey(body.subarray(121, 153)),
    fee: body.readBigUInt64LE(161),
    creatorFee: body.readBigUInt64LE(209),
    creatorFeeUnclaimed: body.readBigUInt64LE(body.length - 8),
  };
}

/** A coin with one legacy buy behind it (its user holds tokens and a volume accumulator). */
async function tradedCoin(): Promise<Coin> {
  const c = await createCoin(pumpNode());
  const s = state(c.node, c.mint);
  const ixs = await PUMP_SDK.buyInstructions({
    global: s.global,
    bondingCurveAccountInfo: { ...accountOf(c.node, c.curve) },
    bondingCurve: s.curve,
    associatedUserAccountInfo: null,
    mint: c.mint,
    user: c.user.publicKey,
    amount: bn(10_000_000_000n),
    solAmount: bn(10n * SOL),
    slippage: 5,
    tokenProgram: TOKEN_2022_PROGRAM_ID,
  });
  const r = send(c.node, c.user, ixs);
  expect(r.err).toBeNull();
  return c;
}

function accountOf(node: LocalNode, address: PublicKey) {
  const a = node.getAccount(address)!;
  return {
    lamports: lamportsAsNumber(a.lamports),
    owner: a.owner,
    executable: a.executable,
    data: Buffer.from(a.data),
    rentEpoch: 0,
  };
}

describe("pump v3 (the programLayout fault rule)", () => {
  test("under the current program, buy_v3 and sweep_creator_fee are unknown instructions (101) and change nothing", async () => {
    const c = await tradedCoin();
    for (const ix of [buyV3(c, 1_000_000n, SOL), sweepCreatorFee(c, c.user.publicKey)]) {
      const before = snapshot(c.node, [ix]);
      const r = send(c.node, c.user, [ix]);
      expect(r.err).toEqual({ InstructionError: [0, { Custom: 101 }] });
      const after = snapshot(c.node, [ix]);
      for (const [k, v] of before) if (k !== c.user.publicKey.toBase58()) expect(after.get(k)).toBe(v);
    }
    expect(kept(c.node, c.curve).length).toBe(151);
  });

  test("buy_v3 and sell_v3 keep the creator fee on the curve, which grows; sweep_creator_fee pays exactly it to the vault", async () => {
    const c = await tradedCoin();
    c.node.programLayout = "v3";
    const vault = creatorVaultPda(c.creator);
    const vaultBefore = c.node.getBalance(vault);
    const buyback = state(c.node, c.mint).global.buybackFeeRecipients[0]!;

    // buy_v3: the SDK's price to the lamport, plus the curve's growth rent (151 → 166 bytes)
    const tokens = 5_000_000_000n;
    const cost = sdkBuyCost(c, tokens);
    const growth = c.node.minimumBalanceForRentExemption(166) - c.node.minimumBalanceForRentExemption(151);
    const userBefore = c.node.getBalance(c.user.publicKey);
    const curveBefore = c.node.getBalance(c.curve);
    const buybackBefore = c.node.getBalance(buyback);
    const tokensBefore = tokenAmount(c.node, userAta(c.mint, c.user.publicKey));
    const bought = send(c.node, c.user, [buyV3(c, tokens, cost)]);
    expect(bought.err).toBeNull();
    expect(c.node.getBalance(c.user.publicKey)).toBe(userBefore - cost - growth - TX_FEE);
    expect(tokenAmount(c.node, userAta(c.mint, c.user.publicKey))).toBe(tokensBefore + tokens);
    const buy = tradeFields(event(bought, DISC.tradeEvent));
    expect(buy.feeRecipient.equals(PublicKey.default)).toBe(true);
    expect(buy.creatorFee).toBeGreaterThan(0n);
    const buybackFee = c.node.getBalance(buyback) - buybackBefore;
    const afterBuy = kept(c.node, c.curve);
    expect(afterBuy).toEqual({ length: 166, creatorFee: buy.creatorFee, protocolFees: buy.fee - buybackFee });
    expect(buy.creatorFeeUnclaimed).toBe(buy.creatorFee);
    // the creator vault got nothing; the curve holds the price, the kept fees and the growth rent
    expect(c.node.getBalance(vault)).toBe(vaultBefore);
    expect(c.node.getBalance(c.curve)).toBe(curveBefore + cost - buybackFee + growth);

    // sell_v3: the SDK's proceeds to the lamport; its creator fee joins what the curve keeps
    const sellTokens = 1_000_000_000n;
    const s = state(c.node, c.mint);
    const proceeds = big(
      getSellSolAmountFromTokenAmount({
        global: s.global,
        feeConfig: s.feeConfig,
        mintSupply: s.global.tokenTotalSupply,
        bondingCurve: s.curve,
        amount: bn(sellTokens),
      }),
    );
    const beforeSell = c.node.getBalance(c.user.publicKey);
    const sold = send(c.node, c.user, [sellV3(c, sellTokens, proceeds)]);
    expect(sold.err).toBeNull();
    expect(c.node.getBalance(c.user.publicKey)).toBe(beforeSell + proceeds - TX_FEE);
    const sell = tradeFields(event(sold, DISC.tradeEvent));
    const waiting = buy.creatorFee + sell.creatorFee;
    expect(kept(c.node, c.curve).creatorFee).toBe(waiting);
    expect(sell.creatorFeeUnclaimed).toBe(waiting);
    expect(c.node.getBalance(vault)).toBe(vaultBefore);

    // a legacy buy on the grown curve pays its creator fee per trade and keeps what waits
    const legacy = await PUMP_SDK.buyInstructions({
      global: state(c.node, c.mint).global,
      bondingCurveAccountInfo: accountOf(c.node, c.curve),
      bondingCurve: state(c.node, c.mint).curve,
      associatedUserAccountInfo: accountOf(c.node, userAta(c.mint, c.user.publicKey)),
      mint: c.mint,
      user: c.user.publicKey,
      amount: bn(1_000_000_000n),
      solAmount: bn(SOL),
      slippage: 5,
      tokenProgram: TOKEN_2022_PROGRAM_ID,
    });
    expect(send(c.node, c.user, legacy).err).toBeNull();
    expect(kept(c.node, c.curve).creatorFee).toBe(waiting);
    const vaultAfterLegacy = c.node.getBalance(vault);
    expect(vaultAfterLegacy).toBeGreaterThan(vaultBefore);

    // a sweep to anything but the creator vault is refused (seeds), changing nothing
    const stranger = Keypair.generate();
    c.node.fund(stranger.publicKey, SOL);
    const wrong = send(c.node, stranger, [sweepCreatorFee(c, stranger.publicKey, stranger.publicKey)]);
    expect(wrong.err).toEqual({ InstructionError: [0, { Custom: 2006 }] });
    expect(kept(c.node, c.curve).creatorFee).toBe(waiting);

    // anyone sweeps: the vault gains exactly what waited, the curve loses exactly that
    const curveBeforeSweep = c.node.getBalance(c.curve);
    const swept = send(c.node, stranger, [sweepCreatorFee(c, stranger.publicKey)]);
    expect(swept.err).toBeNull();
    expect(c.node.getBalance(vault)).toBe(vaultAfterLegacy + waiting);
    expect(c.node.getBalance(c.curve)).toBe(curveBeforeSweep - waiting);
    expect(kept(c.node, c.curve).creatorFee).toBe(0n);
    const body = event(swept, DISC.sweepEvent);
    expect(new PublicKey(body.subarray(104, 136)).equals(vault)).toBe(true);
    expect(body.readBigUInt64LE(136)).toBe(waiting);
    expect(body[144]).toBe(1);

    // nothing waiting: a second sweep lands and moves nothing
    const again = send(c.node, stranger, [sweepCreatorFee(c, stranger.publicKey)]);
    expect(again.err).toBeNull();
    expect(c.node.getBalance(vault)).toBe(vaultAfterLegacy + waiting);
  });

  test("a v3 trade with a wrong account or a missing signer is refused with Anchor's code, changing nothing but the fee", async () => {
    const c = await tradedCoin();
    c.node.programLayout = "v3";
    const cost = sdkBuyCost(c, 1_000_000n);
    const wrongCurve = buyV3(c, 1_000_000n, cost);
    wrongCurve.keys[5] = meta(Keypair.generate().publicKey, true);
    const unsigned = buyV3(c, 1_000_000n, cost);
    unsigned.keys[8] = meta(c.user.publicKey, true, false);
    const payer = Keypair.generate();
    c.node.fund(payer.publicKey, SOL);
    for (const [ix, code, signers] of [
      [wrongCurve, 2006, [c.user]],
      [unsigned, 3010, []],
    ] as const) {
      const before = snapshot(c.node, [ix]);
      const r = send(c.node, payer, [ix], signers);
      expect(r.err).toEqual({ InstructionError: [0, { Custom: code }] });
      const after = snapshot(c.node, [ix]);
      for (const [k, v] of before) expect(after.get(k)).toBe(v);
    }
    expect(kept(c.node, c.curve)).toEqual({ length: 151, creatorFee: 0n, protocolFees: 0n });
  });
});
