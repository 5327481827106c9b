/**
 * `jsonParsed` instructions as agave's transaction-status parsers write them (parse_instruction.rs,
 * parse_system.rs, parse_token.rs, parse_associated_token.rs): `{ program, programId, parsed:
 * { type, info }, stackHeight }` for the System program, SPL Token and Token-2022 ("spl-token" for
 * both, as agave names them), the associated-token-account program and SPL Memo (whose `parsed` is
 * the memo text). An instruction agave would not parse (another program, data it cannot decode, too
 * few accounts) is left to the caller, which writes it partially decoded, as agave does.
 *
 * Covered: every System instruction agave 2.2 knows, SPL Token's instructions up to
 * `UiAmountToAmount` (Token-2022's extension instructions, and `GetAccountDataSize` naming
 * extensions, stay unparsed), the three ATA instructions, memo v1 and v2.
 */
import bs58 from "bs58";
import { uiAmount } from "./rpc/context";

const SYSTEM_PROGRAM = "11111111111111111111111111111111";
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const TOKEN_2022_PROGRAM = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb";
const ASSOCIATED_TOKEN_PROGRAM = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";
const MEMO_PROGRAMS = new Set([
  "Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo",
  "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr",
]);

export interface ParsedInstructionJson {
  program: string;
  programId: string;
  parsed: unknown;
  stackHeight: number | null;
}

type Info = Record<string, unknown>;
interface Parsed {
  type: string;
  info: Info;
}

/** What agave's `parse` gives for one instruction, or null where it gives an error. */
export function parseInstruction(
  programId: string,
  accounts: number[],
  data: Uint8Array,
  keys: string[],
  stackHeight: number | null,
): ParsedInstructionJson | null {
  let program: string;
  let parsed: unknown;
  try {
    if (MEMO_PROGRAMS.has(programId)) {
      program = "spl-memo";
      parsed = new TextDecoder("utf-8", { fatal: true }).decode(data);
    } else {
      // The system, token and ATA parsers first require every account index to name a key.
      if (accounts.length === 0 || accounts.some((i) => i >= keys.length)) return null;
      const ix = new Ix(accounts, data, keys);
      if (programId === SYSTEM_PROGRAM) {
        program = "system";
        parsed = parseSystem(ix);
      } else if (programId === TOKEN_PROGRAM || programId === TOKEN_2022_PROGRAM) {
        program = "spl-token";
        parsed = parseToken(ix);
      } else if (programId === ASSOCIATED_TOKEN_PROGRAM) {
        program = "spl-associated-token-account";
        parsed = parseAssociatedToken(ix);
      } else return null;
    }
  } catch {
    return null;
  }
  if (parsed === null) return null;
  return { program, programId, parsed, stackHeight };
}

class NotParsable extends Error {}

/** One compiled instruction: its accounts by position and a reader over its data. */
class Ix {
  private at = 0;
  constructor(
    readonly accounts: number[],
    readonly data: Uint8Array,
    private readonly keys: string[],
  ) {}

  /** the key of the instruction's `position`th account (agave: a key mismatch past the end) */
  key(position: number): string {
    const index = this.accounts[position];
    if (index === undefined) throw new NotParsable();
    return this.keys[index]!;
  }
  /** agave's check_num_accounts */
  needAccounts(count: number): void {
    if (this.accounts.length < count) throw new NotParsable();
  }
  u8(): number {
    if (this.at + 1 > this.data.length) throw new NotParsable();
    return this.data[this.at++]!;
  }
  u32(): number {
    const view = this.view(4);
    return view.getUint32(0, true);
  }
  u64(): bigint {
    return this.view(8).getBigUint64(0, true);
  }
  pubkey(): string {
    if (this.at + 32 > this.data.length) throw new NotParsable();
    const key = bs58.encode(this.data.subarray(this.at, this.at + 32));
    this.at += 32;
    return key;
  }
  /** bincode's String: a u64 length, then UTF-8 */
  string(): string {
    const length = this.u64();
    if (length > BigInt(this.data.length - this.at)) throw new NotParsable();
    const bytes = this.data.subarray(this.at, this.at + Number(length));
    this.at += Number(length);
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  }
  /** SPL Token's COption<Pubkey> in instruction data: a tag byte 0 (none) or 1 and the key */
  optionalPubkey(): string | null {
    const tag = this.u8();
    if (tag === 0) return null;
    if (tag === 1) return this.pubkey();
    throw new NotParsable();
  }
  rest(): Uint8Array {
    const rest = this.data.subarray(this.at);
    this.at = this.data.length;
    return rest;
  }
  private view(bytes: number): DataView {
    if (this.at + bytes > this.data.length) throw new NotParsable();
    const view = new DataView(this.data.buffer, this.data.byteOffset + this.at, bytes);
    this.at += bytes;
    return view;
  }
}

// ------------------------------------------------------------------ system

/** SystemInstruction, bincode: a u32 variant, then its fields (u64s as JSON numbers, as agave). */
function parseSystem(ix: Ix): Parsed | null {
  const variant = ix.u32();
  const parser = SYSTEM_PARSERS[variant];
  return parser ? parser(ix) : null;
}

const SYSTEM_PARSERS: Record<number, (ix: Ix) => Parsed> = {
  0: (ix) => {
    const lamports = ix.u64();
    const space = ix.u64();
    const owner = ix.pubkey();
    ix.needAccounts(2);
    return {
      type: "createAccount",
      info: { source: ix.key(0), newAccount: ix.key(1), lamports, space, owner },
    };
  },
  1: (ix) => {
    const owner = ix.pubkey();
    ix.needAccounts(1);
    return { type: "assign", info: { account: ix.key(0), owner } };
  },
  2: (ix) => {
    const lamports = ix.u64();
    ix.needAccounts(2);
    return { type: "transfer", info: { source: ix.key(0), destination: ix.key(1), lamports } };
  },
  3: (ix) => {
    const base = ix.pubkey();
    const seed = ix.string();
    const lamports = ix.u64();
    const space = ix.u64();
    const owner = ix.pubkey();
    ix.needAccounts(2);
    return {
      type: "createAccountWithSeed",
      info: { source: ix.key(0), newAccount: ix.key(1), base, seed, lamports, space, owner },
    };
  },
  4: (ix) => {
    ix.needAccounts(3);
    return {
      type: "advanceNonce",
      info: { nonceAccount: ix.key(0), recentBlockhashesSysvar: ix.key(1), nonceAuthority: ix.key(2) },
    };
  },
  5: (ix) => {
    const lamports = ix.u64();
    ix.needAccounts(5);
    return {
      type: "withdrawFromNonce",
      info: {
        nonceAccount: ix.key(0),
        destination: ix.key(1),
        recentBlockhashesSysvar: ix.key(2),
        rentSysvar: ix.key(3),
        nonceAuthority: ix.key(4),
        lamports,
      },
    };
  },
  6: (ix) => {
    const authority = ix.pubkey();
    ix.needAccounts(3);
    return {
      type: "initializeNonce",
      info: {
        nonceAccount: ix.key(0),
        recentBlockhashesSysvar: ix.key(1),
        rentSysvar: ix.key(2),
        nonceAuthority: authority,
      },
    };
  },
  7: (ix) => {
    const authority = ix.pubkey();
    ix.needAccounts(2);
    return {
      type: "authorizeNonce",
      info: { nonceAccount: ix.key(0), nonceAuthority: ix.key(1), newAuthorized: authority },
    };
  },
  8: (ix) => {
    const space = ix.u64();
    ix.needAccounts(1);
    return { type: "allocate", info: { account: ix.key(0), space } };
  },
  9: (ix) => {
    const base = ix.pubkey();
    const seed = ix.string();
    const space = ix.u64();
    const owner = ix.pubkey();
    ix.needAccounts(2);
    return { type: "allocateWithSeed", info: { account: ix.key(0), base, seed, space, owner } };
  },
  10: (ix) => {
    const base = ix.pubkey();
    const seed = ix.string();
    const owner = ix.pubkey();
    ix.needAccounts(2);
    return { type: "assignWithSeed", info: { account: ix.key(0), base, seed, owner } };
  },
  11: (ix) => {
    const lamports = ix.u64();
    const sourceSeed = ix.string();
    const sourceOwner = ix.pubkey();
    ix.needAccounts(3);
    return {
      type: "transferWithSeed",
      info: {
        source: ix.key(0),
        sourceBase: ix.key(1),
        destination: ix.key(2),
        lamports,
        sourceSeed,
        sourceOwner,
      },
    };
  },
  12: (ix) => {
    ix.needAccounts(1);
    return { type: "upgradeNonce", info: { nonceAccount: ix.key(0) } };
  },
};

// ------------------------------------------------------------------ SPL Token

/** SetAuthority's authority types in their wire order, and which account each is set on. */
const AUTHORITY_TYPES: [name: string, on: "mint" | "account"][] = [
  ["mintTokens", "mint"],
  ["freezeAccount", "mint"],
  ["accountOwner", "account"],
  ["closeAccount", "account"],
  ["transferFeeConfig", "mint"],
  ["withheldWithdraw", "mint"],
  ["closeMint", "mint"],
  ["interestRate", "mint"],
  ["permanentDelegate", "mint"],
  ["confidentialTransferMint", "mint"],
  ["transferHookProgramId", "mint"],
  ["confidentialTransferFeeConfig", "mint"],
  ["metadataPointer", "mint"],
  ["groupPointer", "mint"],
  ["groupMemberPointer", "mint"],
  ["scaledUiAmount", "mint"],
  ["pause", "mint"],
];

/**
 * agave's parse_signers: the account at `position` is the authority; any accounts after it are a
 * multisig's signers, and the authority is then named as the multisig.
 */
function withSigners(ix: Ix, info: Info, position: number, single: string, multisig: string): Info {
  if (ix.accounts.length > position + 1) {
    info[multisig] = ix.key(position);
    info.signers = ix.accounts.slice(position + 1).map((_, i) => ix.key(position + 1 + i));
  } else if (ix.accounts.length > position) {
    info[single] = ix.key(position);
  }
  return info;
}

function withFreezeAuthority(info: Info, freezeAuthority: string | null): Info {
  if (freezeAuthority !== null) info.freezeAuthority = freezeAuthority;
  return info;
}

function parseToken(ix: Ix): Parsed | null {
  const tag = ix.u8();
  const parser = TOKEN_PARSERS[tag];
  return parser ? parser(ix) : null;
}

const TOKEN_PARSERS: Record<number, (ix: Ix) => Parsed | null> = {
  0: (ix) => {
    const decimals = ix.u8();
    const mintAuthority = ix.pubkey();
    const freezeAuthority = ix.optionalPubkey();
    ix.needAccounts(2);
    const info = { mint: ix.key(0), decimals, mintAuthority, rentSysvar: ix.key(1) };
    return { type: "initializeMint", info: withFreezeAuthority(info, freezeAuthority) };
  },
  1: (ix) => {
    ix.needAccounts(4);
    return {
      type: "initializeAccount",
      info: { account: ix.key(0), mint: ix.key(1), owner: ix.key(2), rentSysvar: ix.key(3) },
    };
  },
  2: (ix) => {
    const m = ix.u8();
    ix.needAccounts(3);
    const signers = ix.accounts.slice(2).map((_, i) => ix.key(2 + i));
    return { type: "initializeMultisig", info: { multisig: ix.key(0), rentSysvar: ix.key(1), signers, m } };
  },
  3: (ix) => amountIx(ix, "transfer", ["source", "destination"], "authority", "multisigAuthority"),
  4: (ix) => amountIx(ix, "approve", ["source", "delegate"], "owner", "multisigOwner"),
  5: (ix) => {
    ix.needAccounts(2);
    return { type: "revoke", info: withSigners(ix, { source: ix.key(0) }, 1, "owner", "multisigOwner") };
  },
  6: (ix) => {
    const kind = AUTHORITY_TYPES[ix.u8()];
    if (!kind) return null;
    const newAuthority = ix.optionalPubkey();
    ix.needAccounts(2);
    const info = { [kind[1]]: ix.key(0), authorityType: kind[0], newAuthority };
    return { type: "setAuthority", info: withSigners(ix, info, 1, "authority", "multisigAuthority") };
  },
  7: (ix) => amountIx(ix, "mintTo", ["mint", "account"], "mintAuthority", "multisigMintAuthority"),
  8: (ix) => amountIx(ix, "burn", ["account", "mint"], "authority", "multisigAuthority"),
  9: (ix) => accountsIx(ix, "closeAccount", ["account", "destination"], "owner", "multisigOwner"),
  10: (ix) => accountsIx(ix, "freezeAccount", ["account", "mint"], "freezeAuthority", "multisigFreezeAuthority"),
  11: (ix) => accountsIx(ix, "thawAccount", ["account", "mint"], "freezeAuthority", "multisigFreezeAuthority"),
  12: (ix) => checkedIx(ix, "transferChecked", ["source", "mint", "destination"], "authority", "multisigAuthority"),
  13: (ix) => checkedIx(ix, "approveChecked", ["source", "mint", "delegate"], "owner", "multisigOwner"),
  14: (ix) => checkedIx(ix, "mintToChecked", ["mint", "account"], "mintAuthority", "multisigMintAuthority"),
  15: (ix) => checkedIx(ix, "burnChecked", ["account", "mint"], "authority", "multisigAuthority"),
  16: (ix) => {
    const owner = ix.pubkey();
    ix.needAccounts(3);
    return {
      type: "initializeAccount2",
      info: { account: ix.key(0), mint: ix.key(1), owner, rentSysvar: ix.key(2) },
    };
  },
  17: (ix) => {
    ix.needAccounts(1);
    return { type: "syncNative", info: { account: ix.key(0) } };
  },
  18: (ix) => {
    const owner = ix.pubkey();
    ix.needAccounts(2);
    return { type: "initializeAccount3", info: { account: ix.key(0), mint: ix.key(1), owner } };
  },
  19: (ix) => {
    const m = ix.u8();
    ix.needAccounts(2);
    const signers = ix.accounts.slice(1).map((_, i) => ix.key(1 + i));
    return { type: "initializeMultisig2", info: { multisig: ix.key(0), signers, m } };
  },
  20: (ix) => {
    const decimals = ix.u8();
    const mintAuthority = ix.pubkey();
    const freezeAuthority = ix.optionalPubkey();
    ix.needAccounts(1);
    const info = { mint: ix.key(0), decimals, mintAuthority };
    return { type: "initializeMint2", info: withFreezeAuthority(info, freezeAuthority) };
  },
  21: (ix) => {
    // Extension types would be listed by name; only the plain form is parsed here.
    if (ix.rest().length > 0) return null;
    ix.needAccounts(1);
    return { type: "getAccountDataSize", info: { mint: ix.key(0) } };
  },
  22: (ix) => {
    ix.needAccounts(1);
    return { type: "initializeImmutableOwner", info: { account: ix.key(0) } };
  },
  23: (ix) => {
    const amount = ix.u64();
    ix.needAccounts(1);
    return { type: "amountToUiAmount", info: { mint: ix.key(0), amount: amount.toString() } };
  },
  24: (ix) => {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(ix.rest());
    ix.needAccounts(1);
    return { type: "uiAmountToAmount", info: { mint: ix.key(0), uiAmount: text } };
  },
};

/** An instruction with a u64 amount (a decimal string, as agave writes token amounts). */
function amountIx(ix: Ix, type: string, names: string[], single: string, multisig: string): Parsed {
  const amount = ix.u64();
  ix.needAccounts(3);
  const info: Info = {};
  names.forEach((name, i) => {
    info[name] = ix.key(i);
  });
  info.amount = amount.toString();
  return { type, info: withSigners(ix, info, names.length, single, multisig) };
}

function accountsIx(ix: Ix, type: string, names: string[], single: string, multisig: string): Parsed {
  ix.needAccounts(3);
  const info: Info = {};
  names.forEach((name, i) => {
    info[name] = ix.key(i);
  });
  return { type, info: withSigners(ix, info, names.length, single, multisig) };
}

/** The `…Checked` forms: amount and decimals, written as a UI token amount. */
function checkedIx(ix: Ix, type: string, names: string[], single: string, multisig: string): Parsed {
  const amount = ix.u64();
  const decimals = ix.u8();
  ix.needAccounts(names.length + 1);
  const info: Info = {};
  names.forEach((name, i) => {
    info[name] = ix.key(i);
  });
  info.tokenAmount = uiAmount(amount, decimals);
  return { type, info: withSigners(ix, info, names.length, single, multisig) };
}

// ------------------------------------------------------------------ associated token accounts

/** Empty data is the original Create; else one borsh enum byte and nothing after it. */
function parseAssociatedToken(ix: Ix): Parsed | null {
  const variant = ix.data.length === 0 ? 0 : ix.data.length === 1 ? ix.data[0]! : -1;
  if (variant === 0 || variant === 1) {
    ix.needAccounts(6);
    return {
      type: variant === 0 ? "create" : "createIdempotent",
      info: {
        source: ix.key(0),
        account: ix.key(1),
        wallet: ix.key(2),
        mint: ix.key(3),
        systemProgram: ix.key(4),
        tokenProgram: ix.key(5),
      },
    };
  }
  if (variant === 2) {
    ix.needAccounts(7);
    return {
      type: "recoverNested",
      info: {
        nestedSource: ix.key(0),
        nestedMint: ix.key(1),
        destination: ix.key(2),
        nestedOwner: ix.key(3),
        ownerMint: ix.key(4),
        wallet: ix.key(5),
        tokenProgram: ix.key(6),
      },
    };
  }
  return null;
}
