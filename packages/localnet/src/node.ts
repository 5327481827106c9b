/**
 * The local node: LiteSVM plus what a validator adds around it: a slot clock, rotating blockhashes
 * that expire after 150 blocks, commitment levels, a store of processed transactions (full records for the latest 50,000, statuses for 2,000,000 more), the local
 * launch program's co-signing, fault injection, and change notifications for the gRPC stream.
 *
 * LiteSVM itself only knows "the latest blockhash", so its own blockhash check is off and this
 * class decides validity. Everything here is synchronous and single-threaded: a transaction is
 * validated, co-signed and executed against the same state, with no interleaving.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  sign as signMessage,
  verify as verifySignature,
  type KeyObject,
} from "node:crypto";
import { LiteSVM, FailedTransactionMetadata, type TransactionMetadata } from "litesvm";
import {
  AddressLookupTableAccount,
  AddressLookupTableProgram,
  Keypair,
  PublicKey,
  SystemProgram,
  SYSVAR_CLOCK_PUBKEY,
  TransactionMessage,
  VersionedTransaction,
  type TransactionInstruction,
  ComputeBudgetProgram,
} from "@solana/web3.js";
import { addressBytes, addressOfKey, encodeBase58 } from "./address";
import { lamportsAsNumber } from "./lamports";
import { genesisValidatorKeys, RUNTIME_ACCOUNTS, writeGenesisValidator } from "./genesis-validator";
import { fromLitesvmError, errorLands, type SolanaTxError } from "./errors";
import { NativePrograms } from "./native/executor";
import type { NativeProgram } from "./native/runtime";
import { createdPumpMints, pumpMintsIn } from "./native/pump";
import {
  LocalProgramKeys,
  validateTransaction,
  programSignersNamedBy,
  buildCompleteOp,
  buildShareOp,
  encodeSharingConfig,
  rentExemptLamports,
  curveStateOf,
  tradableTokens,
  unsweptLamports,
  SYSTEM_ACCOUNT_RENT_LAMPORTS,
  type LocalProgramConfig,
  type InstructionLike,
  type ProgramStateReader,
  MEMO_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  readU64LE,
} from "./program";

export const LAMPORTS_PER_SIGNATURE = 5000n;
/** As mainnet: a blockhash is usable for 150 blocks after the one that produced it. */
export const BLOCKHASH_VALID_BLOCKS = 150n;
/** Slots after which a slot counts as finalized (mainnet's typical distance). */
export const FINALIZATION_SLOTS = 32n;
/** How far back getSignatureStatuses looks without searchTransactionHistory (the status cache). */
export const STATUS_CACHE_SLOTS = 300n;
/** The most compute units a transaction may ask for (agave's MAX_COMPUTE_UNIT_LIMIT). */
export const MAX_COMPUTE_UNIT_LIMIT = 1_400_000n;

const TOKEN_2022 = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb";

/** A JSON-RPC error the node raises and sends as-is: Solana's code, message and data. */
export class RpcError extends Error {
  override readonly name = "RpcError";
  constructor(
    readonly rpcCode: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export function rpcError(rpcCode: number, message: string, data?: unknown): RpcError {
  return new RpcError(rpcCode, message, data);
}

export function isRpcError(error: unknown): error is RpcError {
  return error instanceof RpcError;
}

/** The JSON-RPC `error` member for one of the node's own errors. */
export function rpcErrorBody(error: RpcError): { code: number; message: string; data?: unknown } {
  const { rpcCode: code, data } = error;
  return data === undefined ? { code, message: error.message } : { code, message: error.message, data };
}

export type Commitment = "processed" | "confirmed" | "finalized";

/** What running a transaction gave, before it is recorded; not landed = refused (no fee, no record). */
type ExecutionResult =
  | { landed: false; err: SolanaTxError }
  | {
      landed: true;
      err: SolanaTxError | null;
      logs: string[];
      inner: TxRecord["innerInstructions"];
      computeUnits: bigint;
      returnData?: TxRecord["returnData"];
    };

export interface CompiledIx {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
  stackHeight: number | null;
}

export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  amount: bigint;
  decimals: number;
}

/** A processed transaction, kept so it can be read back (getTransaction, the gRPC stream). */
export interface TxRecord {
  signature: string;
  slot: bigint;
  /** position within its slot */
  index: number;
  blockTimeSec: number;
  tx: VersionedTransaction;
  /** static keys, then the keys loaded from lookup tables (writable, then readonly), as agave orders them */
  accountKeys: PublicKey[];
  /** keys a v0 transaction loaded from its lookup tables (empty otherwise) */
  loadedAddresses: LoadedAddresses;
  writable: boolean[];
  instructions: CompiledIx[];
  err: SolanaTxError | null;
  feeLamports: bigint;
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
  logs: string[];
  innerInstructions: { index: number; instructions: CompiledIx[] }[];
  computeUnits: bigint;
  /** what the transaction's last `set_return_data` left (native programs' only; absent: none) */
  returnData?: { programId: PublicKey; data: Uint8Array } | null;
}

type SimulatedAccount = {
  lamports: bigint;
  owner: PublicKey;
  executable: boolean;
  data: Uint8Array;
  rentEpoch: number;
};

export interface LoadedAddresses {
  writable: PublicKey[];
  readonly: PublicKey[];
}

export interface AccountUpdate {
  pubkey: PublicKey;
  lamports: bigint;
  owner: PublicKey;
  executable: boolean;
  data: Uint8Array;
  writeVersion: bigint;
  txnSignature: Uint8Array | null;
  slot: bigint;
}

export interface NodeListener {
  onTransaction?(record: TxRecord): void;
  onAccounts?(updates: AccountUpdate[]): void;
  /** slot `closed` is now confirmed; `opened` started; `finalized` (if any) reached finality */
  onSlot?(e: {
    closed: bigint;
    opened: bigint;
    finalized: bigint | null;
    blockhash: string;
    blockHeight: bigint;
    blockTimeSec: number;
  }): void;
}

export interface SendFaultRule {
  /** ghost: shows as `processed` for `delaySlots` slots, then vanishes without ever landing */
  kind: "drop" | "delay" | "fail" | "ghost";
  /** slots to hold the transaction before it executes (delay), or to show it (ghost) */
  delaySlots?: number;
  /** how many sends the rule applies to; the rule is removed after */
  remaining: number;
  match?: (signature: string) => boolean;
}

export interface LocalNodeOptions {
  /** 0 disables the timer: the clock moves only through advanceSlots() */
  slotMs: number;
  programSeed?: Uint8Array;
  program: LocalProgramConfig;
  /** processed transactions kept for read-back; oldest are forgotten past this */
  txHistoryLimit?: number;
  log?: (msg: string) => void;
  /** a checkpoint to continue from (checkpoint.ts); its program seed wins over `programSeed` */
  restore?: NodeState;
  /** programs the node executes itself at their own ids (native/runtime.ts), deployed at genesis */
  nativePrograms?: readonly NativeProgram[];
}

/**
 * The node's durable state, as a checkpoint holds it: accounts whole, the clock, the recent
 * blockhashes and the most recent transactions (statuses of older ones). Faults, delayed and ghost
 * sends and subscriptions are not state: a restart ends them, as it would on a validator.
 */
export interface NodeState {
  programSeed: Uint8Array;
  programPayerSecret: Uint8Array;
  faucetSecret: Uint8Array;
  slot: bigint;
  blockHeight: bigint;
  latestBlockhash: string;
  writeVersion: bigint;
  blockhashes: [string, bigint][];
  slotHashes: { slot: bigint; hash: string }[];
  accounts: NodeAccount[];
  records: TxRecord[];
  oldStatuses: [string, { slot: bigint; err: SolanaTxError | null }][];
  mintCreators: [string, string][];
  curveMints: [string, string][];
  /** transactions landed since genesis (getTransactionCount); absent in checkpoints before it was kept */
  transactionCount?: bigint;
  /**
   * The account funded at genesis (startLocalChain's treasury); its secret only when the chain
   * generated it (a caller's own key is not written down). Absent in checkpoints before it was kept.
   */
  treasury?: TreasuryRecord;
}

export interface TreasuryRecord {
  address: string;
  secret: Uint8Array | null;
}

export interface NodeAccount {
  address: string;
  lamports: bigint;
  owner: string;
  executable: boolean;
  rentEpoch: number;
  data: Uint8Array;
}

/** What changed since the last `takeChanges()`: a checkpoint's journal entry. */
export interface NodeChanges {
  slot: bigint;
  blockHeight: bigint;
  latestBlockhash: string;
  writeVersion: bigint;
  /** the accounts written, as they are now */
  accounts: NodeAccount[];
  records: TxRecord[];
  blockhashes: [string, bigint][];
  slotHashes: { slot: bigint; hash: string }[];
  mintCreators: [string, string][];
  curveMints: [string, string][];
  /** absent in journals written before it was kept */
  transactionCount?: bigint;
}

/** What getAccount uses of LiteSVM's napi binding (litesvm/dist/internal.d.ts `LiteSvm`, `Account`). */
interface LiteSvmBinding {
  getAccount(address: Uint8Array): {
    lamports(): bigint;
    data(): Uint8Array;
    owner(): Uint8Array;
    executable(): boolean;
    rentEpoch(): bigint;
  } | null;
}

const CLOCK_SYSVAR_BYTES = SYSVAR_CLOCK_PUBKEY.toBytes();

function bytesEqual32(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 0; i < 32; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Owners as shared keys: a chain has a handful of owners (System, the token programs, a few
 * programs), and a PublicKey per read was a big number built and thrown away each time. Keys are
 * never mutated; the bound only guards against a chain of many program-owned accounts.
 */
const ownerKeys = new Map<string, PublicKey>();
const OWNER_KEYS_MAX = 1_024;
function ownerKeyOf(bytes: Uint8Array): PublicKey {
  const id = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
  let key = ownerKeys.get(id);
  if (key === undefined) {
    if (ownerKeys.size >= OWNER_KEYS_MAX) ownerKeys.clear();
    key = new PublicKey(bytes);
    ownerKeys.set(id, key);
  }
  return key;
}

const MAX_DELAYED = 10_000;
const OLD_STATUS_LIMIT = 2_000_000;
const MAX_INDEXED_ADDRESSES = 200_000;
const SIGNATURES_PER_ADDRESS = 1_000;
const MAX_SEND_RULES = 1_000;
/** SlotHashes holds this many recent slots (agave's MAX_ENTRIES): CreateLookupTable's recent slot must be one. */
const SLOT_HASHES_MAX = 512;
/** How far back lag views can look (the faults module caps a lag at this many slots). */
const MAX_LAG_VIEW_SLOTS = 10_000n;
/**
 * Without a lag rule, state before each write is kept only as far back as finalized reads look
 * (agave's default commitment is finalized, so most reads without one land there).
 */
const FINALIZED_VIEW_SLOTS = FINALIZATION_SLOTS + 2n;
/** Blocks kept for getBlock and friends, the oldest forgotten first (~5.5 hours at 400 ms a slot). */
const MAX_BLOCKS = 50_000;
const SYSTEM_PROGRAM_ID = "11111111111111111111111111111111";
/** SystemInstruction::AdvanceNonceAccount, as a u32 LE discriminator */
const ADVANCE_NONCE_IX = 4;
/** nonce account layout (Versions::Current): version u32, state u32, authority, durable nonce */
const NONCE_ACCOUNT_BYTES = 80;
const NONCE_VALUE_OFFSET = 40;
/** The slot a fresh chain serves from, and its block height. */
const GENESIS_OPEN_SLOT = 1_000n;
const GENESIS_OPEN_BLOCK_HEIGHT = 950n;
/**
 * Slots a fresh chain has closed before it serves: enough that the slot every commitment answers
 * (finalized: 33 behind the open one) is a block getBlock serves, as on a test validator, whose
 * finalized slot is its genesis block until 32 slots have passed.
 */
const GENESIS_CLOSED_SLOTS = FINALIZATION_SLOTS + 1n;

/** One slot's block as getBlock answers it: one block a slot, none skipped. */
export interface BlockRecord {
  slot: bigint;
  parentSlot: bigint;
  blockhash: string;
  previousBlockhash: string;
  blockHeight: bigint;
  blockTimeSec: number;
  /** in execution order */
  signatures: string[];
}

interface HistoricAccount {
  lamports: bigint;
  owner: PublicKey;
  executable: boolean;
  data: Uint8Array;
  rentEpoch: number;
}

export class LocalNode {
  readonly svm: LiteSVM;
  /** the programs this node executes natively (pump's, by default) */
  readonly native: NativePrograms;
  readonly programKeys: LocalProgramKeys;
  readonly programConfig: LocalProgramConfig;
  /** pays the program's own transactions (curve completion) */
  readonly programPayer: Keypair;
  /** source of requestAirdrop */
  readonly faucet: Keypair;

  private slot = GENESIS_OPEN_SLOT;
  private blockHeight = GENESIS_OPEN_BLOCK_HEIGHT;
  private slotTxCount = 0;
  private latestBlockhash = "";
  /** blockhash -> last block height at which it is valid; insertion-ordered for pruning */
  private readonly blockhashes = new Map<string, bigint>();
  private readonly txs = new Map<string, TxRecord>();
  /**
   * Statuses of transactions whose full record was forgotten. A landed transaction must never
   * look "never landed" to a history search (the service would call it expired), so statuses
   * outlive records by far; they are small.
   */
  private readonly oldStatuses = new Map<string, { slot: bigint; err: SolanaTxError | null }>();
  private readonly txHistoryLimit: number;
  private readonly delayed: { wire: Uint8Array; signature: string; atSlot: bigint }[] = [];
  private readonly sendRules: SendFaultRule[] = [];
  /** ghost sends: shown as processed from `slot` until `until`, never executed */
  private readonly ghosts = new Map<string, { slot: bigint; until: bigint }>();
  /** told of every send fault taken, by rule kind (the faults module counts them) */
  onSendFault: ((kind: "dropSends" | "delaySends" | "failSends" | "ghostSends") => void) | null = null;
  /**
   * Asked once per accepted send that no other send fault took (faults.ts `congestion`): true
   * loses the transaction, as a leader too busy for its priority fee does. The answer is a fresh
   * draw each time, so rebroadcasting the same bytes can still get it in.
   */
  congestionDrops: ((priceMicroLamports: bigint) => boolean) | null = null;
  /** called as each slot closes, after everything the tick did (the checkpoint journals it) */
  onSlotClosed: (() => void) | null = null;
  /**
   * Lag views (faults.ts `lag`): per address, the state before each write, oldest first, so a read
   * can be answered as a node `k` slots behind would. Kept only once a lag rule asked for it.
   */
  private accountHistory: Map<string, { slot: bigint; prev: HistoricAccount | null }[]> | null = new Map();
  /** how far back reads may look: finalized reads always, lag rules further */
  private accountHistorySlots = FINALIZED_VIEW_SLOTS;
  /** slot -> its block; insertion-ordered (ascending) for pruning */
  private readonly blocks = new Map<bigint, BlockRecord>();
  /** the slot LiteSVM's own blockhash was last moved in (durable nonces derive from it) */
  private svmBlockhashSlot = -1n;
  private readonly listeners = new Set<NodeListener>();
  private readonly mintCreators = new Map<string, string>();
  /** pump's coins (`pumpMints`), built on first need */
  private pumpMintSet: Set<string> | null = null;
  /** bonding-curve address → its mint, so a read can tell a curve account (programLayout) */
  private readonly curveMints = new Map<string, string>();
  /**
   * The layout reads answer the program's accounts in (the `programLayout` fault rule): "v3" is
   * pump's announced change, fees kept in the curve (`BondingCurve.creator_fee`) until swept. Only
   * reads change: the program itself goes on as before, so nothing a read guesses can be spent.
   */
  programLayout: "current" | "v3" = "current";
  /** address -> its most recent signatures, oldest first (getSignaturesForAddress) */
  private readonly byAddress = new Map<string, string[]>();
  private writeVersion = 0n;
  /** the seed the program's keys derive from (a checkpoint keeps it: the program's addresses with it) */
  readonly programSeed: Uint8Array;
  /** what changed since the last takeChanges(); null until trackChanges() (no checkpoint, no cost) */
  private changes: {
    addresses: Set<string>;
    rest: Omit<NodeChanges, "accounts" | "slot" | "blockHeight" | "latestBlockhash" | "writeVersion">;
  } | null = null;
  /**
   * Every address the node has written, in the order first written. LiteSVM cannot list its
   * accounts; getProgramAccounts and the checkpoint need to. Closed accounts stay listed (a read
   * finds them empty), so the set only grows with what was ever created.
   */
  private readonly written = new Set<string>();
  /** newest first, as the SlotHashes sysvar lists them; written to LiteSVM only when a transaction needs it */
  private readonly slotHashes: { slot: bigint; hash: string }[] = [];
  private slotHashesStale = true;
  /**
   * The Clock sysvar as of the last tick, written to LiteSVM only before something reads it (a
   * transaction, a simulation, a read of the sysvar): a setClock costs milliseconds, and slots
   * tick ten times a second whether or not anything runs.
   */
  private clockUnixSec = BigInt(Math.floor(Date.now() / 1000));
  private clockStale = true;
  private timer: ReturnType<typeof setInterval> | null = null;
  private readonly log: (msg: string) => void;
  readonly stats = { processed: 0, failed: 0, refused: 0 };
  /** transactions landed since genesis, across restarts (stats count this process's only) */
  private landedCount = 0n;
  /** the genesis-funded treasury, kept with the state (index.ts sets it) */
  treasury: TreasuryRecord | null = null;

  constructor(private readonly opts: LocalNodeOptions) {
    this.svm = new LiteSVM().withBlockhashCheck(false).withSigverify(true).withTransactionHistory(0n);
    this.native = new NativePrograms(opts.nativePrograms ?? [], this.svm, {
      getAccount: (address) => this.getAccount(address),
      setAccount: (address, account) => this.setAccount(address, account),
      minimumBalanceForRentExemption: (dataLen) => this.minimumBalanceForRentExemption(dataLen),
      clock: () => ({ slot: this.slot, unixTimestamp: this.clockUnixSec }),
      programVersion: () => (this.programLayout === "v3" ? "v3" : "current"),
    });
    const restore = opts.restore;
    this.programSeed = restore?.programSeed ?? opts.programSeed ?? crypto.getRandomValues(new Uint8Array(32));
    this.programKeys = new LocalProgramKeys(this.programSeed);
    this.programConfig = opts.program;
    this.txHistoryLimit = opts.txHistoryLimit ?? 50_000;
    this.log = opts.log ?? (() => {});
    this.programPayer = restore ? Keypair.fromSecretKey(restore.programPayerSecret) : Keypair.generate();
    this.faucet = restore ? Keypair.fromSecretKey(restore.faucetSecret) : Keypair.generate();
    if (restore) {
      this.importState(restore);
      this.native.install(this, this.programPayer.publicKey);
      return;
    }
    this.slot = GENESIS_OPEN_SLOT - GENESIS_CLOSED_SLOTS;
    this.blockHeight = GENESIS_OPEN_BLOCK_HEIGHT - GENESIS_CLOSED_SLOTS;
    this.newBlockhash();
    this.fund(this.programPayer.publicKey, 1_000_000_000_000_000n);
    // Balances stay below 2^53: LiteSVM's setAccount takes lamports as a double.
    this.fund(this.faucet.publicKey, 4_000_000_000_000_000n);
    writeGenesisValidator(this, genesisValidatorKeys(this.programSeed));
    this.native.install(this, this.programPayer.publicKey);
    this.syncClock();
    this.noteSlotHash(this.slot, this.latestBlockhash);
    this.openBlock();
    this.advanceSlots(Number(GENESIS_CLOSED_SLOTS));
  }

  // ------------------------------------------------------------------ clock

  start(): void {
    if (this.opts.slotMs > 0 && !this.timer) {
      this.timer = setInterval(() => this.advanceSlots(1), this.opts.slotMs);
      this.timer.unref?.();
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.listeners.clear();
  }

  getSlot(): bigint {
    return this.slot;
  }
  getBlockHeight(): bigint {
    return this.blockHeight;
  }
  getLatestBlockhash(): { blockhash: string; lastValidBlockHeight: bigint } {
    return { blockhash: this.latestBlockhash, lastValidBlockHeight: this.blockhashes.get(this.latestBlockhash)! };
  }
  isBlockhashValid(blockhash: string): boolean {
    const last = this.blockhashes.get(blockhash);
    return last !== undefined && this.blockHeight <= last;
  }
  /** Whether the node as it was at `atSlot` (a finalized view) knew `blockhash` and still took it. */
  isBlockhashValidAt(blockhash: string, atSlot: bigint): boolean {
    const last = this.blockhashes.get(blockhash);
    const height = this.blockHeightAt(atSlot);
    return last !== undefined && last - BLOCKHASH_VALID_BLOCKS <= height && height <= last;
  }

  /** Closes the open slot and opens the next: a new block, a new blockhash, delayed sends land. */
  advanceSlots(count = 1): void {
    for (let i = 0; i < count; i++) this.tick();
  }

  private tick(): void {
    const closed = this.slot;
    this.slot += 1n;
    this.blockHeight += 1n;
    this.slotTxCount = 0;
    this.newBlockhash();
    this.syncClock();
    this.noteSlotHash(this.slot, this.latestBlockhash);
    const finalized = closed >= FINALIZATION_SLOTS ? closed - FINALIZATION_SLOTS : null;
    const blockTimeSec = Math.floor(Date.now() / 1000);
    for (const l of this.listeners) {
      try {
        l.onSlot?.({
          closed,
          opened: this.slot,
          finalized,
          blockhash: this.latestBlockhash,
          blockHeight: this.blockHeight,
          blockTimeSec,
        });
      } catch (e) {
        this.log(`slot listener failed: ${(e as Error).message}`);
      }
    }
    for (const [sig, g] of this.ghosts) if (g.until < this.slot) this.ghosts.delete(sig);
    this.openBlock();
    if (this.accountHistory && this.slot % (this.accountHistorySlots > 256n ? 256n : 16n) === 0n)
      this.pruneAccountHistory();
    // Delayed sends land once their slot has come, if their blockhash still allows it.
    for (let i = 0; i < this.delayed.length; ) {
      const d = this.delayed[i]!;
      if (d.atSlot <= this.slot) {
        this.delayed.splice(i, 1);
        try {
          this.execute(VersionedTransaction.deserialize(d.wire), { failOnChain: false });
        } catch (e) {
          this.log(`delayed transaction ${d.signature} refused: ${(e as Error).message}`);
        }
      } else i++;
    }
    this.onSlotClosed?.();
  }

  private newBlockhash(): void {
    const digest = createHash("sha256").update(this.latestBlockhash).update(this.slot.toString()).digest();
    this.latestBlockhash = encodeBase58(digest);
    this.blockhashes.set(this.latestBlockhash, this.blockHeight + BLOCKHASH_VALID_BLOCKS);
    this.changes?.rest.blockhashes.push([this.latestBlockhash, this.blockHeight + BLOCKHASH_VALID_BLOCKS]);
    // Forget hashes long expired; isBlockhashValid answers false for unknown ones anyway.
    for (const [hash, last] of this.blockhashes) {
      if (last + BLOCKHASH_VALID_BLOCKS >= this.blockHeight) break;
      this.blockhashes.delete(hash);
    }
  }

  /**
   * The SlotHashes sysvar follows the clock, so the lookup-table program (which checks
   * CreateLookupTable's recent slot, and deactivation, against it) sees the chain's own slots.
   * The open slot is listed too (agave lists parents only): this RPC's getSlot answers the open
   * slot at every commitment, and a client passing it as the recent slot must not be refused.
   * Writing the sysvar costs milliseconds (LiteSVM hands out SlotHash objects only through
   * getSlotHashes, so entries are reused and rewritten), so a tick only notes the slot and the
   * sysvar is written before a transaction that reads it.
   */
  private noteSlotHash(slot: bigint, hash: string): void {
    this.slotHashes.unshift({ slot, hash });
    this.changes?.rest.slotHashes.push({ slot, hash });
    if (this.slotHashes.length > SLOT_HASHES_MAX) this.slotHashes.length = SLOT_HASHES_MAX;
    this.slotHashesStale = true;
  }

  private syncSlotHashesFor(tx: VersionedTransaction): void {
    if (!this.slotHashesStale) return;
    const usesTables =
      tx.message.addressTableLookups.length > 0 ||
      tx.message.staticAccountKeys.some((k) => k.equals(AddressLookupTableProgram.programId));
    if (!usesTables) return;
    this.slotHashesStale = false;
    let entries = this.svm.getSlotHashes();
    if (entries.length === 0) return;
    if (entries.length < this.slotHashes.length) {
      this.svm.setSlotHashes(Array.from({ length: this.slotHashes.length }, () => entries[0]!));
      entries = this.svm.getSlotHashes();
    }
    const n = Math.min(entries.length, this.slotHashes.length);
    for (let i = 0; i < n; i++) {
      entries[i]!.slot = this.slotHashes[i]!.slot;
      entries[i]!.hash = this.slotHashes[i]!.hash;
    }
    this.svm.setSlotHashes(entries.slice(0, n));
  }

  /** The clock moves with the slot; LiteSVM hears of it when it next executes (`syncSvmClock`). */
  private syncClock(): void {
    this.clockUnixSec = BigInt(Math.floor(Date.now() / 1000));
    this.clockStale = true;
  }

  private syncSvmClock(): void {
    if (!this.clockStale) return;
    this.clockStale = false;
    const clock = this.svm.getClock();
    clock.slot = this.slot;
    clock.unixTimestamp = this.clockUnixSec;
    this.svm.setClock(clock);
  }

  // ------------------------------------------------------------------ accounts

  /** The addresses the node has ever written (see `written`), oldest first. */
  knownAddresses(): IterableIterator<string> {
    return this.written.values();
  }

  /**
   * Accounts the runtime held from genesis that the node never wrote (sysvars, builtins, the SPL
   * programs): scans over every account (getLargestAccounts, getSupply) list them too.
   */
  runtimeAddresses(): string[] {
    return RUNTIME_ACCOUNTS.filter((a) => !this.written.has(a) && this.getAccount(a) !== null);
  }

  /** Whether the node has ever written `address`. */
  hasWritten(address: string): boolean {
    return this.written.has(address);
  }

  /** Writes one account whole, as a genesis config or a checkpoint restore does. */
  setAccount(
    address: PublicKey,
    account: { lamports: bigint; data: Uint8Array; owner: PublicKey; executable: boolean; rentEpoch?: number },
  ): void {
    this.svm.setAccount(address, {
      lamports: lamportsAsNumber(account.lamports),
      data: account.data,
      owner: account.owner,
      executable: account.executable,
      rentEpoch: account.rentEpoch ?? 0,
    });
    this.noteWritten(addressOfKey(address));
  }

  fund(address: PublicKey, lamports: bigint): void {
    this.noteWritten(addressOfKey(address));
    const existing = this.svm.getAccount(address);
    this.svm.setAccount(address, {
      lamports: lamportsAsNumber(lamports + (this.svm.getBalance(address) ?? 0n)),
      data: existing?.data ?? new Uint8Array(0),
      owner: existing?.owner ?? SystemProgram.programId,
      executable: existing?.executable ?? false,
      rentEpoch: 0,
    });
  }

  getAccount(
    address: PublicKey | string,
  ): { lamports: bigint; owner: PublicKey; executable: boolean; data: Uint8Array; rentEpoch: number } | null {
    const bytes = typeof address === "string" ? addressBytes(address) : address.toBytes();
    if (bytes === null) throw new Error("Invalid public key input");
    if (bytesEqual32(bytes, CLOCK_SYSVAR_BYTES)) this.syncSvmClock();
    // LiteSVM's own binding, under its `getAccount`: that wrapper builds a PublicKey owner and
    // rounds lamports to a double (its getBalance was the second call for the exact u64); reads
    // of thousands of accounts a second (a sweep reads five a token) spent half their time there.
    const acc = this.liteSvmBinding.getAccount(bytes);
    if (!acc) return null;
    const lamports = acc.lamports();
    // A zero-lamport account does not exist on a real chain; LiteSVM may keep the husk.
    if (lamports === 0n) return null;
    return {
      lamports,
      owner: ownerKeyOf(acc.owner()),
      executable: acc.executable(),
      data: acc.data(),
      rentEpoch: Number(acc.rentEpoch()),
    };
  }

  /** The napi object LiteSVM's class wraps (`inner`, private in its types; see getAccount). */
  private get liteSvmBinding(): LiteSvmBinding {
    return (this.svm as unknown as { inner: LiteSvmBinding }).inner;
  }

  getBalance(address: PublicKey | string): bigint {
    return this.svm.getBalance(typeof address === "string" ? new PublicKey(address) : address) ?? 0n;
  }

  minimumBalanceForRentExemption(dataLen: number): bigint {
    return this.svm.minimumBalanceForRentExemption(BigInt(dataLen));
  }

  /**
   * An account as a read answers it in the current `programLayout`: under "v3" a bonding curve
   * carries a tag and the creator fee its curve vault holds, as pump's v3 curve keeps it.
   */
  laidOut<A extends { data: Uint8Array }>(address: string, account: A | null): A | null {
    if (this.programLayout === "current" || !account) return account;
    const mint = this.curveMints.get(address);
    if (!mint) return account;
    const creator = this.creatorOf(mint);
    const feeLamports = creator ? unsweptLamports(this.getBalance(this.programKeys.curveVaultAddress(creator))) : 0n;
    const data = Buffer.alloc(16);
    data.write("lpcurve3", 0, "latin1");
    data.writeBigUInt64LE(feeLamports, 8);
    return { ...account, data: new Uint8Array(data) };
  }

  /** The creator a mint was created with by the local program, or null. */
  creatorOf(mint: string): string | null {
    return this.mintCreators.get(mint) ?? null;
  }
  /**
   * pump's coins on this chain, oldest first: read from the state once (a continued chain's too),
   * then kept as creates land.
   */
  pumpMints(): string[] {
    this.pumpMintSet ??= new Set(pumpMintsIn(this.written, (address) => this.getAccount(address)));
    return [...this.pumpMintSet];
  }

  localMints(): string[] {
    return [...this.mintCreators.keys()];
  }

  readonly programState: ProgramStateReader = {
    account: (address) => {
      const a = this.getAccount(address);
      return a ? { lamports: a.lamports, owner: a.owner.toBase58(), data: a.data } : null;
    },
    creatorOf: (mint) => this.creatorOf(mint),
  };

  // ------------------------------------------------------------------ transactions

  addListener(l: NodeListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  addSendFault(rule: SendFaultRule): void {
    if (this.sendRules.length >= MAX_SEND_RULES) throw new Error("too many send fault rules");
    this.sendRules.push(rule);
  }
  clearSendFaults(): void {
    this.sendRules.length = 0;
  }
  activeSendFaults(): SendFaultRule[] {
    return this.sendRules.map((r) => ({ ...r }));
  }

  private takeSendFault(signature: string): SendFaultRule | null {
    const i = this.sendRules.findIndex((r) => r.remaining > 0 && (!r.match || r.match(signature)));
    if (i < 0) return null;
    const rule = this.sendRules[i]!;
    rule.remaining -= 1;
    if (rule.remaining <= 0) this.sendRules.splice(i, 1);
    return rule;
  }

  getTransaction(signature: string): TxRecord | null {
    return this.txs.get(signature) ?? null;
  }

  /** Status as getSignatureStatuses reports it; null when unknown (or outside the status cache). */
  getSignatureStatus(
    signature: string,
    searchHistory: boolean,
    atSlot: bigint = this.slot,
  ): {
    record: { slot: bigint; err: SolanaTxError | null };
    confirmations: number | null;
    commitment: Commitment;
  } | null {
    const record = this.txs.get(signature) ?? this.oldStatuses.get(signature);
    if (!record) {
      const ghost = this.ghosts.get(signature);
      if (ghost && ghost.slot <= atSlot)
        return { record: { slot: ghost.slot, err: null }, confirmations: 0, commitment: "processed" };
      return null;
    }
    // A node behind (a lag view) has not seen anything newer than its own slot.
    if (record.slot > atSlot) return null;
    if (!searchHistory && atSlot - record.slot > STATUS_CACHE_SLOTS) return null;
    const depth = atSlot - record.slot;
    const commitment: Commitment = depth > FINALIZATION_SLOTS ? "finalized" : depth >= 1n ? "confirmed" : "processed";
    return { record, confirmations: commitment === "finalized" ? null : Number(depth), commitment };
  }

  /** Newest first, as getSignaturesForAddress answers; `before`/`until` are exclusive bounds. */
  signaturesForAddress(address: string, o: { limit: number; before?: string; until?: string }): TxRecord[] {
    const list = this.byAddress.get(address) ?? [];
    const out: TxRecord[] = [];
    let started = o.before === undefined;
    for (let i = list.length - 1; i >= 0 && out.length < o.limit; i--) {
      const sig = list[i]!;
      if (!started) {
        if (sig === o.before) started = true;
        continue;
      }
      if (sig === o.until) break;
      const r = this.txs.get(sig);
      if (r) out.push(r);
    }
    return out;
  }

  commitmentOf(slot: bigint, atSlot: bigint = this.slot): Commitment {
    const depth = atSlot - slot;
    return depth > FINALIZATION_SLOTS ? "finalized" : depth >= 1n ? "confirmed" : "processed";
  }

  // ------------------------------------------------------------------ lag views

  /** Starts keeping the state before each write, so reads can be answered as of an older slot. */
  keepAccountHistory(): void {
    this.accountHistory ??= new Map();
    this.accountHistorySlots = MAX_LAG_VIEW_SLOTS;
  }

  /** Block height of the node as it was at `atSlot` (one block a slot here). */
  blockHeightAt(atSlot: bigint): bigint {
    return this.blockHeight - (this.slot - atSlot);
  }

  /** The latest blockhash of the node as it was at `atSlot`, when still remembered. */
  blockhashAt(atSlot: bigint): { blockhash: string; lastValidBlockHeight: bigint } {
    const wanted = this.blockHeightAt(atSlot) + BLOCKHASH_VALID_BLOCKS;
    for (const [blockhash, last] of this.blockhashes)
      if (last === wanted) return { blockhash, lastValidBlockHeight: last };
    return this.getLatestBlockhash();
  }

  /** An account as a node at `atSlot` has it: the current state with later writes undone. */
  getAccountAt(address: PublicKey | string, atSlot: bigint): ReturnType<LocalNode["getAccount"]> {
    const key = typeof address === "string" ? address : address.toBase58();
    const list = atSlot < this.slot ? this.accountHistory?.get(key) : undefined;
    const undo = list?.find((e) => e.slot > atSlot);
    if (!undo) return this.getAccount(key);
    return undo.prev && undo.prev.lamports > 0n ? { ...undo.prev, data: undo.prev.data } : null;
  }

  getTransactionAt(signature: string, atSlot: bigint): TxRecord | null {
    const record = this.txs.get(signature);
    return record && record.slot <= atSlot ? record : null;
  }

  private recordAccountHistory(keys: readonly PublicKey[], writable: readonly boolean[]): void {
    const history = this.accountHistory;
    if (!history) return;
    keys.forEach((k, i) => {
      if (!writable[i]) return;
      const id = k.toBase58();
      const now = this.getAccount(k);
      let list = history.get(id);
      if (!list) {
        list = [];
        history.set(id, list);
      }
      const last = list[list.length - 1];
      // Only the state before the first write of a slot matters to a view of an earlier slot.
      if (last && last.slot === this.slot) return;
      list.push({
        slot: this.slot,
        prev: now
          ? {
              lamports: now.lamports,
              owner: now.owner,
              executable: now.executable,
              data: Uint8Array.from(now.data),
              rentEpoch: now.rentEpoch,
            }
          : null,
      });
    });
  }

  private pruneAccountHistory(): void {
    const history = this.accountHistory;
    if (!history) return;
    const oldest = this.slot - this.accountHistorySlots;
    for (const [id, list] of history) {
      const keep = list.findIndex((e) => e.slot >= oldest);
      if (keep < 0) history.delete(id);
      else if (keep > 0) list.splice(0, keep);
    }
  }

  /**
   * sendTransaction: accepts a wire transaction and returns its signature. With preflight, a
   * transaction that would not land raises the RPC error a validator raises; without it, the
   * node answers with the signature and the transaction silently never lands, as on mainnet.
   */
  sendWire(wire: Uint8Array, opts: { skipPreflight: boolean }): string {
    let tx: VersionedTransaction;
    try {
      tx = VersionedTransaction.deserialize(wire);
    } catch (e) {
      throw rpcError(
        -32602,
        `failed to deserialize solana_transaction::versioned::VersionedTransaction: ${(e as Error).message}`,
      );
    }
    const signature = encodeBase58(tx.signatures[0] ?? new Uint8Array(64));
    const budget = this.admitSend(tx, wire, signature, opts.skipPreflight);
    if (!budget) return signature;
    const fault = this.takeSendFault(signature);
    if (fault) {
      this.onSendFault?.(
        fault.kind === "drop"
          ? "dropSends"
          : fault.kind === "delay"
            ? "delaySends"
            : fault.kind === "fail"
              ? "failSends"
              : "ghostSends",
      );
      if (this.divertedByFault(fault, wire, signature)) return signature;
    }
    if (!opts.skipPreflight && fault?.kind !== "fail") {
      const sim = this.simulate(tx, { sigVerify: false, replaceRecentBlockhash: false, coSign: true });
      if (sim.err) throw preflightError(sim.err, describeForPreflight(sim.err), sim.logs, sim.unitsConsumed);
    }
    // Lost after the RPC node accepted it (preflight passed), on the way to a congested leader.
    if (!fault && this.congestionDrops?.(budget.microLamportsPerUnit)) {
      this.log(`fault: congestion dropped ${signature}`);
      return signature;
    }
    const result = this.execute(tx, { failOnChain: fault?.kind === "fail" });
    if (!result.landed && !opts.skipPreflight) {
      throw preflightError(result.err, describeForPreflight(result.err), []);
    }
    return signature;
  }

  /**
   * The checks a transaction meets before any leader sees it. Returns its compute budget when it
   * passes; null when it fails without preflight (the sender has only a signature that never
   * lands); with preflight, a failure throws the RPC error a validator raises.
   */
  private admitSend(
    tx: VersionedTransaction,
    wire: Uint8Array,
    signature: string,
    skipPreflight: boolean,
  ): ReturnType<typeof computeBudgetOf> | null {
    if (!this.signaturesVerify(tx, wire)) {
      // agave verifies signatures only in preflight; skipped, the leader's sigverify drops the
      // transaction, and the sender has only its signature, which never lands.
      if (skipPreflight) {
        this.log(`signature verification failed: dropped ${signature}`);
        return null;
      }
      throw rpcError(-32003, "Transaction signature verification failure");
    }
    const budget = computeBudgetOf(tx);
    if (budget.unitLimit !== null && budget.unitLimit > MAX_COMPUTE_UNIT_LIMIT) {
      // Refused before any leader sees it: without preflight the sender only ever has the signature.
      if (skipPreflight) return null;
      throw rpcError(-32602, `invalid transaction: compute unit limit above ${MAX_COMPUTE_UNIT_LIMIT}`);
    }
    if (
      this.txs.has(signature) ||
      this.oldStatuses.has(signature) ||
      this.delayed.some((d) => d.signature === signature)
    ) {
      if (skipPreflight) return null;
      throw preflightError("AlreadyProcessed", "This transaction has already been processed", []);
    }
    if (!this.acceptsBlockhash(tx)) {
      if (skipPreflight) return null;
      throw preflightError("BlockhashNotFound", "Blockhash not found", []);
    }
    const lookupErr = this.decompile(tx).err;
    if (lookupErr) {
      // As a validator: a transaction whose tables do not resolve is never executed.
      if (skipPreflight) return null;
      throw preflightError(lookupErr, describeForPreflight(lookupErr), []);
    }
    return budget;
  }

  /** A ghost, drop or delay fault takes the send out of the normal path: true when it did. */
  private divertedByFault(fault: SendFaultRule, wire: Uint8Array, signature: string): boolean {
    if (fault.kind === "ghost") {
      // Seen by one leader's fork, which is then abandoned: processed for a while, never landed.
      this.ghosts.set(signature, { slot: this.slot, until: this.slot + BigInt(Math.max(1, fault.delaySlots ?? 3)) });
      return true;
    }
    if (fault.kind === "drop") {
      this.log(`fault: dropped ${signature}`);
      return true;
    }
    if (fault.kind === "delay") {
      if (this.delayed.length >= MAX_DELAYED) throw rpcError(-32005, "Node is behind: delayed queue full");
      this.delayed.push({
        wire: Uint8Array.from(wire),
        signature,
        atSlot: this.slot + BigInt(Math.max(1, fault.delaySlots ?? 1)),
      });
      return true;
    }
    return false;
  }

  /**
   * Signatures present must verify, and a missing one is allowed only for a program key (the node
   * decides later whether to give it). A signature count that does not match the message is
   * refused outright (agave's sanitize step, before any preflight choice).
   */
  private signaturesVerify(tx: VersionedTransaction, wire: Uint8Array): boolean {
    // The signed message is the wire after the signature list (compact-u16 count, one byte below 128).
    const message = tx.signatures.length < 128 ? wire.subarray(1 + 64 * tx.signatures.length) : tx.message.serialize();
    const keys = tx.message.staticAccountKeys;
    const required = tx.message.header.numRequiredSignatures;
    if (tx.signatures.length !== required) throw rpcError(-32602, "invalid transaction: wrong number of signatures");
    let mayCosign: Set<string> | null = null;
    for (let i = 0; i < required; i++) {
      const sig = tx.signatures[i]!;
      const key = keys[i]!;
      if (sig.every((b) => b === 0)) {
        mayCosign ??= programSignersNamedBy(this.programKeys, this.decompile(tx).instructions);
        const id = key.toBase58();
        if (i === 0 || !(mayCosign.has(id) || this.programKeys.isProgramKey(id))) return false;
        continue;
      }
      if (!ed25519Verify(key, message, sig)) return false;
    }
    return true;
  }

  /**
   * The accounts (static, then loaded from lookup tables), instructions and unsigned program keys
   * of a message, decompiled to base58. `err` says why lookup tables did not resolve; the keys are
   * then the static ones only.
   */
  private decompile(tx: VersionedTransaction): {
    keys: PublicKey[];
    loaded: LoadedAddresses;
    instructions: InstructionLike[];
    unsigned: string[];
    err: SolanaTxError | null;
  } {
    const resolved = this.resolveLookups(tx);
    const loaded = "err" in resolved ? { writable: [], readonly: [] } : resolved;
    const keys = [...tx.message.staticAccountKeys, ...loaded.writable, ...loaded.readonly];
    const instructions = tx.message.compiledInstructions.map((ix) => ({
      programId: keys[ix.programIdIndex]!.toBase58(),
      accounts: ix.accountKeyIndexes.map((k) => keys[k]?.toBase58() ?? ""),
      data: ix.data,
    }));
    const unsigned: string[] = [];
    for (let i = 0; i < tx.message.header.numRequiredSignatures; i++) {
      if (tx.signatures[i]!.every((b) => b === 0)) unsigned.push(keys[i]!.toBase58());
    }
    return { keys, loaded, instructions, unsigned, err: "err" in resolved ? resolved.err : null };
  }

  /**
   * The addresses a v0 message loads, read from its tables as agave's loader does: the table must
   * exist and belong to the lookup-table program, and addresses appended in the current slot are
   * not usable before the next.
   */
  private resolveLookups(tx: VersionedTransaction): LoadedAddresses | { err: SolanaTxError } {
    const writable: PublicKey[] = [];
    const readonly: PublicKey[] = [];
    for (const lookup of tx.message.addressTableLookups) {
      const acc = this.getAccount(lookup.accountKey);
      if (!acc) return { err: "AddressLookupTableNotFound" };
      if (!acc.owner.equals(AddressLookupTableProgram.programId)) return { err: "InvalidAddressLookupTableOwner" };
      let table: AddressLookupTableAccount;
      try {
        table = new AddressLookupTableAccount({
          key: lookup.accountKey,
          state: AddressLookupTableAccount.deserialize(acc.data),
        });
      } catch {
        return { err: "InvalidAddressLookupTableData" };
      }
      if (!table.isActive() && table.state.deactivationSlot + BigInt(SLOT_HASHES_MAX) < this.slot)
        return { err: "AddressLookupTableNotFound" };
      const usable =
        BigInt(table.state.lastExtendedSlot) < this.slot
          ? table.state.addresses.length
          : table.state.lastExtendedSlotStartIndex;
      for (const [indexes, into] of [
        [lookup.writableIndexes, writable],
        [lookup.readonlyIndexes, readonly],
      ] as const) {
        for (const i of indexes) {
          if (i >= usable) return { err: "InvalidAddressLookupTableIndex" };
          into.push(table.state.addresses[i]!);
        }
      }
    }
    return { writable, readonly };
  }

  simulate(
    tx: VersionedTransaction,
    o: { sigVerify: boolean; replaceRecentBlockhash: boolean; coSign?: boolean; postAccounts?: boolean },
  ): {
    err: SolanaTxError | null;
    logs: string[];
    unitsConsumed: bigint;
    innerInstructions: TxRecord["innerInstructions"];
    /** the accounts the transaction loaded, as they would be after it (only when asked) */
    postAccounts?: Map<string, SimulatedAccount>;
    returnData?: TxRecord["returnData"];
  } {
    if (!o.replaceRecentBlockhash && !this.acceptsBlockhash(tx)) {
      return { err: "BlockhashNotFound", logs: [], unitsConsumed: 0n, innerInstructions: [] };
    }
    const { keys, instructions, unsigned, err: lookupErr } = this.decompile(tx);
    if (lookupErr) return { err: lookupErr, logs: [], unitsConsumed: 0n, innerInstructions: [] };
    if (this.native.names(tx, keys)) return this.simulateNative(tx, keys, o);
    const verdict = validateTransaction(
      this.programKeys,
      this.programConfig,
      this.programState,
      instructions,
      unsigned,
    );
    if (!verdict.ok) {
      return {
        err: { InstructionError: [verdict.instructionIndex, { Custom: verdict.code }] },
        logs: programFailureLogs(verdict.message, verdict.code),
        unitsConsumed: 0n,
        innerInstructions: [],
      };
    }
    const copy = VersionedTransaction.deserialize(tx.serialize());
    if (o.coSign && verdict.signers.length) coSign(copy, verdict.signers);
    this.syncSlotHashesFor(copy);
    this.syncSvmBlockhashFor(copy);
    this.syncSvmClock();
    this.svm.withSigverify(o.sigVerify);
    try {
      const r = this.svm.simulateTransaction(copy);
      const meta: TransactionMetadata = r instanceof FailedTransactionMetadata ? r.meta() : r.meta();
      const err = r instanceof FailedTransactionMetadata ? fromLitesvmError(r.err()) : null;
      return {
        err,
        logs: meta.logs(),
        unitsConsumed: meta.computeUnitsConsumed(),
        innerInstructions: convertInner(meta),
        postAccounts:
          o.postAccounts && !(r instanceof FailedTransactionMetadata)
            ? new Map(
                r.postAccounts().map(([k, a]) => [
                  k.toBase58(),
                  {
                    lamports: a.lamports(),
                    owner: new PublicKey(a.owner()),
                    executable: a.executable(),
                    data: a.data(),
                    rentEpoch: Number(a.rentEpoch()),
                  },
                ]),
              )
            : undefined,
      };
    } finally {
      this.svm.withSigverify(true);
    }
  }

  private simulateNative(
    tx: VersionedTransaction,
    keys: PublicKey[],
    o: { sigVerify: boolean; postAccounts?: boolean },
  ): ReturnType<LocalNode["simulate"]> {
    this.syncSlotHashesFor(tx);
    this.syncSvmBlockhashFor(tx);
    this.syncSvmClock();
    const writable = keys.map((_, i) => tx.message.isAccountWritable(i));
    const postAccounts = o.postAccounts ? new Map<string, SimulatedAccount>() : undefined;
    const r = this.native.simulate(tx, keys, writable, computeFee(tx), this.unitLimitOf(tx), o.sigVerify, (key) => {
      const acc = this.getAccount(key);
      postAccounts?.set(
        key.toBase58(),
        acc ?? {
          lamports: 0n,
          owner: SystemProgram.programId,
          executable: false,
          data: new Uint8Array(0),
          rentEpoch: 0,
        },
      );
    });
    if ("notLanded" in r) return { err: r.notLanded, logs: [], unitsConsumed: 0n, innerInstructions: [] };
    return {
      err: r.err,
      logs: r.logs,
      unitsConsumed: r.computeUnits,
      innerInstructions: r.inner,
      postAccounts: r.err ? undefined : postAccounts,
      returnData: r.returnData,
    };
  }

  // ------------------------------------------------------------------ blocks and durable nonces

  /** The block of the open slot, created on first need (also after a checkpoint restore). */
  private openBlock(): BlockRecord {
    let block = this.blocks.get(this.slot);
    if (block) return block;
    const parent = this.blocks.get(this.slot - 1n);
    block = {
      slot: this.slot,
      parentSlot: parent ? parent.slot : this.slot - 1n,
      blockhash: this.latestBlockhash,
      previousBlockhash: parent?.blockhash ?? this.slotHashes.find((h) => h.slot === this.slot - 1n)?.hash ?? "",
      blockHeight: this.blockHeight,
      blockTimeSec: Math.floor(Date.now() / 1000),
      signatures: [],
    };
    this.blocks.set(this.slot, block);
    if (this.blocks.size > MAX_BLOCKS) {
      const oldest = this.blocks.keys().next().value;
      if (oldest !== undefined) this.blocks.delete(oldest);
    }
    return block;
  }

  /** The block of `slot`, if the node produced it and still keeps it (the open slot's included). */
  blockAt(slot: bigint): BlockRecord | null {
    if (slot === this.slot) return this.openBlock();
    return this.blocks.get(slot) ?? null;
  }

  /** The oldest block kept (getFirstAvailableBlock, minimumLedgerSlot). */
  firstBlockSlot(): bigint {
    return this.blocks.keys().next().value ?? this.slot;
  }

  /** Slots of the blocks kept in [from, to], ascending, at most `limit`. */
  blockSlots(from: bigint, to: bigint, limit: number): bigint[] {
    const out: bigint[] = [];
    const first = this.firstBlockSlot();
    for (let s = from < first ? first : from; s <= to && out.length < limit; s++) if (this.blocks.has(s)) out.push(s);
    return out;
  }

  /**
   * A durable-nonce transaction (first instruction AdvanceNonceAccount) names its nonce account's
   * stored nonce as its blockhash; agave accepts it while that nonce is current, however old.
   */
  acceptsBlockhash(tx: VersionedTransaction): boolean {
    if (this.isBlockhashValid(tx.message.recentBlockhash)) return true;
    const nonce = this.nonceAccountOf(tx);
    if (!nonce) return false;
    const acc = this.getAccount(nonce);
    if (!acc?.owner.equals(SystemProgram.programId) || acc.data.length !== NONCE_ACCOUNT_BYTES) return false;
    return encodeBase58(acc.data.subarray(NONCE_VALUE_OFFSET, NONCE_VALUE_OFFSET + 32)) === tx.message.recentBlockhash;
  }

  /** The nonce account a transaction advances first, or null (not a durable-nonce transaction). */
  private nonceAccountOf(tx: VersionedTransaction): PublicKey | null {
    const ix = tx.message.compiledInstructions[0];
    const keys = tx.message.staticAccountKeys;
    if (!ix || keys[ix.programIdIndex]?.toBase58() !== SYSTEM_PROGRAM_ID) return null;
    if (ix.data.length < 4 || ix.data[0] !== ADVANCE_NONCE_IX || ix.data[1] || ix.data[2] || ix.data[3]) return null;
    const i = ix.accountKeyIndexes[0];
    return i === undefined ? null : (keys[i] ?? null);
  }

  /**
   * LiteSVM's own blockhash is what the system program stores as a nonce; it never moves by itself
   * (the node keeps blockhashes here), so it is moved once a slot before a transaction that touches
   * the system program. Two advances of one nonce in one slot then fail, as on agave.
   */
  private syncSvmBlockhashFor(tx: VersionedTransaction): void {
    if (this.svmBlockhashSlot === this.slot) return;
    if (!tx.message.staticAccountKeys.some((k) => k.equals(SystemProgram.programId))) return;
    this.svm.expireBlockhash();
    this.svmBlockhashSlot = this.slot;
  }

  /** Builds, signs (payer first) and executes a transaction in-process, as the node's own client. */
  submitInstructions(
    instructions: readonly TransactionInstruction[],
    payer: Keypair,
    signers: readonly Keypair[] = [],
    trusted = false,
  ): { signature: string; record: TxRecord | null; err: SolanaTxError | null } {
    const message = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: this.latestBlockhash,
      instructions: [...instructions],
    }).compileToV0Message();
    const tx = new VersionedTransaction(message);
    const needed = message.staticAccountKeys.slice(0, message.header.numRequiredSignatures).map((k) => k.toBase58());
    const bytes = message.serialize();
    for (const s of [payer, ...signers]) {
      const i = needed.indexOf(s.publicKey.toBase58());
      if (i >= 0) tx.signatures[i] = ed25519Sign(s, bytes);
    }
    const signature = encodeBase58(tx.signatures[0]!);
    const result = this.execute(tx, { failOnChain: false, trusted });
    return { signature, record: this.txs.get(signature) ?? null, err: result.landed ? result.record.err : result.err };
  }

  /** Executes and records one transaction. Not landed = refused before execution (no fee, no record). */
  execute(
    tx: VersionedTransaction,
    o: { failOnChain: boolean; trusted?: boolean },
  ): { landed: true; record: TxRecord } | { landed: false; err: SolanaTxError } {
    const signature = encodeBase58(tx.signatures[0]!);
    const existing = this.txs.get(signature);
    if (existing) return { landed: true, record: existing };
    if (this.oldStatuses.has(signature)) return { landed: false, err: "AlreadyProcessed" };
    if (!this.acceptsBlockhash(tx)) {
      this.stats.refused++;
      return { landed: false, err: "BlockhashNotFound" };
    }
    const { keys, loaded, instructions, unsigned, err: lookupErr } = this.decompile(tx);
    if (lookupErr) {
      this.stats.refused++;
      return { landed: false, err: lookupErr };
    }
    const writable = keys.map((_, i) => tx.message.isAccountWritable(i));
    const preBalances = keys.map((k) => this.getBalance(k));
    this.recordAccountHistory(keys, writable);
    this.ghosts.delete(signature);
    const programIndexes = new Set(tx.message.compiledInstructions.map((ix) => ix.programIdIndex));
    const preTokenBalances = this.tokenBalances(keys, programIndexes);

    const { forced, verdict } = this.judge(tx, instructions, unsigned, o);
    const feeLamports = computeFee(tx);
    const ran = forced
      ? this.chargeFeeOnly(keys[0]!, feeLamports, forced)
      : this.native.names(tx, keys)
        ? this.runNative(tx, keys, writable, feeLamports, !o.trusted)
        : this.runOnSvm(tx);
    if (!ran.landed) {
      this.stats.refused++;
      return { landed: false, err: ran.err };
    }
    const { err } = ran;
    keys.forEach((key, i) => {
      if (writable[i]) this.noteWritten(addressOfKey(key));
    });
    const record: TxRecord = {
      signature,
      slot: this.slot,
      index: this.slotTxCount++,
      blockTimeSec: this.openBlock().blockTimeSec,
      tx,
      accountKeys: keys,
      loadedAddresses: loaded,
      writable,
      instructions: tx.message.compiledInstructions.map((ix) => ({
        programIdIndex: ix.programIdIndex,
        accounts: [...ix.accountKeyIndexes],
        data: ix.data,
        stackHeight: null,
      })),
      err,
      feeLamports,
      preBalances,
      postBalances: keys.map((k) => this.getBalance(k)),
      preTokenBalances,
      postTokenBalances: this.tokenBalances(keys, programIndexes),
      logs: ran.logs,
      innerInstructions: ran.inner,
      computeUnits: ran.computeUnits,
      returnData: ran.returnData ?? null,
    };
    this.remember(record);
    this.openBlock().signatures.push(signature);
    if (err) this.stats.failed++;
    else this.stats.processed++;
    this.landedCount += 1n;

    if (!err && verdict?.ok) {
      for (const c of verdict.created) {
        this.noteCreator(c.mint, c.creator);
        this.noteCurve(this.programKeys.bondingCurveAddress(c.mint), c.mint);
      }
    }
    if (!err && this.pumpMintSet && this.native.size > 0)
      for (const mint of createdPumpMints(record)) this.pumpMintSet.add(mint);
    this.emit(record);
    if (!err && verdict?.ok) for (const mint of verdict.tradedMints) this.maybeComplete(mint);
    return { landed: true, record };
  }

  /**
   * The local program's verdict before anything runs: an injected failure, a refused op (the
   * transaction then fails as the program would), or the program's co-signatures added.
   */
  private judge(
    tx: VersionedTransaction,
    instructions: Parameters<typeof validateTransaction>[3],
    unsigned: Parameters<typeof validateTransaction>[4],
    o: { failOnChain: boolean; trusted?: boolean },
  ): { forced: { err: SolanaTxError; logs: string[] } | null; verdict: ReturnType<typeof validateTransaction> | null } {
    if (o.failOnChain) {
      return {
        forced: {
          err: { InstructionError: [0, { Custom: 1 }] },
          logs: ["Program log: injected failure (local chain fault)"],
        },
        verdict: null,
      };
    }
    if (o.trusted) return { forced: null, verdict: null };
    const verdict = validateTransaction(
      this.programKeys,
      this.programConfig,
      this.programState,
      instructions,
      unsigned,
    );
    if (!verdict.ok) {
      return {
        forced: {
          err: { InstructionError: [verdict.instructionIndex, { Custom: verdict.code }] },
          logs: programFailureLogs(verdict.message, verdict.code),
        },
        verdict,
      };
    }
    if (verdict.signers.length) coSign(tx, verdict.signers);
    return { forced: null, verdict };
  }

  /** A program-level failure: the fee is charged and nothing else changes, as on a validator. */
  private chargeFeeOnly(
    payer: PublicKey,
    feeLamports: bigint,
    forced: { err: SolanaTxError; logs: string[] },
  ): ExecutionResult {
    const payerBalance = this.getBalance(payer);
    if (payerBalance < feeLamports) return { landed: false, err: "InsufficientFundsForFee" };
    const acc = this.svm.getAccount(payer)!;
    this.svm.setAccount(payer, { ...acc, lamports: lamportsAsNumber(payerBalance - feeLamports) });
    return { landed: true, err: forced.err, logs: forced.logs, inner: [], computeUnits: 0n };
  }

  /** A transaction naming a native program: run by native/runtime.ts, all or nothing. */
  private runNative(
    tx: VersionedTransaction,
    keys: PublicKey[],
    writable: boolean[],
    feeLamports: bigint,
    checkSignatures: boolean,
  ): ExecutionResult {
    this.syncSlotHashesFor(tx);
    this.syncSvmBlockhashFor(tx);
    this.syncSvmClock();
    const r = this.native.execute(tx, keys, writable, feeLamports, this.unitLimitOf(tx), checkSignatures);
    if ("notLanded" in r) return { landed: false, err: r.notLanded };
    return {
      landed: true,
      err: r.err,
      logs: r.logs,
      inner: r.inner,
      computeUnits: r.computeUnits,
      returnData: r.returnData,
    };
  }

  /** The compute units a transaction may use: its SetComputeUnitLimit, or agave's default, capped. */
  private unitLimitOf(tx: VersionedTransaction): bigint {
    const { unitLimit, defaultUnitLimit } = computeBudgetOf(tx);
    const limit = unitLimit ?? defaultUnitLimit;
    return limit > MAX_COMPUTE_UNIT_LIMIT ? MAX_COMPUTE_UNIT_LIMIT : limit;
  }

  private runOnSvm(tx: VersionedTransaction): ExecutionResult {
    this.syncSlotHashesFor(tx);
    this.syncSvmBlockhashFor(tx);
    this.syncSvmClock();
    const r = this.svm.sendTransaction(tx);
    const meta = r instanceof FailedTransactionMetadata ? r.meta() : r;
    let err: SolanaTxError | null = null;
    if (r instanceof FailedTransactionMetadata) {
      err = fromLitesvmError(r.err());
      if (!errorLands(err)) return { landed: false, err };
    }
    return {
      landed: true,
      err,
      logs: meta.logs(),
      inner: convertInner(meta),
      computeUnits: meta.computeUnitsConsumed(),
    };
  }

  private remember(record: TxRecord): void {
    this.changes?.rest.records.push(record);
    this.txs.set(record.signature, record);
    for (const key of record.accountKeys) {
      const id = addressOfKey(key);
      let list = this.byAddress.get(id);
      if (!list) {
        if (this.byAddress.size >= MAX_INDEXED_ADDRESSES) {
          const oldest = this.byAddress.keys().next().value;
          if (oldest !== undefined) this.byAddress.delete(oldest);
        }
        list = [];
        this.byAddress.set(id, list);
      }
      list.push(record.signature);
      if (list.length > SIGNATURES_PER_ADDRESS) list.splice(0, list.length - SIGNATURES_PER_ADDRESS);
    }
    if (this.txs.size > this.txHistoryLimit) {
      const oldest = this.txs.keys().next().value;
      if (oldest !== undefined) {
        const r = this.txs.get(oldest)!;
        this.txs.delete(oldest);
        this.oldStatuses.set(oldest, { slot: r.slot, err: r.err });
        if (this.oldStatuses.size > OLD_STATUS_LIMIT) {
          const first = this.oldStatuses.keys().next().value;
          if (first !== undefined) this.oldStatuses.delete(first);
        }
      }
    }
  }

  private emit(record: TxRecord): void {
    if (this.listeners.size === 0) return;
    const sig = record.tx.signatures[0]!;
    const updates: AccountUpdate[] = [];
    record.accountKeys.forEach((k, i) => {
      if (!record.writable[i]) return;
      const acc = this.svm.getAccount(k);
      this.writeVersion += 1n;
      updates.push({
        pubkey: k,
        lamports: BigInt(acc?.lamports ?? 0),
        owner: acc?.owner ?? SystemProgram.programId,
        executable: acc?.executable ?? false,
        data: acc?.data ?? new Uint8Array(0),
        writeVersion: this.writeVersion,
        txnSignature: sig,
        slot: record.slot,
      });
    });
    for (const l of this.listeners) {
      try {
        l.onAccounts?.(updates);
        l.onTransaction?.(record);
      } catch (e) {
        this.log(`listener failed: ${(e as Error).message}`);
      }
    }
  }

  /** After a buy, a curve whose reserves reached the threshold completes: fees go to the pool vault from now on. */
  private maybeComplete(mint: string): void {
    const state = curveStateOf(this.programKeys, this.programState, mint);
    const creator = this.creatorOf(mint);
    if (!state || state.bonded || !creator) return;
    if (state.realSolLamports < this.programConfig.bondThresholdLamports && tradableTokens(state) > 0n) return;
    const poolVault = this.programKeys.poolVault(creator).publicKey;
    const have = this.getBalance(poolVault);
    const topUp = have >= SYSTEM_ACCOUNT_RENT_LAMPORTS ? 0n : SYSTEM_ACCOUNT_RENT_LAMPORTS - have;
    const ops = buildCompleteOp(this.programKeys, {
      mint: new PublicKey(mint),
      creator: new PublicKey(creator),
      payer: this.programPayer.publicKey,
      poolVaultTopUpLamports: topUp,
    });
    // The program's own op, signed with its own keys: not subject to the checks for outside ops.
    const r = this.submitInstructions(
      ops,
      this.programPayer,
      [this.programKeys.bondingCurve(mint), this.programKeys.eventAuthority],
      true,
    );
    if (r.err) this.log(`completing curve of ${mint} failed: ${JSON.stringify(r.err)}`);
    else this.log(`curve of ${mint} completed at ${state.realSolLamports} lamports`);
  }

  /**
   * What pump.fun's fee sharing does to a coin (its creator, or the global admin, can start it):
   * the mint's sharing config becomes its creator, so later trades pay fees into the config's
   * vaults; collecting as the config fails, and money leaves only through a distribute op to the
   * shareholders written here. The node plays the fee program: it writes the config account.
   */
  shareCreatorFees(
    mint: string,
    shareholders: readonly { address: string; shareBps: number }[],
    options: { active?: boolean } = {},
  ): string {
    if (!this.creatorOf(mint)) throw new Error(`mint ${mint} was not created by the local program`);
    if (shareholders.length === 0 || shareholders.length > 10) throw new Error("1 to 10 shareholders");
    if (
      shareholders.reduce((n, h) => n + h.shareBps, 0) !== 10_000 ||
      shareholders.some((h) => !Number.isInteger(h.shareBps) || h.shareBps <= 0)
    ) {
      throw new Error("shares must be positive and sum to 10000 bps");
    }
    const config = this.programKeys.sharingConfig(mint);
    const topUp = (vault: PublicKey) => {
      const have = this.getBalance(vault);
      return have >= SYSTEM_ACCOUNT_RENT_LAMPORTS ? 0n : SYSTEM_ACCOUNT_RENT_LAMPORTS - have;
    };
    const ops = buildShareOp(this.programKeys, {
      mint: new PublicKey(mint),
      payer: this.programPayer.publicKey,
      curveVaultTopUpLamports: topUp(this.programKeys.curveVault(config.publicKey).publicKey),
      poolVaultTopUpLamports: topUp(this.programKeys.poolVault(config.publicKey).publicKey),
    });
    const r = this.submitInstructions(
      ops,
      this.programPayer,
      [this.programKeys.bondingCurve(mint), this.programKeys.eventAuthority],
      true,
    );
    if (r.err) throw new Error(`sharing creator fees of ${mint} failed: ${JSON.stringify(r.err)}`);
    const data = encodeSharingConfig(new PublicKey(mint), shareholders, options.active ?? true);
    this.setAccount(config.publicKey, {
      lamports: rentExemptLamports(data.length),
      data,
      owner: this.programKeys.feeProgram,
      executable: false,
    });
    this.noteCreator(mint, config.publicKey.toBase58());
    return r.signature;
  }

  // ------------------------------------------------------------------ checkpoint (checkpoint.ts)

  private noteWritten(address: string): void {
    this.written.add(address);
    this.changes?.addresses.add(address);
  }

  private noteCreator(mint: string, creator: string): void {
    this.mintCreators.set(mint, creator);
    this.changes?.rest.mintCreators.push([mint, creator]);
  }

  private noteCurve(curve: string, mint: string): void {
    this.curveMints.set(curve, mint);
    this.changes?.rest.curveMints.push([curve, mint]);
  }

  /** Starts recording changes for takeChanges(). */
  trackChanges(): void {
    this.changes ??= {
      addresses: new Set(),
      rest: { records: [], blockhashes: [], slotHashes: [], mintCreators: [], curveMints: [] },
    };
  }

  /** The changes since the last call (or trackChanges()); null when nothing changed. */
  takeChanges(): NodeChanges | null {
    const changes = this.changes;
    if (!changes) return null;
    const { addresses, rest } = changes;
    if (addresses.size === 0 && rest.records.length === 0 && rest.blockhashes.length === 0) return null;
    this.changes = null;
    this.trackChanges();
    return {
      slot: this.slot,
      blockHeight: this.blockHeight,
      latestBlockhash: this.latestBlockhash,
      writeVersion: this.writeVersion,
      accounts: [...addresses].map((address) => this.accountState(address)),
      ...rest,
      transactionCount: this.landedCount,
    };
  }

  private accountState(address: string): NodeAccount {
    const key = new PublicKey(address);
    const acc = this.svm.getAccount(key);
    return {
      address,
      lamports: this.svm.getBalance(key) ?? 0n,
      owner: (acc?.owner ?? SystemProgram.programId).toBase58(),
      executable: acc?.executable ?? false,
      rentEpoch: Number(acc?.rentEpoch ?? 0),
      data: acc?.data ?? new Uint8Array(0),
    };
  }

  /** The whole durable state, with at most `recordsMax` full transaction records (the newest). */
  exportState(recordsMax: number, statusesMax: number): NodeState {
    const records = [...this.txs.values()].slice(-recordsMax);
    const dropped = [...this.txs.values()].slice(0, Math.max(0, this.txs.size - recordsMax));
    const oldStatuses: NodeState["oldStatuses"] = [
      ...[...this.oldStatuses].slice(-statusesMax),
      ...dropped.map((r): NodeState["oldStatuses"][number] => [r.signature, { slot: r.slot, err: r.err }]),
    ];
    return {
      programSeed: this.programSeed,
      programPayerSecret: this.programPayer.secretKey,
      faucetSecret: this.faucet.secretKey,
      slot: this.slot,
      blockHeight: this.blockHeight,
      latestBlockhash: this.latestBlockhash,
      writeVersion: this.writeVersion,
      blockhashes: [...this.blockhashes],
      slotHashes: [...this.slotHashes].reverse(),
      accounts: [...this.written].map((address) => this.accountState(address)),
      records,
      oldStatuses,
      mintCreators: [...this.mintCreators],
      curveMints: [...this.curveMints],
      transactionCount: this.landedCount,
      ...(this.treasury ? { treasury: this.treasury } : {}),
    };
  }

  /** Transactions landed since the chain began (getTransactionCount), a restart included. */
  transactionCount(): bigint {
    return this.landedCount;
  }

  /** Applies one journal entry over the restored state (in order; an entry is applied whole). */
  applyChanges(changes: NodeChanges): void {
    this.slot = changes.slot;
    this.blockHeight = changes.blockHeight;
    this.latestBlockhash = changes.latestBlockhash;
    this.writeVersion = changes.writeVersion;
    for (const [hash, last] of changes.blockhashes) this.blockhashes.set(hash, last);
    for (const h of changes.slotHashes) this.noteSlotHash(h.slot, h.hash);
    for (const account of changes.accounts) this.restoreAccount(account);
    for (const record of changes.records) if (!this.txs.has(record.signature)) this.remember(record);
    for (const [mint, creator] of changes.mintCreators) this.mintCreators.set(mint, creator);
    for (const [curve, mint] of changes.curveMints) this.curveMints.set(curve, mint);
    if (changes.transactionCount !== undefined) this.landedCount = changes.transactionCount;
    else this.landedCount += BigInt(changes.records.length);
    this.syncClock();
  }

  private importState(state: NodeState): void {
    this.slot = state.slot;
    this.blockHeight = state.blockHeight;
    this.latestBlockhash = state.latestBlockhash;
    this.writeVersion = state.writeVersion;
    for (const [hash, last] of state.blockhashes) this.blockhashes.set(hash, last);
    for (const h of state.slotHashes) this.noteSlotHash(h.slot, h.hash);
    for (const account of state.accounts) this.restoreAccount(account);
    for (const [signature, status] of state.oldStatuses) this.oldStatuses.set(signature, status);
    for (const record of state.records) this.remember(record);
    for (const [mint, creator] of state.mintCreators) this.mintCreators.set(mint, creator);
    for (const [curve, mint] of state.curveMints) this.curveMints.set(curve, mint);
    // A checkpoint from before the count was kept: what it still knows of is the best floor.
    this.landedCount = state.transactionCount ?? BigInt(state.records.length + state.oldStatuses.length);
    this.treasury = state.treasury ?? null;
    this.syncClock();
  }

  private restoreAccount(account: NodeAccount): void {
    this.written.add(account.address);
    this.svm.setAccount(new PublicKey(account.address), {
      lamports: lamportsAsNumber(account.lamports),
      data: account.data,
      owner: new PublicKey(account.owner),
      executable: account.executable,
      rentEpoch: account.rentEpoch,
    });
  }

  /** Transfers from the faucet through a real transaction, so airdrops have a signature to confirm. */
  airdrop(to: PublicKey, lamports: bigint): string {
    const r = this.submitInstructions(
      [SystemProgram.transfer({ fromPubkey: this.faucet.publicKey, toPubkey: to, lamports })],
      this.faucet,
    );
    if (r.err) throw rpcError(-32603, `airdrop failed: ${JSON.stringify(r.err)}`);
    return r.signature;
  }

  private tokenBalances(keys: PublicKey[], programIndexes: Set<number>): TokenBalance[] {
    const out: TokenBalance[] = [];
    keys.forEach((k, i) => {
      // Program ids are never token accounts, and reading executables is the costly part.
      if (programIndexes.has(i)) return;
      const acc = this.svm.getAccount(k);
      if (!acc || acc.data.length < 165) return;
      const owner = acc.owner.toBase58();
      if (owner !== TOKEN_PROGRAM_ID.toBase58() && owner !== TOKEN_2022) return;
      const mint = new PublicKey(acc.data.subarray(0, 32));
      const mintAcc = this.svm.getAccount(mint);
      out.push({
        accountIndex: i,
        mint: mint.toBase58(),
        owner: new PublicKey(acc.data.subarray(32, 64)).toBase58(),
        programId: owner,
        amount: readU64LE(acc.data, 64),
        decimals: mintAcc && mintAcc.data.length > 44 ? mintAcc.data[44]! : 0,
      });
    });
    return out;
  }

  /** Fees of a creator vault above rent, for tests and the demo. */
  vaultFees(kind: "curve" | "pool", creator: string): bigint {
    return unsweptLamports(this.getBalance(this.programKeys.vault(kind, creator).publicKey));
  }
}

function convertInner(meta: TransactionMetadata): TxRecord["innerInstructions"] {
  const out: TxRecord["innerInstructions"] = [];
  meta.innerInstructions().forEach((list, index) => {
    if (list.length === 0) return;
    out.push({
      index,
      instructions: list.map((ii) => {
        const c = ii.instruction();
        return {
          programIdIndex: c.programIdIndex(),
          accounts: [...c.accounts()],
          data: Uint8Array.from(c.data()),
          stackHeight: ii.stackHeight(),
        };
      }),
    });
  });
  return out;
}

function programFailureLogs(message: string, code: number): string[] {
  const id = MEMO_PROGRAM_ID.toBase58();
  return [
    `Program ${id} invoke [1]`,
    `Program log: local launch program: ${message}`,
    `Program ${id} failed: custom program error: 0x${code.toString(16)}`,
  ];
}

function preflightError(err: SolanaTxError, what: string, logs: string[], unitsConsumed = 0n): RpcError {
  return rpcError(-32002, `Transaction simulation failed: ${what}`, {
    accounts: null,
    err,
    innerInstructions: null,
    logs,
    replacementBlockhash: null,
    returnData: null,
    unitsConsumed,
  });
}

/** How agave writes an InstructionError (solana-instruction-error's Display). */
const INSTRUCTION_ERROR_TEXT: Record<string, string> = {
  GenericError: "generic instruction error",
  InvalidArgument: "invalid program argument",
  InvalidInstructionData: "invalid instruction data",
  InvalidAccountData: "invalid account data for instruction",
  AccountDataTooSmall: "account data too small for instruction",
  InsufficientFunds: "insufficient funds for instruction",
  IncorrectProgramId: "incorrect program id for instruction",
  MissingRequiredSignature: "missing required signature for instruction",
  AccountAlreadyInitialized: "instruction requires an uninitialized account",
  UninitializedAccount: "instruction requires an initialized account",
  UnbalancedInstruction: "sum of account balances before and after instruction do not match",
  ModifiedProgramId: "instruction illegally modified the program id of an account",
  ExternalAccountLamportSpend: "instruction spent from the balance of an account it does not own",
  ExternalAccountDataModified: "instruction modified data of an account it does not own",
  ReadonlyLamportChange: "instruction changed the balance of a read-only account",
  ReadonlyDataModified: "instruction modified data of a read-only account",
  DuplicateAccountIndex: "instruction contains duplicate accounts",
  ExecutableModified: "instruction changed executable bit of an account",
  RentEpochModified: "instruction modified rent epoch of an account",
  NotEnoughAccountKeys: "insufficient account keys for instruction",
  AccountDataSizeChanged: "program other than the account's owner changed the size of the account data",
  AccountNotExecutable: "instruction expected an executable account",
  AccountBorrowFailed: "instruction tries to borrow reference for an account which is already borrowed",
  AccountBorrowOutstanding: "instruction left account with an outstanding borrowed reference",
  DuplicateAccountOutOfSync: "instruction modifications of multiply-passed account differ",
  InvalidError: "program returned invalid error code",
  ExecutableDataModified: "instruction changed executable accounts data",
  ExecutableLamportChange: "instruction changed the balance of an executable account",
  ExecutableAccountNotRentExempt: "executable accounts must be rent exempt",
  UnsupportedProgramId: "Unsupported program id",
  CallDepth: "Cross-program invocation call depth too deep",
  MissingAccount: "An account required by the instruction is missing",
  ReentrancyNotAllowed: "Cross-program invocation reentrancy not allowed for this instruction",
  MaxSeedLengthExceeded: "Length of the seed is too long for address generation",
  InvalidSeeds: "Provided seeds do not result in a valid address",
  InvalidRealloc: "Failed to reallocate account data",
  ComputationalBudgetExceeded: "Computational budget exceeded",
  PrivilegeEscalation: "Cross-program invocation with unauthorized signer or writable account",
  ProgramEnvironmentSetupFailure: "Failed to create program execution environment",
  ProgramFailedToComplete: "Program failed to complete",
  ProgramFailedToCompile: "Program failed to compile",
  Immutable: "Account is immutable",
  IncorrectAuthority: "Incorrect authority provided",
  BorshIoError: "Failed to serialize or deserialize account data",
  AccountNotRentExempt: "An account does not have enough lamports to be rent-exempt",
  InvalidAccountOwner: "Invalid account owner",
  ArithmeticOverflow: "Program arithmetic overflowed",
  UnsupportedSysvar: "Unsupported sysvar",
  IllegalOwner: "Provided owner is not allowed",
  MaxAccountsDataAllocationsExceeded: "Accounts data allocations exceeded the maximum allowed per transaction",
  MaxAccountsExceeded: "Max accounts exceeded",
  MaxInstructionTraceLengthExceeded: "Max instruction trace length exceeded",
  BuiltinProgramsMustConsumeComputeUnits: "Builtin programs must consume compute units",
};

function describeForPreflight(err: SolanaTxError): string {
  if (err === "BlockhashNotFound") return "Blockhash not found";
  if (err === "AlreadyProcessed") return "This transaction has already been processed";
  if (err === "InsufficientFundsForFee") return "Attempt to debit an account but found no record of a prior credit.";
  if (typeof err === "object" && "InstructionError" in err) {
    const [index, e] = err.InstructionError as [number, unknown];
    const text =
      typeof e === "object" && e && "Custom" in e
        ? `custom program error: 0x${Number((e as { Custom: number }).Custom).toString(16)}`
        : typeof e === "string"
          ? (INSTRUCTION_ERROR_TEXT[e] ?? e)
          : JSON.stringify(e);
    return `Error processing Instruction ${index}: ${text}`;
  }
  return typeof err === "string" ? err : JSON.stringify(err);
}

/**
 * Builtin programs: without a SetComputeUnitLimit, agave budgets 3,000 units for each of their
 * instructions and 200,000 for any other (measured against LiteSVM, which charges the same).
 */
const BUILTIN_PROGRAMS = new Set([
  "11111111111111111111111111111111",
  "ComputeBudget111111111111111111111111111111",
  "AddressLookupTab1e1111111111111111111111111",
  "Stake11111111111111111111111111111111111111",
  "Vote111111111111111111111111111111111111111",
  "Config1111111111111111111111111111111111111",
  "BPFLoader2111111111111111111111111111111111",
  "BPFLoaderUpgradeab1e11111111111111111111111",
  "LoaderV411111111111111111111111111111111111",
]);

/**
 * What a transaction's ComputeBudget instructions ask for: `unitLimit` from SetComputeUnitLimit
 * (discriminator 2, u32 LE; null when absent), the price from SetComputeUnitPrice (discriminator
 * 3, u64 LE; 0 when absent), and `defaultUnitLimit`, agave's budget when no limit is set.
 */
export function computeBudgetOf(tx: VersionedTransaction): {
  unitLimit: bigint | null;
  microLamportsPerUnit: bigint;
  defaultUnitLimit: bigint;
} {
  const keys = tx.message.staticAccountKeys;
  let unitLimit: bigint | null = null;
  let microLamportsPerUnit = 0n;
  let defaultUnitLimit = 0n;
  for (const ix of tx.message.compiledInstructions) {
    const program = keys[ix.programIdIndex]?.toBase58() ?? "";
    defaultUnitLimit += BUILTIN_PROGRAMS.has(program) ? 3_000n : 200_000n;
    if (program !== COMPUTE_BUDGET_ID) continue;
    const d = ix.data;
    if (d[0] === 2 && d.length >= 5) unitLimit = BigInt(new DataView(d.buffer, d.byteOffset + 1, 4).getUint32(0, true));
    if (d[0] === 3 && d.length >= 9)
      microLamportsPerUnit = new DataView(d.buffer, d.byteOffset + 1, 8).getBigUint64(0, true);
  }
  return { unitLimit, microLamportsPerUnit, defaultUnitLimit };
}

/** Base fee per signature plus the priority fee a ComputeBudget price asks for. */
export function computeFee(tx: VersionedTransaction): bigint {
  const { unitLimit, microLamportsPerUnit, defaultUnitLimit } = computeBudgetOf(tx);
  const limit = unitLimit ?? defaultUnitLimit;
  const cappedLimit = limit > MAX_COMPUTE_UNIT_LIMIT ? MAX_COMPUTE_UNIT_LIMIT : limit;
  const priority = (microLamportsPerUnit * cappedLimit + 999_999n) / 1_000_000n;
  return LAMPORTS_PER_SIGNATURE * BigInt(tx.message.header.numRequiredSignatures) + priority;
}
const COMPUTE_BUDGET_ID = ComputeBudgetProgram.programId.toBase58();

const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");
const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
/** Private keys of the node's own signers (faucet, simulator traders, program keys), parsed once. */
const signingKeys = new Map<string, KeyObject>();
/**
 * The node's own transactions (airdrops, simulated trades, bench load) are signed with node:crypto:
 * web3.js's pure-JS ed25519 costs ~10 ms a signature on a busy 2-core box.
 */
function ed25519Sign(signer: Keypair, message: Uint8Array): Uint8Array {
  const id = signer.publicKey.toBase58();
  let key = signingKeys.get(id);
  if (!key) {
    key = createPrivateKey({
      key: Buffer.concat([ED25519_PKCS8_PREFIX, Buffer.from(signer.secretKey.subarray(0, 32))]),
      format: "der",
      type: "pkcs8",
    });
    if (signingKeys.size >= KEY_OBJECT_CACHE_LIMIT) signingKeys.clear();
    signingKeys.set(id, key);
  }
  return new Uint8Array(signMessage(null, message, key));
}
/** `tx.sign(signers)` through ed25519Sign: the same bytes (Ed25519 is deterministic), natively. */
function coSign(tx: VersionedTransaction, signers: readonly Keypair[]): void {
  const message = tx.message.serialize();
  for (const signer of signers) tx.addSignature(signer.publicKey, ed25519Sign(signer, message));
}
/** Parsed public keys, reused: parsing costs more than verifying. Bounded, cleared when full. */
const keyObjects = new Map<string, KeyObject>();
const KEY_OBJECT_CACHE_LIMIT = 50_000;
function ed25519Verify(key: PublicKey, message: Uint8Array, signature: Uint8Array): boolean {
  try {
    const id = key.toBase58();
    let keyObject = keyObjects.get(id);
    if (!keyObject) {
      keyObject = createPublicKey({
        key: Buffer.concat([ED25519_SPKI_PREFIX, key.toBuffer()]),
        format: "der",
        type: "spki",
      });
      if (keyObjects.size >= KEY_OBJECT_CACHE_LIMIT) keyObjects.clear();
      keyObjects.set(id, keyObject);
    }
    return verifySignature(null, message, keyObject, signature);
  } catch {
    return false;
  }
}
