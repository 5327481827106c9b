/**
 * What pump's emulated instructions share: the programs' ids, their PDAs, and Anchor's account
 * checks driven by the IDL (each account at its index, signer and writable flags, fixed addresses,
 * PDA seeds), refused with the code Anchor gives for each.
 */
import { PublicKey } from "@solana/web3.js";
import { anchorError, type IdlCodec } from "../anchor";
import type { InvokeContext, NativeAccount, NativeAccountMeta } from "../runtime";
import { findProgramAddress } from "../pda";

export const PUMP_ID = new PublicKey("6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P");
const _PUMP_AMM_ID = new PublicKey("pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA");
export const PUMP_FEES_ID = new PublicKey("pfeeUxB6jkeY1Hxd7CsFCAjcbHA9rWtchMGdZ6VojVZ");
const _MAYHEM_ID = new PublicKey("MAyhSmzXzV1pTf7LsNkrNwkWKTo4ougAJ1PPg47MD4e");
export const SYSTEM_ID = new PublicKey("11111111111111111111111111111111");
const _TOKEN_ID = new PublicKey("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
export const TOKEN_2022_ID = new PublicKey("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb");
const ATA_ID = new PublicKey("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL");

const text = (s: string) => Buffer.from(s);

/** A PDA of `programId` with its bump: the address and the seeds that sign for it. */
function pda(
  seeds: readonly Uint8Array[],
  programId: PublicKey = PUMP_ID,
): { address: PublicKey; seeds: Uint8Array[] } {
  const [address, bump] = findProgramAddress(
    seeds.map((s) => Buffer.from(s)),
    programId,
  );
  return { address, seeds: [...seeds, Uint8Array.of(bump)] };
}

export const pumpPda = {
  global: () => pda([text("global")]),
  mintAuthority: () => pda([text("mint-authority")]),
  bondingCurve: (mint: PublicKey) => pda([text("bonding-curve"), mint.toBytes()]),
  bondingCurveV2: (mint: PublicKey) => pda([text("bonding-curve-v2"), mint.toBytes()]),
  creatorVault: (creator: PublicKey) => pda([text("creator-vault"), creator.toBytes()]),
  globalVolumeAccumulator: () => pda([text("global_volume_accumulator")]),
  userVolumeAccumulator: (user: PublicKey) => pda([text("user_volume_accumulator"), user.toBytes()]),
  eventAuthority: () => pda([text("__event_authority")]),
  /** pump_fees' FeeConfig for pump's trades: ["fee_config", pump program id] under pump_fees. */
  feeConfig: () => pda([text("fee_config"), PUMP_ID.toBytes()], PUMP_FEES_ID),
  sharingConfig: (mint: PublicKey) => pda([text("sharing-config"), mint.toBytes()], PUMP_FEES_ID),
};

/** The associated token account of `owner` for `mint` under `tokenProgram`. */
function _ata(owner: PublicKey, mint: PublicKey, tokenProgram: PublicKey): PublicKey {
  return findProgramAddress([owner.toBuffer(), tokenProgram.toBuffer(), mint.toBuffer()], ATA_ID)[0];
}

interface IdlSeed {
  kind: "const" | "account" | "arg";
  value?: number[];
  path?: string;
  account?: string;
}

interface IdlAccountItem {
  name: string;
  writable?: boolean;
  signer?: boolean;
  address?: string;
  pda?: { seeds: IdlSeed[]; program?: IdlSeed };
}

/** An instruction's accounts by IDL name, checked; `remaining` are those after the IDL's list. */
export interface CheckedAccounts {
  key(name: string): PublicKey;
  meta(name: string): NativeAccountMeta;
  remaining: readonly NativeAccountMeta[];
}

/**
 * A seed that names a field of another account ("bonding_curve.creator"): the caller reads it
 * from that account's current data; null when the account cannot be read (the check is skipped:
 * the caller's own read fails with its code).
 */
export type SeedField = (path: string, accounts: CheckedAccounts) => Uint8Array | null;

/**
 * Anchor's `try_accounts` for `ixName` as the IDL declares it. Types first, account by account
 * (too few: AccountNotEnoughKeys 3005; a `Signer` that did not sign: AccountNotSigner 3010; a
 * fixed program id: InvalidProgramId 3008), then the constraints in order (mut 2000, address
 * 2012, seeds 2006).
 */
export function checkAccounts(
  codec: IdlCodec,
  ixName: string,
  ctx: InvokeContext,
  seedField: SeedField = () => null,
): CheckedAccounts {
  const items = idlAccounts(codec, ixName);
  if (ctx.accounts.length < items.length)
    throw anchorError("AccountNotEnoughKeys", "Not enough account keys given to the instruction");
  const byName = new Map(items.map((a, i) => [a.name, ctx.accounts[i]!]));
  const checked: CheckedAccounts = {
    key: (name) => lookup(byName, name).pubkey,
    meta: (name) => lookup(byName, name),
    remaining: ctx.accounts.slice(items.length),
  };
  items.forEach((item, i) => {
    const meta = ctx.accounts[i]!;
    if (item.signer && !meta.isSigner) throw anchorError("AccountNotSigner", `${item.name}: signature missing`);
    if (item.address && isProgramSlot(item) && !meta.pubkey.equals(new PublicKey(item.address)))
      throw anchorError("InvalidProgramId", `${item.name}: program ID was not as expected`);
  });
  items.forEach((item, i) => {
    const meta = ctx.accounts[i]!;
    if (item.writable && !meta.isWritable) throw anchorError("ConstraintMut", `${item.name}: mut constraint violated`);
    if (item.address && !meta.pubkey.equals(new PublicKey(item.address)))
      throw anchorError("ConstraintAddress", `${item.name}: address constraint violated`);
    if (item.pda) checkSeeds(item, meta.pubkey, checked, seedField);
  });
  return checked;
}

function lookup(byName: Map<string, NativeAccountMeta>, name: string): NativeAccountMeta {
  const m = byName.get(name);
  if (!m) throw new Error(`no account ${name} in the IDL's list`);
  return m;
}

/** `Program<'info, T>` slots: Anchor checks their id while deserializing, before constraints. */
function isProgramSlot(item: IdlAccountItem): boolean {
  return /Program$|^program$/.test(item.name) && item.name !== "program";
}

function checkSeeds(item: IdlAccountItem, actual: PublicKey, accounts: CheckedAccounts, seedField: SeedField): void {
  const seeds: Uint8Array[] = [];
  for (const seed of item.pda!.seeds) {
    const bytes = seedBytes(seed, accounts, seedField);
    if (bytes === null) return;
    seeds.push(bytes);
  }
  const programSeed = item.pda!.program;
  const programBytes = programSeed ? seedBytes(programSeed, accounts, seedField) : PUMP_ID.toBytes();
  if (programBytes === null) return;
  const expected = findProgramAddress(
    seeds.map((s) => Buffer.from(s)),
    new PublicKey(programBytes),
  )[0];
  if (!expected.equals(actual)) throw anchorError("ConstraintSeeds", `${item.name}: seeds constraint violated`);
}

function seedBytes(seed: IdlSeed, accounts: CheckedAccounts, seedField: SeedField): Uint8Array | null {
  if (seed.kind === "const") return Uint8Array.from(seed.value ?? []);
  if (seed.kind === "account" && seed.path && !seed.path.includes(".")) return accounts.key(seed.path).toBytes();
  if (seed.kind === "account" && seed.path) return seedField(seed.path, accounts);
  return null;
}

function idlAccounts(codec: IdlCodec, ixName: string): IdlAccountItem[] {
  const ix = codec.idl.instructions.find((i) => i.name === ixName);
  if (!ix) throw new Error(`no instruction ${ixName} in the IDL`);
  return ix.accounts as IdlAccountItem[];
}

/** Anchor's `Account<'info, T>` load: owned by the program (3007) and of type T (3002 / 3001), else not initialized (3012). */
export function loadAccount<T>(
  codec: IdlCodec,
  ctx: InvokeContext,
  address: PublicKey,
  typeName: string,
  owner: PublicKey = ctx.programId,
): { data: T; account: NativeAccount } {
  const account = ctx.get(address);
  if (!account || (account.lamports === 0n && account.data.length === 0))
    throw anchorError(
      "AccountNotInitialized",
      `${typeName}: the program expected this account to be already initialized`,
    );
  if (!account.owner.equals(owner))
    throw anchorError("AccountOwnedByWrongProgram", `${typeName}: the given account is owned by a different program`);
  if (account.data.length < 8) throw anchorError("AccountDiscriminatorNotFound", `${typeName}: no discriminator`);
  const data = codec.decodeAccount<T>(typeName, account.data);
  if (data === null) throw anchorError("AccountDiscriminatorMismatch", `${typeName}: discriminator did not match`);
  return { data, account };
}
