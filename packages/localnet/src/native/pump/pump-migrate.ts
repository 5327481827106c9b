/**
 * pump's migrate: a complete curve's SOL (as WSOL) and remaining tokens into the canonical pump_amm
 * pool, created by CPI to create_pool with the pump PDA ["pool-authority", mint] as its creator.
 * The curve keeps Global.pool_migration_fee, which pays the pool's accounts; what the accounts do
 * not use goes to Global.withdraw_authority. The pool authority's two token accounts are
 * temporary, opened and closed by the calling user (rent back to them). A migrated curve (reserves
 * zeroed) is left alone: migrate is idempotent (PUMP_PROGRAM_README.md).
 */
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  createCloseAccountInstruction,
  createSyncNativeInstruction,
  getAssociatedTokenAddressSync,
  NATIVE_MINT,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
} from "@solana/spl-token";
import { type PublicKey, SystemProgram, SYSVAR_RENT_PUBKEY, TransactionInstruction } from "@solana/web3.js";
import { BN } from "@coral-xyz/anchor";
import { anchorError, type InstructionHandler, pumpCodecs } from "../anchor";
import type { InvokeContext } from "../runtime";
import {
  address,
  at,
  bumpSeed,
  ensureAta,
  type MintState,
  mintAccount,
  pda,
  program,
  signer,
  tokenAccount,
  typed,
  u16le,
  writable,
} from "./pump-amm-accounts";
import { GLOBAL_CONFIG, PUMP_AMM_PROGRAM_ID, PUMP_PROGRAM_ID } from "./pump-amm-genesis";
import { findProgramAddress } from "../pda";

const MIGRATE_UNITS = 20_000;

interface GlobalState {
  withdrawAuthority: PublicKey;
  enableMigrate: boolean;
  poolMigrationFee: BN;
}

interface CurveState {
  virtualTokenReserves: BN;
  virtualQuoteReserves: BN;
  realTokenReserves: BN;
  realQuoteReserves: BN;
  tokenTotalSupply: BN;
  complete: boolean;
  creator: PublicKey;
  isMayhemMode: boolean;
  isCashbackCoin: boolean;
  creatorFeeBps: BN;
  canEditCreatorFee: boolean;
  isHolderReward: boolean;
  [k: string]: unknown;
}

const NAMES = [
  "global",
  "withdraw_authority",
  "mint",
  "bonding_curve",
  "associated_bonding_curve",
  "user",
  "system_program",
  "token_program",
  "pump_amm",
  "pool",
  "pool_authority",
  "pool_authority_mint_account",
  "pool_authority_wsol_account",
  "amm_global_config",
  "wsol_mint",
  "lp_mint",
  "user_pool_token_account",
  "pool_base_token_account",
  "pool_quote_token_account",
  "token_2022_program",
  "associated_token_program",
  "pump_amm_event_authority",
  "event_authority",
  "program",
  "rent",
] as const;

type Accounts = Record<(typeof NAMES)[number], ReturnType<typeof at>>;

/** Global, the curve and its token account, the user, the pool authority: the curve's side of the list. */
function checkCurveSide(ctx: InvokeContext, a: Accounts) {
  const { pump } = pumpCodecs();
  const mint = a.mint.pubkey;
  pda(a.global, [Buffer.from("global")], PUMP_PROGRAM_ID, "global");
  const global = typed<GlobalState>(ctx, a.global, pump, "Global", PUMP_PROGRAM_ID, "global").value;
  writable(a.withdraw_authority, "withdraw_authority");
  if (!a.withdraw_authority.pubkey.equals(global.withdrawAuthority))
    throw anchorError("ConstraintHasOne", "A has one constraint was violated: withdraw_authority");
  writable(a.bonding_curve, "bonding_curve");
  pda(a.bonding_curve, [Buffer.from("bonding-curve"), mint.toBytes()], PUMP_PROGRAM_ID, "bonding_curve");
  const curveAcc = typed<CurveState>(ctx, a.bonding_curve, pump, "BondingCurve", PUMP_PROGRAM_ID, "bonding_curve");
  const baseMint = mintAccount(ctx, mint, "mint");
  const baseProgram = baseMint.program;
  writable(a.associated_bonding_curve, "associated_bonding_curve");
  pda(
    a.associated_bonding_curve,
    [a.bonding_curve.pubkey.toBytes(), baseProgram.toBytes(), mint.toBytes()],
    ASSOCIATED_TOKEN_PROGRAM_ID,
    "associated_bonding_curve",
  );
  signer(a.user, "user");
  writable(a.user, "user");
  program(a.system_program, SystemProgram.programId, "system_program");
  program(a.token_program, TOKEN_PROGRAM_ID, "token_program");
  program(a.pump_amm, PUMP_AMM_PROGRAM_ID, "pump_amm");
  writable(a.pool_authority, "pool_authority");
  const authBump = pda(
    a.pool_authority,
    [Buffer.from("pool-authority"), mint.toBytes()],
    PUMP_PROGRAM_ID,
    "pool_authority",
  );
  const poolAuthority = a.pool_authority.pubkey;
  return { global, curveAcc, baseMint, baseProgram, authBump, poolAuthority };
}

/** The pool's accounts as create_pool will be given them, and the fixed programs. */
function checkPoolSide(ctx: InvokeContext, a: Accounts, baseProgram: PublicKey, poolAuthority: PublicKey): void {
  const mint = a.mint.pubkey;
  writable(a.pool, "pool");
  pda(
    a.pool,
    [Buffer.from("pool"), u16le(0), poolAuthority.toBytes(), mint.toBytes(), NATIVE_MINT.toBytes()],
    PUMP_AMM_PROGRAM_ID,
    "pool",
  );
  const ataOf = (owner: PublicKey, tokenProgram: PublicKey, m: PublicKey) => [
    owner.toBytes(),
    tokenProgram.toBytes(),
    m.toBytes(),
  ];
  writable(a.pool_authority_mint_account, "pool_authority_mint_account");
  pda(
    a.pool_authority_mint_account,
    ataOf(poolAuthority, baseProgram, mint),
    ASSOCIATED_TOKEN_PROGRAM_ID,
    "pool_authority_mint_account",
  );
  writable(a.pool_authority_wsol_account, "pool_authority_wsol_account");
  pda(
    a.pool_authority_wsol_account,
    ataOf(poolAuthority, TOKEN_PROGRAM_ID, NATIVE_MINT),
    ASSOCIATED_TOKEN_PROGRAM_ID,
    "pool_authority_wsol_account",
  );
  pda(a.amm_global_config, [Buffer.from("global_config")], PUMP_AMM_PROGRAM_ID, "amm_global_config");
  address(a.wsol_mint, NATIVE_MINT, "wsol_mint");
  writable(a.lp_mint, "lp_mint");
  pda(a.lp_mint, [Buffer.from("pool_lp_mint"), a.pool.pubkey.toBytes()], PUMP_AMM_PROGRAM_ID, "lp_mint");
  writable(a.user_pool_token_account, "user_pool_token_account");
  pda(
    a.user_pool_token_account,
    ataOf(poolAuthority, TOKEN_2022_PROGRAM_ID, a.lp_mint.pubkey),
    ASSOCIATED_TOKEN_PROGRAM_ID,
    "user_pool_token_account",
  );
  writable(a.pool_base_token_account, "pool_base_token_account");
  pda(
    a.pool_base_token_account,
    ataOf(a.pool.pubkey, baseProgram, mint),
    ASSOCIATED_TOKEN_PROGRAM_ID,
    "pool_base_token_account",
  );
  writable(a.pool_quote_token_account, "pool_quote_token_account");
  pda(
    a.pool_quote_token_account,
    ataOf(a.pool.pubkey, TOKEN_PROGRAM_ID, NATIVE_MINT),
    ASSOCIATED_TOKEN_PROGRAM_ID,
    "pool_quote_token_account",
  );
  program(a.token_2022_program, TOKEN_2022_PROGRAM_ID, "token_2022_program");
  program(a.associated_token_program, ASSOCIATED_TOKEN_PROGRAM_ID, "associated_token_program");
  pda(a.pump_amm_event_authority, [Buffer.from("__event_authority")], PUMP_AMM_PROGRAM_ID, "pump_amm_event_authority");
  pda(a.event_authority, [Buffer.from("__event_authority")], PUMP_PROGRAM_ID, "event_authority");
  address(a.program, PUMP_PROGRAM_ID, "program");
  address(a.rent, SYSVAR_RENT_PUBKEY, "rent");
  checkBoostAccounts(ctx, a.pool.pubkey);
}

const migrate: InstructionHandler = (ctx) => {
  ctx.consume(MIGRATE_UNITS);
  const { pump } = pumpCodecs();
  const a = Object.fromEntries(NAMES.map((n, i) => [n, at(ctx, i, n)])) as Accounts;
  const { global, curveAcc, baseMint, baseProgram, authBump, poolAuthority } = checkCurveSide(ctx, a);
  checkPoolSide(ctx, a, baseProgram, poolAuthority);
  if (!global.enableMigrate) throw pump.error("DisabledMigrate");
  const curve = curveAcc.value;
  if (!curve.complete) throw pump.error("BondingCurveNotComplete");
  // Already migrated: reserves zeroed by the first migrate; nothing to do.
  if (curve.virtualTokenReserves.isZero() && ctx.get(a.pool.pubkey)) {
    ctx.log("Bonding curve already migrated");
    return;
  }
  const realSol = BigInt(curve.realQuoteReserves.toString());
  const fee = BigInt(global.poolMigrationFee.toString());
  if (fee >= realSol) throw pump.error("PoolMigrationFeeShouldBeLessThanFinalRealSolReserves");
  const solAmount = realSol - fee;
  const tokens = tokenAccount(ctx, a.associated_bonding_curve.pubkey, "associated_bonding_curve").amount;

  const user = a.user.pubkey;
  const mint = a.mint.pubkey;
  moveLiquidity(ctx, a, { baseMint, baseProgram, authBump, poolAuthority, tokens, solAmount, fee, curve });
  const zero = new BN(0);
  const updated = {
    ...curve,
    virtualTokenReserves: zero,
    virtualQuoteReserves: zero,
    realTokenReserves: zero,
    realQuoteReserves: zero,
  };
  const curveNow = ctx.get(a.bonding_curve.pubkey)!;
  const encoded = pump.encodeAccount("BondingCurve", updated, curveNow.data.length);
  // v3 (pump-v3-idl.ts): the fees kept past the known fields stay with the curve ("migration moves
  // the reserves, not the waiting fees", SWEEP_FEES.md).
  const known = pump.encodeAccount("BondingCurve", updated).length;
  if (curveNow.data.length > known) encoded.set(curveNow.data.subarray(known), known);
  ctx.set(a.bonding_curve.pubkey, { ...curveNow, data: encoded.subarray(0, Math.max(curveNow.data.length, 0)) });
  ctx.emitEvent(
    pump.encodeEvent("CompletePumpAmmMigrationEvent", {
      user,
      mint,
      mintAmount: new BN(tokens.toString()),
      solAmount: new BN(solAmount.toString()),
      poolMigrationFee: new BN(fee.toString()),
      bondingCurve: a.bonding_curve.pubkey,
      timestamp: new BN(ctx.clock.unixTimestamp.toString()),
      pool: a.pool.pubkey,
      quoteMint: NATIVE_MINT,
    }),
  );
};

interface Liquidity {
  baseMint: MintState;
  baseProgram: PublicKey;
  authBump: number;
  poolAuthority: PublicKey;
  tokens: bigint;
  solAmount: bigint;
  fee: bigint;
  curve: CurveState;
}

/**
 * The curve's tokens and SOL through the pool authority's token accounts into create_pool; the
 * fee, less what the pool's accounts cost, to the withdraw authority.
 */
function moveLiquidity(ctx: InvokeContext, a: Accounts, l: Liquidity): void {
  const { baseMint, baseProgram, authBump, poolAuthority, tokens, solAmount, fee, curve } = l;
  const mint = a.mint.pubkey;
  const user = a.user.pubkey;
  const authSeeds = [Buffer.from("pool-authority"), mint.toBytes(), bumpSeed(authBump)];
  const curveBump = findProgramAddress([Buffer.from("bonding-curve"), mint.toBuffer()], PUMP_PROGRAM_ID)[1];
  const curveSeeds = [Buffer.from("bonding-curve"), mint.toBytes(), bumpSeed(curveBump)];
  const authMint = a.pool_authority_mint_account.pubkey;
  const authWsol = a.pool_authority_wsol_account.pubkey;
  ensureAta(ctx, user, authMint, poolAuthority, mint, baseProgram);
  ctx.invoke(
    transferChecked(
      a.associated_bonding_curve.pubkey,
      mint,
      authMint,
      a.bonding_curve.pubkey,
      tokens,
      baseMint.decimals,
      baseProgram,
    ),
    [curveSeeds],
  );
  // The migration fee reaches the (not yet existing) pool authority as unwrapped WSOL. A direct
  // credit would do too (the runtime lets it open a System account that ends rent-exempt), but pump's
  // docs do not say which the program does, so the inner instructions stay as first written; the
  // balances every party ends with are the same either way. The user's rent for that first WSOL
  // account is repaid below.
  ensureAta(ctx, user, authWsol, poolAuthority, NATIVE_MINT, TOKEN_PROGRAM_ID);
  const wsolRent = ctx.get(authWsol)!.lamports;
  ctx.moveLamports(a.bonding_curve.pubkey, authWsol, fee);
  ctx.invoke(createSyncNativeInstruction(authWsol, TOKEN_PROGRAM_ID));
  ctx.invoke(createCloseAccountInstruction(authWsol, poolAuthority, poolAuthority, [], TOKEN_PROGRAM_ID), [authSeeds]);
  ensureAta(ctx, poolAuthority, authWsol, poolAuthority, NATIVE_MINT, TOKEN_PROGRAM_ID, authSeeds);
  // The curve's SOL, less the fee, is the pool's quote.
  ctx.moveLamports(a.bonding_curve.pubkey, authWsol, solAmount);
  ctx.invoke(createSyncNativeInstruction(authWsol, TOKEN_PROGRAM_ID));
  ctx.invoke(createPoolInstruction(a, baseProgram, tokens, solAmount, curve), [authSeeds]);
  ctx.invoke(createCloseAccountInstruction(authMint, user, poolAuthority, [], baseProgram), [authSeeds]);
  ctx.invoke(createCloseAccountInstruction(authWsol, poolAuthority, poolAuthority, [], TOKEN_PROGRAM_ID), [authSeeds]);
  ctx.invoke(SystemProgram.transfer({ fromPubkey: poolAuthority, toPubkey: user, lamports: wsolRent }), [authSeeds]);
  const left = ctx.get(poolAuthority)?.lamports ?? 0n;
  if (left > 0n)
    ctx.invoke(
      SystemProgram.transfer({ fromPubkey: poolAuthority, toPubkey: a.withdraw_authority.pubkey, lamports: left }),
      [authSeeds],
    );
}

/** The SDK appends pump_amm's boost vault authority (["boost_vault", pool]) and its WSOL ATA. */
function checkBoostAccounts(ctx: Parameters<InstructionHandler>[0], pool: PublicKey): void {
  const authority = ctx.accounts[NAMES.length];
  const vault = ctx.accounts[NAMES.length + 1];
  if (!authority && !vault) return;
  if (!authority || !vault) throw anchorError("AccountNotEnoughKeys", "boost vault accounts");
  const bump = pda(
    authority,
    [Buffer.from("boost_vault"), pool.toBytes()],
    PUMP_AMM_PROGRAM_ID,
    "boost_vault_authority",
  );
  void bump;
  if (!vault.pubkey.equals(getAssociatedTokenAddressSync(NATIVE_MINT, authority.pubkey, true, TOKEN_PROGRAM_ID)))
    throw anchorError("ConstraintSeeds", "A seeds constraint was violated: boost_vault");
}

function transferChecked(
  from: PublicKey,
  mint: PublicKey,
  to: PublicKey,
  authority: PublicKey,
  amount: bigint,
  decimals: number,
  tokenProgram: PublicKey,
): TransactionInstruction {
  const data = Buffer.alloc(10);
  data[0] = 12;
  data.writeBigUInt64LE(amount, 1);
  data[9] = decimals;
  return new TransactionInstruction({
    programId: tokenProgram,
    keys: [
      { pubkey: from, isSigner: false, isWritable: true },
      { pubkey: mint, isSigner: false, isWritable: false },
      { pubkey: to, isSigner: false, isWritable: true },
      { pubkey: authority, isSigner: true, isWritable: false },
    ],
    data,
  });
}

/** create_pool as pump calls it: index 0, the pool authority as creator, the curve's creator as coin creator. */
function createPoolInstruction(
  a: Record<(typeof NAMES)[number], ReturnType<typeof at>>,
  baseProgram: PublicKey,
  tokens: bigint,
  solAmount: bigint,
  curve: CurveState,
): TransactionInstruction {
  const { pumpAmm } = pumpCodecs();
  const w = (pubkey: PublicKey) => ({ pubkey, isSigner: false, isWritable: true });
  const r = (pubkey: PublicKey) => ({ pubkey, isSigner: false, isWritable: false });
  const disc = pumpAmm.instructionDiscriminator("create_pool");
  const body = Buffer.alloc(2 + 8 + 8 + 32 + 1 + 1 + 8 + 1 + 1);
  let o = 0;
  body.writeUInt16LE(0, o);
  o += 2;
  body.writeBigUInt64LE(tokens, o);
  o += 8;
  body.writeBigUInt64LE(solAmount, o);
  o += 8;
  body.set(curve.creator.toBytes(), o);
  o += 32;
  body[o++] = curve.isMayhemMode ? 1 : 0;
  body[o++] = curve.isCashbackCoin ? 1 : 0;
  body.writeBigUInt64LE(BigInt((curve.creatorFeeBps ?? new BN(0)).toString()), o);
  o += 8;
  body[o++] = curve.canEditCreatorFee ? 1 : 0;
  body[o++] = curve.isHolderReward ? 1 : 0;
  return new TransactionInstruction({
    programId: PUMP_AMM_PROGRAM_ID,
    keys: [
      w(a.pool.pubkey),
      r(GLOBAL_CONFIG),
      { pubkey: a.pool_authority.pubkey, isSigner: true, isWritable: true },
      r(a.mint.pubkey),
      r(NATIVE_MINT),
      w(a.lp_mint.pubkey),
      w(a.pool_authority_mint_account.pubkey),
      w(a.pool_authority_wsol_account.pubkey),
      w(a.user_pool_token_account.pubkey),
      w(a.pool_base_token_account.pubkey),
      w(a.pool_quote_token_account.pubkey),
      r(SystemProgram.programId),
      r(TOKEN_2022_PROGRAM_ID),
      r(baseProgram),
      r(TOKEN_PROGRAM_ID),
      r(ASSOCIATED_TOKEN_PROGRAM_ID),
      r(a.pump_amm_event_authority.pubkey),
      r(PUMP_AMM_PROGRAM_ID),
    ],
    data: Buffer.concat([Buffer.from(disc), body]),
  });
}

export const migrateHandlers: Record<string, InstructionHandler> = { migrate };
