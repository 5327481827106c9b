/**
 * pump_amm buy, buy_exact_quote_in and sell: constant-product swaps priced by pump-swap-sdk's own
 * math (buyBaseInput/buyQuoteInput/sellBaseInput with the FeeConfig tiers pump_fees keeps), the LP
 * fee left in the pool, the protocol fee to the named recipient's quote ATA, the coin creator fee
 * to the WSOL (quote) ATA of the PDA ["creator_vault", pool.coin_creator].
 */
import { ASSOCIATED_TOKEN_PROGRAM_ID, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { PublicKey, SystemProgram } from "@solana/web3.js";
import {
  buyBaseInput,
  buyQuoteInput,
  computeFeesBps,
  type FeeConfig,
  type GlobalConfig,
  type Pool,
  sellBaseInput,
} from "@pump-fun/pump-swap-sdk";
import { BN } from "@coral-xyz/anchor";
import { anchorError, type InstructionHandler, pumpCodecs } from "../anchor";
import type { InvokeContext, NativeAccountMeta } from "../runtime";
import {
  address,
  at,
  ata,
  bumpSeed,
  createPdaAccount,
  ensureAta,
  type MintState,
  mintAccount,
  pda,
  program,
  signer,
  tokenAccount,
  transferTokens,
  typed,
  u16le,
  writable,
} from "./pump-amm-accounts";
import { PUMP_AMM_PROGRAM_ID, PUMP_FEES_PROGRAM_ID } from "./pump-amm-genesis";
import { findProgramAddress } from "../pda";

const SWAP_UNITS = 28_000;
const big = (n: BN | bigint | number): bigint => BigInt(n.toString());
const bn = (n: bigint): BN => new BN(n.toString());

interface SwapAccounts {
  pool: NativeAccountMeta;
  poolState: Pool;
  user: PublicKey;
  global: GlobalConfig;
  feeConfig: FeeConfig;
  baseMint: PublicKey;
  quoteMint: PublicKey;
  base: MintState;
  quote: MintState;
  userBase: PublicKey;
  userQuote: PublicKey;
  poolBase: PublicKey;
  poolQuote: PublicKey;
  protocolRecipient: PublicKey;
  protocolAta: PublicKey;
  creatorVaultAta: PublicKey;
  creatorVaultAuthority: PublicKey;
  userVolumeAccumulator: NativeAccountMeta | null;
  poolReserves: { base: bigint; quote: bigint };
  userReserves: { base: bigint; quote: bigint };
}

/** Accounts 13 on: fixed programs, the coin creator vault, the volume accumulators (buy), fee config, remaining accounts. */
function checkSwapTail(
  ctx: InvokeContext,
  kind: "buy" | "sell",
  pool: Pool,
  global: GlobalConfig,
  quoteProgram: PublicKey,
  user: PublicKey,
) {
  const { pumpAmm } = pumpCodecs();
  const m = (i: number, n: string) => at(ctx, i, n);
  program(m(13, "system_program"), SystemProgram.programId, "system_program");
  program(m(14, "associated_token_program"), ASSOCIATED_TOKEN_PROGRAM_ID, "associated_token_program");
  pda(m(15, "event_authority"), [Buffer.from("__event_authority")], PUMP_AMM_PROGRAM_ID, "event_authority");
  address(m(16, "program"), PUMP_AMM_PROGRAM_ID, "program");
  const vaultAtaM = m(17, "coin_creator_vault_ata");
  writable(vaultAtaM, "coin_creator_vault_ata");
  const vaultAuthM = m(18, "coin_creator_vault_authority");
  pda(
    vaultAuthM,
    [Buffer.from("creator_vault"), pool.coinCreator.toBytes()],
    PUMP_AMM_PROGRAM_ID,
    "coin_creator_vault_authority",
  );
  ata(vaultAtaM, vaultAuthM.pubkey, pool.quoteMint, quoteProgram, "coin_creator_vault_ata");
  let next = 19;
  let uva: NativeAccountMeta | null = null;
  if (kind === "buy") {
    pda(
      m(19, "global_volume_accumulator"),
      [Buffer.from("global_volume_accumulator")],
      PUMP_AMM_PROGRAM_ID,
      "global_volume_accumulator",
    );
    uva = m(20, "user_volume_accumulator");
    writable(uva, "user_volume_accumulator");
    pda(uva, [Buffer.from("user_volume_accumulator"), user.toBytes()], PUMP_AMM_PROGRAM_ID, "user_volume_accumulator");
    next = 21;
  }
  const feeConfigM = m(next, "fee_config");
  pda(feeConfigM, [Buffer.from("fee_config"), PUMP_AMM_PROGRAM_ID.toBytes()], PUMP_FEES_PROGRAM_ID, "fee_config");
  const feeConfig = typed<FeeConfig>(ctx, feeConfigM, pumpAmm, "FeeConfig", PUMP_FEES_PROGRAM_ID, "fee_config").value;
  address(m(next + 1, "fee_program"), PUMP_FEES_PROGRAM_ID, "fee_program");
  remainingAccounts(ctx, next + 2, pool, global, quoteProgram);
  return { vaultAtaM, vaultAuthM, uva, feeConfig };
}

/** The 23 (buy) / 21 (sell) IDL accounts and the remaining accounts the SDK appends, checked in order. */
/** The protocol fee recipient is one of GlobalConfig's (the reserved ones for mayhem pools); cashback pools are not emulated. */
function checkRecipientAndKind(ctx: InvokeContext, pool: Pool, global: GlobalConfig, recipient: PublicKey): void {
  const recipients = pool.isMayhemMode
    ? [global.reservedFeeRecipient, ...global.reservedFeeRecipients]
    : global.protocolFeeRecipients;
  if (!recipients.some((r) => r.equals(recipient))) throw pumpCodecs().pumpAmm.error("InvalidProtocolFeeRecipient");
  if (pool.isCashbackCoin) {
    ctx.log("cashback pools are not emulated by the local chain");
    throw anchorError("InstructionFallbackNotFound", "cashback pools are not emulated");
  }
}

/** `has_one`: the account the pool records. */
function hasOne(meta: NativeAccountMeta, expected: PublicKey, name: string): void {
  if (!meta.pubkey.equals(expected))
    throw anchorError("ConstraintHasOne", `A has one constraint was violated: ${name}`);
}

function swapAccounts(ctx: InvokeContext, kind: "buy" | "sell"): SwapAccounts {
  const { pumpAmm } = pumpCodecs();
  const m = (i: number, n: string) => at(ctx, i, n);
  const poolM = m(0, "pool");
  writable(poolM, "pool");
  const pool = typed<Pool>(ctx, poolM, pumpAmm, "Pool", PUMP_AMM_PROGRAM_ID, "pool").value;
  const userM = m(1, "user");
  writable(userM, "user");
  signer(userM, "user");
  const globalM = m(2, "global_config");
  pda(globalM, [Buffer.from("global_config")], PUMP_AMM_PROGRAM_ID, "global_config");
  const global = typed<GlobalConfig>(ctx, globalM, pumpAmm, "GlobalConfig", PUMP_AMM_PROGRAM_ID, "global_config").value;
  const baseMintM = m(3, "base_mint");
  hasOne(baseMintM, pool.baseMint, "base_mint");
  const quoteMintM = m(4, "quote_mint");
  hasOne(quoteMintM, pool.quoteMint, "quote_mint");
  const userBaseM = m(5, "user_base_token_account");
  writable(userBaseM, "user_base_token_account");
  const userQuoteM = m(6, "user_quote_token_account");
  writable(userQuoteM, "user_quote_token_account");
  const poolBaseM = m(7, "pool_base_token_account");
  writable(poolBaseM, "pool_base_token_account");
  hasOne(poolBaseM, pool.poolBaseTokenAccount, "pool_base_token_account");
  const poolQuoteM = m(8, "pool_quote_token_account");
  writable(poolQuoteM, "pool_quote_token_account");
  hasOne(poolQuoteM, pool.poolQuoteTokenAccount, "pool_quote_token_account");
  const recipientM = m(9, "protocol_fee_recipient");
  const recipientAtaM = m(10, "protocol_fee_recipient_token_account");
  writable(recipientAtaM, "protocol_fee_recipient_token_account");
  const baseProgM = m(11, "base_token_program");
  const quoteProgM = m(12, "quote_token_program");
  const base = mintAccount(ctx, pool.baseMint, "base_mint");
  const quote = mintAccount(ctx, pool.quoteMint, "quote_mint");
  program(baseProgM, base.program, "base_token_program");
  program(quoteProgM, quote.program, "quote_token_program");
  ata(recipientAtaM, recipientM.pubkey, pool.quoteMint, quote.program, "protocol_fee_recipient_token_account");
  const { vaultAtaM, vaultAuthM, uva, feeConfig } = checkSwapTail(ctx, kind, pool, global, quote.program, userM.pubkey);

  checkRecipientAndKind(ctx, pool, global, recipientM.pubkey);
  const userBase = tokenAccount(ctx, userBaseM.pubkey, "user_base_token_account");
  const userQuote = tokenAccount(ctx, userQuoteM.pubkey, "user_quote_token_account");
  if (!userBase.mint.equals(pool.baseMint) || !userQuote.mint.equals(pool.quoteMint))
    throw anchorError("ConstraintTokenMint", "A token mint constraint was violated: user token account");
  return {
    pool: poolM,
    poolState: pool,
    user: userM.pubkey,
    global,
    feeConfig,
    baseMint: pool.baseMint,
    quoteMint: pool.quoteMint,
    base,
    quote,
    userBase: userBaseM.pubkey,
    userQuote: userQuoteM.pubkey,
    poolBase: poolBaseM.pubkey,
    poolQuote: poolQuoteM.pubkey,
    protocolRecipient: recipientM.pubkey,
    protocolAta: recipientAtaM.pubkey,
    creatorVaultAta: vaultAtaM.pubkey,
    creatorVaultAuthority: vaultAuthM.pubkey,
    userVolumeAccumulator: uva,
    poolReserves: {
      base: tokenAccount(ctx, poolBaseM.pubkey, "pool_base_token_account").amount,
      quote: tokenAccount(ctx, poolQuoteM.pubkey, "pool_quote_token_account").amount,
    },
    userReserves: { base: userBase.amount, quote: userQuote.amount },
  };
}

/** [pool-v2 PDA when the pool has a coin creator], the buyback fee recipient and its quote ATA (BREAKING_FEE_RECIPIENT.md). */
function remainingAccounts(
  ctx: InvokeContext,
  from: number,
  pool: Pool,
  global: GlobalConfig,
  quoteProgram: PublicKey,
): void {
  const { pumpAmm } = pumpCodecs();
  let i = from;
  if (!pool.coinCreator.equals(PublicKey.default)) {
    const v2 = ctx.accounts[i++];
    const expected = pdaOf([Buffer.from("pool-v2"), pool.baseMint.toBuffer()]);
    if (!v2?.pubkey.equals(expected)) throw pumpAmm.error("InvalidPoolV2");
  }
  const recipient = ctx.accounts[i];
  const recipientAta = ctx.accounts[i + 1];
  if (!recipient || !recipientAta) throw pumpAmm.error("BuybackFeeRecipientMissing");
  if (!global.buybackFeeRecipients.some((r) => r.equals(recipient.pubkey)))
    throw pumpAmm.error("BuybackFeeRecipientNotAuthorized");
  writable(recipientAta, "buyback_fee_recipient_token_account");
  if (!recipientAta.pubkey.equals(getAssociatedTokenAddressSync(pool.quoteMint, recipient.pubkey, true, quoteProgram)))
    throw pumpAmm.error("BuybackFeeRecipientMissing");
}

function pdaOf(seeds: Buffer[]): PublicKey {
  return findProgramAddress(seeds, PUMP_AMM_PROGRAM_ID)[0];
}

interface Fees {
  lpFeeBps: BN;
  protocolFeeBps: BN;
  creatorFeeBps: BN;
  lpFee: bigint;
  protocolFee: bigint;
  coinCreatorFee: bigint;
}

/** The fee split of `amount` at the pool's current tier, as the SDK computes it (fee = ceil(amount × bps / 10,000)). */
function feesOf(s: SwapAccounts, amount: bigint): Fees {
  const ceil = (bps: BN) => (amount * big(bps) + 9_999n) / 10_000n;
  const rates = computeFeesBps({
    globalConfig: s.global,
    feeConfig: s.feeConfig,
    creator: s.poolState.creator,
    baseMintSupply: bn(s.base.supply),
    baseMint: s.baseMint,
    baseReserve: bn(s.poolReserves.base),
    quoteReserve: bn(s.poolReserves.quote).add(new BN(s.poolState.virtualQuoteReserves.toString())),
    quoteMint: s.quoteMint,
    isMayhemMode: s.poolState.isMayhemMode,
    creatorFeeBps: s.poolState.creatorFeeBps,
  });
  const hasCreator = !s.poolState.coinCreator.equals(PublicKey.default);
  return {
    ...rates,
    creatorFeeBps: hasCreator ? rates.creatorFeeBps : new BN(0),
    lpFee: ceil(rates.lpFeeBps),
    protocolFee: ceil(rates.protocolFeeBps),
    coinCreatorFee: hasCreator ? ceil(rates.creatorFeeBps) : 0n,
  };
}

function sdkInputs(s: SwapAccounts) {
  return {
    slippage: 0,
    baseReserve: bn(s.poolReserves.base),
    quoteReserve: bn(s.poolReserves.quote),
    virtualQuoteReserves: new BN(s.poolState.virtualQuoteReserves.toString()),
    globalConfig: s.global,
    baseMintAccount: { supply: s.base.supply } as never,
    baseMint: s.baseMint,
    coinCreator: s.poolState.coinCreator,
    creator: s.poolState.creator,
    feeConfig: s.feeConfig,
    quoteMint: s.quoteMint,
    isMayhemMode: s.poolState.isMayhemMode,
    creatorFeeBps: s.poolState.creatorFeeBps,
  };
}

function poolSigner(pool: Pool): Uint8Array[] {
  return [
    Buffer.from("pool"),
    u16le(pool.index),
    pool.creator.toBytes(),
    pool.baseMint.toBytes(),
    pool.quoteMint.toBytes(),
    bumpSeed(pool.poolBump),
  ];
}

/** The protocol fee recipient's and the creator vault's quote ATAs, created when missing (the user pays). */
function ensureFeeAccounts(ctx: InvokeContext, s: SwapAccounts): void {
  ensureAta(ctx, s.user, s.protocolAta, s.protocolRecipient, s.quoteMint, s.quote.program);
  if (!s.poolState.coinCreator.equals(PublicKey.default))
    ensureAta(ctx, s.user, s.creatorVaultAta, s.creatorVaultAuthority, s.quoteMint, s.quote.program);
}

/** The user's volume accumulator, `init_if_needed` (the user pays); its fields after a trade of `quoteVolume`. */
function trackVolume(ctx: InvokeContext, s: SwapAccounts, quoteVolume: bigint, track: boolean) {
  const { pumpAmm } = pumpCodecs();
  const key = s.userVolumeAccumulator!.pubkey;
  const blank = {
    user: s.user,
    needsClaim: false,
    totalUnclaimedTokens: new BN(0),
    totalClaimedTokens: new BN(0),
    currentSolVolume: new BN(0),
    lastUpdateTimestamp: new BN(0),
    hasTotalClaimedTokens: true,
    cashbackEarned: new BN(0),
    totalCashbackClaimed: new BN(0),
  };
  let existing = ctx.get(key);
  if (!existing) {
    const space = pumpAmm.encodeAccount("UserVolumeAccumulator", blank).length;
    const bump = PublicKeyFind([Buffer.from("user_volume_accumulator"), s.user.toBuffer()]);
    createPdaAccount(ctx, s.user, key, space, PUMP_AMM_PROGRAM_ID, [
      Buffer.from("user_volume_accumulator"),
      s.user.toBytes(),
      bumpSeed(bump),
    ]);
    existing = ctx.get(key)!;
    ctx.set(key, { ...existing, data: pumpAmm.encodeAccount("UserVolumeAccumulator", blank, existing.data.length) });
    existing = ctx.get(key)!;
  }
  const state = pumpAmm.decodeAccount<typeof blank>("UserVolumeAccumulator", existing.data) ?? blank;
  if (track) {
    state.currentSolVolume = state.currentSolVolume.add(bn(quoteVolume));
    state.lastUpdateTimestamp = new BN(ctx.clock.unixTimestamp.toString());
    ctx.set(key, { ...existing, data: pumpAmm.encodeAccount("UserVolumeAccumulator", state, existing.data.length) });
  }
  return state;
}

function PublicKeyFind(seeds: Buffer[]): number {
  return findProgramAddress(seeds, PUMP_AMM_PROGRAM_ID)[1];
}

/** Buys exactly `baseOut`, paying at most `maxQuoteIn` all fees included; the BuyEvent's fields. */
function executeBuy(
  ctx: InvokeContext,
  s: SwapAccounts,
  baseOut: bigint,
  maxQuoteIn: bigint,
  minBaseOut: bigint,
  track: boolean,
  ixName: string,
): void {
  const { pumpAmm } = pumpCodecs();
  if (baseOut === 0n) throw pumpAmm.error("ZeroBaseAmount");
  if (baseOut >= s.poolReserves.base) throw pumpAmm.error("BuyMoreBaseAmountThanPoolReserves");
  const quoteIn = big(buyBaseInput({ ...sdkInputs(s), base: bn(baseOut) }).internalQuoteAmount);
  const f = feesOf(s, quoteIn);
  const total = quoteIn + f.lpFee + f.protocolFee + f.coinCreatorFee;
  if (total > maxQuoteIn) throw pumpAmm.error("ExceededSlippage");
  ensureFeeAccounts(ctx, s);
  transferTokens(ctx, s.userQuote, s.quoteMint, s.poolQuote, s.user, quoteIn + f.lpFee, s.quote);
  transferTokens(ctx, s.userQuote, s.quoteMint, s.protocolAta, s.user, f.protocolFee, s.quote);
  transferTokens(ctx, s.userQuote, s.quoteMint, s.creatorVaultAta, s.user, f.coinCreatorFee, s.quote);
  transferTokens(ctx, s.poolBase, s.baseMint, s.userBase, s.pool.pubkey, baseOut, s.base, poolSigner(s.poolState));
  const uva = trackVolume(ctx, s, quoteIn, track);
  ctx.emitEvent(
    pumpAmm.encodeEvent("BuyEvent", {
      timestamp: new BN(ctx.clock.unixTimestamp.toString()),
      baseAmountOut: bn(baseOut),
      maxQuoteAmountIn: bn(maxQuoteIn),
      userBaseTokenReserves: bn(s.userReserves.base),
      userQuoteTokenReserves: bn(s.userReserves.quote),
      poolBaseTokenReserves: bn(s.poolReserves.base),
      poolQuoteTokenReserves: bn(s.poolReserves.quote),
      quoteAmountIn: bn(quoteIn),
      lpFeeBasisPoints: f.lpFeeBps,
      lpFee: bn(f.lpFee),
      protocolFeeBasisPoints: f.protocolFeeBps,
      protocolFee: bn(f.protocolFee),
      quoteAmountInWithLpFee: bn(quoteIn + f.lpFee),
      userQuoteAmountIn: bn(total),
      pool: s.pool.pubkey,
      user: s.user,
      userBaseTokenAccount: s.userBase,
      userQuoteTokenAccount: s.userQuote,
      protocolFeeRecipient: s.protocolRecipient,
      protocolFeeRecipientTokenAccount: s.protocolAta,
      coinCreator: s.poolState.coinCreator,
      coinCreatorFeeBasisPoints: f.creatorFeeBps,
      coinCreatorFee: bn(f.coinCreatorFee),
      trackVolume: track,
      totalUnclaimedTokens: uva.totalUnclaimedTokens,
      totalClaimedTokens: uva.totalClaimedTokens,
      currentSolVolume: uva.currentSolVolume,
      lastUpdateTimestamp: uva.lastUpdateTimestamp,
      minBaseAmountOut: bn(minBaseOut),
      ixName,
      cashbackFeeBasisPoints: new BN(0),
      cashback: new BN(0),
      buybackFeeBasisPoints: new BN(0),
      buybackFee: new BN(0),
      virtualQuoteReserves: new BN(s.poolState.virtualQuoteReserves.toString()),
      canBoost: false,
      baseSupply: bn(s.base.supply),
      holderRewardsBps: new BN(0),
      holderRewards: new BN(0),
    }),
  );
}

const trackArg = (v: unknown): boolean => Boolean((v as { 0?: boolean } | undefined)?.[0]);

const buy: InstructionHandler = (ctx, args) => {
  ctx.consume(SWAP_UNITS);
  const s = swapAccounts(ctx, "buy");
  const baseOut = big(args.baseAmountOut as BN);
  executeBuy(ctx, s, baseOut, big(args.maxQuoteAmountIn as BN), baseOut, trackArg(args.trackVolume), "buy");
};

/** Spends at most `spendable_quote_in`: the base the SDK's buyQuoteInput gives for it, bought as `buy` buys it. */
const buyExactQuoteIn: InstructionHandler = (ctx, args) => {
  ctx.consume(SWAP_UNITS);
  const { pumpAmm } = pumpCodecs();
  const s = swapAccounts(ctx, "buy");
  const spendable = big(args.spendableQuoteIn as BN);
  const minBaseOut = big(args.minBaseAmountOut as BN);
  if (spendable === 0n) throw pumpAmm.error("ZeroQuoteAmount");
  const quoted = buyQuoteInput({ ...sdkInputs(s), quote: bn(spendable) });
  if (quoted.internalQuoteWithoutFees.lten(1)) throw pumpAmm.error("BuyNotEnoughQuoteTokensToCoverFees");
  const baseOut = big(quoted.base);
  if (baseOut < minBaseOut || baseOut === 0n) throw pumpAmm.error("BuySlippageBelowMinBaseAmountOut");
  executeBuy(ctx, s, baseOut, spendable, minBaseOut, trackArg(args.trackVolume), "buy_exact_quote_in");
};

const sell: InstructionHandler = (ctx, args) => {
  ctx.consume(SWAP_UNITS);
  const { pumpAmm } = pumpCodecs();
  const s = swapAccounts(ctx, "sell");
  const baseIn = big(args.baseAmountIn as BN);
  const minQuoteOut = big(args.minQuoteAmountOut as BN);
  if (baseIn === 0n) throw pumpAmm.error("ZeroBaseAmount");
  const quoted = sellBaseInput({ ...sdkInputs(s), base: bn(baseIn) });
  const quoteOut = big(quoted.internalQuoteAmountOut);
  const f = feesOf(s, quoteOut);
  const userOut = quoteOut - f.lpFee - f.protocolFee - f.coinCreatorFee;
  if (userOut !== big(quoted.uiQuote)) throw new Error("fee split disagrees with the SDK's sellBaseInput");
  if (userOut < minQuoteOut) throw pumpAmm.error("ExceededSlippage");
  ensureFeeAccounts(ctx, s);
  const signerSeeds = poolSigner(s.poolState);
  transferTokens(ctx, s.userBase, s.baseMint, s.poolBase, s.user, baseIn, s.base);
  transferTokens(ctx, s.poolQuote, s.quoteMint, s.userQuote, s.pool.pubkey, userOut, s.quote, signerSeeds);
  transferTokens(ctx, s.poolQuote, s.quoteMint, s.protocolAta, s.pool.pubkey, f.protocolFee, s.quote, signerSeeds);
  transferTokens(
    ctx,
    s.poolQuote,
    s.quoteMint,
    s.creatorVaultAta,
    s.pool.pubkey,
    f.coinCreatorFee,
    s.quote,
    signerSeeds,
  );
  ctx.emitEvent(
    pumpAmm.encodeEvent("SellEvent", {
      timestamp: new BN(ctx.clock.unixTimestamp.toString()),
      baseAmountIn: bn(baseIn),
      minQuoteAmountOut: bn(minQuoteOut),
      userBaseTokenReserves: bn(s.userReserves.base),
      userQuoteTokenReserves: bn(s.userReserves.quote),
      poolBaseTokenReserves: bn(s.poolReserves.base),
      poolQuoteTokenReserves: bn(s.poolReserves.quote),
      quoteAmountOut: bn(quoteOut),
      lpFeeBasisPoints: f.lpFeeBps,
      lpFee: bn(f.lpFee),
      protocolFeeBasisPoints: f.protocolFeeBps,
      protocolFee: bn(f.protocolFee),
      quoteAmountOutWithoutLpFee: bn(quoteOut - f.lpFee),
      userQuoteAmountOut: bn(userOut),
      pool: s.pool.pubkey,
      user: s.user,
      userBaseTokenAccount: s.userBase,
      userQuoteTokenAccount: s.userQuote,
      protocolFeeRecipient: s.protocolRecipient,
      protocolFeeRecipientTokenAccount: s.protocolAta,
      coinCreator: s.poolState.coinCreator,
      coinCreatorFeeBasisPoints: f.creatorFeeBps,
      coinCreatorFee: bn(f.coinCreatorFee),
      cashbackFeeBasisPoints: new BN(0),
      cashback: new BN(0),
      buybackFeeBasisPoints: new BN(0),
      buybackFee: new BN(0),
      virtualQuoteReserves: new BN(s.poolState.virtualQuoteReserves.toString()),
      canBoost: false,
      baseSupply: bn(s.base.supply),
      holderRewardsBps: new BN(0),
      holderRewards: new BN(0),
    }),
  );
};

export const swapHandlers: Record<string, InstructionHandler> = { buy, buyExactQuoteIn, sell };
