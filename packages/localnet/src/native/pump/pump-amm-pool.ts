/** pump_amm create_pool: a pool PDA, its LP mint and token accounts, the creator's deposit and LP tokens. */
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  createInitializeMint2Instruction,
  createMintToInstruction,
  getAssociatedTokenAddressSync,
  TOKEN_2022_PROGRAM_ID,
} from "@solana/spl-token";
import { type PublicKey, SystemProgram } from "@solana/web3.js";
import { BN } from "@coral-xyz/anchor";
import { type InstructionHandler, pumpCodecs } from "../anchor";
import type { InvokeContext } from "../runtime";
import {
  address,
  at,
  bumpSeed,
  createPdaAccount,
  ensureAta,
  mintAccount,
  pda,
  program,
  signer,
  tokenAccount,
  tokenProgramOf,
  transferTokens,
  typed,
  u16le,
  writable,
} from "./pump-amm-accounts";
import { GLOBAL_CONFIG, PUMP_AMM_PROGRAM_ID } from "./pump-amm-genesis";

/** Mainnet's Pool allocation (pools are extended to 300 bytes; PUMP_SWAP_CREATOR_FEE_README.md). */
const POOL_SPACE = 300;
/** LP tokens locked in the pool forever (CreatePoolEvent.minimum_liquidity on mainnet). */
const MINIMUM_LIQUIDITY = 100n;
const LP_MINT_DECIMALS = 9;
const MINT_SPACE = 82;
const CREATE_POOL_UNITS = 15_000;

/** The integer square root, by Newton's method in bigint: exact for any amount, no float between. */
function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = n;
  let y = (x + 1n) / 2n;
  while (y < x) {
    x = y;
    y = (x + n / x) / 2n;
  }
  return x;
}

type OptionArg<T> = { 0: T } | undefined;

/** create_pool's 18 accounts, checked in the IDL's order, and its amounts. */
/** The accounts' flags, PDAs and fixed programs. */
/** Accounts 11–17: the fixed programs, the token programs of each side, the event authority. */
function checkCreatePoolPrograms(ctx: InvokeContext): { baseProgram: PublicKey; quoteProgram: PublicKey } {
  program(at(ctx, 11, "system_program"), SystemProgram.programId, "system_program");
  program(at(ctx, 12, "token_2022_program"), TOKEN_2022_PROGRAM_ID, "token_2022_program");
  const baseProgram = tokenProgramOf(at(ctx, 13, "base_token_program"), "base_token_program");
  const quoteProgram = tokenProgramOf(at(ctx, 14, "quote_token_program"), "quote_token_program");
  program(at(ctx, 15, "associated_token_program"), ASSOCIATED_TOKEN_PROGRAM_ID, "associated_token_program");
  pda(at(ctx, 16, "event_authority"), [Buffer.from("__event_authority")], PUMP_AMM_PROGRAM_ID, "event_authority");
  address(at(ctx, 17, "program"), PUMP_AMM_PROGRAM_ID, "program");
  return { baseProgram, quoteProgram };
}

function checkCreatePoolAccounts(ctx: InvokeContext, args: Record<string, unknown>) {
  const { pumpAmm } = pumpCodecs();
  const index = Number(args.index);
  const baseIn = BigInt((args.baseAmountIn as BN).toString());
  const quoteIn = BigInt((args.quoteAmountIn as BN).toString());
  const [
    poolM,
    globalM,
    creatorM,
    baseMintM,
    quoteMintM,
    lpMintM,
    userBaseM,
    userQuoteM,
    userPoolM,
    poolBaseM,
    poolQuoteM,
  ] = Array.from({ length: 11 }, (_, i) => at(ctx, i, `account ${i}`));
  const poolSeeds = [
    Buffer.from("pool"),
    u16le(index),
    creatorM!.pubkey.toBytes(),
    baseMintM!.pubkey.toBytes(),
    quoteMintM!.pubkey.toBytes(),
  ];
  writable(poolM!, "pool");
  const poolBump = pda(poolM!, poolSeeds, PUMP_AMM_PROGRAM_ID, "pool");
  address(globalM!, GLOBAL_CONFIG, "global_config");
  const global = typed<{ disableFlags: number }>(
    ctx,
    globalM!,
    pumpAmm,
    "GlobalConfig",
    PUMP_AMM_PROGRAM_ID,
    "global_config",
  );
  signer(creatorM!, "creator");
  writable(creatorM!, "creator");
  writable(lpMintM!, "lp_mint");
  const lpBump = pda(lpMintM!, [Buffer.from("pool_lp_mint"), poolM!.pubkey.toBytes()], PUMP_AMM_PROGRAM_ID, "lp_mint");
  for (const [m, n] of [
    [userBaseM, "user_base_token_account"],
    [userQuoteM, "user_quote_token_account"],
    [userPoolM, "user_pool_token_account"],
    [poolBaseM, "pool_base_token_account"],
    [poolQuoteM, "pool_quote_token_account"],
  ] as const)
    writable(m!, n);
  const { baseProgram, quoteProgram } = checkCreatePoolPrograms(ctx);
  return {
    index,
    baseIn,
    quoteIn,
    poolM,
    globalM,
    creatorM,
    baseMintM,
    quoteMintM,
    lpMintM,
    userBaseM,
    userQuoteM,
    userPoolM,
    poolBaseM,
    poolQuoteM,
    poolSeeds,
    poolBump,
    lpBump,
    global,
    baseProgram,
    quoteProgram,
  };
}

function checkCreatePool(ctx: InvokeContext, args: Record<string, unknown>) {
  const { pumpAmm } = pumpCodecs();
  const accts = checkCreatePoolAccounts(ctx, args);
  const { index, baseIn, quoteIn, poolM, creatorM, baseMintM, quoteMintM, lpMintM, userBaseM, userQuoteM } = accts;
  const { userPoolM, poolBaseM, poolQuoteM, poolSeeds, poolBump, lpBump, global, baseProgram, quoteProgram } = accts;
  const baseMint = mintAccount(ctx, baseMintM!.pubkey, "base_mint");
  const quoteMint = mintAccount(ctx, quoteMintM!.pubkey, "quote_mint");
  if (!baseMint.program.equals(baseProgram) || !quoteMint.program.equals(quoteProgram))
    throw pumpAmm.error("InvalidBaseMint");
  if (baseMintM!.pubkey.equals(quoteMintM!.pubkey)) throw pumpAmm.error("SameMint");
  if ((global.value.disableFlags & 1) !== 0) throw pumpAmm.error("DisabledCreatePool");
  if (baseIn === 0n) throw pumpAmm.error("ZeroBaseAmount");
  if (quoteIn === 0n) throw pumpAmm.error("ZeroQuoteAmount");
  const expectAta = (
    m: typeof userPoolM,
    owner: typeof poolM,
    mint: typeof poolM,
    prog: typeof baseProgram,
    n: string,
  ) => {
    if (!m!.pubkey.equals(getAssociatedTokenAddressSync(mint!.pubkey, owner!.pubkey, true, prog)))
      throw pda(m!, [owner!.pubkey.toBytes(), prog.toBytes(), mint!.pubkey.toBytes()], ASSOCIATED_TOKEN_PROGRAM_ID, n);
  };
  expectAta(userPoolM, creatorM, lpMintM, TOKEN_2022_PROGRAM_ID, "user_pool_token_account");
  expectAta(poolBaseM, poolM, baseMintM, baseProgram, "pool_base_token_account");
  expectAta(poolQuoteM, poolM, quoteMintM, quoteProgram, "pool_quote_token_account");
  const userBase = tokenAccount(ctx, userBaseM!.pubkey, "user_base_token_account");
  const userQuote = tokenAccount(ctx, userQuoteM!.pubkey, "user_quote_token_account");
  if (!userBase.mint.equals(baseMintM!.pubkey)) throw pumpAmm.error("InvalidBaseMint");
  if (!userQuote.mint.equals(quoteMintM!.pubkey)) throw pumpAmm.error("InvalidQuoteMint");

  return {
    index,
    baseIn,
    quoteIn,
    poolM: poolM!,
    creatorM: creatorM!,
    baseMintM: baseMintM!,
    quoteMintM: quoteMintM!,
    lpMintM: lpMintM!,
    userBaseM: userBaseM!,
    userQuoteM: userQuoteM!,
    userPoolM: userPoolM!,
    poolBaseM: poolBaseM!,
    poolQuoteM: poolQuoteM!,
    poolSeeds,
    poolBump,
    lpBump,
    baseMint,
    quoteMint,
    baseProgram,
    quoteProgram,
  };
}

export const createPool: InstructionHandler = (ctx, args) => {
  ctx.consume(CREATE_POOL_UNITS);
  const { pumpAmm } = pumpCodecs();
  const c = checkCreatePool(ctx, args);
  const { index, baseIn, quoteIn, poolM, creatorM, baseMintM, quoteMintM, lpMintM, userBaseM, userQuoteM } = c;
  const {
    userPoolM,
    poolBaseM,
    poolQuoteM,
    poolSeeds,
    poolBump,
    lpBump,
    baseMint,
    quoteMint,
    baseProgram,
    quoteProgram,
  } = c;
  const creator = creatorM!.pubkey;
  const poolKey = poolM!.pubkey;
  const poolSigner = [...poolSeeds, bumpSeed(poolBump)];
  createPdaAccount(ctx, creator, poolKey, POOL_SPACE, PUMP_AMM_PROGRAM_ID, poolSigner);
  createPdaAccount(ctx, creator, lpMintM!.pubkey, MINT_SPACE, TOKEN_2022_PROGRAM_ID, [
    Buffer.from("pool_lp_mint"),
    poolKey.toBytes(),
    bumpSeed(lpBump),
  ]);
  ctx.invoke(createInitializeMint2Instruction(lpMintM!.pubkey, LP_MINT_DECIMALS, poolKey, null, TOKEN_2022_PROGRAM_ID));
  ensureAta(ctx, creator, poolBaseM!.pubkey, poolKey, baseMintM!.pubkey, baseProgram);
  ensureAta(ctx, creator, poolQuoteM!.pubkey, poolKey, quoteMintM!.pubkey, quoteProgram);
  ensureAta(ctx, creator, userPoolM!.pubkey, creator, lpMintM!.pubkey, TOKEN_2022_PROGRAM_ID);
  transferTokens(ctx, userBaseM!.pubkey, baseMintM!.pubkey, poolBaseM!.pubkey, creator, baseIn, baseMint);
  transferTokens(ctx, userQuoteM!.pubkey, quoteMintM!.pubkey, poolQuoteM!.pubkey, creator, quoteIn, quoteMint);
  const initialLiquidity = isqrt(baseIn * quoteIn);
  if (initialLiquidity <= MINIMUM_LIQUIDITY) throw pumpAmm.error("TooLittlePoolTokenLiquidity");
  const lpOut = initialLiquidity - MINIMUM_LIQUIDITY;
  ctx.invoke(createMintToInstruction(lpMintM!.pubkey, userPoolM!.pubkey, poolKey, lpOut, [], TOKEN_2022_PROGRAM_ID), [
    poolSigner,
  ]);

  const opt = <T>(v: unknown, dflt: T): T => ((v as OptionArg<T>)?.[0] ?? dflt) as T;
  const isMayhemMode = Boolean(args.isMayhemMode);
  const creatorFeeBps = new BN(opt<BN>(args.creatorFeeBps, new BN(0)).toString());
  const canEditCreatorFee = opt(args.canEditCreatorFee, false);
  const isHolderReward = opt(args.isHolderReward, false);
  const coinCreator = args.coinCreator;
  const pool = {
    poolBump,
    index,
    creator,
    baseMint: baseMintM!.pubkey,
    quoteMint: quoteMintM!.pubkey,
    lpMint: lpMintM!.pubkey,
    poolBaseTokenAccount: poolBaseM!.pubkey,
    poolQuoteTokenAccount: poolQuoteM!.pubkey,
    lpSupply: new BN(initialLiquidity.toString()),
    coinCreator,
    isMayhemMode,
    isCashbackCoin: opt(args.isCashbackCoin, false),
    virtualQuoteReserves: new BN(0),
    creatorFeeBps,
    canEditCreatorFee,
    isHolderReward,
  };
  const poolAccount = ctx.get(poolKey)!;
  ctx.set(poolKey, { ...poolAccount, data: pumpAmm.encodeAccount("Pool", pool, POOL_SPACE) });
  emitCreatePool(ctx, { ...c, pool, initialLiquidity, lpOut });
};

/** CreatePoolEvent as the program fills it. */
function emitCreatePool(
  ctx: InvokeContext,
  c: ReturnType<typeof checkCreatePool> & { pool: Record<string, unknown>; initialLiquidity: bigint; lpOut: bigint },
): void {
  const { pumpAmm } = pumpCodecs();
  const {
    index,
    baseIn,
    quoteIn,
    baseMintM,
    quoteMintM,
    lpMintM,
    userBaseM,
    userQuoteM,
    poolBump,
    baseMint,
    quoteMint,
  } = c;
  const { initialLiquidity, lpOut } = c;
  const { creator, coinCreator, isMayhemMode, creatorFeeBps, canEditCreatorFee, isHolderReward } = c.pool;
  const poolKey = c.poolM.pubkey;
  ctx.emitEvent(
    pumpAmm.encodeEvent("CreatePoolEvent", {
      timestamp: new BN(ctx.clock.unixTimestamp.toString()),
      index,
      creator,
      baseMint: baseMintM!.pubkey,
      quoteMint: quoteMintM!.pubkey,
      baseMintDecimals: baseMint.decimals,
      quoteMintDecimals: quoteMint.decimals,
      baseAmountIn: new BN(baseIn.toString()),
      quoteAmountIn: new BN(quoteIn.toString()),
      poolBaseAmount: new BN(baseIn.toString()),
      poolQuoteAmount: new BN(quoteIn.toString()),
      minimumLiquidity: new BN(MINIMUM_LIQUIDITY.toString()),
      initialLiquidity: new BN(initialLiquidity.toString()),
      lpTokenAmountOut: new BN(lpOut.toString()),
      poolBump,
      pool: poolKey,
      lpMint: lpMintM!.pubkey,
      userBaseTokenAccount: userBaseM!.pubkey,
      userQuoteTokenAccount: userQuoteM!.pubkey,
      coinCreator,
      isMayhemMode,
      creatorFeeBps,
      canEditCreatorFee,
      isHolderReward,
    }),
  );
}
