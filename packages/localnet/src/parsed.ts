/**
 * `jsonParsed` account data where agave has a parser and the local chain holds such accounts:
 * address lookup tables (what kit's `fetchAddressesForLookupTables` asks for), SPL Token (and
 * Token-2022 base) mints and token accounts, and nonce accounts. Other accounts have none here;
 * callers fall back to base64, as agave does for accounts it cannot parse.
 */
import { AddressLookupTableAccount, AddressLookupTableProgram, PublicKey, SystemProgram } from "@solana/web3.js";
import { readU64LE, TOKEN_PROGRAM_ID } from "./program";
import { uiAmount } from "./rpc/context";

const TOKEN_2022_PROGRAM_ID = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb";
const TOKEN_ACCOUNT_BYTES = 165;
const MINT_BYTES = 82;
/** Token-2022 writes the account type after the base layout padded to this length */
const TOKEN_2022_ACCOUNT_TYPE_OFFSET = 165;

export interface ParsedAccountData {
  program: string;
  parsed: { type: string; info: Record<string, unknown> };
  space: number;
}

/** Whether `owner` is one of the two SPL Token programs. */
export function isTokenProgram(owner: string): boolean {
  return owner === TOKEN_PROGRAM_ID.toBase58() || owner === TOKEN_2022_PROGRAM_ID;
}

/** What a token program's account is, by its length (and Token-2022's account-type byte). */
export function tokenAccountKind(owner: string, data: Uint8Array): "mint" | "account" | null {
  if (!isTokenProgram(owner)) return null;
  if (data.length === TOKEN_ACCOUNT_BYTES) return "account";
  if (data.length === MINT_BYTES) return "mint";
  if (owner === TOKEN_2022_PROGRAM_ID && data.length > TOKEN_2022_ACCOUNT_TYPE_OFFSET) {
    const type = data[TOKEN_2022_ACCOUNT_TYPE_OFFSET];
    return type === 1 ? "mint" : type === 2 ? "account" : null;
  }
  return null;
}

function optionalKey(data: Uint8Array, offset: number): string | null {
  const tag = new DataView(data.buffer, data.byteOffset + offset, 4).getUint32(0, true);
  return tag === 1 ? new PublicKey(data.subarray(offset + 4, offset + 36)).toBase58() : null;
}

/** A mint's decimals, or null when `data` is not an initialized mint. */
export function mintDecimals(owner: string, data: Uint8Array): number | null {
  if (tokenAccountKind(owner, data) !== "mint" || data[45] !== 1) return null;
  return data[44]!;
}

function parseMint(data: Uint8Array): Record<string, unknown> {
  return {
    mintAuthority: optionalKey(data, 0),
    supply: readU64LE(data, 36).toString(),
    decimals: data[44],
    isInitialized: data[45] === 1,
    freezeAuthority: optionalKey(data, 46),
  };
}

/** A token account's fields as agave's parser writes them; `decimals` are its mint's. */
function parseTokenAccount(data: Uint8Array, decimals: number): Record<string, unknown> {
  const state = data[108];
  const native = new DataView(data.buffer, data.byteOffset + 109, 4).getUint32(0, true) === 1;
  const delegate = optionalKey(data, 72);
  const closeAuthority = optionalKey(data, 129);
  return {
    isNative: native,
    mint: new PublicKey(data.subarray(0, 32)).toBase58(),
    owner: new PublicKey(data.subarray(32, 64)).toBase58(),
    state: state === 2 ? "frozen" : state === 1 ? "initialized" : "uninitialized",
    tokenAmount: uiAmount(readU64LE(data, 64), decimals),
    ...(delegate ? { delegate, delegatedAmount: uiAmount(readU64LE(data, 121), decimals) } : {}),
    ...(native ? { rentExemptReserve: uiAmount(readU64LE(data, 113), decimals) } : {}),
    ...(closeAuthority ? { closeAuthority } : {}),
  };
}

/**
 * `decimalsOf(mint)` reads a token account's mint: agave gives no parse (base64 instead) for a
 * token account whose mint it cannot read.
 */
export function parsedAccountData(
  owner: PublicKey,
  data: Uint8Array,
  decimalsOf: (mint: string) => number | null = () => null,
): ParsedAccountData | null {
  const ownerId = owner.toBase58();
  const kind = tokenAccountKind(ownerId, data);
  if (kind) {
    const program = ownerId === TOKEN_2022_PROGRAM_ID ? "spl-token-2022" : "spl-token";
    if (kind === "mint") {
      if (data[45] !== 1) return null;
      return { program, parsed: { type: "mint", info: parseMint(data) }, space: data.length };
    }
    if (data[108] === 0) return null;
    const decimals = decimalsOf(new PublicKey(data.subarray(0, 32)).toBase58());
    if (decimals === null) return null;
    return { program, parsed: { type: "account", info: parseTokenAccount(data, decimals) }, space: data.length };
  }
  if (owner.equals(SystemProgram.programId) && data.length === 80) return parseNonce(data);
  if (!owner.equals(AddressLookupTableProgram.programId)) return null;
  try {
    const state = AddressLookupTableAccount.deserialize(data);
    return {
      program: "address-lookup-table",
      // u64 fields as strings, as agave's parser writes them
      parsed: {
        type: "lookupTable",
        info: {
          deactivationSlot: state.deactivationSlot.toString(),
          lastExtendedSlot: state.lastExtendedSlot.toString(),
          lastExtendedSlotStartIndex: state.lastExtendedSlotStartIndex,
          ...(state.authority ? { authority: state.authority.toBase58() } : {}),
          addresses: state.addresses.map((a) => a.toBase58()),
        },
      },
      space: data.length,
    };
  } catch {
    // An uninitialized or closed table: no parse, base64 instead.
    return null;
  }
}

/** A nonce account (system program, 80 bytes), as agave's `nonce` parser writes it. */
function parseNonce(data: Uint8Array): ParsedAccountData | null {
  const view = new DataView(data.buffer, data.byteOffset, data.length);
  const state = view.getUint32(4, true);
  if (state === 0) return { program: "nonce", parsed: { type: "uninitialized", info: {} }, space: data.length };
  if (state !== 1) return null;
  return {
    program: "nonce",
    parsed: {
      type: "initialized",
      info: {
        authority: new PublicKey(data.subarray(8, 40)).toBase58(),
        blockhash: new PublicKey(data.subarray(40, 72)).toBase58(),
        feeCalculator: { lamportsPerSignature: view.getBigUint64(72, true).toString() },
      },
    },
    space: data.length,
  };
}
