/**
 * pump_fees (pfeeUxB6jkeY1Hxd7CsFCAjcbHA9rWtchMGdZ6VojVZ), emulated: creator fee sharing
 * (CREATOR_FEE_SHARING.md).
 *
 * - `create_fee_sharing_config`: the coin's creator (or pump Global's admin_set_creator_authority)
 *   opts the coin in. Creates ["sharing-config", mint] (1024 bytes, rent paid by the payer) with
 *   the creator as admin and sole shareholder, then CPIs pump `migrate_bonding_curve_creator` (and
 *   pump_amm `migrate_pool_coin_creator` for a graduated coin) so fees accrue to the config's vaults.
 *   A second call is a no-op, as the docs say.
 * - `update_fee_shares` / `_v2`: the admin sets the final shareholders once (at most 10, none
 *   zero or repeated, summing to 10,000 bps), after sweeping the AMM vault into pump's (CPI
 *   pump_amm `transfer_creator_fees_to_pump(_v2)` when it holds fees) and distributing what is
 *   pending to the current shareholders (CPI pump `distribute_creator_fees(_v2)`); then the admin
 *   is revoked.
 *
 * Genesis: none. What these instructions read beforehand is pump's Global (pump's genesis), and
 * the FeeConfig accounts belong to pump's and pump_amm's genesis. FeeProgramGlobal is read only by
 * the social-fee instructions, which are not emulated.
 */
import { PublicKey, SystemProgram, TransactionInstruction } from "@solana/web3.js";
import { BN } from "@coral-xyz/anchor";
import { anchorError, anchorProgram, type InstructionHandler, pumpCodecs } from "../anchor";
import type { InvokeContext, NativeProgram } from "../runtime";
import {
  type Accounts,
  checkAccounts,
  isActive,
  loadAccount,
  loadCurve,
  loadPool,
  PUMP_AMM_PROGRAM,
  PUMP_PROGRAM,
  SHARE_BPS_TOTAL,
  SHAREHOLDERS_MAX,
  SHARING_CONFIG_SPACE,
  SHARING_CONFIG_VERSION,
  type ShareholderValue,
  type SharingConfigValue,
  sharingPdas,
  WSOL_MINT,
} from "./pump-fees-checks";
import { migratePoolCoinCreatorIx } from "./pump-fees-pool-creator";
import { migrateBondingCurveCreatorIx } from "./pump-sharing";
import { lamportsAsNumber } from "../../lamports";

const fees = () => pumpCodecs().pumpFees;
const bn = (v: bigint) => new BN(v.toString());

/** Compute units charged for the instruction's own work (its CPIs are charged by their callees). */
const UNITS = { createConfig: 30_000, updateShares: 25_000 } as const;

/** pump Global's `admin_set_creator_authority` (IDL `Global`, after the 7 fee recipients). */
const GLOBAL_ADMIN_SET_CREATOR_AUTHORITY_OFFSET = 418;

function adminSetCreatorAuthority(ctx: InvokeContext, global: Accounts): PublicKey {
  const { account } = loadAccount(pumpCodecs().pump, ctx, global.key("global"), "Global", PUMP_PROGRAM);
  const at = GLOBAL_ADMIN_SET_CREATOR_AUTHORITY_OFFSET;
  return new PublicKey(account.data.subarray(at, at + 32));
}

/** Anchor's `init` of a PDA: createAccount, or top-up + allocate + assign when it already holds lamports. */
function initPda(ctx: InvokeContext, payer: PublicKey, address: PublicKey, space: number, seeds: Uint8Array[]): void {
  const rent = ctx.minimumBalanceForRentExemption(space);
  const current = ctx.get(address)?.lamports ?? 0n;
  if (current === 0n) {
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
  if (current < rent)
    ctx.invoke(SystemProgram.transfer({ fromPubkey: payer, toPubkey: address, lamports: rent - current }));
  ctx.invoke(SystemProgram.allocate({ accountPubkey: address, space }), [seeds]);
  ctx.invoke(SystemProgram.assign({ accountPubkey: address, programId: ctx.programId }), [seeds]);
}

interface Coin {
  /** the coin's current creator: the pool's coin_creator once graduated, else the curve's */
  creator: PublicKey;
  pool: PublicKey | null;
}

/**
 * The coin as create_fee_sharing_config sees it. A complete curve needs the AMM accounts (6019);
 * a pool passed must be the coin's canonical pool (6008).
 */
function readCoin(ctx: InvokeContext, accounts: Accounts): Coin {
  const mint = accounts.key("mint");
  const curve = loadCurve(ctx, accounts.key("bondingCurve"));
  const poolGiven = accounts.present("pool");
  if (!poolGiven) {
    if (curve.complete) throw fees().error("AmmAccountsRequiredForGraduatedCoin");
    return { creator: curve.creator, pool: null };
  }
  if (!accounts.present("pumpAmmProgram") || !accounts.present("pumpAmmEventAuthority"))
    throw fees().error("AmmAccountsRequiredForGraduatedCoin");
  const poolAddress = accounts.key("pool");
  if (!sharingPdas.canonicalPool(mint, curve.quoteMint).address.equals(poolAddress)) throw fees().error("InvalidPool");
  const pool = loadPool(ctx, poolAddress);
  if (!pool.baseMint.equals(mint)) throw fees().error("InvalidPool");
  return { creator: pool.coinCreator, pool: poolAddress };
}

const createFeeSharingConfig: InstructionHandler = (ctx) => {
  ctx.consume(UNITS.createConfig);
  const accounts = checkAccounts(fees(), "createFeeSharingConfig", ctx);
  const mint = accounts.key("mint");
  const sharingConfig = accounts.key("sharingConfig");
  const existing = ctx.get(sharingConfig);
  if (existing?.owner.equals(ctx.programId)) {
    ctx.log("sharing config already exists");
    return;
  }
  const payer = accounts.key("payer");
  const admin = adminSetCreatorAuthority(ctx, accounts);
  const coin = readCoin(ctx, accounts);
  if (!payer.equals(coin.creator) && !payer.equals(admin)) throw fees().error("NotAuthorized");
  const { bump } = sharingPdas.sharingConfig(mint);
  initPda(ctx, payer, sharingConfig, SHARING_CONFIG_SPACE, [
    Buffer.from("sharing-config"),
    mint.toBytes(),
    Uint8Array.of(bump),
  ]);
  const shareholders: ShareholderValue[] = [{ address: coin.creator, shareBps: SHARE_BPS_TOTAL }];
  const config: SharingConfigValue = {
    bump,
    version: SHARING_CONFIG_VERSION,
    status: { active: {} },
    mint,
    admin: coin.creator,
    adminRevoked: false,
    shareholders,
  };
  const created = ctx.get(sharingConfig)!;
  ctx.set(sharingConfig, { ...created, data: fees().encodeAccount("SharingConfig", config, SHARING_CONFIG_SPACE) });
  ctx.invoke(
    migrateBondingCurveCreatorIx({
      mint,
      bondingCurve: accounts.key("bondingCurve"),
      sharingConfig,
      eventAuthority: accounts.key("pumpEventAuthority"),
    }),
  );
  if (coin.pool)
    ctx.invoke(
      migratePoolCoinCreatorIx({
        pool: coin.pool,
        sharingConfig,
        eventAuthority: accounts.key("pumpAmmEventAuthority"),
      }),
    );
  ctx.emitEvent(
    fees().encodeEvent("CreateFeeSharingConfigEvent", {
      timestamp: bn(ctx.clock.unixTimestamp),
      mint,
      bondingCurve: accounts.key("bondingCurve"),
      pool: coin.pool,
      sharingConfig,
      admin: coin.creator,
      initialShareholders: shareholders,
      status: { active: {} },
    }),
  );
};

/** The new list's rules, in the order the SDK checks them (sdk.ts updateFeeShares). */
function checkShareholders(shareholders: readonly ShareholderValue[]): void {
  if (shareholders.length === 0) throw fees().error("NoShareholders");
  if (shareholders.length > SHAREHOLDERS_MAX) throw fees().error("TooManyShareholders");
  if (shareholders.some((h) => h.shareBps === 0)) throw fees().error("ZeroShareNotAllowed");
  const total = shareholders.reduce((n, h) => n + h.shareBps, 0);
  if (total !== SHARE_BPS_TOTAL) throw fees().error("InvalidShareTotal");
  if (new Set(shareholders.map((h) => h.address.toBase58())).size !== shareholders.length)
    throw fees().error("DuplicateShareholder");
}

const TOKEN_ACCOUNT_AMOUNT_OFFSET = 64;

/** Quote tokens the AMM creator vault holds (0 when its account does not exist). */
function ammVaultAmount(ctx: InvokeContext, ata: PublicKey): bigint {
  const account = ctx.get(ata);
  if (!account || account.data.length < TOKEN_ACCOUNT_AMOUNT_OFFSET + 8) return 0n;
  return Buffer.from(account.data).readBigUInt64LE(TOKEN_ACCOUNT_AMOUNT_OFFSET);
}

function meta(accounts: Accounts, name: string, writable = false, signer = false) {
  return { pubkey: accounts.key(name), isSigner: signer, isWritable: writable };
}

/** pump_amm `transfer_creator_fees_to_pump` (v1, WSOL) or `_v2`, as update_fee_shares CPIs it. */
function transferToPumpIx(accounts: Accounts, v2: boolean): TransactionInstruction {
  const amm = pumpCodecs().pumpAmm;
  const keys = v2
    ? [
        meta(accounts, "authority", true, true),
        meta(accounts, "quoteMint"),
        meta(accounts, "tokenProgram"),
        meta(accounts, "systemProgram"),
        meta(accounts, "associatedTokenProgram"),
        meta(accounts, "sharingConfig"),
        meta(accounts, "coinCreatorVaultAuthority", true),
        meta(accounts, "coinCreatorVaultAta", true),
        meta(accounts, "pumpCreatorVault", true),
        meta(accounts, "pumpCreatorVaultAta", true),
        meta(accounts, "ammEventAuthority"),
        meta(accounts, "pumpAmmProgram"),
      ]
    : [
        meta(accounts, "wsolMint"),
        meta(accounts, "tokenProgram"),
        meta(accounts, "systemProgram"),
        meta(accounts, "associatedTokenProgram"),
        meta(accounts, "sharingConfig"),
        meta(accounts, "coinCreatorVaultAuthority", true),
        meta(accounts, "coinCreatorVaultAta", true),
        meta(accounts, "pumpCreatorVault", true),
        meta(accounts, "ammEventAuthority"),
        meta(accounts, "pumpAmmProgram"),
      ];
  const name = v2 ? "transferCreatorFeesToPumpV2" : "transferCreatorFeesToPump";
  return new TransactionInstruction({
    programId: PUMP_AMM_PROGRAM,
    keys,
    data: Buffer.from(amm.instructionDiscriminator(name)),
  });
}

/** pump `distribute_creator_fees` (v1) or `_v2` with initialize_ata, to the current shareholders. */
function distributeIx(accounts: Accounts, v2: boolean): TransactionInstruction {
  const pump = pumpCodecs().pump;
  const remaining = accounts.remaining.map((m) => ({ pubkey: m.pubkey, isSigner: false, isWritable: m.isWritable }));
  const common = [
    meta(accounts, "mint"),
    meta(accounts, "bondingCurve"),
    meta(accounts, "sharingConfig"),
    meta(accounts, "pumpCreatorVault", true),
    meta(accounts, "systemProgram"),
    meta(accounts, "pumpEventAuthority"),
    meta(accounts, "pumpProgram"),
  ];
  const keys = v2
    ? [
        meta(accounts, "authority", true, true),
        ...common,
        meta(accounts, "pumpCreatorVaultAta", true),
        meta(accounts, "quoteMint"),
        meta(accounts, "tokenProgram"),
        meta(accounts, "associatedTokenProgram"),
      ]
    : common;
  const data = v2
    ? Buffer.concat([pump.instructionDiscriminator("distributeCreatorFeesV2"), Uint8Array.of(1)])
    : Buffer.from(pump.instructionDiscriminator("distributeCreatorFees"));
  return new TransactionInstruction({ programId: PUMP_PROGRAM, keys: [...keys, ...remaining], data });
}

function updateFeeShares(ctx: InvokeContext, args: Record<string, unknown>, v2: boolean): void {
  ctx.consume(UNITS.updateShares);
  const accounts = checkAccounts(fees(), v2 ? "updateFeeSharesV2" : "updateFeeShares", ctx);
  const sharingConfig = accounts.key("sharingConfig");
  const { data: config, account } = loadAccount<SharingConfigValue>(
    fees(),
    ctx,
    sharingConfig,
    "SharingConfig",
    ctx.programId,
  );
  if (!config.mint.equals(accounts.key("mint")))
    throw anchorError("ConstraintHasOne", "sharing_config: has one constraint violated (mint)");
  if (config.adminRevoked) throw fees().error("SharingConfigAdminRevoked");
  if (!config.admin.equals(accounts.key("authority"))) throw fees().error("InvalidAdmin");
  if (v2 && config.version === 1) throw fees().error("InvalidSharingConfig");
  if (!isActive(config)) throw fees().error("SharingConfigNotActive");
  const shareholders = (args.shareholders as ShareholderValue[]).map((h) => ({
    address: h.address,
    shareBps: h.shareBps,
  }));
  checkShareholders(shareholders);
  if (v2 && !accounts.key("quoteMint").equals(WSOL_MINT)) {
    ctx.log("update_fee_shares_v2 for a token-quoted coin is not emulated by the local chain");
    throw anchorError("InstructionFallbackNotFound", "token-quoted fee sharing is not emulated");
  }
  if (ammVaultAmount(ctx, accounts.key("coinCreatorVaultAta")) > 0n) ctx.invoke(transferToPumpIx(accounts, v2));
  ctx.invoke(distributeIx(accounts, v2));
  const updated: SharingConfigValue = { ...config, shareholders, adminRevoked: true };
  const current = ctx.get(sharingConfig) ?? account;
  ctx.set(sharingConfig, {
    ...current,
    data: fees().encodeAccount("SharingConfig", updated, current.data.length),
  });
  ctx.emitEvent(
    fees().encodeEvent("UpdateFeeSharesEvent", {
      timestamp: bn(ctx.clock.unixTimestamp),
      mint: accounts.key("mint"),
      sharingConfig,
      admin: config.admin,
      newShareholders: shareholders,
      version: config.version,
    }),
  );
}

const handlers: Record<string, InstructionHandler> = {
  createFeeSharingConfig,
  updateFeeShares: (ctx, args) => updateFeeShares(ctx, args, false),
  updateFeeSharesV2: (ctx, args) => updateFeeShares(ctx, args, true),
};

export function pumpFeesProgram(): NativeProgram {
  return anchorProgram("pump_fees", pumpCodecs().pumpFees, handlers, () => []);
}
