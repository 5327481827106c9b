/**
 * pump's side of fee sharing: `migrate_bonding_curve_creator` (pump_fees' CPI target when a coin
 * opts in), `distribute_creator_fees` / `_v2` (permissionless: creator-vault(sharing_config) less
 * its rent, split by share_bps to the shareholders passed in the config's order) and the
 * `get_minimum_distributable_fee` view the SDK simulates.
 *
 * The minimum is not documented; the emulation's rule (and the view's answer) is the least amount
 * that pays every shareholder at least one lamport: max over shareholders of ceil(10,000 / share_bps).
 * Below it a distribution moves nothing and succeeds (the IDL has no error for it; pump's docs
 * only say the vault "needs to have at least the minimum"); the service never relies on that, it
 * reads the view first.
 */
import { type PublicKey, SystemProgram, TransactionInstruction } from "@solana/web3.js";
import { BN } from "@coral-xyz/anchor";
import { anchorError, type InstructionHandler, pumpCodecs } from "../anchor";
import type { InvokeContext, NativeAccountMeta } from "../runtime";
import {
  type Accounts,
  CURVE_CREATOR_OFFSET,
  checkAccounts,
  isActive,
  loadCurve,
  loadSharingConfig,
  PUMP_PROGRAM,
  SHARE_BPS_TOTAL,
  type SeedField,
  type SharingConfigValue,
  sharingPdas,
  WSOL_MINT,
  withKeyAt,
} from "./pump-fees-checks";

const pump = () => pumpCodecs().pump;

/** Compute units charged, chosen near what comparable Anchor instructions cost on mainnet. */
const UNITS = {
  migrateCreator: 8_000,
  distributeBase: 10_000,
  distributePerShareholder: 1_500,
  minimumView: 5_000,
} as const;

const bn = (v: bigint) => new BN(v.toString());
const EVENT_DISCRIMINATOR_BYTES = 8;

/** The seed `bondingCurve.creator`, read from the curve passed (null when it cannot be read: its load fails later). */
function curveCreatorSeed(ctx: InvokeContext): SeedField {
  return (path, accounts) => {
    if (path !== "bondingCurve.creator") return null;
    const account = ctx.get(accounts.key("bondingCurve"));
    if (!account || account.data.length < CURVE_CREATOR_OFFSET + 32) return null;
    return account.data.slice(CURVE_CREATOR_OFFSET, CURVE_CREATOR_OFFSET + 32);
  };
}

/** The least distributable amount that pays every shareholder at least one lamport. */
function minimumDistributableLamports(config: SharingConfigValue): bigint {
  let minimum = 0n;
  for (const h of config.shareholders) {
    const bps = BigInt(h.shareBps);
    if (bps === 0n) continue;
    const need = (BigInt(SHARE_BPS_TOTAL) + bps - 1n) / bps;
    if (need > minimum) minimum = need;
  }
  return minimum;
}

interface SharingRead {
  accounts: Accounts;
  config: SharingConfigValue;
  vaultLamports: bigint;
  distributable: bigint;
  minimum: bigint;
}

/**
 * What distribute and the view both check: the accounts (seeds of the vault from the curve's
 * creator), the config's mint (has_one, 2001), the curve's creator being the config (6053), the
 * config active (6051), and the remaining accounts naming the shareholders in order (6054).
 */
function readSharing(ctx: InvokeContext, ixName: string, remainingPerShareholder: number): SharingRead {
  const accounts = checkAccounts(pump(), ixName, ctx, curveCreatorSeed(ctx));
  const curve = loadCurve(ctx, accounts.key("bondingCurve"));
  const config = loadSharingConfig(ctx, accounts.key("sharingConfig"));
  if (!config.mint.equals(accounts.key("mint")))
    throw anchorError("ConstraintHasOne", "sharing_config: has one constraint violated (mint)");
  if (!curve.creator.equals(accounts.key("sharingConfig")))
    throw pump().error("BondingCurveAndSharingConfigCreatorMismatch");
  if (!isActive(config)) throw pump().error("SharingConfigNotActive");
  const remaining = accounts.remaining;
  const expected = config.shareholders.length * remainingPerShareholder;
  if (remaining.length !== expected || config.shareholders.some((h, i) => !remaining[i]!.pubkey.equals(h.address)))
    throw pump().error("ShareholdersAndRemainingAccountsMismatch");
  const vaultLamports = ctx.get(accounts.key("creatorVault"))?.lamports ?? 0n;
  const rent = ctx.minimumBalanceForRentExemption(0);
  return {
    accounts,
    config,
    vaultLamports,
    distributable: vaultLamports > rent ? vaultLamports - rent : 0n,
    minimum: minimumDistributableLamports(config),
  };
}

/** Pays each shareholder floor(distributable × bps / 10,000) from the vault by System transfers it signs. */
function payShareholders(ctx: InvokeContext, read: SharingRead, shareholders: readonly NativeAccountMeta[]): bigint {
  const sharingConfig = read.accounts.key("sharingConfig");
  const vault = read.accounts.key("creatorVault");
  const { bump } = sharingPdas.creatorVault(sharingConfig);
  const seeds = [Buffer.from("creator-vault"), sharingConfig.toBytes(), Uint8Array.of(bump)];
  let distributed = 0n;
  read.config.shareholders.forEach((h, i) => {
    const share = (read.distributable * BigInt(h.shareBps)) / BigInt(SHARE_BPS_TOTAL);
    if (share === 0n) return;
    ctx.invoke(SystemProgram.transfer({ fromPubkey: vault, toPubkey: shareholders[i]!.pubkey, lamports: share }), [
      seeds,
    ]);
    distributed += share;
  });
  return distributed;
}

/** A recipient the runtime could not pay as a System transfer: executable (6052) or not created (6070). */
function checkRecipients(ctx: InvokeContext, shareholders: readonly NativeAccountMeta[]): void {
  for (const meta of shareholders) {
    const account = ctx.get(meta.pubkey);
    if (!account) throw pump().error("UnableToDistributeCreatorFeesToUninitializedAccount");
    if (account.executable) throw pump().error("UnableToDistributeCreatorFeesToExecutableRecipient");
  }
}

function distribute(ctx: InvokeContext, read: SharingRead): void {
  const shareholders = read.accounts.remaining.slice(0, read.config.shareholders.length);
  ctx.consume(UNITS.distributeBase + UNITS.distributePerShareholder * shareholders.length);
  if (read.distributable < read.minimum || read.distributable === 0n) {
    ctx.log(`distributable fees ${read.distributable} below the minimum ${read.minimum}: nothing distributed`);
    return;
  }
  checkRecipients(ctx, shareholders);
  const distributed = payShareholders(ctx, read, shareholders);
  ctx.emitEvent(
    pump().encodeEvent("DistributeCreatorFeesEvent", {
      timestamp: bn(ctx.clock.unixTimestamp),
      mint: read.accounts.key("mint"),
      bondingCurve: read.accounts.key("bondingCurve"),
      sharingConfig: read.accounts.key("sharingConfig"),
      admin: read.config.admin,
      shareholders: read.config.shareholders,
      distributed: bn(distributed),
      quoteMint: WSOL_MINT,
    }),
  );
}

const distributeCreatorFees: InstructionHandler = (ctx) => {
  distribute(ctx, readSharing(ctx, "distributeCreatorFees", 1));
};

/**
 * v2 for a SOL coin (quote WSOL): the lamport path of v1, the vault's WSOL account unused. A
 * token-quoted coin's distribution (token transfers between ATAs) is not emulated.
 */
const distributeCreatorFeesV2: InstructionHandler = (ctx) => {
  const quoteMint = ctx.accounts[9]?.pubkey;
  if (quoteMint && !quoteMint.equals(WSOL_MINT)) {
    ctx.log("distribute_creator_fees_v2 for a token-quoted coin is not emulated by the local chain");
    throw anchorError("InstructionFallbackNotFound", "token-quoted distribution is not emulated");
  }
  const read = readSharing(ctx, "distributeCreatorFeesV2", 1);
  const curve = loadCurve(ctx, read.accounts.key("bondingCurve"));
  if (!curve.quoteMint.equals(read.accounts.key("quoteMint"))) throw pump().error("UnsupportedQuoteMint");
  distribute(ctx, read);
};

/**
 * The view. It emits MinimumDistributableFeeEvent as Anchor's `emit!` does (a bare `Program data:`
 * log: the IDL gives it no event authority to self-CPI with) and returns the same event as its
 * return data, the borsh body without the discriminator: what the IDL's `returns` names and what the
 * SDK's OnlinePumpSdk.getMinimumDistributableFee decodes.
 */
const getMinimumDistributableFee: InstructionHandler = (ctx) => {
  ctx.consume(UNITS.minimumView);
  const read = readSharing(ctx, "getMinimumDistributableFee", 1);
  const event = pump().encodeEvent("MinimumDistributableFeeEvent", {
    minimumRequired: bn(read.minimum),
    distributableFees: bn(read.distributable),
    canDistribute: read.distributable >= read.minimum && read.distributable > 0n,
  });
  ctx.logData(event);
  ctx.setReturnData(event.subarray(EVENT_DISCRIMINATOR_BYTES));
};

/**
 * pump_fees' CPI when a coin opts in: the curve's creator becomes the sharing config. No account
 * signs (the IDL names none), so any caller may make it, and it only ever points a curve at the
 * pump_fees config of its own mint, which pump_fees creates for the coin's creator.
 */
const migrateBondingCurveCreator: InstructionHandler = (ctx) => {
  ctx.consume(UNITS.migrateCreator);
  const accounts = checkAccounts(pump(), "migrateBondingCurveCreator", ctx);
  const curveAddress = accounts.key("bondingCurve");
  const curve = loadCurve(ctx, curveAddress);
  const sharingConfig = accounts.key("sharingConfig");
  const config = loadSharingConfig(ctx, sharingConfig);
  if (!config.mint.equals(accounts.key("mint")))
    throw anchorError("ConstraintHasOne", "sharing_config: has one constraint violated (mint)");
  if (curve.creator.equals(sharingConfig)) throw pump().error("CreatorMigratedToSharingConfig");
  ctx.set(curveAddress, withKeyAt(curve.account, CURVE_CREATOR_OFFSET, sharingConfig));
  ctx.emitEvent(
    pump().encodeEvent("MigrateBondingCurveCreatorEvent", {
      timestamp: bn(ctx.clock.unixTimestamp),
      mint: accounts.key("mint"),
      bondingCurve: curveAddress,
      sharingConfig,
      oldCreator: curve.creator,
      newCreator: sharingConfig,
    }),
  );
};

export const sharingHandlers: Record<string, InstructionHandler> = {
  migrateBondingCurveCreator,
  distributeCreatorFees,
  distributeCreatorFeesV2,
  getMinimumDistributableFee,
};

/** pump's `migrate_bonding_curve_creator` as pump_fees CPIs it. */
export function migrateBondingCurveCreatorIx(accounts: {
  mint: PublicKey;
  bondingCurve: PublicKey;
  sharingConfig: PublicKey;
  eventAuthority: PublicKey;
}): TransactionInstruction {
  return new TransactionInstruction({
    programId: PUMP_PROGRAM,
    keys: [
      { pubkey: accounts.mint, isSigner: false, isWritable: false },
      { pubkey: accounts.bondingCurve, isSigner: false, isWritable: true },
      { pubkey: accounts.sharingConfig, isSigner: false, isWritable: false },
      { pubkey: accounts.eventAuthority, isSigner: false, isWritable: false },
      { pubkey: PUMP_PROGRAM, isSigner: false, isWritable: false },
    ],
    data: Buffer.from(pump().instructionDiscriminator("migrateBondingCurveCreator")),
  });
}
