/**
 * The bonding curve's trade accounts as pump reads them: `Global`, the curve, pump_fees'
 * `FeeConfig`, the mint and the curve's token account, the fee recipients, and the remaining
 * accounts SDK 2.0.0 appends (`bonding-curve-v2` PDA, buyback fee recipient). Decoded into the
 * SDK's own shapes, so its fee math takes them as they are.
 */
import { type BondingCurve, type FeeConfig, type Global, PUMP_SDK, computeFeesBps } from "@pump-fun/pump-sdk";
import { PublicKey, SystemProgram } from "@solana/web3.js";
import { BN } from "@coral-xyz/anchor";
import { pumpCodecs } from "../anchor";
import { type InvokeContext, type NativeAccount, ProgramError } from "../runtime";
import { type CheckedAccounts, checkAccounts, loadAccount, PUMP_FEES_ID, PUMP_ID, pumpPda } from "./pump-accounts";

export const codec = () => pumpCodecs().pump;

/** pump-sdk `ONE_BILLION_SUPPLY`: the supply the fee tiers are priced at for non-mayhem coins. */
const ONE_BILLION_SUPPLY = 1_000_000_000_000_000n;

export const big = (v: BN | bigint | number): bigint => BigInt(v.toString());
export const bn = (v: bigint | number): BN => new BN(v.toString());

export interface TradeAccounts {
  keys: CheckedAccounts;
  global: Global;
  curve: BondingCurve;
  curveAccount: NativeAccount;
  feeConfig: FeeConfig;
  mintSupply: bigint;
  decimals: number;
  tokenProgram: PublicKey;
  buybackRecipient: PublicKey;
}

/** The curve's creator as the `creator_vault` seeds read it ("bonding_curve.creator"). */
function creatorSeed(ctx: InvokeContext) {
  return (path: string, accounts: CheckedAccounts): Uint8Array | null => {
    if (path !== "bondingCurve.creator") return null;
    const curve = ctx.get(accounts.key("bondingCurve"));
    if (!curve || !curve.owner.equals(PUMP_ID) || curve.data.length < 81) return null;
    return curve.data.slice(49, 81);
  };
}

/** Anchor's checks of the IDL list, then the accounts the instruction reads, checked as pump checks them. */
export function loadTrade(ctx: InvokeContext, ixName: string): TradeAccounts {
  const keys = checkAccounts(codec(), ixName, ctx, creatorSeed(ctx));
  const global = loadAccount<Global>(codec(), ctx, keys.key("global"), "Global").data;
  const curveLoaded = loadAccount<BondingCurve>(codec(), ctx, keys.key("bondingCurve"), "BondingCurve");
  const feeAccount = loadAccount<FeeConfig>(codec(), ctx, keys.key("feeConfig"), "FeeConfig", PUMP_FEES_ID).account;
  const feeConfig = PUMP_SDK.decodeFeeConfig({ ...feeAccount, lamports: 0, data: Buffer.from(feeAccount.data) });
  if (ixName !== "sell") loadAccount(codec(), ctx, keys.key("globalVolumeAccumulator"), "GlobalVolumeAccumulator");
  const tokenProgram = keys.key("tokenProgram");
  const mint = ctx.get(keys.key("mint"));
  if (!mint || !mint.owner.equals(tokenProgram))
    throw new ProgramError(2022, "ConstraintMintTokenProgram", "mint: token program constraint violated");
  checkTokenAccount(ctx, keys.key("associatedBondingCurve"), keys.key("mint"), tokenProgram, keys.key("bondingCurve"));
  const curve = PUMP_SDK.decodeBondingCurve({
    ...curveLoaded.account,
    lamports: 0,
    data: Buffer.from(curveLoaded.account.data),
  });
  checkFeeRecipient(global, curve, keys.key("feeRecipient"));
  const buybackRecipient = checkRemaining(global, keys);
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
    buybackRecipient,
  };
}

/** A token account of `mint` under `tokenProgram` (and of `owner`, when given), as Anchor's token constraints check it. */
export function checkTokenAccount(
  ctx: InvokeContext,
  address: PublicKey,
  mint: PublicKey,
  tokenProgram: PublicKey,
  owner?: PublicKey,
): bigint {
  const account = ctx.get(address);
  if (!account || account.data.length < 72)
    throw new ProgramError(3012, "AccountNotInitialized", "token account: expected to be already initialized");
  if (!account.owner.equals(tokenProgram))
    throw new ProgramError(3007, "AccountOwnedByWrongProgram", "token account: owned by a different program");
  const data = Buffer.from(account.data);
  if (!new PublicKey(data.subarray(0, 32)).equals(mint))
    throw new ProgramError(2014, "ConstraintTokenMint", "token account: token mint constraint violated");
  if (owner && !new PublicKey(data.subarray(32, 64)).equals(owner))
    throw new ProgramError(2015, "ConstraintTokenOwner", "token account: token owner constraint violated");
  return data.readBigUInt64LE(64);
}

/** The protocol fee goes to one of Global's recipients: the reserved ones for mayhem coins. */
function checkFeeRecipient(global: Global, curve: BondingCurve, feeRecipient: PublicKey): void {
  const allowed = curve.isMayhemMode
    ? [global.reservedFeeRecipient, ...global.reservedFeeRecipients]
    : [global.feeRecipient, ...global.feeRecipients];
  if (!allowed.some((k) => k.equals(feeRecipient)))
    throw codec().error("NotAuthorized", "fee_recipient is not one of Global's fee recipients");
}

/**
 * The remaining accounts after the IDL's list (docs `BREAKING_FEE_RECIPIENT.md`): the
 * `bonding-curve-v2` PDA, then one of Global's buyback fee recipients, writable.
 */
function checkRemaining(global: Global, keys: CheckedAccounts): PublicKey {
  const [curveV2, buyback] = keys.remaining;
  if (!curveV2 || !curveV2.pubkey.equals(pumpPda.bondingCurveV2(keys.key("mint")).address))
    throw codec().error("InvalidBondingCurveV2");
  if (!buyback) throw codec().error("BuybackFeeRecipientMissing", "buyback fee recipient missing");
  if (!buyback.isWritable || !global.buybackFeeRecipients.some((k) => k.equals(buyback.pubkey)))
    throw codec().error("BuybackFeeRecipientNotAuthorized");
  return buyback.pubkey;
}

export interface TradeFees {
  protocolBps: bigint;
  creatorBps: bigint;
  /** the whole protocol fee (TradeEvent `fee`), buyback share included */
  protocol: bigint;
  buyback: bigint;
  creator: bigint;
}

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

/** pump-sdk `getFee`'s rates (`computeFeesBps` on the curve before the trade), each fee rounded up as it rounds them. */
export function tradeFees(t: TradeAccounts, solAmount: bigint): TradeFees {
  const { protocolBps, creatorBps } = feeRates(t);
  const protocol = ceilDiv(solAmount * protocolBps, 10_000n);
  const creator = hasCreator(t.curve) ? ceilDiv(solAmount * creatorBps, 10_000n) : 0n;
  return {
    protocolBps,
    creatorBps,
    protocol,
    buyback: (protocol * big(t.global.buybackBasisPoints)) / 10_000n,
    creator,
  };
}

export function feeRates(t: TradeAccounts): { protocolBps: bigint; creatorBps: bigint } {
  const rates = computeFeesBps({
    global: t.global,
    feeConfig: t.feeConfig,
    mintSupply: bn(t.curve.isMayhemMode ? t.mintSupply : ONE_BILLION_SUPPLY),
    virtualQuoteReserves: t.curve.virtualQuoteReserves,
    virtualTokenReserves: t.curve.virtualTokenReserves,
    quoteMint: t.curve.quoteMint,
    creatorFeeBps: t.curve.creatorFeeBps,
  });
  return { protocolBps: big(rates.protocolFeeBps), creatorBps: hasCreator(t.curve) ? big(rates.creatorFeeBps) : 0n };
}

export function hasCreator(curve: BondingCurve): boolean {
  return !curve.creator.equals(PublicKey.default);
}

export function writeCurve(ctx: InvokeContext, t: TradeAccounts): void {
  const address = t.keys.key("bondingCurve");
  const current = ctx.get(address)!;
  const data = codec().encodeAccount("BondingCurve", t.curve, current.data.length);
  // Bytes past the fields this IDL knows stay as they are: v3's kept fees live there (pump-v3-idl.ts).
  const known = codec().encodeAccount("BondingCurve", t.curve).length;
  if (current.data.length > known) data.set(current.data.subarray(known), known);
  ctx.set(address, { ...current, data });
}

/** A System transfer out of a signer (the user pays as the program's CPI makes it pay). */
export function pay(ctx: InvokeContext, from: PublicKey, to: PublicKey, lamports: bigint): void {
  if (lamports <= 0n) return;
  ctx.invoke(SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports }));
}

/**
 * The creator vault stays rent-exempt: the payer tops it up to the 0-byte minimum before the first
 * fee lands (IDL `buy_exact_sol_in` docs: "make sure the payer has enough SOL to cover rent for
 * creator_vault"), so every creator fee stays collectable.
 */
export function topUpVault(ctx: InvokeContext, payer: PublicKey, vault: PublicKey, creatorFee: bigint): void {
  if (creatorFee === 0n) return;
  const have = ctx.get(vault)?.lamports ?? 0n;
  const floor = ctx.minimumBalanceForRentExemption(0);
  if (have < floor) pay(ctx, payer, vault, floor - have);
}
