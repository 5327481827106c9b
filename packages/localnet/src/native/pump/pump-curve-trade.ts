/**
 * pump's curve trades: `buy` (exact tokens out, SOL ceiling), `buy_exact_sol_in` (SOL budget,
 * tokens floor) and `sell`. The curve's price and the fees are the SDK's (`bondingCurve.ts`,
 * `fees.ts`); `buy_exact_sol_in`'s tokens-out is the IDL's documented quote. A buy pays with System
 * transfers out of the user (curve, fee recipient, buyback recipient, creator vault); a sell pays
 * out of the curve, which pump owns. The buy that empties `real_token_reserves` completes the curve.
 */
import { createTransferCheckedInstruction } from "@solana/spl-token";
import { type PublicKey, SystemProgram } from "@solana/web3.js";
import type { InvokeContext } from "../runtime";
import { pumpPda } from "./pump-accounts";
import {
  big,
  bn,
  checkTokenAccount,
  codec,
  feeRates,
  hasCreator,
  loadTrade,
  pay,
  type TradeAccounts,
  type TradeFees,
  topUpVault,
  tradeFees,
  writeCurve,
} from "./pump-curve-state";
import { lamportsAsNumber } from "../../lamports";

/** Units a curve trade's own work costs; its CPIs are charged as they run (~35k in all, PUMP.md §8). */
const TRADE_UNITS = 20_000;
/** pump `UserVolumeAccumulator::LEN` (buy_v2 docs: "Rent for 137-byte account"). */
const USER_VOLUME_ACCUMULATOR_SIZE = 137;

const optionBool = (v: unknown): boolean => Boolean((v as { 0?: boolean } | boolean[] | null)?.[0]);

export function buy(ctx: InvokeContext, args: Record<string, unknown>): void {
  ctx.consume(TRADE_UNITS);
  const t = loadTrade(ctx, "buy");
  refuseComplete(t);
  const amount = big(args.amount as never);
  if (amount === 0n) throw codec().error("BuyZeroAmount");
  const tokens = amount < big(t.curve.realTokenReserves) ? amount : big(t.curve.realTokenReserves);
  executeBuy(ctx, t, tokens, big(args.maxSolCost as never), optionBool(args.trackVolume), "buy");
}

export function buyExactSolIn(ctx: InvokeContext, args: Record<string, unknown>): void {
  ctx.consume(TRADE_UNITS);
  const t = loadTrade(ctx, "buyExactSolIn");
  refuseComplete(t);
  const spendable = big(args.spendableSolIn as never);
  const quoted = exactSolInTokens(t, spendable);
  if (quoted === 0n) throw codec().error("BuyZeroAmount");
  if (quoted < big(args.minTokensOut as never)) throw codec().error("BuySlippageBelowMinTokensOut");
  const real = big(t.curve.realTokenReserves);
  executeBuy(ctx, t, quoted < real ? quoted : real, spendable, optionBool(args.trackVolume), "buy_exact_sol_in");
}

/** The IDL's `buy_exact_sol_in` quote (its docs, "SOL → tokens quote", steps 1–4). */
function exactSolInTokens(t: TradeAccounts, spendable: bigint): bigint {
  const { protocolBps, creatorBps } = feeRates(t);
  let net = (spendable * 10_000n) / (10_000n + protocolBps + creatorBps);
  const fees = (net * protocolBps + 9_999n) / 10_000n + (net * creatorBps + 9_999n) / 10_000n;
  if (net + fees > spendable) net -= net + fees - spendable;
  if (net <= 1n) return 0n;
  const vtr = big(t.curve.virtualTokenReserves);
  const vsr = big(t.curve.virtualQuoteReserves);
  return ((net - 1n) * vtr) / (vsr + net - 1n);
}

function refuseComplete(t: TradeAccounts): void {
  if (t.curve.complete || big(t.curve.virtualTokenReserves) === 0n) throw codec().error("BondingCurveComplete");
}

/** pump-sdk's buy price of `tokens` (`getBuySolAmountFromTokenAmount` before its fee). */
export function buyCost(t: TradeAccounts, tokens: bigint): bigint {
  const vtr = big(t.curve.virtualTokenReserves);
  return (tokens * big(t.curve.virtualQuoteReserves)) / (vtr - tokens) + 1n;
}

function executeBuy(
  ctx: InvokeContext,
  t: TradeAccounts,
  tokens: bigint,
  maxSol: bigint,
  trackVolume: boolean,
  ixName: "buy" | "buy_exact_sol_in",
): void {
  const user = t.keys.key("user");
  const solCost = buyCost(t, tokens);
  const fees = tradeFees(t, solCost);
  if (solCost + fees.protocol + fees.creator > maxSol)
    throw codec().error(ixName === "buy" ? "TooMuchSolRequired" : "BuyNotEnoughSolToCoverFees");
  checkTokenAccount(ctx, t.keys.key("associatedUser"), t.keys.key("mint"), t.tokenProgram);
  const curveKey = t.keys.key("bondingCurve");
  ctx.invoke(
    createTransferCheckedInstruction(
      t.keys.key("associatedBondingCurve"),
      t.keys.key("mint"),
      t.keys.key("associatedUser"),
      curveKey,
      tokens,
      t.decimals,
      [],
      t.tokenProgram,
    ),
    [pumpPda.bondingCurve(t.keys.key("mint")).seeds],
  );
  pay(ctx, user, curveKey, solCost);
  payFees(ctx, t, fees, (to, lamports) => pay(ctx, user, to, lamports));
  const volume = trackUserVolume(ctx, t, user, trackVolume ? solCost : 0n);
  const before = t.curve;
  t.curve = {
    ...before,
    virtualTokenReserves: bn(big(before.virtualTokenReserves) - tokens),
    virtualQuoteReserves: bn(big(before.virtualQuoteReserves) + solCost),
    realTokenReserves: bn(big(before.realTokenReserves) - tokens),
    realQuoteReserves: bn(big(before.realQuoteReserves) + solCost),
  };
  const completes = big(t.curve.realTokenReserves) === 0n;
  if (completes) t.curve.complete = true;
  writeCurve(ctx, t);
  emitTrade(ctx, t, { solAmount: solCost, tokenAmount: tokens, isBuy: true, fees, trackVolume, ixName, volume });
  if (completes) {
    ctx.emitEvent(
      codec().encodeEvent("CompleteEvent", {
        user,
        mint: t.keys.key("mint"),
        bondingCurve: curveKey,
        timestamp: bn(ctx.clock.unixTimestamp),
        quoteMint: t.curve.quoteMint,
      }),
    );
  }
}

/** Protocol fee less its buyback share to the fee recipient, the share to the buyback recipient, the creator fee to the vault. */
function payFees(
  ctx: InvokeContext,
  t: TradeAccounts,
  fees: TradeFees,
  transfer: (to: PublicKey, lamports: bigint) => void,
): void {
  transfer(t.keys.key("feeRecipient"), fees.protocol - fees.buyback);
  transfer(t.buybackRecipient, fees.buyback);
  topUpVault(ctx, t.keys.key("user"), t.keys.key("creatorVault"), fees.creator);
  transfer(t.keys.key("creatorVault"), fees.creator);
}

export function sell(ctx: InvokeContext, args: Record<string, unknown>): void {
  ctx.consume(TRADE_UNITS);
  const t = loadTrade(ctx, "sell");
  refuseComplete(t);
  const amount = big(args.amount as never);
  if (amount === 0n) throw codec().error("SellZeroAmount");
  const vtr = big(t.curve.virtualTokenReserves);
  const solOut = (amount * big(t.curve.virtualQuoteReserves)) / (vtr + amount);
  const fees = tradeFees(t, solOut);
  const net = solOut - fees.protocol - fees.creator;
  if (net < big(args.minSolOutput as never)) throw codec().error("TooLittleSolReceived");
  const user = t.keys.key("user");
  checkTokenAccount(ctx, t.keys.key("associatedUser"), t.keys.key("mint"), t.tokenProgram, user);
  ctx.invoke(
    createTransferCheckedInstruction(
      t.keys.key("associatedUser"),
      t.keys.key("mint"),
      t.keys.key("associatedBondingCurve"),
      user,
      amount,
      t.decimals,
      [],
      t.tokenProgram,
    ),
  );
  const curveKey = t.keys.key("bondingCurve");
  ctx.moveLamports(curveKey, user, net);
  payFees(ctx, t, fees, (to, lamports) => ctx.moveLamports(curveKey, to, lamports));
  const before = t.curve;
  t.curve = {
    ...before,
    virtualTokenReserves: bn(vtr + amount),
    virtualQuoteReserves: bn(big(before.virtualQuoteReserves) - solOut),
    realTokenReserves: bn(big(before.realTokenReserves) + amount),
    realQuoteReserves: bn(big(before.realQuoteReserves) - solOut),
  };
  writeCurve(ctx, t);
  emitTrade(ctx, t, { solAmount: solOut, tokenAmount: amount, isBuy: false, fees, trackVolume: false, ixName: "sell" });
}

interface VolumeState {
  totalUnclaimedTokens: bigint;
  totalClaimedTokens: bigint;
  currentSolVolume: bigint;
  lastUpdateTimestamp: bigint;
}

/**
 * The user's volume accumulator, created on its first buy as the SDK expects (paid by the user,
 * as Anchor's `init_if_needed` pays), its SOL volume counted when the buy tracks volume.
 */
export function trackUserVolume(ctx: InvokeContext, t: TradeAccounts, user: PublicKey, solVolume: bigint): VolumeState {
  const address = t.keys.key("userVolumeAccumulator");
  const uva = pumpPda.userVolumeAccumulator(user);
  let current = ctx.get(address);
  if (!current || !current.owner.equals(ctx.programId)) {
    initAccount(ctx, user, address, uva.seeds, USER_VOLUME_ACCUMULATOR_SIZE);
    current = ctx.get(address)!;
    current.data = codec().encodeAccount("UserVolumeAccumulator", freshVolume(user), USER_VOLUME_ACCUMULATOR_SIZE);
  }
  const value = codec().decodeAccount<Record<string, unknown>>("UserVolumeAccumulator", current.data);
  if (!value) throw codec().error("InvalidCashbackAccumulator");
  if (solVolume > 0n) {
    value.currentSolVolume = bn(big(value.currentSolVolume as never) + solVolume);
    value.lastUpdateTimestamp = bn(ctx.clock.unixTimestamp);
  }
  ctx.set(address, { ...current, data: codec().encodeAccount("UserVolumeAccumulator", value, current.data.length) });
  return {
    totalUnclaimedTokens: big(value.totalUnclaimedTokens as never),
    totalClaimedTokens: big(value.totalClaimedTokens as never),
    currentSolVolume: big(value.currentSolVolume as never),
    lastUpdateTimestamp: big(value.lastUpdateTimestamp as never),
  };
}

function freshVolume(user: PublicKey): Record<string, unknown> {
  return {
    user,
    needsClaim: false,
    totalUnclaimedTokens: bn(0),
    totalClaimedTokens: bn(0),
    currentSolVolume: bn(0),
    lastUpdateTimestamp: bn(0),
    hasTotalClaimedTokens: true,
    cashbackEarned: bn(0),
    totalCashbackClaimed: bn(0),
    stableCashbackEarned: bn(0),
    totalStableCashbackClaimed: bn(0),
  };
}

/**
 * A program account at a PDA, as Anchor's `init` makes it: `create_account` when the address holds
 * nothing, else top-up, `allocate` and `assign` (someone may have sent it lamports first).
 */
export function initAccount(
  ctx: InvokeContext,
  payer: PublicKey,
  address: PublicKey,
  seeds: Uint8Array[],
  space: number,
): void {
  const rent = ctx.minimumBalanceForRentExemption(space);
  const have = ctx.get(address)?.lamports ?? 0n;
  if (have === 0n) {
    ctx.invoke(
      SystemProgram.createAccount({
        fromPubkey: payer,
        newAccountPubkey: address,
        lamports: lamportsAsNumber(rent),
        space,
        programId: ctx.programId,
      }),
      [seeds],
    );
    return;
  }
  if (have < rent) pay(ctx, payer, address, rent - have);
  ctx.invoke(SystemProgram.allocate({ accountPubkey: address, space }), [seeds]);
  ctx.invoke(SystemProgram.assign({ accountPubkey: address, programId: ctx.programId }), [seeds]);
}

interface TradeFacts {
  solAmount: bigint;
  tokenAmount: bigint;
  isBuy: boolean;
  fees: TradeFees;
  trackVolume: boolean;
  ixName: string;
  volume?: VolumeState;
}

function emitTrade(ctx: InvokeContext, t: TradeAccounts, f: TradeFacts): void {
  const c = t.curve;
  const v = f.volume;
  ctx.emitEvent(
    codec().encodeEvent("TradeEvent", {
      mint: t.keys.key("mint"),
      solAmount: bn(f.solAmount),
      tokenAmount: bn(f.tokenAmount),
      isBuy: f.isBuy,
      user: t.keys.key("user"),
      timestamp: bn(ctx.clock.unixTimestamp),
      virtualSolReserves: c.virtualQuoteReserves,
      virtualTokenReserves: c.virtualTokenReserves,
      realSolReserves: c.realQuoteReserves,
      realTokenReserves: c.realTokenReserves,
      feeRecipient: t.keys.key("feeRecipient"),
      feeBasisPoints: bn(f.fees.protocolBps),
      fee: bn(f.fees.protocol),
      creator: c.creator,
      creatorFeeBasisPoints: bn(hasCreator(c) ? f.fees.creatorBps : 0n),
      creatorFee: bn(f.fees.creator),
      trackVolume: f.trackVolume,
      totalUnclaimedTokens: bn(v?.totalUnclaimedTokens ?? 0n),
      totalClaimedTokens: bn(v?.totalClaimedTokens ?? 0n),
      currentSolVolume: bn(v?.currentSolVolume ?? 0n),
      lastUpdateTimestamp: bn(v?.lastUpdateTimestamp ?? 0n),
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
    }),
  );
}
