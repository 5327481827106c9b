/**
 * What fee sharing's instructions (pump_fees, and pump's and pump_amm's side of it) share: Anchor's
 * account checks driven by the IDL with PDAs under the running program unless the IDL names
 * another, optional accounts (the SDK passes the program's own id for an absent one), and the
 * accounts fee sharing reads and rewrites (SharingConfig, BondingCurve, Pool) by the IDLs' layouts.
 */
import { NATIVE_MINT } from "@solana/spl-token";
import { PublicKey } from "@solana/web3.js";
import { anchorError, type IdlCodec, pumpCodecs } from "../anchor";
import type { InvokeContext, NativeAccount, NativeAccountMeta } from "../runtime";
import { findProgramAddress } from "../pda";

export const PUMP_PROGRAM = new PublicKey("6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P");
export const PUMP_AMM_PROGRAM = new PublicKey("pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA");
const PUMP_FEES_PROGRAM = new PublicKey("pfeeUxB6jkeY1Hxd7CsFCAjcbHA9rWtchMGdZ6VojVZ");
const SYSTEM_PROGRAM = new PublicKey("11111111111111111111111111111111");
export const WSOL_MINT = NATIVE_MINT;

/** At most this many shareholders (pump_fees `TooManyShareholders`; the SDK's MAX_SHAREHOLDERS). */
export const SHAREHOLDERS_MAX = 10;
export const SHARE_BPS_TOTAL = 10_000;
/** `SharingConfig::MAX_SIZE`: the docs' allocation for every sharing config (CREATOR_FEE_SHARING.md). */
export const SHARING_CONFIG_SPACE = 1024;
/** Sharing configs created by the current deployment; `update_fee_shares_v2` refuses version 1 ones. */
export const SHARING_CONFIG_VERSION = 2;

const text = (s: string) => Buffer.from(s);

function pdaOf(seeds: readonly Uint8Array[], programId: PublicKey): { address: PublicKey; bump: number } {
  const [address, bump] = findProgramAddress(
    seeds.map((s) => Buffer.from(s)),
    programId,
  );
  return { address, bump };
}

export const sharingPdas = {
  sharingConfig: (mint: PublicKey) => pdaOf([text("sharing-config"), mint.toBytes()], PUMP_FEES_PROGRAM),
  bondingCurve: (mint: PublicKey) => pdaOf([text("bonding-curve"), mint.toBytes()], PUMP_PROGRAM),
  /** pump's creator vault: a System account, PDA ["creator-vault", creator] (hyphen). */
  creatorVault: (creator: PublicKey) => pdaOf([text("creator-vault"), creator.toBytes()], PUMP_PROGRAM),
  poolAuthority: (mint: PublicKey) => pdaOf([text("pool-authority"), mint.toBytes()], PUMP_PROGRAM),
  /** pump_amm's canonical pool: ["pool", u16 LE 0, pool_authority, mint, quote_mint]. */
  canonicalPool: (mint: PublicKey, quoteMint: PublicKey) =>
    pdaOf(
      [
        text("pool"),
        Uint8Array.of(0, 0),
        sharingPdas.poolAuthority(mint).address.toBytes(),
        mint.toBytes(),
        quoteMint.toBytes(),
      ],
      PUMP_AMM_PROGRAM,
    ),
};

interface IdlSeed {
  kind: "const" | "account" | "arg";
  value?: number[];
  path?: string;
}

interface IdlAccountItem {
  name: string;
  writable?: boolean;
  signer?: boolean;
  optional?: boolean;
  address?: string;
  pda?: { seeds: IdlSeed[]; program?: IdlSeed };
}

export interface Accounts {
  key(name: string): PublicKey;
  meta(name: string): NativeAccountMeta;
  /** Whether an optional account was passed (the SDK passes the program's own id for "none"). */
  present(name: string): boolean;
  remaining: readonly NativeAccountMeta[];
}

/** A seed naming another account's field ("bondingCurve.creator"); null skips the check. */
export type SeedField = (path: string, accounts: Accounts) => Uint8Array | null;

/**
 * Anchor's `try_accounts` for `ixName` as the IDL declares it: too few accounts 3005; then account
 * by account the types (a `Signer` that did not sign 3010, a `Program` slot with another id 3008);
 * then the constraints in order (mut 2000, address 2012, seeds 2006). Absent optional accounts are
 * not checked.
 */
export function checkAccounts(
  codec: IdlCodec,
  ixName: string,
  ctx: InvokeContext,
  seedField: SeedField = () => null,
): Accounts {
  const ix = codec.idl.instructions.find((i) => i.name === ixName);
  if (!ix) throw new Error(`no instruction ${ixName} in the IDL`);
  const items = ix.accounts as IdlAccountItem[];
  if (ctx.accounts.length < items.length)
    throw anchorError("AccountNotEnoughKeys", "Not enough account keys given to the instruction");
  const byName = new Map(items.map((a, i) => [a.name, ctx.accounts[i]!]));
  const absent = (item: IdlAccountItem, meta: NativeAccountMeta) =>
    item.optional === true && meta.pubkey.equals(ctx.programId);
  const accounts: Accounts = {
    key: (name) => lookup(byName, name).pubkey,
    meta: (name) => lookup(byName, name),
    present: (name) => {
      const item = items.find((i) => i.name === name)!;
      return !absent(item, lookup(byName, name));
    },
    remaining: ctx.accounts.slice(items.length),
  };
  items.forEach((item, i) => {
    const meta = ctx.accounts[i]!;
    if (absent(item, meta)) return;
    if (item.signer && !meta.isSigner) throw anchorError("AccountNotSigner", `${item.name}: signature missing`);
    if (item.address && /.Program$/.test(item.name) && !meta.pubkey.equals(new PublicKey(item.address)))
      throw anchorError("InvalidProgramId", `${item.name}: program ID was not as expected`);
  });
  items.forEach((item, i) => {
    const meta = ctx.accounts[i]!;
    if (absent(item, meta)) return;
    if (item.writable && !meta.isWritable) throw anchorError("ConstraintMut", `${item.name}: mut constraint violated`);
    if (item.address && !meta.pubkey.equals(new PublicKey(item.address)))
      throw anchorError("ConstraintAddress", `${item.name}: address constraint violated`);
    if (item.pda) checkSeeds(ctx, item, meta.pubkey, accounts, seedField);
  });
  return accounts;
}

function lookup(byName: Map<string, NativeAccountMeta>, name: string): NativeAccountMeta {
  const m = byName.get(name);
  if (!m) throw new Error(`no account ${name} in the IDL's list`);
  return m;
}

function checkSeeds(
  ctx: InvokeContext,
  item: IdlAccountItem,
  actual: PublicKey,
  accounts: Accounts,
  seedField: SeedField,
): void {
  const seeds: Uint8Array[] = [];
  for (const seed of item.pda!.seeds) {
    const bytes = seedBytes(seed, accounts, seedField);
    if (bytes === null) return;
    seeds.push(bytes);
  }
  const programSeed = item.pda!.program;
  const program = programSeed ? seedBytes(programSeed, accounts, seedField) : ctx.programId.toBytes();
  if (program === null) return;
  if (!pdaOf(seeds, new PublicKey(program)).address.equals(actual))
    throw anchorError("ConstraintSeeds", `${item.name}: seeds constraint violated`);
}

function seedBytes(seed: IdlSeed, accounts: Accounts, seedField: SeedField): Uint8Array | null {
  if (seed.kind === "const") return Uint8Array.from(seed.value ?? []);
  if (seed.kind === "account" && seed.path && !seed.path.includes(".")) return accounts.key(seed.path).toBytes();
  if (seed.kind === "account" && seed.path) return seedField(seed.path, accounts);
  return null;
}

/** Anchor's `Account<'info, T>` load: initialized (3012), owned by `owner` (3007), of type T (3001/3002). */
export function loadAccount<T>(
  codec: IdlCodec,
  ctx: InvokeContext,
  address: PublicKey,
  typeName: string,
  owner: PublicKey,
): { data: T; account: NativeAccount } {
  const account = ctx.get(address);
  if (!account) throw anchorError("AccountNotInitialized", `${typeName}: expected to be already initialized`);
  if (!account.owner.equals(owner))
    throw anchorError("AccountOwnedByWrongProgram", `${typeName}: owned by a different program`);
  if (account.data.length < 8) throw anchorError("AccountDiscriminatorNotFound", `${typeName}: no discriminator`);
  const data = codec.decodeAccount<T>(typeName, account.data);
  if (data === null) throw anchorError("AccountDiscriminatorMismatch", `${typeName}: discriminator did not match`);
  return { data, account };
}

export interface ShareholderValue {
  address: PublicKey;
  shareBps: number;
}

/** SharingConfig as the pump_fees IDL decodes it (camelCase). */
export interface SharingConfigValue {
  bump: number;
  version: number;
  status: { active?: Record<string, never>; paused?: Record<string, never> };
  mint: PublicKey;
  admin: PublicKey;
  adminRevoked: boolean;
  shareholders: ShareholderValue[];
}

export function isActive(config: SharingConfigValue): boolean {
  return config.status.active !== undefined;
}

/** A sharing config as pump and pump_amm read it (owned by pump_fees, at its PDA for `mint`). */
export function loadSharingConfig(ctx: InvokeContext, address: PublicKey): SharingConfigValue {
  return loadAccount<SharingConfigValue>(pumpCodecs().pumpFees, ctx, address, "SharingConfig", PUMP_FEES_PROGRAM).data;
}

/**
 * The BondingCurve fields fee sharing reads, at their fixed offsets: older curves are shorter than
 * the current IDL's 125 bytes (PUMP.md §5), so the account is not decoded whole; `creator` is
 * rewritten in place for the same reason.
 */
const CURVE_COMPLETE_OFFSET = 48;
export const CURVE_CREATOR_OFFSET = 49;
const CURVE_QUOTE_MINT_OFFSET = 83;

export interface CurveFields {
  account: NativeAccount;
  complete: boolean;
  creator: PublicKey;
  /** the coin's quote mint, WSOL for SOL coins (which store the default key or nothing) */
  quoteMint: PublicKey;
}

export function loadCurve(ctx: InvokeContext, address: PublicKey): CurveFields {
  const codec = pumpCodecs().pump;
  const account = ctx.get(address);
  if (!account) throw anchorError("AccountNotInitialized", "bonding_curve: expected to be already initialized");
  if (!account.owner.equals(PUMP_PROGRAM))
    throw anchorError("AccountOwnedByWrongProgram", "bonding_curve: owned by a different program");
  const disc = codec.accountDiscriminator("BondingCurve");
  if (account.data.length < CURVE_CREATOR_OFFSET + 32 || !disc.every((b, i) => account.data[i] === b))
    throw anchorError("AccountDiscriminatorMismatch", "bonding_curve: discriminator did not match");
  const quoteBytes =
    account.data.length >= CURVE_QUOTE_MINT_OFFSET + 32
      ? account.data.subarray(CURVE_QUOTE_MINT_OFFSET, CURVE_QUOTE_MINT_OFFSET + 32)
      : new Uint8Array(32);
  const quote = new PublicKey(quoteBytes);
  return {
    account,
    complete: account.data[CURVE_COMPLETE_OFFSET] === 1,
    creator: new PublicKey(account.data.subarray(CURVE_CREATOR_OFFSET, CURVE_CREATOR_OFFSET + 32)),
    quoteMint: quote.equals(PublicKey.default) ? WSOL_MINT : quote,
  };
}

/** Pool fields fee sharing reads (pump_amm IDL `Pool`), by offset for the same reason as the curve's. */
const POOL_INDEX_OFFSET = 9;
export const POOL_CREATOR_OFFSET = 11;
const POOL_BASE_MINT_OFFSET = 43;
const POOL_QUOTE_MINT_OFFSET = 75;
export const POOL_COIN_CREATOR_OFFSET = 211;

export interface PoolFields {
  account: NativeAccount;
  index: number;
  creator: PublicKey;
  baseMint: PublicKey;
  quoteMint: PublicKey;
  coinCreator: PublicKey;
}

export function loadPool(ctx: InvokeContext, address: PublicKey): PoolFields {
  const codec = pumpCodecs().pumpAmm;
  const account = ctx.get(address);
  if (!account) throw anchorError("AccountNotInitialized", "pool: expected to be already initialized");
  if (!account.owner.equals(PUMP_AMM_PROGRAM))
    throw anchorError("AccountOwnedByWrongProgram", "pool: owned by a different program");
  const disc = codec.accountDiscriminator("Pool");
  if (account.data.length < POOL_COIN_CREATOR_OFFSET + 32 || !disc.every((b, i) => account.data[i] === b))
    throw anchorError("AccountDiscriminatorMismatch", "pool: discriminator did not match");
  const key = (offset: number) => new PublicKey(account.data.subarray(offset, offset + 32));
  return {
    account,
    index: account.data[POOL_INDEX_OFFSET]! | (account.data[POOL_INDEX_OFFSET + 1]! << 8),
    creator: key(POOL_CREATOR_OFFSET),
    baseMint: key(POOL_BASE_MINT_OFFSET),
    quoteMint: key(POOL_QUOTE_MINT_OFFSET),
    coinCreator: key(POOL_COIN_CREATOR_OFFSET),
  };
}

/** `account` with the 32 bytes at `offset` replaced by `key`. */
export function withKeyAt(account: NativeAccount, offset: number, key: PublicKey): NativeAccount {
  const data = Uint8Array.from(account.data);
  data.set(key.toBytes(), offset);
  return { ...account, data };
}

/** 8-byte discriminator ‖ borsh args, as Anchor's client encodes an instruction. */
function instructionData(codec: IdlCodec, name: string, args: Uint8Array = new Uint8Array(0)): Buffer {
  return Buffer.concat([codec.instructionDiscriminator(name), args]);
}
