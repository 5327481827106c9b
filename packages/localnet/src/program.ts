/**
 * The local launch program: a pump.fun-like bonding curve built only from System, SPL Token,
 * Associated Token Account and Memo instructions, because no custom program can be loaded into
 * the local chain. packages/localnet/README.md explains the scheme; in short:
 *
 * - The "program" is the node itself. It holds keys derived from a program seed (bonding curve,
 *   creator vaults, event authority) and co-signs a transaction only when every instruction that
 *   needs one of those keys belongs to a well-formed operation ("op") it re-derived and checked
 *   against the chain state at execution time. A malformed op fails on chain with a custom error.
 * - Every op ends with a Memo instruction carrying a JSON event and naming the event authority as
 *   its signer, so an event can only exist in a transaction the node validated: the analogue of
 *   pump's self-CPI events checked against `event_authority`.
 * - Fees accrue in system-account vaults (unswept = lamports - rent, as for pump's curve vault);
 *   the curve vault before bonding, the pool vault after. Collect moves a vault's fees to the
 *   creator address; anyone may send it (the node signs for the vault).
 * - The bonded flag is the mint's freeze authority: present while on the curve, removed by the
 *   node's `complete` op, which nobody can undo.
 *
 * This module is pure (no I/O): key derivation, instruction builders, quote math, event decoding
 * and op validation against a state reader supplied by the node.
 */
import { createHmac } from "node:crypto";
import { type Keypair, PublicKey, SystemProgram, TransactionInstruction } from "@solana/web3.js";
import { addressOfKey, encodeBase58, isAddress } from "./address";
import { keypairFromSeed, publicKeyBytesFromSeed } from "./fast-keypair";
import {
  AuthorityType,
  TOKEN_PROGRAM_ID,
  ASSOCIATED_TOKEN_PROGRAM_ID,
  MINT_SIZE,
  createAssociatedTokenAccountIdempotentInstruction,
  createInitializeMint2Instruction,
  createMintToInstruction,
  createSetAuthorityInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";

/** Associated token addresses by mint and owner, remembered: each is a PDA search (hashes and a curve check per bump). Bounded, cleared when full. */
const associatedAddresses = new Map<string, PublicKey>();
const ASSOCIATED_ADDRESSES_MAX = 50_000;

/** `getAssociatedTokenAddressSync(mint, owner, true)` (the token program's), remembered. */
export function associatedTokenAddress(mint: PublicKey | string, owner: PublicKey | string): PublicKey {
  const key = `${typeof mint === "string" ? mint : mint.toBase58()} ${typeof owner === "string" ? owner : owner.toBase58()}`;
  let address = associatedAddresses.get(key);
  if (!address) {
    address = getAssociatedTokenAddressSync(new PublicKey(mint), new PublicKey(owner), true);
    if (associatedAddresses.size >= ASSOCIATED_ADDRESSES_MAX) associatedAddresses.clear();
    associatedAddresses.set(key, address);
  }
  return address;
}

export const MEMO_PROGRAM_ID = new PublicKey("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr");
export const TOKEN_DECIMALS = 6;
/** 1e9 tokens of 6 decimals, as pump mints. */
export const TOTAL_SUPPLY = 1_000_000_000_000_000n;
/** Tokens sold on the curve (pump's initial real token reserves); the rest waits for the pool. */
export const CURVE_SALE_TOKENS = 793_100_000_000_000n;
export const RESERVED_TOKENS = TOTAL_SUPPLY - CURVE_SALE_TOKENS;
/** Pump's virtual reserves: they set the starting price and the curve's shape. */
export const VIRTUAL_SOL_LAMPORTS = 30_000_000_000n;
export const VIRTUAL_TOKEN_OFFSET = 1_073_000_000_000_000n - CURVE_SALE_TOKENS;

/** Rent-exempt minimum for `dataLen` bytes under the default rent (3480 lamports/byte-year, 2 years). */
export function rentExemptLamports(dataLen: number): bigint {
  return BigInt(128 + dataLen) * 6960n;
}
export const SYSTEM_ACCOUNT_RENT_LAMPORTS = rentExemptLamports(0);
export const MINT_RENT_LAMPORTS = rentExemptLamports(MINT_SIZE);

export const NAME_MAX_CHARS = 32;
export const SYMBOL_MAX_CHARS = 13;
export const URI_MAX_CHARS = 200;

/** Custom error codes a rejected op fails with, in pump's 6000 range so they read familiar. */
export const LaunchError = {
  InvalidOp: 6001,
  SlippageExceeded: 6002,
  WrongFeeVault: 6003,
  CollectExceedsVault: 6004,
  MintAlreadyExists: 6005,
  UnknownMint: 6006,
  InvalidArguments: 6007,
  UnauthorizedSigner: 6008,
  NothingToTrade: 6009,
  /**
   * A distribution below MINIMUM_DISTRIBUTABLE_LAMPORTS, or out of the pool vault below
   * POOL_TRANSFER_MIN_LAMPORTS. Pump's IDL names no code for either (its AMM transfer silently
   * moves nothing, and the creator then falls short of its transfer); a local op is co-signed
   * exactly as built or refused, so the refusal gets a code of its own.
   */
  DistributionBelowMinimum: 6010,
  PoolFeesBelowRent: 6011,
  /** pump's own codes for fee sharing, so failures read the same on both chains */
  CreatorVaultMigratedToSharingConfig: 6048,
  CreatorMigratedToSharingConfig: 6049,
  SharingConfigNotActive: 6051,
  BondingCurveAndSharingConfigCreatorMismatch: 6053,
  ShareholdersAndRemainingAccountsMismatch: 6054,
} as const;

export type VaultKind = "curve" | "pool";

/**
 * The least a distribute op may pay out: the local program's minimum distributable amount (pump's
 * own is only known to its `get_minimum_distributable_fee` view). A constant of the program, so
 * the adapter reads it as program state, as it reads the creator fee.
 */
export const MINIMUM_DISTRIBUTABLE_LAMPORTS = 1_000_000n;
/**
 * Pool-vault fees move to distribution only from the rent of pump's AMM WSOL account on
 * (165 bytes: 2,039,280 lamports): below it pump's transfer_creator_fees_to_pump moves nothing.
 */
export const POOL_TRANSFER_MIN_LAMPORTS = rentExemptLamports(165);

/** What a distribute op out of this vault may pay now: all its fees, or 0n below the program's bounds. */
export function distributableFrom(vault: VaultKind, feesLamports: bigint): bigint {
  if (vault === "pool" && feesLamports < POOL_TRANSFER_MIN_LAMPORTS) return 0n;
  return feesLamports >= MINIMUM_DISTRIBUTABLE_LAMPORTS ? feesLamports : 0n;
}

export type LaunchEvent =
  | { e: "create"; m: string; n: string; s: string; u: string; c: string }
  | { e: "buy"; m: string; c: string; v: VaultKind; sol: string; tok: string; fee: string }
  | { e: "sell"; m: string; c: string; v: VaultKind; sol: string; tok: string; fee: string }
  | { e: "collect"; c: string; v: VaultKind; fee: string }
  | { e: "complete"; m: string }
  /** fee sharing started: the mint's sharing config `sc` is its creator from now on (node-only) */
  | { e: "share"; m: string; sc: string }
  /**
   * the sharing config's vault `v` of mint `m` paid out `fee` to its `n` shareholders: the op's
   * body is one transfer per shareholder, in the config's order (the memo stays short: memo
   * compute grows with its length)
   */
  | { e: "distribute"; m: string; v: VaultKind; fee: string; n: number };

/** How many instructions precede the event memo in each op. */
const OP_BODY_LENGTH: Record<LaunchEvent["e"], number> = {
  create: 6,
  buy: 4,
  sell: 3,
  collect: 1,
  complete: 2,
  share: 3,
  /** variable: one transfer per shareholder (see opBodyLength) */
  distribute: 0,
};

function opBodyLength(ev: LaunchEvent): number {
  return ev.e === "distribute" ? (Number.isInteger(ev.n) && ev.n > 0 && ev.n <= 10 ? ev.n : 0) : OP_BODY_LENGTH[ev.e];
}

/**
 * Keys of the local program. Every address is a pure function of the program seed, so the adapter
 * can name vaults without I/O; only the node (which owns the seed) signs with them.
 */
export class LocalProgramKeys {
  readonly eventAuthority: Keypair;
  private readonly cache = new Map<string, Keypair>();
  private readonly known = new Map<string, Keypair>();
  /** base58 addresses by `label:subject` as the caller spelled the subject; no Keypair is kept */
  private readonly addresses = new Map<string, string>();
  private static readonly CACHE_LIMIT = 10_000;
  /**
   * ~200 bytes an entry (two flat strings, see encodeBase58, and the map's slot). It was 40,000,
   * ~8 MB in each thread that filled it: the sweep reads every token in order, so with more tokens
   * than entries it finds none of them at any size; what repeats (hot details, one read's vaults)
   * fits in 10,000.
   */
  private static readonly ADDRESS_CACHE_LIMIT = 10_000;
  private readonly addressCacheLimit: number;

  /**
   * `addressCacheLimit`: a bench that reads every one of N tokens each run finds them all only with
   * room for all of them (~200 bytes each); the service keeps the default.
   */
  constructor(
    private readonly seed: Uint8Array,
    options: { addressCacheLimit?: number } = {},
  ) {
    if (seed.length < 16) throw new Error("program seed must be at least 16 bytes");
    this.addressCacheLimit = Math.max(1, options.addressCacheLimit ?? LocalProgramKeys.ADDRESS_CACHE_LIMIT);
    this.eventAuthority = this.derive("event-authority", "");
  }

  private derive(label: string, subject: string): Keypair {
    const cacheKey = `${label}:${subject}`;
    const hit = this.cache.get(cacheKey);
    if (hit) return hit;
    const kp = keypairFromSeed(this.seedOf(label, subject));
    // Bounded: a long-running simulator creates many tokens; old entries can be re-derived.
    if (this.cache.size >= LocalProgramKeys.CACHE_LIMIT) this.cache.clear();
    this.cache.set(cacheKey, kp);
    this.known.set(kp.publicKey.toBase58(), kp);
    // Oldest first; only used to name misuse of a program key, so forgetting one is harmless.
    if (this.known.size > LocalProgramKeys.CACHE_LIMIT * 5) {
      const oldest = this.known.keys().next().value;
      if (oldest !== undefined) this.known.delete(oldest);
    }
    return kp;
  }

  private seedOf(label: string, subject: string): Uint8Array {
    const message = `local-launch/${label}/${subject}`;
    // Bun's native HMAC: the same bytes as node:crypto's createHmac, in half the time and a quarter
    // of the garbage (a detail's vault refresh derives two or three of these on the request thread).
    if (typeof Bun === "undefined") return createHmac("sha512", this.seed).update(message).digest().subarray(0, 32);
    return new Bun.CryptoHasher("sha512", this.seed).update(message).digest().subarray(0, 32);
  }

  /**
   * The address of a derived key. Reads name three or four of them per token; building each
   * Keypair (and its PublicKey's big number) and re-encoding base58 cost more than the derivation,
   * so only the 32 public bytes are computed, and the string is remembered (bounded, oldest first).
   */
  private addressOf(label: string, subject: PublicKey | string): string {
    const given = typeof subject === "string" ? subject : subject.toBase58();
    const cacheKey = `${label}:${given}`;
    const hit = this.addresses.get(cacheKey);
    if (hit !== undefined) return hit;
    // Base58 spells 32 bytes one way only: a subject that decodes to 32 bytes is already the
    // spelling the Keypair path derives from; anything else is refused, as `new PublicKey` does.
    if (!isAddress(given)) throw new Error("Invalid public key input");
    const derived = this.cache.get(cacheKey);
    const address = derived
      ? addressOfKey(derived.publicKey)
      : encodeBase58(publicKeyBytesFromSeed(this.seedOf(label, given)));
    if (this.addresses.size >= this.addressCacheLimit) {
      const oldest = this.addresses.keys().next().value;
      if (oldest !== undefined) this.addresses.delete(oldest);
    }
    this.addresses.set(cacheKey, address);
    return address;
  }

  curveVaultAddress(creator: PublicKey | string): string {
    return this.addressOf("creator-vault", creator);
  }
  poolVaultAddress(creator: PublicKey | string): string {
    return this.addressOf("pool-creator-vault", creator);
  }
  bondingCurveAddress(mint: PublicKey | string): string {
    return this.addressOf("bonding-curve", mint);
  }
  sharingConfigAddress(mint: PublicKey | string): string {
    return this.addressOf("sharing-config", mint);
  }

  /** Holds the SOL reserves, owns the curve's token account, and is mint and freeze authority. */
  bondingCurve(mint: PublicKey | string): Keypair {
    return this.derive("bonding-curve", new PublicKey(mint).toBase58());
  }
  curveVault(creator: PublicKey | string): Keypair {
    return this.derive("creator-vault", new PublicKey(creator).toBase58());
  }
  poolVault(creator: PublicKey | string): Keypair {
    return this.derive("pool-creator-vault", new PublicKey(creator).toBase58());
  }
  vault(kind: VaultKind, creator: PublicKey | string): Keypair {
    return kind === "curve" ? this.curveVault(creator) : this.poolVault(creator);
  }
  /** The mint's fee-sharing config: pump's `["sharing-config", mint]` under Pump Fees. */
  sharingConfig(mint: PublicKey | string): Keypair {
    return this.derive("sharing-config", new PublicKey(mint).toBase58());
  }
  /** Owner of sharing-config accounts: the local stand-in for the Pump Fees program. */
  get feeProgram(): PublicKey {
    return this.derive("fee-program", "").publicKey;
  }
  curveTokenAccount(mint: PublicKey | string): PublicKey {
    return associatedTokenAddress(mint, this.bondingCurve(mint).publicKey);
  }
  /** A key this program derived before (so a missing signature for it is the program's to give). */
  isProgramKey(address: string): boolean {
    return this.known.has(address) || address === this.eventAuthority.publicKey.toBase58();
  }
}

/** Public description of a local program: enough for an adapter, no secrets except the derivation. */
export interface LocalProgramConfig {
  creatorFeeBps: number;
  /** real SOL reserves at which a curve completes and fees move to the pool vault */
  bondThresholdLamports: bigint;
}

function memoEvent(keys: LocalProgramKeys, event: LaunchEvent): TransactionInstruction {
  return new TransactionInstruction({
    programId: MEMO_PROGRAM_ID,
    keys: [{ pubkey: keys.eventAuthority.publicKey, isSigner: true, isWritable: false }],
    data: Buffer.from(`lpump:${JSON.stringify(event)}`, "utf8"),
  });
}

export function feeFor(amountLamports: bigint, feeBps: number): bigint {
  return (amountLamports * BigInt(feeBps)) / 10_000n;
}

/** The fee rounded up: the program accepts either rounding, as pump's ceil-rounded fees do. */
export function feeForCeil(amountLamports: bigint, feeBps: number): bigint {
  return (amountLamports * BigInt(feeBps) + 9_999n) / 10_000n;
}

/**
 * What an exact-input buy of at most `budgetLamports` spends, as pump's buy_exact_sol_in does: the
 * largest input whose rounded-up fee still fits, and that fee. What is left of the budget (a
 * lamport or so of rounding) stays with the buyer.
 */
export function spendWithin(budgetLamports: bigint, feeBps: number): { solInLamports: bigint; feeLamports: bigint } {
  let solIn = (budgetLamports * 10_000n) / (10_000n + BigInt(feeBps));
  // The estimate is within a lamport or two of the answer; the bounds keep both loops finite.
  for (let i = 0; i < 8 && solIn > 0n && solIn + feeForCeil(solIn, feeBps) > budgetLamports; i++) solIn--;
  for (let i = 0; i < 8 && solIn + 1n + feeForCeil(solIn + 1n, feeBps) <= budgetLamports; i++) solIn++;
  return { solInLamports: solIn, feeLamports: feeForCeil(solIn, feeBps) };
}

// ---------------------------------------------------------------------------------------------
// Builders. Each returns one op: its body followed by its event memo.

export function buildCreateOp(
  keys: LocalProgramKeys,
  p: { payer: PublicKey; mint: PublicKey; creator: PublicKey; name: string; symbol: string; uri: string },
): TransactionInstruction[] {
  const curve = keys.bondingCurve(p.mint).publicKey;
  const curveAta = keys.curveTokenAccount(p.mint);
  return [
    SystemProgram.createAccount({
      fromPubkey: p.payer,
      newAccountPubkey: p.mint,
      lamports: Number(MINT_RENT_LAMPORTS),
      space: MINT_SIZE,
      programId: TOKEN_PROGRAM_ID,
    }),
    createInitializeMint2Instruction(p.mint, TOKEN_DECIMALS, curve, curve),
    SystemProgram.transfer({ fromPubkey: p.payer, toPubkey: curve, lamports: SYSTEM_ACCOUNT_RENT_LAMPORTS }),
    createAssociatedTokenAccountIdempotentInstruction(p.payer, curveAta, curve, p.mint),
    createMintToInstruction(p.mint, curveAta, curve, TOTAL_SUPPLY),
    SystemProgram.transfer({
      fromPubkey: p.payer,
      toPubkey: keys.curveVault(p.creator).publicKey,
      lamports: SYSTEM_ACCOUNT_RENT_LAMPORTS,
    }),
    memoEvent(keys, {
      e: "create",
      m: p.mint.toBase58(),
      n: p.name,
      s: p.symbol,
      u: p.uri,
      c: p.creator.toBase58(),
    }),
  ];
}

export function buildBuyOp(
  keys: LocalProgramKeys,
  p: {
    buyer: PublicKey;
    mint: PublicKey;
    creator: PublicKey;
    vault: VaultKind;
    solInLamports: bigint;
    tokensOut: bigint;
    feeLamports: bigint;
  },
): TransactionInstruction[] {
  const curve = keys.bondingCurve(p.mint).publicKey;
  const buyerAta = associatedTokenAddress(p.mint, p.buyer);
  return [
    createAssociatedTokenAccountIdempotentInstruction(p.buyer, buyerAta, p.buyer, p.mint),
    SystemProgram.transfer({ fromPubkey: p.buyer, toPubkey: curve, lamports: p.solInLamports }),
    SystemProgram.transfer({
      fromPubkey: p.buyer,
      toPubkey: keys.vault(p.vault, p.creator).publicKey,
      lamports: p.feeLamports,
    }),
    createTransferCheckedInstruction(
      keys.curveTokenAccount(p.mint),
      p.mint,
      buyerAta,
      curve,
      p.tokensOut,
      TOKEN_DECIMALS,
    ),
    memoEvent(keys, {
      e: "buy",
      m: p.mint.toBase58(),
      c: p.creator.toBase58(),
      v: p.vault,
      sol: p.solInLamports.toString(),
      tok: p.tokensOut.toString(),
      fee: p.feeLamports.toString(),
    }),
  ];
}

/** `solOutLamports` is what the seller receives; the fee is paid from the reserves on top of it. */
export function buildSellOp(
  keys: LocalProgramKeys,
  p: {
    seller: PublicKey;
    mint: PublicKey;
    creator: PublicKey;
    vault: VaultKind;
    tokensIn: bigint;
    solOutLamports: bigint;
    feeLamports: bigint;
  },
): TransactionInstruction[] {
  const curve = keys.bondingCurve(p.mint).publicKey;
  const sellerAta = associatedTokenAddress(p.mint, p.seller);
  return [
    createTransferCheckedInstruction(
      sellerAta,
      p.mint,
      keys.curveTokenAccount(p.mint),
      p.seller,
      p.tokensIn,
      TOKEN_DECIMALS,
    ),
    SystemProgram.transfer({ fromPubkey: curve, toPubkey: p.seller, lamports: p.solOutLamports }),
    SystemProgram.transfer({
      fromPubkey: curve,
      toPubkey: keys.vault(p.vault, p.creator).publicKey,
      lamports: p.feeLamports,
    }),
    memoEvent(keys, {
      e: "sell",
      m: p.mint.toBase58(),
      c: p.creator.toBase58(),
      v: p.vault,
      sol: p.solOutLamports.toString(),
      tok: p.tokensIn.toString(),
      fee: p.feeLamports.toString(),
    }),
  ];
}

/** Permissionless: moves `amountLamports` of a creator vault to the creator address. */
export function buildCollectOp(
  keys: LocalProgramKeys,
  p: { creator: PublicKey; vault: VaultKind; amountLamports: bigint },
): TransactionInstruction[] {
  return [
    SystemProgram.transfer({
      fromPubkey: keys.vault(p.vault, p.creator).publicKey,
      toPubkey: p.creator,
      lamports: p.amountLamports,
    }),
    memoEvent(keys, { e: "collect", c: p.creator.toBase58(), v: p.vault, fee: p.amountLamports.toString() }),
  ];
}

/** Node-only: ends the curve (freeze authority removed) and opens the pool vault. */
export function buildCompleteOp(
  keys: LocalProgramKeys,
  p: { mint: PublicKey; creator: PublicKey; payer: PublicKey; poolVaultTopUpLamports: bigint },
): TransactionInstruction[] {
  const curve = keys.bondingCurve(p.mint).publicKey;
  return [
    createSetAuthorityInstruction(p.mint, curve, AuthorityType.FreezeAccount, null),
    SystemProgram.transfer({
      fromPubkey: p.payer,
      toPubkey: keys.poolVault(p.creator).publicKey,
      lamports: p.poolVaultTopUpLamports,
    }),
    memoEvent(keys, { e: "complete", m: p.mint.toBase58() }),
  ];
}

/**
 * Node-only (pump's create_fee_sharing_config, or the global admin): the sharing config becomes
 * the mint's creator, read back from the mint's mint authority (the bonding curve until then), and
 * its vaults are opened. The config's shareholders are written by the node into the config account.
 */
export function buildShareOp(
  keys: LocalProgramKeys,
  p: { mint: PublicKey; payer: PublicKey; curveVaultTopUpLamports: bigint; poolVaultTopUpLamports: bigint },
): TransactionInstruction[] {
  const curve = keys.bondingCurve(p.mint).publicKey;
  const config = keys.sharingConfig(p.mint).publicKey;
  return [
    createSetAuthorityInstruction(p.mint, curve, AuthorityType.MintTokens, config),
    SystemProgram.transfer({
      fromPubkey: p.payer,
      toPubkey: keys.curveVault(config).publicKey,
      lamports: p.curveVaultTopUpLamports,
    }),
    SystemProgram.transfer({
      fromPubkey: p.payer,
      toPubkey: keys.poolVault(config).publicKey,
      lamports: p.poolVaultTopUpLamports,
    }),
    memoEvent(keys, { e: "share", m: p.mint.toBase58(), sc: config.toBase58() }),
  ];
}

/** Each shareholder's part of `distributedLamports`, rounded down as pump's program does. */
export function sharesOf(
  distributedLamports: bigint,
  shareholders: readonly { address: string; shareBps: number }[],
): [string, bigint][] {
  return shareholders.map((h) => [h.address, (distributedLamports * BigInt(h.shareBps)) / 10_000n]);
}

/** Permissionless (pump's distribute_creator_fees): pays `distributedLamports` of a sharing config's vault to its shareholders. */
export function buildDistributeOp(
  keys: LocalProgramKeys,
  p: {
    mint: PublicKey;
    vault: VaultKind;
    distributedLamports: bigint;
    shareholders: readonly { address: string; shareBps: number }[];
  },
): TransactionInstruction[] {
  const config = keys.sharingConfig(p.mint).publicKey;
  const from = keys.vault(p.vault, config).publicKey;
  const shares = sharesOf(p.distributedLamports, p.shareholders);
  return [
    ...shares.map(([address, lamports]) =>
      SystemProgram.transfer({ fromPubkey: from, toPubkey: new PublicKey(address), lamports }),
    ),
    memoEvent(keys, {
      e: "distribute",
      m: p.mint.toBase58(),
      v: p.vault,
      fee: p.distributedLamports.toString(),
      n: shares.length,
    }),
  ];
}

/** pump fees' `SharingConfig` account discriminator. */
const SHARING_CONFIG_DISCRIMINATOR_HEX = "d84a0900388c5d4b";

/** The SharingConfig account as pump's fee program lays it out, so one decoder reads both chains. */
export function encodeSharingConfig(
  mint: PublicKey,
  shareholders: readonly { address: string; shareBps: number }[],
  active: boolean,
): Uint8Array {
  const b = Buffer.alloc(8 + 3 + 32 + 32 + 1 + 4 + 34 * shareholders.length);
  Buffer.from(SHARING_CONFIG_DISCRIMINATOR_HEX, "hex").copy(b, 0);
  b.writeUInt8(255, 8);
  b.writeUInt8(1, 9);
  b.writeUInt8(active ? 1 : 0, 10);
  mint.toBuffer().copy(b, 11);
  b.writeUInt8(1, 75); // admin revoked: the shares are final, as after pump's one update
  b.writeUInt32LE(shareholders.length, 76);
  shareholders.forEach((h, i) => {
    new PublicKey(h.address).toBuffer().copy(b, 80 + 34 * i);
    b.writeUInt16LE(h.shareBps, 112 + 34 * i);
  });
  return new Uint8Array(b);
}

/** SPL mint layout: the mint authority (COption) at 0; the local program's creator record. */
export function mintAuthorityOf(mintData: Uint8Array): string | null {
  if (mintData.length < 82) return null;
  if (new DataView(mintData.buffer, mintData.byteOffset, 4).getUint32(0, true) !== 1) return null;
  // Read for every token a detail refreshes: no PublicKey (a big number) and no rope (see encodeBase58).
  return encodeBase58(mintData.subarray(4, 36));
}

// ---------------------------------------------------------------------------------------------
// Curve state and quotes.

export interface CurveState {
  /** lamports in the bonding-curve account above its rent */
  realSolLamports: bigint;
  /** tokens in the curve's token account */
  curveTokens: bigint;
  bonded: boolean;
}

/** Tokens a trade may take: the curve's sale part before bonding, everything after. */
export function tradableTokens(s: CurveState): bigint {
  if (s.bonded) return s.curveTokens;
  const t = s.curveTokens - RESERVED_TOKENS;
  return t > 0n ? t : 0n;
}

/** Constant product over virtual reserves (pump's curve), rounding in the curve's favour. */
export function quoteBuy(s: CurveState, solInLamports: bigint): bigint {
  if (solInLamports <= 0n) return 0n;
  const tradable = tradableTokens(s);
  const vSol = s.realSolLamports + VIRTUAL_SOL_LAMPORTS;
  const vTok = tradable + VIRTUAL_TOKEN_OFFSET;
  const out = (vTok * solInLamports) / (vSol + solInLamports);
  // biome-ignore lint/complexity/useMathMinMax: bigint lamports; Math.min takes numbers only
  return out < tradable ? out : tradable;
}

/** Gross lamports the reserves give for `tokensIn` (the creator fee is taken out of this). */
export function quoteSell(s: CurveState, tokensIn: bigint): bigint {
  if (tokensIn <= 0n) return 0n;
  const vSol = s.realSolLamports + VIRTUAL_SOL_LAMPORTS;
  const vTok = tradableTokens(s) + VIRTUAL_TOKEN_OFFSET;
  const out = (vSol * tokensIn) / (vTok + tokensIn);
  // biome-ignore lint/complexity/useMathMinMax: bigint lamports; Math.min takes numbers only
  return out < s.realSolLamports ? out : s.realSolLamports;
}

export function readU64LE(data: Uint8Array, offset: number): bigint {
  if (data.length < offset + 8) return 0n;
  return new DataView(data.buffer, data.byteOffset + offset, 8).getBigUint64(0, true);
}

/** SPL mint layout: freeze authority option (u32) at 46. */
export function mintIsBonded(mintData: Uint8Array): boolean {
  if (mintData.length < 82) return false;
  return new DataView(mintData.buffer, mintData.byteOffset + 46, 4).getUint32(0, true) === 0;
}

export function unsweptLamports(vaultLamports: bigint): bigint {
  const v = vaultLamports - SYSTEM_ACCOUNT_RENT_LAMPORTS;
  return v > 0n ? v : 0n;
}

// ---------------------------------------------------------------------------------------------
// Events.

export interface InstructionLike {
  programId: string;
  accounts: string[];
  data: Uint8Array;
}

/** Parses an instruction as a program event, or null when it is not one signed by our authority. */
export function decodeEvent(ix: InstructionLike, eventAuthority: string): LaunchEvent | null {
  if (ix.programId !== MEMO_PROGRAM_ID.toBase58()) return null;
  if (ix.accounts.length !== 1 || ix.accounts[0] !== eventAuthority) return null;
  const text = Buffer.from(ix.data).toString("utf8");
  if (!text.startsWith("lpump:")) return null;
  try {
    const ev = JSON.parse(text.slice(6)) as LaunchEvent;
    return ev && typeof ev === "object" && typeof ev.e === "string" && Object.hasOwn(OP_BODY_LENGTH, ev.e) ? ev : null;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// Validation: what the node checks before it lends a program signature.

/**
 * Program keys the events in a transaction could ask the node to sign for. The RPC front uses it
 * to tell "a signature the program may add" from "a signature that is simply missing", without
 * relying on which keys the node happens to have derived before.
 */
export function programSignersNamedBy(keys: LocalProgramKeys, instructions: readonly InstructionLike[]): Set<string> {
  const eventAuthority = keys.eventAuthority.publicKey.toBase58();
  const out = new Set<string>();
  for (const ix of instructions) {
    const ev = decodeEvent(ix, eventAuthority);
    if (!ev) continue;
    out.add(eventAuthority);
    try {
      if (ev.e === "collect" && (ev.v === "curve" || ev.v === "pool"))
        out.add(keys.vault(ev.v, ev.c).publicKey.toBase58());
      else if (ev.e === "distribute" && (ev.v === "curve" || ev.v === "pool"))
        out.add(keys.vault(ev.v, keys.sharingConfig(ev.m).publicKey).publicKey.toBase58());
      else if (ev.e !== "collect" && ev.e !== "distribute") out.add(keys.bondingCurve(ev.m).publicKey.toBase58());
    } catch {
      // a malformed key in an event: validation will fail the op on chain
    }
  }
  return out;
}

export interface ProgramStateReader {
  account(address: string): { lamports: bigint; owner: string; data: Uint8Array } | null;
  /** creator of a mint this program created, or null */
  creatorOf(mint: string): string | null;
}

export type Validation =
  | { ok: true; signers: Keypair[]; created: { mint: string; creator: string }[]; tradedMints: string[] }
  | { ok: false; code: number; instructionIndex: number; message: string };

function sameInstruction(a: InstructionLike, b: TransactionInstruction): boolean {
  if (a.programId !== b.programId.toBase58()) return false;
  if (a.accounts.length !== b.keys.length) return false;
  for (let i = 0; i < b.keys.length; i++) if (a.accounts[i] !== b.keys[i]!.pubkey.toBase58()) return false;
  return Buffer.from(a.data).equals(Buffer.from(b.data));
}

export function curveStateOf(keys: LocalProgramKeys, state: ProgramStateReader, mint: string): CurveState | null {
  const mintAcc = state.account(mint);
  if (!mintAcc || mintAcc.owner !== TOKEN_PROGRAM_ID.toBase58()) return null;
  const curve = state.account(keys.bondingCurve(mint).publicKey.toBase58());
  const curveAta = state.account(keys.curveTokenAccount(mint).toBase58());
  return {
    realSolLamports: unsweptLamports(curve?.lamports ?? 0n),
    curveTokens: curveAta ? readU64LE(curveAta.data, 64) : 0n,
    bonded: mintIsBonded(mintAcc.data),
  };
}

function bigintField(v: unknown): bigint | null {
  if (typeof v !== "string" || !/^\d{1,20}$/.test(v)) return null;
  const n = BigInt(v);
  return n <= 0xffff_ffff_ffff_ffffn ? n : null;
}

function isPubkey(v: unknown): v is string {
  if (typeof v !== "string") return false;
  try {
    return new PublicKey(v).toBase58() === v;
  } catch {
    return false;
  }
}

/**
 * Checks every op in a transaction against the builders and the current state. `unsigned` are the
 * required signers whose signature is missing; each must be a program key a validated op uses.
 */
export function validateTransaction(
  keys: LocalProgramKeys,
  config: LocalProgramConfig,
  state: ProgramStateReader,
  instructions: readonly InstructionLike[],
  unsigned: readonly string[],
): Validation {
  const eventAuthority = keys.eventAuthority.publicKey.toBase58();
  const tallies: OpTallies = {
    authorised: new Map<string, Keypair>(),
    created: [],
    tradedMints: [],
    collectedPerVault: new Map<string, bigint>(),
  };

  for (let i = 0; i < instructions.length; i++) {
    const ix = instructions[i]!;
    const ev = decodeEvent(ix, eventAuthority);
    if (!ev) continue;
    const bodyLength = opBodyLength(ev);
    if (i < bodyLength) return fail(LaunchError.InvalidOp, i, "event without its op");
    const body = instructions.slice(i - bodyLength, i + 1);
    const c: OpCheck = {
      keys,
      config,
      state,
      i,
      body,
      matches: (expected) => expected.length === body.length && expected.every((e, k) => sameInstruction(body[k]!, e)),
      ...tallies,
    };
    const failure = checkOp(c, ev);
    if (failure) return failure;
    tallies.authorised.set(eventAuthority, keys.eventAuthority);
  }

  const signers: Keypair[] = [];
  for (const address of unsigned) {
    const kp = tallies.authorised.get(address);
    if (kp) signers.push(kp);
    else if (keys.isProgramKey(address)) {
      return fail(LaunchError.UnauthorizedSigner, 0, `program key ${address} used outside a program op`);
    }
  }
  return { ok: true, signers, created: tallies.created, tradedMints: tallies.tradedMints };
}

/** What the ops of one transaction add up to as they are checked in order. */
interface OpTallies {
  /** program keys a checked op may have the node sign with */
  authorised: Map<string, Keypair>;
  created: { mint: string; creator: string }[];
  tradedMints: string[];
  /** lamports collected or distributed so far per vault: together they may not exceed its fees */
  collectedPerVault: Map<string, bigint>;
}

/** One op to check: its event's index `i`, its body (the instructions up to and with the event). */
interface OpCheck extends OpTallies {
  keys: LocalProgramKeys;
  config: LocalProgramConfig;
  state: ProgramStateReader;
  i: number;
  body: readonly InstructionLike[];
  /** true when the body is exactly what the program's builder makes */
  matches(expected: TransactionInstruction[]): boolean;
}

type Failure = Extract<Validation, { ok: false }>;

function fail(code: number, instructionIndex: number, message: string): Failure {
  return { ok: false, code, instructionIndex, message };
}

/** null when the op is one the program accepts now; the failure otherwise. */
function checkOp(c: OpCheck, ev: LaunchEvent): Failure | null {
  switch (ev.e) {
    case "create":
      return checkCreate(c, ev);
    case "buy":
    case "sell":
      return checkTrade(c, ev);
    case "collect":
      return checkCollect(c, ev);
    case "complete":
      // Only the node completes a curve; it signs that op itself and never asks for validation.
      return fail(LaunchError.UnauthorizedSigner, c.i, "complete is the program's own op");
    case "share":
      return fail(LaunchError.UnauthorizedSigner, c.i, "share is the program's own op");
    case "distribute":
      return checkDistribute(c, ev);
  }
}

function checkCreate(c: OpCheck, ev: Extract<LaunchEvent, { e: "create" }>): Failure | null {
  const { keys, state, i, body, matches, authorised, created } = c;
  const payer = body[0]!.accounts[0];
  if (!isPubkey(ev.m) || !isPubkey(ev.c) || !isPubkey(payer))
    return fail(LaunchError.InvalidArguments, i, "bad create keys");
  if (
    typeof ev.n !== "string" ||
    typeof ev.s !== "string" ||
    typeof ev.u !== "string" ||
    [...ev.n].length > NAME_MAX_CHARS ||
    [...ev.s].length > SYMBOL_MAX_CHARS ||
    [...ev.u].length > URI_MAX_CHARS ||
    ev.n.length === 0 ||
    ev.s.length === 0 ||
    ev.c === PublicKey.default.toBase58()
  ) {
    return fail(LaunchError.InvalidArguments, i, "name, symbol, uri or creator out of bounds");
  }
  const p = {
    payer: new PublicKey(payer),
    mint: new PublicKey(ev.m),
    creator: new PublicKey(ev.c),
    name: ev.n,
    symbol: ev.s,
    uri: ev.u,
  };
  if (!matches(buildCreateOp(keys, p))) return fail(LaunchError.InvalidOp, i, "create op does not match the program");
  if (state.account(ev.m) || created.some((c) => c.mint === ev.m))
    return fail(LaunchError.MintAlreadyExists, i, "mint exists");
  const curve = keys.bondingCurve(ev.m);
  authorised.set(curve.publicKey.toBase58(), curve);
  created.push({ mint: ev.m, creator: ev.c });
  return null;
}

function checkTrade(c: OpCheck, ev: Extract<LaunchEvent, { e: "buy" | "sell" }>): Failure | null {
  const { keys, config, state, i, body, matches, authorised, tradedMints } = c;
  if (!isPubkey(ev.m) || !isPubkey(ev.c) || (ev.v !== "curve" && ev.v !== "pool"))
    return fail(LaunchError.InvalidArguments, i, "bad trade keys");
  const sol = bigintField(ev.sol),
    tok = bigintField(ev.tok),
    fee = bigintField(ev.fee);
  if (sol === null || tok === null || fee === null) return fail(LaunchError.InvalidArguments, i, "bad trade amounts");
  if (state.creatorOf(ev.m) !== ev.c) return fail(LaunchError.UnknownMint, i, "mint not created by this program");
  if (tradedMints.includes(ev.m)) return fail(LaunchError.InvalidOp, i, "one trade per mint per transaction");
  const curveState = curveStateOf(keys, state, ev.m);
  if (!curveState) return fail(LaunchError.UnknownMint, i, "mint missing");
  const trader = ev.e === "buy" ? body[1]!.accounts[0] : body[0]!.accounts[3]; // transfer source; TransferChecked owner
  if (!isPubkey(trader)) return fail(LaunchError.InvalidOp, i, "bad trader");
  const common = { mint: new PublicKey(ev.m), creator: new PublicKey(ev.c), vault: ev.v, feeLamports: fee };
  if (ev.e === "buy") {
    if (!matches(buildBuyOp(keys, { ...common, buyer: new PublicKey(trader), solInLamports: sol, tokensOut: tok }))) {
      return fail(LaunchError.InvalidOp, i, "buy op does not match the program");
    }
    if ((curveState.bonded ? "pool" : "curve") !== ev.v)
      return fail(LaunchError.WrongFeeVault, i, "fee vault does not match the curve state");
    if (fee < feeFor(sol, config.creatorFeeBps) || fee > feeForCeil(sol, config.creatorFeeBps)) {
      return fail(LaunchError.InvalidArguments, i, "wrong creator fee");
    }
    if (tok === 0n) return fail(LaunchError.NothingToTrade, i, "zero tokens out");
    if (tok > quoteBuy(curveState, sol))
      return fail(LaunchError.SlippageExceeded, i, "slippage: too many tokens asked");
  } else {
    if (!matches(buildSellOp(keys, { ...common, seller: new PublicKey(trader), tokensIn: tok, solOutLamports: sol }))) {
      return fail(LaunchError.InvalidOp, i, "sell op does not match the program");
    }
    if ((curveState.bonded ? "pool" : "curve") !== ev.v)
      return fail(LaunchError.WrongFeeVault, i, "fee vault does not match the curve state");
    const gross = sol + fee;
    if (fee !== feeFor(gross, config.creatorFeeBps)) return fail(LaunchError.InvalidArguments, i, "wrong creator fee");
    if (gross === 0n) return fail(LaunchError.NothingToTrade, i, "zero lamports out");
    if (gross > quoteSell(curveState, tok))
      return fail(LaunchError.SlippageExceeded, i, "slippage: too many lamports asked");
  }
  const curve = keys.bondingCurve(ev.m);
  authorised.set(curve.publicKey.toBase58(), curve);
  tradedMints.push(ev.m);
  return null;
}

function checkCollect(c: OpCheck, ev: Extract<LaunchEvent, { e: "collect" }>): Failure | null {
  const { keys, state, i, matches, authorised, collectedPerVault } = c;
  if (!isPubkey(ev.c) || (ev.v !== "curve" && ev.v !== "pool"))
    return fail(LaunchError.InvalidArguments, i, "bad collect keys");
  const amount = bigintField(ev.fee);
  if (amount === null) return fail(LaunchError.InvalidArguments, i, "bad collect amount");
  if (!matches(buildCollectOp(keys, { creator: new PublicKey(ev.c), vault: ev.v, amountLamports: amount }))) {
    return fail(LaunchError.InvalidOp, i, "collect op does not match the program");
  }
  // pump: CreatorMigratedToSharingConfig (curve) / CreatorVaultMigratedToSharingConfig (AMM)
  if (state.account(ev.c)?.owner === keys.feeProgram.toBase58()) {
    return fail(
      ev.v === "curve" ? LaunchError.CreatorMigratedToSharingConfig : LaunchError.CreatorVaultMigratedToSharingConfig,
      i,
      "creator has been migrated to sharing config",
    );
  }
  const vault = keys.vault(ev.v, ev.c);
  const vaultAddress = vault.publicKey.toBase58();
  const total = (collectedPerVault.get(vaultAddress) ?? 0n) + amount;
  if (total > unsweptLamports(state.account(vaultAddress)?.lamports ?? 0n)) {
    return fail(LaunchError.CollectExceedsVault, i, "collect exceeds the vault's fees");
  }
  collectedPerVault.set(vaultAddress, total);
  authorised.set(vaultAddress, vault);
  return null;
}

function checkDistribute(c: OpCheck, ev: Extract<LaunchEvent, { e: "distribute" }>): Failure | null {
  const { keys, state, i, matches, authorised, collectedPerVault } = c;
  if (!isPubkey(ev.m) || (ev.v !== "curve" && ev.v !== "pool"))
    return fail(LaunchError.InvalidArguments, i, "bad distribute keys");
  const distributed = bigintField(ev.fee);
  if (distributed === null) return fail(LaunchError.InvalidArguments, i, "bad distribute amount");
  if (ev.v === "pool" && distributed < POOL_TRANSFER_MIN_LAMPORTS)
    return fail(LaunchError.PoolFeesBelowRent, i, "pool fees below the WSOL account's rent do not move yet");
  if (distributed < MINIMUM_DISTRIBUTABLE_LAMPORTS)
    return fail(LaunchError.DistributionBelowMinimum, i, "below the minimum distributable amount");
  const sc = keys.sharingConfig(ev.m).publicKey.toBase58();
  if (state.creatorOf(ev.m) !== sc) {
    return fail(
      LaunchError.BondingCurveAndSharingConfigCreatorMismatch,
      i,
      "bonding curve creator does not match sharing config",
    );
  }
  const configAccount = state.account(sc);
  if (!configAccount || configAccount.owner !== keys.feeProgram.toBase58())
    return fail(LaunchError.UnknownMint, i, "no sharing config");
  const config = decodeLocalSharingConfig(configAccount.data);
  if (!config) return fail(LaunchError.UnknownMint, i, "unreadable sharing config");
  if (!config.active) return fail(LaunchError.SharingConfigNotActive, i, "sharing config is not active");
  const expected = buildDistributeOp(keys, {
    mint: new PublicKey(ev.m),
    vault: ev.v,
    distributedLamports: distributed,
    shareholders: config.shareholders,
  });
  if (!matches(expected))
    return fail(
      LaunchError.ShareholdersAndRemainingAccountsMismatch,
      i,
      "distribute op does not match the config's shareholders",
    );
  const vault = keys.vault(ev.v, sc);
  const vaultAddress = vault.publicKey.toBase58();
  const total = (collectedPerVault.get(vaultAddress) ?? 0n) + distributed;
  if (total > unsweptLamports(state.account(vaultAddress)?.lamports ?? 0n)) {
    return fail(LaunchError.CollectExceedsVault, i, "distribution exceeds the vault's fees");
  }
  collectedPerVault.set(vaultAddress, total);
  authorised.set(vaultAddress, vault);
  return null;
}

/** The SharingConfig layout (encodeSharingConfig); null when it is not one. */
export function decodeLocalSharingConfig(
  data: Uint8Array,
): { active: boolean; shareholders: { address: string; shareBps: number }[] } | null {
  if (data.length < 80 || Buffer.from(data.subarray(0, 8)).toString("hex") !== SHARING_CONFIG_DISCRIMINATOR_HEX) {
    return null;
  }
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const count = view.getUint32(76, true);
  // pump allows at most 10 shareholders; the bound only stops a hostile length prefix.
  if (count > 64 || data.length < 80 + 34 * count) return null;
  const shareholders: { address: string; shareBps: number }[] = [];
  for (let i = 0; i < count; i++) {
    shareholders.push({
      address: encodeBase58(data.subarray(80 + 34 * i, 112 + 34 * i)),
      shareBps: view.getUint16(112 + 34 * i, true),
    });
  }
  return { active: data[10] === 1, shareholders };
}

export { TOKEN_PROGRAM_ID, ASSOCIATED_TOKEN_PROGRAM_ID };
