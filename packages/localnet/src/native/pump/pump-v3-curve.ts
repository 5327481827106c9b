/**
 * pump v3's bonding curve (pump-v3-idl.ts for the sources): `buy_v3` and `sell_v3` trade at the
 * same prices and fees as today's trades but keep the protocol fee (less its buyback share, still
 * paid in the trade) and the creator fee on the curve, as lamports it holds and counted in
 * `BondingCurve.protocol_fees` / `creator_fee`; the permissionless `sweep_creator_fee` /
 * `sweep_protocol_fee` pay them out to the creator vault / a fee recipient. A curve with the older,
 * shorter layout grows on its first v3 trade or sweep, the trader or payer paying the rent.
 */
import { type BondingCurve, type FeeConfig, type Global, PUMP_SDK } from "@pump-fun/pump-sdk";
import { NATIVE_MINT, createTransferCheckedInstruction } from "@solana/spl-token";
import { PublicKey } from "@solana/web3.js";
import { anchorError } from "../anchor";
import { type InvokeContext, ProgramError } from "../runtime";
import { type CheckedAccounts, checkAccounts, loadAccount, PUMP_FEES_ID, pumpPda } from "./pump-accounts";
import {
  big,
  bn,
  checkTokenAccount,
  codec,
  hasCreator,
  pay,
  type TradeAccounts,
  type TradeFees,
  tradeFees,
} from "./pump-curve-state";
import { buyCost, trackUserVolume } from "./pump-curve-trade";
import { CURVE_V3, v3Codec } from "./pump-v3-idl";

/** Units a v3 trade's own work costs, as today's trades (PUMP.md §8); CPIs are charged as they run. */
const TRADE_UNITS = 20_000;
/** Units a sweep's own work costs: a read, a lamport move and an event. */
const SWEEP_UNITS = 8_000;

/** The fees a curve keeps (its v3 fields; 0 when its layout predates them, as the docs say to read them). */
interface Kept {
  creatorFee: bigint;
  protocolFees: bigint;
}

interface V3Trade extends TradeAccounts {
  kept: Kept;
}

function readKept(data: Uint8Array): Kept {
  const view = Buffer.from(data);
  const at = (offset: number) => (view.length >= offset + 8 ? view.readBigUInt64LE(offset) : 0n);
  return { creatorFee: at(CURVE_V3.creatorFeeAt), protocolFees: at(CURVE_V3.protocolFeesAt) };
}

/**
 * Grows an older curve to the v3 layout (SWEEP_FEES.md "Account layout"), `payer` paying the rent
 * difference by a System transfer, as the program's realloc makes it pay.
 */
function growCurve(ctx: InvokeContext, curveKey: PublicKey, payer: PublicKey): void {
  const account = ctx.get(curveKey)!;
  if (account.data.length >= CURVE_V3.size) return;
  const owed =
    ctx.minimumBalanceForRentExemption(CURVE_V3.size) - ctx.minimumBalanceForRentExemption(account.data.length);
  pay(ctx, payer, curveKey, owed);
  const grown = new Uint8Array(CURVE_V3.size);
  grown.set(account.data, 0);
  const now = ctx.get(curveKey)!;
  ctx.set(curveKey, { ...now, data: grown });
}

/** The curve's fields as today's IDL writes them, its v3 fields as `kept`, the rest of the tail untouched. */
function writeV3Curve(ctx: InvokeContext, curveKey: PublicKey, curve: BondingCurve, kept: Kept): void {
  const account = ctx.get(curveKey)!;
  const data = Uint8Array.from(account.data);
  data.set(codec().encodeAccount("BondingCurve", curve), 0);
  const view = Buffer.from(data.buffer, data.byteOffset, data.length);
  view.writeBigUInt64LE(kept.creatorFee, CURVE_V3.creatorFeeAt);
  view.writeBigUInt64LE(kept.protocolFees, CURVE_V3.protocolFeesAt);
  ctx.set(curveKey, { ...account, data });
}

/** The quote mint a curve trades against: wrapped SOL for a SOL curve (TRADE_V3.md, account 3). */
function quoteMintOf(curve: BondingCurve): PublicKey {
  return curve.quoteMint.equals(PublicKey.default) ? NATIVE_MINT : curve.quoteMint;
}

/** Anchor's checks of the 17-account list, then what the program reads, checked as today's trades check it. */
function loadV3Trade(ctx: InvokeContext, ixName: "buyV3" | "sellV3"): V3Trade {
  const keys = checkAccounts(v3Codec(), ixName, ctx);
  const global = loadAccount<Global>(codec(), ctx, keys.key("global"), "Global").data;
  const curveLoaded = loadAccount<BondingCurve>(codec(), ctx, keys.key("bondingCurve"), "BondingCurve");
  const feeAccount = loadAccount<FeeConfig>(codec(), ctx, keys.key("feeConfig"), "FeeConfig", PUMP_FEES_ID).account;
  const feeConfig = PUMP_SDK.decodeFeeConfig({ ...feeAccount, lamports: 0, data: Buffer.from(feeAccount.data) });
  const curve = PUMP_SDK.decodeBondingCurve({
    ...curveLoaded.account,
    lamports: 0,
    data: Buffer.from(curveLoaded.account.data),
  });
  const tokenProgram = keys.key("baseTokenProgram");
  const mint = ctx.get(keys.key("baseMint"));
  if (!mint?.owner.equals(tokenProgram))
    throw new ProgramError(2022, "ConstraintMintTokenProgram", "base_mint: token program constraint violated");
  checkTokenAccount(
    ctx,
    keys.key("associatedBaseBondingCurve"),
    keys.key("baseMint"),
    tokenProgram,
    keys.key("bondingCurve"),
  );
  checkQuote(curve, keys);
  if (curve.isCashbackCoin) throw v3Codec().error("CashbackCoinNotSupported");
  if (curve.complete || big(curve.virtualTokenReserves) === 0n) throw codec().error("BondingCurveComplete");
  const buyback = keys.key("buybackFeeRecipient");
  if (!global.buybackFeeRecipients.some((k) => k.equals(buyback)))
    throw codec().error("BuybackFeeRecipientNotAuthorized");
  const data = Buffer.from(mint.data);
  return {
    keys,
    global,
    curve,
    curveAccount: curveLoaded.account,
    feeConfig,
    mintSupply: data.readBigUInt64LE(36),
    decimals: data[44]!,
    tokenProgram,
    buybackRecipient: buyback,
    kept: readKept(curveLoaded.account.data),
  };
}

/**
 * The quote accounts name the curve's quote; token-quoted curves (their quote moved through the
 * curve's quote token account) are not emulated: the service launches SOL curves only.
 */
function checkQuote(curve: BondingCurve, keys: CheckedAccounts): void {
  if (!keys.key("quoteMint").equals(quoteMintOf(curve))) throw codec().error("UnsupportedQuoteMint");
  if (!curve.quoteMint.equals(PublicKey.default))
    throw anchorError("InstructionFallbackNotFound", "token-quoted v3 trades are not emulated by the local chain");
}

const optionBool = (data: Uint8Array, at: number): boolean => data.length > at && data[at] === 1;
const u64At = (data: Uint8Array, at: number): bigint => {
  if (data.length < at + 8) throw anchorError("InstructionDidNotDeserialize", "instruction data too short");
  return Buffer.from(data).readBigUInt64LE(at);
};

/** `buy_v3`: `amount` tokens for at most `max_sol_cost`, fees included; fees stay on the curve. */
export function buyV3(ctx: InvokeContext): void {
  ctx.consume(TRADE_UNITS);
  const amount = u64At(ctx.data, 8);
  const maxSol = u64At(ctx.data, 16);
  const partialFill = optionBool(ctx.data, 24);
  const t = loadV3Trade(ctx, "buyV3");
  if (amount === 0n) throw codec().error("BuyZeroAmount");
  const real = big(t.curve.realTokenReserves);
  // Past what the curve has left, a non-mayhem buy continues into pump's "synthetic migration"
  // (docs SYNTHETIC_MIGRATION.md), not emulated here; such a buy is refused as a mayhem coin's
  // buy without partial_fill is.
  if (amount > real && !(partialFill && t.curve.isMayhemMode)) {
    ctx.log("a buy past the curve's tokens (synthetic migration) is not emulated by the local chain");
    throw codec().error("NotEnoughTokensToBuy");
  }
  const tokens = amount < real ? amount : real;
  const user = t.keys.key("user");
  const solCost = buyCost(t, tokens);
  const fees = tradeFees(t, solCost);
  if (solCost + fees.protocol + fees.creator > maxSol) throw codec().error("TooMuchSolRequired");
  checkTokenAccount(ctx, t.keys.key("associatedBaseUser"), t.keys.key("baseMint"), t.tokenProgram);
  const curveKey = t.keys.key("bondingCurve");
  growCurve(ctx, curveKey, user);
  ctx.invoke(
    createTransferCheckedInstruction(
      t.keys.key("associatedBaseBondingCurve"),
      t.keys.key("baseMint"),
      t.keys.key("associatedBaseUser"),
      curveKey,
      tokens,
      t.decimals,
      [],
      t.tokenProgram,
    ),
    [pumpPda.bondingCurve(t.keys.key("baseMint")).seeds],
  );
  pay(ctx, user, curveKey, solCost + fees.protocol - fees.buyback + fees.creator);
  pay(ctx, user, t.buybackRecipient, fees.buyback);
  trackUserVolume(ctx, t, user, 0n);
  const before = t.curve;
  t.curve = {
    ...before,
    virtualTokenReserves: bn(big(before.virtualTokenReserves) - tokens),
    virtualQuoteReserves: bn(big(before.virtualQuoteReserves) + solCost),
    realTokenReserves: bn(real - tokens),
    realQuoteReserves: bn(big(before.realQuoteReserves) + solCost),
  };
  const completes = big(t.curve.realTokenReserves) === 0n;
  if (completes) t.curve.complete = true;
  keep(t, fees);
  writeV3Curve(ctx, curveKey, t.curve, t.kept);
  emitV3Trade(ctx, t, { solAmount: solCost, tokenAmount: tokens, isBuy: true, fees, ixName: "buy_v3" });
  if (completes)
    ctx.emitEvent(
      codec().encodeEvent("CompleteEvent", {
        user,
        mint: t.keys.key("baseMint"),
        bondingCurve: curveKey,
        timestamp: bn(ctx.clock.unixTimestamp),
        quoteMint: t.curve.quoteMint,
      }),
    );
}

/** `sell_v3`: `amount` tokens for at least `min_sol_output` after fees; fees stay on the curve. */
export function sellV3(ctx: InvokeContext): void {
  ctx.consume(TRADE_UNITS);
  const amount = u64At(ctx.data, 8);
  const minOut = u64At(ctx.data, 16);
  const t = loadV3Trade(ctx, "sellV3");
  if (amount === 0n) throw codec().error("SellZeroAmount");
  const vtr = big(t.curve.virtualTokenReserves);
  const solOut = (amount * big(t.curve.virtualQuoteReserves)) / (vtr + amount);
  const fees = tradeFees(t, solOut);
  const net = solOut - fees.protocol - fees.creator;
  if (net < minOut) throw codec().error("TooLittleSolReceived");
  const user = t.keys.key("user");
  checkTokenAccount(ctx, t.keys.key("associatedBaseUser"), t.keys.key("baseMint"), t.tokenProgram, user);
  const curveKey = t.keys.key("bondingCurve");
  growCurve(ctx, curveKey, user);
  ctx.invoke(
    createTransferCheckedInstruction(
      t.keys.key("associatedBaseUser"),
      t.keys.key("baseMint"),
      t.keys.key("associatedBaseBondingCurve"),
      user,
      amount,
      t.decimals,
      [],
      t.tokenProgram,
    ),
  );
  ctx.moveLamports(curveKey, user, net);
  ctx.moveLamports(curveKey, t.buybackRecipient, fees.buyback);
  trackUserVolume(ctx, t, user, 0n);
  const before = t.curve;
  t.curve = {
    ...before,
    virtualTokenReserves: bn(vtr + amount),
    virtualQuoteReserves: bn(big(before.virtualQuoteReserves) - solOut),
    realTokenReserves: bn(big(before.realTokenReserves) + amount),
    realQuoteReserves: bn(big(before.realQuoteReserves) - solOut),
  };
  keep(t, fees);
  writeV3Curve(ctx, curveKey, t.curve, t.kept);
  emitV3Trade(ctx, t, { solAmount: solOut, tokenAmount: amount, isBuy: false, fees, ixName: "sell_v3" });
}

/** The fees the trade charged and did not pay out, added to what the curve keeps. */
function keep(t: V3Trade, fees: TradeFees): void {
  t.kept = {
    creatorFee: t.kept.creatorFee + fees.creator,
    protocolFees: t.kept.protocolFees + fees.protocol - fees.buyback,
  };
}

interface V3TradeFacts {
  solAmount: bigint;
  tokenAmount: bigint;
  isBuy: boolean;
  fees: TradeFees;
  ixName: "buy_v3" | "sell_v3";
}

/** TRADE_V3.md "Events": `fee_recipient` the zero key (the fee was kept), `creator_fee_unclaimed` what waits after the trade. */
function emitV3Trade(ctx: InvokeContext, t: V3Trade, f: V3TradeFacts): void {
  const c = t.curve;
  ctx.emitEvent(
    v3Codec().encodeEvent("TradeEvent", {
      mint: t.keys.key("baseMint"),
      solAmount: bn(f.solAmount),
      tokenAmount: bn(f.tokenAmount),
      isBuy: f.isBuy,
      user: t.keys.key("user"),
      timestamp: bn(ctx.clock.unixTimestamp),
      virtualSolReserves: c.virtualQuoteReserves,
      virtualTokenReserves: c.virtualTokenReserves,
      realSolReserves: c.realQuoteReserves,
      realTokenReserves: c.realTokenReserves,
      feeRecipient: PublicKey.default,
      feeBasisPoints: bn(f.fees.protocolBps),
      fee: bn(f.fees.protocol),
      creator: c.creator,
      creatorFeeBasisPoints: bn(hasCreator(c) ? f.fees.creatorBps : 0n),
      creatorFee: bn(f.fees.creator),
      trackVolume: false,
      totalUnclaimedTokens: bn(0),
      totalClaimedTokens: bn(0),
      currentSolVolume: bn(0),
      lastUpdateTimestamp: bn(0),
      ixName: f.ixName,
      mayhemMode: c.isMayhemMode,
      cashbackFeeBasisPoints: bn(0),
      cashback: bn(0),
      buybackFeeBasisPoints: t.global.buybackBasisPoints,
      buybackFee: bn(f.fees.buyback),
      shareholders: [],
      quoteMint: c.quoteMint,
      quoteAmount: bn(f.solAmount),
      virtualQuoteReserves: c.virtualQuoteReserves,
      realQuoteReserves: c.realQuoteReserves,
      holderRewardsBps: bn(0),
      holderRewards: bn(0),
      creatorFeeUnclaimed: bn(t.kept.creatorFee),
    }),
  );
}

/** SWEEP_FEES.md "Sweep instructions": bucket 0 the protocol fee, 1 the creator fee. */
type Bucket = 0 | 1;

export const sweepCreatorFee = (ctx: InvokeContext): void => sweep(ctx, 1);
export const sweepProtocolFee = (ctx: InvokeContext): void => sweep(ctx, 0);

/**
 * Pays one kept bucket out of the curve's lamports to the only recipient the instruction allows
 * (the creator vault of `bonding_curve.creator`, or one of Global's fee recipients), topping the
 * vault up to its rent-exempt minimum first (payer). Nothing waiting: nothing happens.
 */
function sweep(ctx: InvokeContext, bucket: Bucket): void {
  ctx.consume(SWEEP_UNITS);
  const keys = checkAccounts(v3Codec(), bucket === 1 ? "sweepCreatorFee" : "sweepProtocolFee", ctx);
  const global = loadAccount<Global>(codec(), ctx, keys.key("global"), "Global").data;
  const curveKey = keys.key("bondingCurve");
  const loaded = loadAccount<BondingCurve>(codec(), ctx, curveKey, "BondingCurve");
  const curve = PUMP_SDK.decodeBondingCurve({ ...loaded.account, lamports: 0, data: Buffer.from(loaded.account.data) });
  checkQuote(curve, keys);
  const recipient = keys.key("recipient");
  checkRecipient(bucket, global, curve, recipient);
  const kept = readKept(loaded.account.data);
  const amount = bucket === 1 ? kept.creatorFee : kept.protocolFees;
  if (amount === 0n) {
    ctx.log("nothing to sweep");
    return;
  }
  const payer = keys.key("payer");
  growCurve(ctx, curveKey, payer);
  if (bucket === 1) {
    const floor = ctx.minimumBalanceForRentExemption(0);
    const have = ctx.get(recipient)?.lamports ?? 0n;
    if (have < floor) pay(ctx, payer, recipient, floor - have);
  }
  ctx.moveLamports(curveKey, recipient, amount);
  writeV3Curve(ctx, curveKey, curve, bucket === 1 ? { ...kept, creatorFee: 0n } : { ...kept, protocolFees: 0n });
  ctx.emitEvent(
    v3Codec().encodeEvent("SweepBondingCurveFeeEvent", {
      timestamp: bn(ctx.clock.unixTimestamp),
      mint: keys.key("baseMint"),
      bondingCurve: curveKey,
      quoteMint: curve.quoteMint,
      recipient,
      amount: bn(amount),
      bucket,
    }),
  );
}

/**
 * The recipient the docs fix: the creator vault PDA for the creator fee (a wrong one fails its
 * seeds: ConstraintSeeds, the code the docs do not give), one of Global's fee recipients (the
 * reserved ones for a mayhem coin) for the protocol fee (NotAuthorized, as today's trades answer).
 */
function checkRecipient(bucket: Bucket, global: Global, curve: BondingCurve, recipient: PublicKey): void {
  if (bucket === 1) {
    if (!recipient.equals(pumpPda.creatorVault(curve.creator).address))
      throw anchorError("ConstraintSeeds", "recipient: seeds constraint violated");
    return;
  }
  const allowed = curve.isMayhemMode
    ? [global.reservedFeeRecipient, ...global.reservedFeeRecipients]
    : [global.feeRecipient, ...global.feeRecipients];
  if (!allowed.some((k) => k.equals(recipient)))
    throw codec().error("NotAuthorized", "recipient is not one of Global's fee recipients");
}
