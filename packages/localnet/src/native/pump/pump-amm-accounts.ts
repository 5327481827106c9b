/**
 * Account rules as Anchor enforces them for pump's programs: an account at its index, its signer
 * and writable flags, PDA seeds, fixed addresses, owners and discriminators, each refused with the
 * code Anchor (or the program's own `@` error) answers; and the SPL token reads and CPIs the
 * programs make.
 */
import {
  AccountLayout,
  ASSOCIATED_TOKEN_PROGRAM_ID,
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  MintLayout,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
} from "@solana/spl-token";
import { type PublicKey, SystemProgram } from "@solana/web3.js";
import { anchorError, type IdlCodec } from "../anchor";
import type { InvokeContext, NativeAccount, NativeAccountMeta } from "../runtime";
import { findProgramAddress } from "../pda";
import { lamportsAsNumber } from "../../lamports";

export type Seeds = readonly Uint8Array[];

/** The instruction's account `index` named `name` (Anchor: AccountNotEnoughKeys when absent). */
export function at(ctx: InvokeContext, index: number, name: string): NativeAccountMeta {
  const meta = ctx.accounts[index];
  if (!meta) throw anchorError("AccountNotEnoughKeys", `Not enough account keys given to the instruction: ${name}`);
  return meta;
}

export function signer(meta: NativeAccountMeta, name: string): void {
  if (!meta.isSigner) throw anchorError("AccountNotSigner", `The given account did not sign: ${name}`);
}

export function writable(meta: NativeAccountMeta, name: string): void {
  if (!meta.isWritable) throw anchorError("ConstraintMut", `A mut constraint was violated: ${name}`);
}

/** A fixed program id (Anchor's `Program<'info, T>`: InvalidProgramId). */
export function program(meta: NativeAccountMeta, id: PublicKey, name: string): void {
  if (!meta.pubkey.equals(id)) throw anchorError("InvalidProgramId", `Program ID was not as expected: ${name}`);
}

/** A fixed address (`address = …`: ConstraintAddress). */
export function address(meta: NativeAccountMeta, id: PublicKey, name: string): void {
  if (!meta.pubkey.equals(id)) throw anchorError("ConstraintAddress", `An address constraint was violated: ${name}`);
}

/** `seeds = …, bump`: the canonical bump's PDA, else ConstraintSeeds; returns the bump. */
export function pda(meta: NativeAccountMeta, seeds: Seeds, programId: PublicKey, name: string): number {
  const [expected, bump] = findProgramAddress(
    seeds.map((s) => Buffer.from(s)),
    programId,
  );
  if (!meta.pubkey.equals(expected)) throw anchorError("ConstraintSeeds", `A seeds constraint was violated: ${name}`);
  return bump;
}

/** `associated_token::…`: the ATA of `owner` for `mint` under `tokenProgram`. */
export function ata(meta: NativeAccountMeta, owner: PublicKey, mint: PublicKey, tokenProgram: PublicKey, name: string) {
  if (!meta.pubkey.equals(getAssociatedTokenAddressSync(mint, owner, true, tokenProgram)))
    throw anchorError(
      "AccountNotAssociatedTokenAccount",
      `The given account is not the associated token account: ${name}`,
    );
}

export function tokenProgramOf(meta: NativeAccountMeta, name: string): PublicKey {
  if (!meta.pubkey.equals(TOKEN_PROGRAM_ID) && !meta.pubkey.equals(TOKEN_2022_PROGRAM_ID))
    throw anchorError("InvalidProgramId", `Program ID was not as expected: ${name}`);
  return meta.pubkey;
}

/** An `Account<'info, T>`: owned by `owner`, initialised, of type `type`. */
export function typed<T>(
  ctx: InvokeContext,
  meta: NativeAccountMeta,
  codec: IdlCodec,
  type: string,
  owner: PublicKey,
  name: string,
): { value: T; account: NativeAccount } {
  const account = ctx.get(meta.pubkey);
  if (!account)
    throw anchorError("AccountNotInitialized", `The program expected this account to be already initialized: ${name}`);
  if (!account.owner.equals(owner))
    throw anchorError(
      "AccountOwnedByWrongProgram",
      `The given account is owned by a different program than expected: ${name}`,
    );
  const value = codec.decodeAccount<T>(type, account.data);
  if (value === null)
    throw anchorError("AccountDiscriminatorMismatch", `8 byte discriminator did not match what was expected: ${name}`);
  return { value, account };
}

export interface TokenAccountState {
  mint: PublicKey;
  owner: PublicKey;
  amount: bigint;
  program: PublicKey;
}

/** An `InterfaceAccount<'info, TokenAccount>`: a token account of either token program. */
export function tokenAccount(ctx: InvokeContext, key: PublicKey, name: string): TokenAccountState {
  const account = ctx.get(key);
  if (!account)
    throw anchorError("AccountNotInitialized", `The program expected this account to be already initialized: ${name}`);
  if (!account.owner.equals(TOKEN_PROGRAM_ID) && !account.owner.equals(TOKEN_2022_PROGRAM_ID))
    throw anchorError(
      "AccountOwnedByWrongProgram",
      `The given account is owned by a different program than expected: ${name}`,
    );
  if (account.data.length < AccountLayout.span)
    throw anchorError("AccountDidNotDeserialize", `Failed to deserialize the account: ${name}`);
  const t = AccountLayout.decode(Buffer.from(account.data));
  return { mint: t.mint, owner: t.owner, amount: t.amount, program: account.owner };
}

export interface MintState {
  supply: bigint;
  decimals: number;
  program: PublicKey;
}

export function mintAccount(ctx: InvokeContext, key: PublicKey, name: string): MintState {
  const account = ctx.get(key);
  if (!account)
    throw anchorError("AccountNotInitialized", `The program expected this account to be already initialized: ${name}`);
  if (!account.owner.equals(TOKEN_PROGRAM_ID) && !account.owner.equals(TOKEN_2022_PROGRAM_ID))
    throw anchorError(
      "AccountOwnedByWrongProgram",
      `The given account is owned by a different program than expected: ${name}`,
    );
  const m = MintLayout.decode(Buffer.from(account.data.subarray(0, MintLayout.span)));
  return { supply: m.supply, decimals: m.decimals, program: account.owner };
}

/** transfer_checked by CPI, `signerSeeds` when the authority is the program's PDA. */
export function transferTokens(
  ctx: InvokeContext,
  from: PublicKey,
  mint: PublicKey,
  to: PublicKey,
  authority: PublicKey,
  amount: bigint,
  mintState: MintState,
  signerSeeds?: Seeds,
): void {
  if (amount === 0n) return;
  ctx.invoke(
    createTransferCheckedInstruction(from, mint, to, authority, amount, mintState.decimals, [], mintState.program),
    signerSeeds ? [signerSeeds] : [],
  );
}

/** `init_if_needed` of an ATA: the ATA program's idempotent create, `payer` paying its rent. */
export function ensureAta(
  ctx: InvokeContext,
  payer: PublicKey,
  ataKey: PublicKey,
  owner: PublicKey,
  mint: PublicKey,
  tokenProgram: PublicKey,
  payerSeeds?: Seeds,
): void {
  if (ctx.get(ataKey)) return;
  ctx.invoke(
    createAssociatedTokenAccountIdempotentInstruction(
      payer,
      ataKey,
      owner,
      mint,
      tokenProgram,
      ASSOCIATED_TOKEN_PROGRAM_ID,
    ),
    payerSeeds ? [payerSeeds] : [],
  );
}

/** A program-owned account created as Anchor's `init` does: System create_account signed by the PDA. */
export function createPdaAccount(
  ctx: InvokeContext,
  payer: PublicKey,
  key: PublicKey,
  space: number,
  owner: PublicKey,
  seeds: Seeds,
  payerSeeds?: Seeds,
): void {
  const lamports = ctx.minimumBalanceForRentExemption(space);
  ctx.invoke(
    SystemProgram.createAccount({
      fromPubkey: payer,
      newAccountPubkey: key,
      lamports: lamportsAsNumber(lamports),
      space,
      programId: owner,
    }),
    payerSeeds ? [seeds, payerSeeds] : [seeds],
  );
}

export const u16le = (n: number): Uint8Array => Uint8Array.of(n & 0xff, (n >> 8) & 0xff);
export const bumpSeed = (b: number): Uint8Array => Uint8Array.of(b);
