/**
 * pump.fun wire formats (PUMP.md; the IDLs shipped in @pump-fun/pump-sdk 2.0.0 and
 * @pump-fun/pump-swap-sdk 1.20.0): program ids, discriminators, PDAs, the collect instructions
 * built byte for byte, and decoders for create arguments, Anchor CPI events and BondingCurve.
 * Pure functions, no I/O; the golden tests pin every byte against the IDLs and the SDK builders.
 */
import { AppError } from "../../lib/errors";
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  NATIVE_MINT,
  TOKEN_PROGRAM_ID,
  createAssociatedTokenAccountIdempotentInstruction,
  createCloseAccountInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import { PublicKey, SystemProgram, TransactionInstruction } from "@solana/web3.js";

export const PUMP_PROGRAM_ID = new PublicKey("6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P");
export const PUMP_AMM_PROGRAM_ID = new PublicKey("pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA");
export const PUMP_FEE_PROGRAM_ID = new PublicKey("pfeeUxB6jkeY1Hxd7CsFCAjcbHA9rWtchMGdZ6VojVZ");
export const TOKEN_2022_PROGRAM_ID = new PublicKey("TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb");

/**
 * The upgradeable programs the pump adapter builds instructions for, and which jobs build them:
 * pump (sweep collects and distributes, burn buys, the launch page's create and first buy),
 * PumpSwap (pool collects, pool buys), Pump Fees (the fee config and sharing configs every buy and
 * distribution reads).
 */
export const PUMP_WATCHED_PROGRAMS = [
  { name: "pump", address: PUMP_PROGRAM_ID.toBase58(), builtBy: ["sweep", "burns", "launches"] },
  { name: "pump_amm", address: PUMP_AMM_PROGRAM_ID.toBase58(), builtBy: ["sweep", "burns"] },
  { name: "pump_fees", address: PUMP_FEE_PROGRAM_ID.toBase58(), builtBy: ["sweep", "burns", "launches"] },
] as const;

const hex = (h: string) => Uint8Array.from(h.match(/../g)!.map((b) => Number.parseInt(b, 16)));

export const DISC = {
  create: hex("181ec828051c0777"),
  createV2: hex("d6904cec5f8b31b4"),
  collectCreatorFee: hex("1416567bc61cdb84"),
  collectCreatorFeeV2: hex("cf118af204221338"),
  collectCoinCreatorFee: hex("a039592ab58b2b42"),
  buy: hex("66063d1201daebea"),
  buyExactSolIn: hex("38fc74089edfcd5f"),
  /** PumpSwap `buy_exact_quote_in`: spends exactly `spendable_quote_in`, fees included */
  buyExactQuoteIn: hex("c62e1552b4d9e870"),
  bondingCurveAccount: hex("17b7f83760d8ac60"),
  /** sha256("anchor:event")[..8]: the prefix of every #[event_cpi] self-invocation */
  eventIxTag: hex("e445a52e51cb9a1d"),
  collectCreatorFeeEvent: hex("7a027f010ebf0caf"),
  collectCoinCreatorFeeEvent: hex("e8f5c2eeeada3a59"),
  createEvent: hex("1b72a94ddeeb6376"),
  /** Pump `distribute_creator_fees`: pays a sharing config's creator vault to its shareholders */
  distributeCreatorFees: hex("a572670079cef751"),
  /** PumpSwap `transfer_creator_fees_to_pump`: moves a coin creator's AMM vault into its Pump vault */
  transferCreatorFeesToPump: hex("8b348655e4e56cf1"),
  /** Pump Fees `SharingConfig` account */
  sharingConfigAccount: hex("d84a0900388c5d4b"),
  distributeCreatorFeesEvent: hex("a537817004b3ca28"),
  /** Pump `get_minimum_distributable_fee`: a view; its return data is `MinimumDistributableFeeEvent` */
  getMinimumDistributableFee: hex("75e17fca865f4423"),
  globalAccount: hex("a7e8e8b1c86c727f"),
  poolAccount: hex("f19a6d0411b16dbc"),
} as const;

/** Rent-exempt minimum of a 0-byte system account ((128 + 0) * 3480 * 2). */
export const RENT_EXEMPT_SYSTEM_ACCOUNT_LAMPORTS = 890_880n;
/** Rent-exempt minimum of a 165-byte SPL token account ((128 + 165) * 3480 * 2). */
export const TOKEN_ACCOUNT_RENT_LAMPORTS = 2_039_280n;

// PDA search costs up to 255 hashes; the service asks for the same few thousand again and again.
const pdaCache = new Map<string, PublicKey>();
const PDA_CACHE_MAX = 50_000;
function pda(programId: PublicKey, seeds: (string | PublicKey | Uint8Array)[]): PublicKey {
  const bytes = seeds.map((s) =>
    typeof s === "string" ? new TextEncoder().encode(s) : s instanceof PublicKey ? s.toBytes() : s,
  );
  // One flat key (a template of encoded parts is a rope, kept whole as a map key: see encodeBase58).
  const key = [programId.toBase58(), ...bytes.map((b) => Buffer.from(b).toString("hex"))].join(":");
  const hit = pdaCache.get(key);
  if (hit) return hit;
  if (pdaCache.size >= PDA_CACHE_MAX) pdaCache.clear();
  const [address] = PublicKey.findProgramAddressSync(bytes, programId);
  pdaCache.set(key, address);
  return address;
}

export const pumpPdas = {
  global: () => pda(PUMP_PROGRAM_ID, ["global"]),
  eventAuthority: () => pda(PUMP_PROGRAM_ID, ["__event_authority"]),
  ammEventAuthority: () => pda(PUMP_AMM_PROGRAM_ID, ["__event_authority"]),
  bondingCurve: (mint: PublicKey) => pda(PUMP_PROGRAM_ID, ["bonding-curve", mint]),
  /** Pump creator vault: hyphen, under the Pump program */
  creatorVault: (creator: PublicKey) => pda(PUMP_PROGRAM_ID, ["creator-vault", creator]),
  /** PumpSwap coin-creator vault authority: underscore, under the AMM */
  ammCreatorVaultAuthority: (creator: PublicKey) => pda(PUMP_AMM_PROGRAM_ID, ["creator_vault", creator]),
  ammCreatorVaultWsolAta: (creator: PublicKey) =>
    getAssociatedTokenAddressSync(NATIVE_MINT, pumpPdas.ammCreatorVaultAuthority(creator), true, TOKEN_PROGRAM_ID),
  poolAuthority: (mint: PublicKey) => pda(PUMP_PROGRAM_ID, ["pool-authority", mint]),
  canonicalPool: (mint: PublicKey) => {
    const index = new Uint8Array(2); // u16 LE 0: the canonical pool
    return pda(PUMP_AMM_PROGRAM_ID, ["pool", index, pumpPdas.poolAuthority(mint), mint, NATIVE_MINT]);
  },
  pumpFeeConfig: () => pda(PUMP_FEE_PROGRAM_ID, ["fee_config", PUMP_PROGRAM_ID]),
  /** the coin's fee-sharing config under Pump Fees; it becomes the coin's creator when sharing starts */
  sharingConfig: (mint: PublicKey) => pda(PUMP_FEE_PROGRAM_ID, ["sharing-config", mint]),
  creatorWsolAta: (creator: PublicKey) => getAssociatedTokenAddressSync(NATIVE_MINT, creator, true, TOKEN_PROGRAM_ID),
};

/** Pump `collect_creator_fee`: 0 creator[w], 1 creator_vault[w], 2 system, 3 event_authority, 4 program. */
export function collectCreatorFeeInstruction(creator: PublicKey): TransactionInstruction {
  return new TransactionInstruction({
    programId: PUMP_PROGRAM_ID,
    keys: [
      { pubkey: creator, isSigner: false, isWritable: true },
      { pubkey: pumpPdas.creatorVault(creator), isSigner: false, isWritable: true },
      { pubkey: SystemProgram.programId, isSigner: false, isWritable: false },
      { pubkey: pumpPdas.eventAuthority(), isSigner: false, isWritable: false },
      { pubkey: PUMP_PROGRAM_ID, isSigner: false, isWritable: false },
    ],
    data: Buffer.from(DISC.collectCreatorFee),
  });
}

/**
 * Pump `collect_creator_fee_v2`: the quote-token vault of a coin quoted in a token (the creator
 * vault's ATA of `quoteMint`) into the creator's ATA. 0 creator[w], 1 creator_token_account[w],
 * 2 creator_vault[w], 3 creator_vault_token_account[w], 4 quote_mint, 5 quote_token_program,
 * 6 ATA program, 7 system, 8 event_authority, 9 program. SOL coins keep their fees as lamports in
 * the creator vault, which only `collect_creator_fee` drains (the SDK collects SOL the same way),
 * so the sweep uses v1 for them; v2 is for token-quoted coins, which this service does not launch.
 */
export function collectCreatorFeeV2Instruction(
  creator: PublicKey,
  quoteMint: PublicKey,
  quoteTokenProgram: PublicKey,
): TransactionInstruction {
  const vault = pumpPdas.creatorVault(creator);
  return new TransactionInstruction({
    programId: PUMP_PROGRAM_ID,
    keys: [
      { pubkey: creator, isSigner: false, isWritable: true },
      {
        pubkey: getAssociatedTokenAddressSync(quoteMint, creator, true, quoteTokenProgram),
        isSigner: false,
        isWritable: true,
      },
      { pubkey: vault, isSigner: false, isWritable: true },
      {
        pubkey: getAssociatedTokenAddressSync(quoteMint, vault, true, quoteTokenProgram),
        isSigner: false,
        isWritable: true,
      },
      { pubkey: quoteMint, isSigner: false, isWritable: false },
      { pubkey: quoteTokenProgram, isSigner: false, isWritable: false },
      { pubkey: ASSOCIATED_TOKEN_PROGRAM_ID, isSigner: false, isWritable: false },
      { pubkey: SystemProgram.programId, isSigner: false, isWritable: false },
      { pubkey: pumpPdas.eventAuthority(), isSigner: false, isWritable: false },
      { pubkey: PUMP_PROGRAM_ID, isSigner: false, isWritable: false },
    ],
    data: Buffer.from(DISC.collectCreatorFeeV2),
  });
}

/**
 * AMM `collect_coin_creator_fee` into the creator's WSOL ATA: 0 quote_mint, 1 quote_token_program,
 * 2 coin_creator, 3 vault authority, 4 vault ata[w], 5 creator token account[w], 6 event_authority, 7 program.
 */
export function collectCoinCreatorFeeInstruction(creator: PublicKey): TransactionInstruction {
  return new TransactionInstruction({
    programId: PUMP_AMM_PROGRAM_ID,
    keys: [
      { pubkey: NATIVE_MINT, isSigner: false, isWritable: false },
      { pubkey: TOKEN_PROGRAM_ID, isSigner: false, isWritable: false },
      { pubkey: creator, isSigner: false, isWritable: false },
      { pubkey: pumpPdas.ammCreatorVaultAuthority(creator), isSigner: false, isWritable: false },
      { pubkey: pumpPdas.ammCreatorVaultWsolAta(creator), isSigner: false, isWritable: true },
      { pubkey: pumpPdas.creatorWsolAta(creator), isSigner: false, isWritable: true },
      { pubkey: pumpPdas.ammEventAuthority(), isSigner: false, isWritable: false },
      { pubkey: PUMP_AMM_PROGRAM_ID, isSigner: false, isWritable: false },
    ],
    data: Buffer.from(DISC.collectCoinCreatorFee),
  });
}

/**
 * The PumpSwap part of a sweep: create the creator's WSOL ATA (the collect requires an existing
 * destination; idempotent, so one left from before costs nothing), collect into it, then close it
 * so the WSOL is unwrapped into the creator address together with the ATA's rent.
 */
export function collectPoolIntoCreatorInstructions(creator: PublicKey, payer: PublicKey): TransactionInstruction[] {
  const ata = pumpPdas.creatorWsolAta(creator);
  return [
    createAssociatedTokenAccountIdempotentInstruction(payer, ata, creator, NATIVE_MINT, TOKEN_PROGRAM_ID),
    collectCoinCreatorFeeInstruction(creator),
    createCloseAccountInstruction(ata, creator, creator, [], TOKEN_PROGRAM_ID),
  ];
}

/**
 * Pump `distribute_creator_fees` (SOL coins): 0 mint, 1 bonding_curve, 2 sharing_config,
 * 3 creator_vault[w] of the sharing config, 4 system, 5 event_authority, 6 program; the
 * shareholders follow as writable remaining accounts, in the config's order. Permissionless.
 */
export function distributeCreatorFeesInstruction(
  mint: PublicKey,
  shareholders: readonly PublicKey[],
): TransactionInstruction {
  const sharingConfig = pumpPdas.sharingConfig(mint);
  return new TransactionInstruction({
    programId: PUMP_PROGRAM_ID,
    keys: [
      { pubkey: mint, isSigner: false, isWritable: false },
      { pubkey: pumpPdas.bondingCurve(mint), isSigner: false, isWritable: false },
      { pubkey: sharingConfig, isSigner: false, isWritable: false },
      { pubkey: pumpPdas.creatorVault(sharingConfig), isSigner: false, isWritable: true },
      { pubkey: SystemProgram.programId, isSigner: false, isWritable: false },
      { pubkey: pumpPdas.eventAuthority(), isSigner: false, isWritable: false },
      { pubkey: PUMP_PROGRAM_ID, isSigner: false, isWritable: false },
      ...shareholders.map((pubkey) => ({ pubkey, isSigner: false, isWritable: true })),
    ],
    data: Buffer.from(DISC.distributeCreatorFees),
  });
}

/**
 * PumpSwap `transfer_creator_fees_to_pump` (WSOL): moves a coin creator's AMM vault into its Pump
 * creator vault, where distribute_creator_fees pays it out. 0 wsol_mint, 1 token_program,
 * 2 system, 3 ATA program, 4 coin_creator, 5 vault authority[w], 6 vault ata[w], 7 pump creator
 * vault[w], 8 event_authority, 9 program. Permissionless.
 */
export function transferCreatorFeesToPumpInstruction(coinCreator: PublicKey): TransactionInstruction {
  return new TransactionInstruction({
    programId: PUMP_AMM_PROGRAM_ID,
    keys: [
      { pubkey: NATIVE_MINT, isSigner: false, isWritable: false },
      { pubkey: TOKEN_PROGRAM_ID, isSigner: false, isWritable: false },
      { pubkey: SystemProgram.programId, isSigner: false, isWritable: false },
      { pubkey: ASSOCIATED_TOKEN_PROGRAM_ID, isSigner: false, isWritable: false },
      { pubkey: coinCreator, isSigner: false, isWritable: false },
      { pubkey: pumpPdas.ammCreatorVaultAuthority(coinCreator), isSigner: false, isWritable: true },
      { pubkey: pumpPdas.ammCreatorVaultWsolAta(coinCreator), isSigner: false, isWritable: true },
      { pubkey: pumpPdas.creatorVault(coinCreator), isSigner: false, isWritable: true },
      { pubkey: pumpPdas.ammEventAuthority(), isSigner: false, isWritable: false },
      { pubkey: PUMP_AMM_PROGRAM_ID, isSigner: false, isWritable: false },
    ],
    data: Buffer.from(DISC.transferCreatorFeesToPump),
  });
}

// ---------- decoding ----------

class Cursor {
  offset = 0;
  constructor(readonly data: Uint8Array) {}
  private need(n: number): void {
    if (this.offset + n > this.data.length) throw new AppError("CHAIN_DATA_TRUNCATED");
  }
  bytes(n: number): Uint8Array {
    this.need(n);
    const out = this.data.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }
  u8(): number {
    return this.bytes(1)[0]!;
  }
  u32(): number {
    const b = this.bytes(4);
    return new DataView(b.buffer, b.byteOffset, 4).getUint32(0, true);
  }
  u64(): bigint {
    const b = this.bytes(8);
    return new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0, true);
  }
  i64(): bigint {
    const b = this.bytes(8);
    return new DataView(b.buffer, b.byteOffset, 8).getBigInt64(0, true);
  }
  pubkey(): string {
    return new PublicKey(this.bytes(32)).toBase58();
  }
  string(maxBytes: number): string {
    const len = this.u32();
    if (len > maxBytes) throw new AppError("CHAIN_STRING_TOO_LONG", { bytes: len, maxBytes });
    return new TextDecoder("utf-8", { fatal: true }).decode(this.bytes(len));
  }
  get remaining(): number {
    return this.data.length - this.offset;
  }
}

export function startsWith(data: Uint8Array, prefix: Uint8Array): boolean {
  if (data.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (data[i] !== prefix[i]) return false;
  return true;
}

export interface CreateArgs {
  variant: "create" | "create_v2";
  name: string;
  symbol: string;
  uri: string;
  creator: string;
  /** create_v2's trailing arguments (false/0 for `create`, and where the program reads them as omitted) */
  isMayhemMode: boolean;
  isCashbackEnabled: boolean;
  creatorFeeBps: bigint;
  /** true: the program sets the creator to the mint's holder-rewards PDA and ignores `creator` */
  isHolderReward: boolean;
}

// The program limits name/symbol/uri far below these; the caps only stop a hostile length prefix.
const MAX_ARG_STRING_BYTES = 1_000;

export function decodeCreateArgs(data: Uint8Array): CreateArgs | null {
  const variant = startsWith(data, DISC.create) ? "create" : startsWith(data, DISC.createV2) ? "create_v2" : null;
  if (!variant) return null;
  try {
    const c = new Cursor(data.subarray(8));
    const name = c.string(MAX_ARG_STRING_BYTES);
    const symbol = c.string(MAX_ARG_STRING_BYTES);
    const uri = c.string(MAX_ARG_STRING_BYTES);
    const creator = c.pubkey();
    const args: CreateArgs = {
      variant,
      name,
      symbol,
      uri,
      creator,
      isMayhemMode: false,
      isCashbackEnabled: false,
      creatorFeeBps: 0n,
      isHolderReward: false,
    };
    if (variant === "create") return args;
    // The program reads each trailing argument only when bytes remain (EOF-tolerant), but each one
    // it reads is fixed-width (OptionBool 1 byte, OptionU64 8): a cut-off field is malformed.
    if (c.remaining === 0) return args;
    args.isMayhemMode = c.u8() !== 0;
    if (c.remaining === 0) return args;
    args.isCashbackEnabled = c.u8() !== 0;
    if (c.remaining === 0) return args;
    args.creatorFeeBps = c.u64();
    if (c.remaining === 0) return args;
    args.isHolderReward = c.u8() !== 0;
    return args;
  } catch {
    return null;
  }
}

const SOL_QUOTE_MINTS: readonly string[] = [PublicKey.default.toBase58(), NATIVE_MINT.toBase58()];

/**
 * Why a create names a coin the service refuses, or null for an ordinary one: the service's
 * recipients are paid from the SOL creator fee pump's fee schedule sets (what `creatorFeeBps()`
 * and `/api/launch/config` show, and what the launch page's create asks for by leaving the coin's
 * own rate at 0). `quoteAccount` is create_v2's first remaining account (the quote mint), if any;
 * `event` the CreateEvent's record of the coin, where the transaction carries one.
 */
export function coinRefusal(
  args: CreateArgs,
  quoteAccount: string | undefined,
  event: CreateEventKind | null,
): string | null {
  if (args.isCashbackEnabled || event?.isCashbackEnabled)
    return "cashback coin: its creator fee goes to the traders, not to the creator";
  // A holder-reward coin pays its creator fees to the mint's holder-rewards PDA: the program
  // ignores `creator`, so naming ours proves nothing about where the fees go.
  if (args.isHolderReward || event?.isHolderReward) return "holder-reward coin: the program ignores the creator";
  // Non-zero only takes effect on a quote-control mint, but no create of ours sets it: refused
  // whatever the quote, so a coin never carries a rate of its own that the schedule does not set.
  if (args.creatorFeeBps !== 0n)
    return `the coin sets its own creator fee (${args.creatorFeeBps} bps) instead of the configured fee schedule`;
  for (const quote of [quoteAccount, event?.quoteMint]) {
    if (quote !== undefined && !SOL_QUOTE_MINTS.includes(quote))
      return "the coin is quoted in a token, not SOL: its creator fees would accrue in that token";
  }
  return null;
}

export type PumpEvent =
  | { kind: "collectCreatorFee"; creator: string; feeLamports: bigint; quoteMint: string | null }
  | { kind: "collectCoinCreatorFee"; creator: string; feeLamports: bigint; vaultAta: string; destination: string }
  | {
      kind: "create";
      name: string;
      symbol: string;
      uri: string;
      mint: string;
      bondingCurve: string;
      user: string;
      creator: string;
      /**
       * What the program recorded of the coin's kind (the 2025–26 IDL's tail, after `creator`);
       * null where an older event ends before it.
       */
      coin: CreateEventKind | null;
    };

/** The tail of a CreateEvent that says what kind of coin was created. */
export interface CreateEventKind {
  isMayhemMode: boolean;
  isCashbackEnabled: boolean;
  /** the zero key means SOL */
  quoteMint: string;
  /** absent (null) in events that end before it */
  isHolderReward: boolean | null;
}

/** Decodes `disc ‖ borsh body` of the events the service reads; anything else is null. */
function decodeEvent(payload: Uint8Array): PumpEvent | null {
  try {
    const c = new Cursor(payload.subarray(8));
    if (startsWith(payload, DISC.collectCreatorFeeEvent)) {
      c.i64();
      const creator = c.pubkey();
      const feeLamports = c.u64();
      // quote_mint arrived in the 2026-05 IDL; older events end after creator_fee
      const quoteMint = c.remaining >= 32 ? c.pubkey() : null;
      return { kind: "collectCreatorFee", creator, feeLamports, quoteMint };
    }
    if (startsWith(payload, DISC.collectCoinCreatorFeeEvent)) {
      c.i64();
      const creator = c.pubkey();
      const feeLamports = c.u64();
      const vaultAta = c.pubkey();
      const destination = c.pubkey();
      return { kind: "collectCoinCreatorFee", creator, feeLamports, vaultAta, destination };
    }
    if (startsWith(payload, DISC.createEvent)) {
      const name = c.string(MAX_ARG_STRING_BYTES);
      const symbol = c.string(MAX_ARG_STRING_BYTES);
      const uri = c.string(MAX_ARG_STRING_BYTES);
      const mint = c.pubkey();
      const bondingCurve = c.pubkey();
      const user = c.pubkey();
      const creator = c.pubkey();
      return { kind: "create", name, symbol, uri, mint, bondingCurve, user, creator, coin: createEventKind(c) };
    }
  } catch {
    return null;
  }
  return null;
}

/**
 * CreateEvent after `creator`: timestamp, four u64 reserves and supply, token_program, then the
 * coin's kind (is_mayhem_mode, is_cashback_enabled, quote_mint, virtual_quote_reserves,
 * creator_fee_bps, is_holder_reward). Events written before a field existed end before it.
 */
function createEventKind(c: Cursor): CreateEventKind | null {
  if (c.remaining < 8 * 5 + 32 + 1 + 1 + 32) return null;
  c.bytes(8 * 5 + 32);
  const isMayhemMode = c.u8() !== 0;
  const isCashbackEnabled = c.u8() !== 0;
  const quoteMint = c.pubkey();
  if (c.remaining < 8 + 8 + 1) return { isMayhemMode, isCashbackEnabled, quoteMint, isHolderReward: null };
  c.bytes(8 + 8);
  return { isMayhemMode, isCashbackEnabled, quoteMint, isHolderReward: c.u8() !== 0 };
}

/**
 * Events emitted as #[event_cpi] self-invocations: inner instructions of `programId` whose first
 * account is that program's event authority and whose data starts with the Anchor event tag.
 * "Program data:" logs are deliberately never read: the same event may appear there too, logs
 * can be truncated, and reading one source only is what keeps an amount from counting twice.
 */
export function cpiEvents(
  inner: readonly { programId: string; accounts: string[]; data: Uint8Array }[],
): { programId: string; event: PumpEvent }[] {
  const authorities = new Map([
    [PUMP_PROGRAM_ID.toBase58(), pumpPdas.eventAuthority().toBase58()],
    [PUMP_AMM_PROGRAM_ID.toBase58(), pumpPdas.ammEventAuthority().toBase58()],
  ]);
  const out: { programId: string; event: PumpEvent }[] = [];
  for (const ix of inner) {
    const authority = authorities.get(ix.programId);
    if (!authority || ix.accounts[0] !== authority || !startsWith(ix.data, DISC.eventIxTag)) continue;
    const event = decodeEvent(ix.data.subarray(8));
    if (event) out.push({ programId: ix.programId, event });
  }
  return out;
}

export interface BondingCurveState {
  virtualTokenReserves: bigint;
  virtualQuoteReserves: bigint;
  realTokenReserves: bigint;
  realQuoteReserves: bigint;
  tokenTotalSupply: bigint;
  complete: boolean;
  /** the zero key when the account predates the creator field */
  creator: string;
  isMayhemMode: boolean;
  /** the zero key means SOL */
  quoteMint: string;
  creatorFeeBps: bigint;
}

/** Layouts the program has written: 49 up to 125 bytes (151 when extended); missing tails read as zero. */
const BONDING_CURVE_MIN_BYTES = 49;
const BONDING_CURVE_FULL_BYTES = 125;

export function decodeBondingCurve(data: Uint8Array): BondingCurveState {
  if (!startsWith(data, DISC.bondingCurveAccount))
    throw new AppError("CHAIN_ACCOUNT_MALFORMED", { account: "BondingCurve" });
  if (data.length < BONDING_CURVE_MIN_BYTES)
    throw new AppError("CHAIN_ACCOUNT_TOO_SHORT", { account: "BondingCurve", bytes: data.length });
  const padded = new Uint8Array(Math.max(BONDING_CURVE_FULL_BYTES, data.length));
  padded.set(data);
  const c = new Cursor(padded.subarray(8));
  const virtualTokenReserves = c.u64();
  const virtualQuoteReserves = c.u64();
  const realTokenReserves = c.u64();
  const realQuoteReserves = c.u64();
  const tokenTotalSupply = c.u64();
  const complete = c.u8() !== 0;
  const creator = c.pubkey();
  const isMayhemMode = c.u8() !== 0;
  c.u8(); // is_cashback_coin
  const quoteMint = c.pubkey();
  const creatorFeeBps = c.u64();
  return {
    virtualTokenReserves,
    virtualQuoteReserves,
    realTokenReserves,
    realQuoteReserves,
    tokenTotalSupply,
    complete,
    creator,
    isMayhemMode,
    quoteMint,
    creatorFeeBps,
  };
}

/** SPL token account `amount` (offset 64), for accounts owned by either token program. */
export function tokenAccountAmount(data: Uint8Array): bigint {
  if (data.length < 72) throw new AppError("CHAIN_ACCOUNT_MALFORMED", { account: "token" });
  return new DataView(data.buffer, data.byteOffset + 64, 8).getBigUint64(0, true);
}

export interface SharingConfigState {
  /** false when the config is paused (distribution fails with SharingConfigNotActive) */
  active: boolean;
  mint: string;
  shareholders: { address: string; shareBps: number }[];
}

/** Pump Fees `SharingConfig`: bump u8, version u8, status enum u8 (0 Paused, 1 Active), mint, admin, admin_revoked bool, Vec<{address, share_bps u16}>. */
export function decodeSharingConfig(data: Uint8Array): SharingConfigState {
  if (!startsWith(data, DISC.sharingConfigAccount))
    throw new AppError("CHAIN_ACCOUNT_MALFORMED", { account: "SharingConfig" });
  const c = new Cursor(data.subarray(8));
  c.u8(); // bump
  c.u8(); // version
  const status = c.u8();
  const mint = c.pubkey();
  c.pubkey(); // admin
  c.u8(); // admin_revoked
  const count = c.u32();
  // The program allows at most 10 shareholders; the bound only stops a hostile length prefix.
  if (count > 64) throw new AppError("CHAIN_SHAREHOLDERS_TOO_MANY", { count, maximum: 64 });
  const shareholders: { address: string; shareBps: number }[] = [];
  for (let i = 0; i < count; i++) {
    const address = c.pubkey();
    const b = c.bytes(2);
    shareholders.push({ address, shareBps: b[0]! | (b[1]! << 8) });
  }
  return { active: status === 1, mint, shareholders };
}

/** PumpSwap `Pool.coin_creator` (offset 211), or null for an account too short to hold it. */
export function poolCoinCreator(data: Uint8Array): string | null {
  if (data.length < 243) return null;
  return new PublicKey(data.subarray(211, 243)).toBase58();
}

/**
 * Pump `get_minimum_distributable_fee` (a view, simulated, never sent): 0 mint, 1 bonding_curve,
 * 2 sharing_config, 3 creator_vault of the sharing config; the shareholders follow as writable
 * remaining accounts, in the config's order, as the SDK passes them.
 */
export function getMinimumDistributableFeeInstruction(
  mint: PublicKey,
  shareholders: readonly PublicKey[],
): TransactionInstruction {
  const sharingConfig = pumpPdas.sharingConfig(mint);
  return new TransactionInstruction({
    programId: PUMP_PROGRAM_ID,
    keys: [
      { pubkey: mint, isSigner: false, isWritable: false },
      { pubkey: pumpPdas.bondingCurve(mint), isSigner: false, isWritable: false },
      { pubkey: sharingConfig, isSigner: false, isWritable: false },
      { pubkey: pumpPdas.creatorVault(sharingConfig), isSigner: false, isWritable: false },
      ...shareholders.map((pubkey) => ({ pubkey, isSigner: false, isWritable: true })),
    ],
    data: Buffer.from(DISC.getMinimumDistributableFee),
  });
}

export interface MinimumDistributableFee {
  minimumRequiredLamports: bigint;
  distributableLamports: bigint;
  canDistribute: boolean;
}

/** `MinimumDistributableFeeEvent` as the view returns it: u64, u64, bool, no discriminator. */
export function decodeMinimumDistributableFee(data: Uint8Array): MinimumDistributableFee | null {
  if (data.length !== 17) return null;
  const c = new Cursor(data);
  return { minimumRequiredLamports: c.u64(), distributableLamports: c.u64(), canDistribute: c.u8() !== 0 };
}

/**
 * The account layouts this adapter knows, by kind: the discriminator, every length the program has
 * written, and where the fields it knows end. Anything else (another discriminator, a new length,
 * a non-zero byte past the known fields, such as the v3 `BondingCurve.creator_fee` after byte 125)
 * is a program change: readings built on it would be guesses.
 */
const KNOWN_LAYOUTS = {
  // 49 at initialize up to 125 (every field of PUMP.md §5), 151 once `extend_account` ran
  BondingCurve: {
    disc: DISC.bondingCurveAccount,
    lengths: [49, 81, 82, 83, 115, 123, 124, 125, 151],
    fieldsEnd: 125,
  },
  // 211 … 270 as fields were added (pump-swap-sdk POOL_SIZE), 300 once extended
  Pool: { disc: DISC.poolAccount, lengths: [211, 243, 244, 245, 261, 270, 300], fieldsEnd: 270 },
  // 1045, 1054, then 1087 (pump-sdk GLOBAL_SIZE); the extended size is not published, so a longer
  // Global counts as changed only once something is written past the fields known here
  Global: { disc: DISC.globalAccount, lengths: [1045, 1054], fieldsEnd: 1087 },
} as const;

/** Pump Fees allocates a SharingConfig up to `SharingConfig::MAX_SIZE`; the shareholder Vec ends before. */
const SHARING_CONFIG_MAX_BYTES = 1_024;

export type PumpAccountKind = keyof typeof KNOWN_LAYOUTS | "SharingConfig";

/** null when `data` is a layout this adapter knows; otherwise what changed, for the set-aside reason. */
export function unknownLayout(kind: PumpAccountKind, data: Uint8Array): string | null {
  if (kind === "SharingConfig") {
    if (!startsWith(data, DISC.sharingConfigAccount)) return "SharingConfig discriminator differs";
    if (data.length > SHARING_CONFIG_MAX_BYTES) return `SharingConfig is ${data.length} bytes`;
    let end: number;
    try {
      const count = decodeSharingConfig(data).shareholders.length;
      end = 8 + 3 + 32 + 32 + 1 + 4 + 34 * count;
    } catch {
      return "SharingConfig does not decode";
    }
    return firstNonZero(data, end) === null ? null : `SharingConfig has data after its shareholders (byte ${end})`;
  }
  const layout = KNOWN_LAYOUTS[kind];
  if (!startsWith(data, layout.disc)) return `${kind} discriminator differs`;
  const lengths: readonly number[] = layout.lengths;
  if (!lengths.includes(data.length) && !(kind === "Global" && data.length >= layout.fieldsEnd))
    return `${kind} is ${data.length} bytes, a length this adapter does not know`;
  const at = firstNonZero(data, layout.fieldsEnd);
  return at === null ? null : `${kind} has a non-zero byte at ${at}, past the fields this adapter knows`;
}

function firstNonZero(data: Uint8Array, from: number): number | null {
  for (let i = from; i < data.length; i++) if (data[i] !== 0) return i;
  return null;
}
