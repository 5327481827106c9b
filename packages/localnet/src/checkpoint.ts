/**
 * State that survives a restart: a snapshot of the node (accounts whole, the clock, recent
 * blockhashes and transactions) plus a journal of what changed since, one line per closed slot.
 *
 * - `snapshot.json.gz` is replaced atomically (written beside, fsynced, renamed, the folder fsynced),
 *   so a crash leaves the old one or the new one, never half of one.
 * - `journal.ndjson` gets a line per slot that changed anything, written as the slot closes: a
 *   killed process loses at most the slot that was open (the line is in the kernel's cache). The
 *   journal is fsynced off the event loop at most once a `syncEveryMs` (default 1 s): an fsync per
 *   slot, on a slow disk, held the node and the service beside it still for most of each slot. A
 *   machine's crash loses at most that last interval. A torn last line (the crash came mid-write)
 *   is cut off at load. Lines carry a sequence number and the snapshot the last one it holds, so a crash between
 *   a compaction's rename and its truncation replays nothing twice.
 * - Compaction (a new snapshot, the journal emptied) runs when the journal passes `journalBytesMax`
 *   or `compactEveryMs` has passed, and at stop. The snapshot keeps at most `recordsMax` full
 *   transaction records and `statusesMax` statuses of older ones: the files stay bounded by the
 *   chain's accounts, which are state and are never dropped.
 */
import {
  closeSync,
  fsync,
  existsSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { PublicKey, VersionedTransaction } from "@solana/web3.js";
import type { LocalNode, NodeAccount, NodeChanges, NodeState, TokenBalance, TxRecord } from "./node";

const FORMAT = 1;
const SNAPSHOT = "snapshot.json.gz";
const JOURNAL = "journal.ndjson";

export interface CheckpointOptions {
  /** the folder the snapshot and the journal live in (created if absent) */
  dir: string;
  /** compact at least this often (default 60 s) */
  compactEveryMs?: number;
  /** compact once the journal is this large (default 8 MiB) */
  journalBytesMax?: number;
  /** full transaction records a snapshot keeps (default 10,000; older ones keep their status) */
  recordsMax?: number;
  /** statuses of older transactions a snapshot keeps (default 200,000) */
  statusesMax?: number;
  /** the journal reaches the disk at least this often (default 1 s) */
  syncEveryMs?: number;
}

export class CheckpointError extends Error {
  override readonly name = "CheckpointError";
}

/** The saved state of `dir` and the journal entries after it, or null when there is none. */
export function loadCheckpoint(dir: string): { state: NodeState; journal: NodeChanges[]; seq: number } | null {
  const snapshotPath = join(dir, SNAPSHOT);
  if (!existsSync(snapshotPath)) return null;
  let snapshot: { format: number; seq: number; state: unknown };
  try {
    snapshot = JSON.parse(gunzipSync(readFileSync(snapshotPath)).toString("utf8"));
  } catch (error) {
    throw new CheckpointError(
      `the local chain's checkpoint in ${dir} is unreadable (${(error as Error).message}); move the folder away or start fresh (--reset)`,
    );
  }
  if (snapshot.format !== FORMAT) {
    throw new CheckpointError(
      `the local chain's checkpoint in ${dir} has format ${snapshot.format}, this version reads ${FORMAT}; start fresh (--reset)`,
    );
  }
  const state = decodeState(snapshot.state as StateJson);
  const journal: NodeChanges[] = [];
  let seq = snapshot.seq;
  const journalPath = join(dir, JOURNAL);
  if (existsSync(journalPath)) {
    const bytes = readFileSync(journalPath);
    let good = 0;
    let at = 0;
    while (at < bytes.length) {
      const end = bytes.indexOf(10, at);
      if (end < 0) break;
      let line: { seq: number; changes: ChangesJson };
      try {
        line = JSON.parse(bytes.subarray(at, end).toString("utf8"));
      } catch {
        break;
      }
      if (line.seq > snapshot.seq) {
        journal.push(decodeChanges(line.changes));
        seq = line.seq;
      }
      at = end + 1;
      good = at;
    }
    // A torn last line (a crash mid-write) is cut off, so the next line appended is not glued to it.
    if (good < bytes.length) {
      const fd = openSync(journalPath, "r+");
      try {
        ftruncateSync(fd, good);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
  }
  return { state, journal, seq };
}

/** Removes the checkpoint of `dir`: the next start is a fresh chain. */
export function resetCheckpoint(dir: string): void {
  rmSync(join(dir, SNAPSHOT), { force: true });
  rmSync(join(dir, `${SNAPSHOT}.tmp`), { force: true });
  rmSync(join(dir, JOURNAL), { force: true });
}

/** Journals a node's changes and compacts them into snapshots. */
export class Checkpointer {
  private readonly compactEveryMs: number;
  private readonly journalBytesMax: number;
  private readonly recordsMax: number;
  private readonly statusesMax: number;
  private journalFd: number;
  private journalBytes: number;
  private seq: number;
  private readonly syncEveryMs: number;
  private lastCompactAt = Date.now();
  private lastSyncAt = Date.now();
  private syncing = false;
  private closed = false;

  /** `seq`: the last sequence number of the checkpoint the node was restored from (0 when fresh) */
  constructor(
    private readonly node: LocalNode,
    private readonly opts: CheckpointOptions,
    seq = 0,
  ) {
    this.compactEveryMs = opts.compactEveryMs ?? 60_000;
    this.journalBytesMax = opts.journalBytesMax ?? 8 * 1024 * 1024;
    this.recordsMax = opts.recordsMax ?? 10_000;
    this.statusesMax = opts.statusesMax ?? 200_000;
    this.syncEveryMs = opts.syncEveryMs ?? 1_000;
    mkdirSync(opts.dir, { recursive: true });
    node.trackChanges();
    // A fresh snapshot at start: the journal then only ever follows the snapshot beside it. The
    // numbering goes on from the restored checkpoint's, so lines it holds are never replayed twice.
    this.seq = seq;
    this.writeSnapshot();
    // Append mode: after a compaction truncates the file, the next line goes to its start (a plain
    // write position would stay where it was and leave a hole of zeros before the line).
    this.journalFd = openSync(join(opts.dir, JOURNAL), "a");
    ftruncateSync(this.journalFd, 0);
    this.journalBytes = 0;
  }

  /** Appends what changed since the last flush (a closed slot); compacts when due. */
  flush(): void {
    if (this.closed) return;
    const changes = this.node.takeChanges();
    if (changes) {
      this.seq += 1;
      const line = Buffer.from(`${JSON.stringify({ seq: this.seq, changes: encodeChanges(changes) })}\n`);
      writeSync(this.journalFd, line);
      this.journalBytes += line.length;
      this.syncSoon();
    }
    if (this.journalBytes >= this.journalBytesMax || Date.now() - this.lastCompactAt >= this.compactEveryMs) {
      this.compact();
    }
  }

  /** Starts an fsync of the journal on the thread pool when one is due and none is running. */
  private syncSoon(): void {
    if (this.syncing || Date.now() - this.lastSyncAt < this.syncEveryMs) return;
    this.syncing = true;
    this.lastSyncAt = Date.now();
    fsync(this.journalFd, () => {
      // An error here (the disk, or the file closed at stop) is met again by the next write or by
      // the stop's own fsync, which throw; this one only shortens the window a machine crash loses.
      this.syncing = false;
    });
  }

  /** A new snapshot of the whole state; the journal starts empty after it. */
  compact(): void {
    this.node.takeChanges();
    this.writeSnapshot();
    ftruncateSync(this.journalFd, 0);
    fsyncSync(this.journalFd);
    this.journalBytes = 0;
  }

  /** Flushes, compacts and closes the journal; idempotent. */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.compact();
    this.closed = true;
    closeSync(this.journalFd);
  }

  private writeSnapshot(): void {
    const state = this.node.exportState(this.recordsMax, this.statusesMax);
    const body = gzipSync(JSON.stringify({ format: FORMAT, seq: this.seq, state: encodeState(state) }));
    const path = join(this.opts.dir, SNAPSHOT);
    const tmp = `${path}.tmp`;
    const fd = openSync(tmp, "w", 0o600);
    try {
      writeSync(fd, body);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
    fsyncDir(this.opts.dir);
    this.lastCompactAt = Date.now();
  }

  /** Bytes on disk now: the snapshot and the journal. */
  get sizeBytes(): number {
    const snapshot = join(this.opts.dir, SNAPSHOT);
    return (existsSync(snapshot) ? statSync(snapshot).size : 0) + this.journalBytes;
  }
}

function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some filesystems refuse to open a directory for fsync; the rename is still atomic there.
  }
}

// ------------------------------------------------------------------ JSON forms

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64");
const unb64 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, "base64"));

type AccountJson = [
  address: string,
  lamports: string,
  owner: string,
  executable: boolean,
  rentEpoch: number,
  data: string,
];

function encodeAccount(a: NodeAccount): AccountJson {
  return [a.address, a.lamports.toString(), a.owner, a.executable, a.rentEpoch, b64(a.data)];
}

function decodeAccount(a: AccountJson): NodeAccount {
  return {
    address: a[0],
    lamports: BigInt(a[1]),
    owner: a[2],
    executable: a[3],
    rentEpoch: a[4],
    data: unb64(a[5]),
  };
}

interface IxJson {
  p: number;
  a: number[];
  d: string;
  h: number | null;
}

interface TokenBalanceJson extends Omit<TokenBalance, "amount"> {
  amount: string;
}

interface RecordJson {
  signature: string;
  slot: string;
  index: number;
  blockTimeSec: number;
  wire: string;
  accountKeys: string[];
  loaded: { writable: string[]; readonly: string[] };
  writable: boolean[];
  instructions: IxJson[];
  err: TxRecord["err"];
  fee: string;
  pre: string[];
  post: string[];
  preTokens: TokenBalanceJson[];
  postTokens: TokenBalanceJson[];
  logs: string[];
  inner: { index: number; instructions: IxJson[] }[];
  computeUnits: string;
}

const encodeIx = (ix: TxRecord["instructions"][number]): IxJson => ({
  p: ix.programIdIndex,
  a: ix.accounts,
  d: b64(ix.data),
  h: ix.stackHeight,
});
const decodeIx = (ix: IxJson): TxRecord["instructions"][number] => ({
  programIdIndex: ix.p,
  accounts: ix.a,
  data: unb64(ix.d),
  stackHeight: ix.h,
});
const encodeTokens = (list: TokenBalance[]): TokenBalanceJson[] =>
  list.map((t) => ({ ...t, amount: t.amount.toString() }));
const decodeTokens = (list: TokenBalanceJson[]): TokenBalance[] =>
  list.map((t) => ({ ...t, amount: BigInt(t.amount) }));
const keys = (list: PublicKey[]): string[] => list.map((k) => k.toBase58());
const unkeys = (list: string[]): PublicKey[] => list.map((k) => new PublicKey(k));

function encodeRecord(r: TxRecord): RecordJson {
  return {
    signature: r.signature,
    slot: r.slot.toString(),
    index: r.index,
    blockTimeSec: r.blockTimeSec,
    wire: b64(r.tx.serialize()),
    accountKeys: keys(r.accountKeys),
    loaded: { writable: keys(r.loadedAddresses.writable), readonly: keys(r.loadedAddresses.readonly) },
    writable: r.writable,
    instructions: r.instructions.map(encodeIx),
    err: r.err,
    fee: r.feeLamports.toString(),
    pre: r.preBalances.map(String),
    post: r.postBalances.map(String),
    preTokens: encodeTokens(r.preTokenBalances),
    postTokens: encodeTokens(r.postTokenBalances),
    logs: r.logs,
    inner: r.innerInstructions.map((g) => ({ index: g.index, instructions: g.instructions.map(encodeIx) })),
    computeUnits: r.computeUnits.toString(),
  };
}

function decodeRecord(r: RecordJson): TxRecord {
  return {
    signature: r.signature,
    slot: BigInt(r.slot),
    index: r.index,
    blockTimeSec: r.blockTimeSec,
    tx: VersionedTransaction.deserialize(unb64(r.wire)),
    accountKeys: unkeys(r.accountKeys),
    loadedAddresses: { writable: unkeys(r.loaded.writable), readonly: unkeys(r.loaded.readonly) },
    writable: r.writable,
    instructions: r.instructions.map(decodeIx),
    err: r.err,
    feeLamports: BigInt(r.fee),
    preBalances: r.pre.map(BigInt),
    postBalances: r.post.map(BigInt),
    preTokenBalances: decodeTokens(r.preTokens),
    postTokenBalances: decodeTokens(r.postTokens),
    logs: r.logs,
    innerInstructions: r.inner.map((g) => ({ index: g.index, instructions: g.instructions.map(decodeIx) })),
    computeUnits: BigInt(r.computeUnits),
  };
}

interface StateJson {
  programSeed: string;
  programPayerSecret: string;
  faucetSecret: string;
  slot: string;
  blockHeight: string;
  latestBlockhash: string;
  writeVersion: string;
  blockhashes: [string, string][];
  slotHashes: [string, string][];
  accounts: AccountJson[];
  records: RecordJson[];
  oldStatuses: [string, string, TxRecord["err"]][];
  mintCreators: [string, string][];
  curveMints: [string, string][];
  /** optional: checkpoints written before these were kept still load */
  transactionCount?: string;
  treasury?: { address: string; secret: string | null };
}

function encodeState(s: NodeState): StateJson {
  return {
    programSeed: b64(s.programSeed),
    programPayerSecret: b64(s.programPayerSecret),
    faucetSecret: b64(s.faucetSecret),
    slot: s.slot.toString(),
    blockHeight: s.blockHeight.toString(),
    latestBlockhash: s.latestBlockhash,
    writeVersion: s.writeVersion.toString(),
    blockhashes: s.blockhashes.map(([hash, last]) => [hash, last.toString()]),
    slotHashes: s.slotHashes.map((h) => [h.slot.toString(), h.hash]),
    accounts: s.accounts.map(encodeAccount),
    records: s.records.map(encodeRecord),
    oldStatuses: s.oldStatuses.map(([signature, status]) => [signature, status.slot.toString(), status.err]),
    mintCreators: s.mintCreators,
    curveMints: s.curveMints,
    transactionCount: s.transactionCount?.toString(),
    treasury: s.treasury
      ? { address: s.treasury.address, secret: s.treasury.secret ? b64(s.treasury.secret) : null }
      : undefined,
  };
}

function decodeState(s: StateJson): NodeState {
  return {
    programSeed: unb64(s.programSeed),
    programPayerSecret: unb64(s.programPayerSecret),
    faucetSecret: unb64(s.faucetSecret),
    slot: BigInt(s.slot),
    blockHeight: BigInt(s.blockHeight),
    latestBlockhash: s.latestBlockhash,
    writeVersion: BigInt(s.writeVersion),
    blockhashes: s.blockhashes.map(([hash, last]) => [hash, BigInt(last)]),
    slotHashes: s.slotHashes.map(([slot, hash]) => ({ slot: BigInt(slot), hash })),
    accounts: s.accounts.map(decodeAccount),
    records: s.records.map(decodeRecord),
    oldStatuses: s.oldStatuses.map(([signature, slot, err]) => [signature, { slot: BigInt(slot), err }]),
    mintCreators: s.mintCreators,
    curveMints: s.curveMints,
    transactionCount: s.transactionCount === undefined ? undefined : BigInt(s.transactionCount),
    treasury: s.treasury
      ? { address: s.treasury.address, secret: s.treasury.secret ? unb64(s.treasury.secret) : null }
      : undefined,
  };
}

interface ChangesJson {
  slot: string;
  blockHeight: string;
  latestBlockhash: string;
  writeVersion: string;
  accounts: AccountJson[];
  records: RecordJson[];
  blockhashes: [string, string][];
  slotHashes: [string, string][];
  mintCreators: [string, string][];
  curveMints: [string, string][];
  transactionCount?: string;
}

function encodeChanges(c: NodeChanges): ChangesJson {
  return {
    slot: c.slot.toString(),
    blockHeight: c.blockHeight.toString(),
    latestBlockhash: c.latestBlockhash,
    writeVersion: c.writeVersion.toString(),
    accounts: c.accounts.map(encodeAccount),
    records: c.records.map(encodeRecord),
    blockhashes: c.blockhashes.map(([hash, last]) => [hash, last.toString()]),
    slotHashes: c.slotHashes.map((h) => [h.slot.toString(), h.hash]),
    mintCreators: c.mintCreators,
    curveMints: c.curveMints,
    transactionCount: c.transactionCount?.toString(),
  };
}

function decodeChanges(c: ChangesJson): NodeChanges {
  return {
    slot: BigInt(c.slot),
    blockHeight: BigInt(c.blockHeight),
    latestBlockhash: c.latestBlockhash,
    writeVersion: BigInt(c.writeVersion),
    accounts: c.accounts.map(decodeAccount),
    records: c.records.map(decodeRecord),
    blockhashes: c.blockhashes.map(([hash, last]) => [hash, BigInt(last)]),
    slotHashes: c.slotHashes.map(([slot, hash]) => ({ slot: BigInt(slot), hash })),
    mintCreators: c.mintCreators,
    curveMints: c.curveMints,
    transactionCount: c.transactionCount === undefined ? undefined : BigInt(c.transactionCount),
  };
}
