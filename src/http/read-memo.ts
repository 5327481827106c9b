/**
 * A memo of rendered public read bodies. Each entry carries the version of the database it was
 * rendered at: the connection's write count (`total_changes()`, bumped by every write this thread
 * makes) and `data_version` (bumped by commits of other connections: the jobs' thread, the admin
 * CLI). A write of this thread invalidates every entry at once, so what a request writes, the next
 * read shows. Writes of other connections invalidate an entry only once it was last known current
 * (rendered, or found unchanged) more than the memo's `staleMs` ago: with the jobs in their own
 * thread writing the books all the time, a hot page is rendered at most once per `staleMs` instead
 * of after every commit (0, the default, is exact). Public reads advertise `s-maxage` of 5 s or
 * more (src/http/cache.ts), so a body at most 1 s behind the books is always within what a shared
 * cache may serve anyway. Session routes never use this memo.
 * Bodies are kept as Blobs of their UTF-8 bytes, encoded once when rendered: a hit hands the same
 * immutable bytes to the response, where a string would be encoded again for every response and
 * a Uint8Array copied (a list page is ~25 KB). Measured on 100k-token list pages served from the
 * memo, against a bare server returning a cached string: 0.43 as strings, 0.64-0.79 as bytes,
 * 0.70-0.91 as Blobs.
 * Bounded by total bytes, oldest entries first: 8 MiB holds some 300 list pages (~25 KB each) or
 * 1,500 details. At 16 MiB, reads of many different pages filled it with bodies asked for once,
 * all of it resident. An entry costs more than its body: its key, the Map slot, the entry and
 * version objects and the Blob (measured: 258,704 distinct empty searches, 31-byte bodies, held
 * +184 MB, ~700 bytes each), so each is counted as body + key + that overhead, and the count of
 * entries is capped as well: what the memo counts is what it holds.
 */
import type { Statement } from "bun:sqlite";
import type { Db } from "../../db/client";
import { statement } from "../../db/statement";

export const READ_MEMO_MAX_BYTES = 8 * 1024 * 1024;
/** At most this many entries, whatever their size (8 MiB of the smallest would be ~12,000). */
export const READ_MEMO_MAX_ENTRIES = 10_000;
/** What an entry holds besides its body and key, measured on the class (see above). */
const READ_MEMO_ENTRY_OVERHEAD_BYTES = 700;
/** How old a memoised public body may be when other connections wrote since (stats: 10 s, their own memo). */
export const READ_MEMO_STALE_MS = 1_000;

/** The database as one connection sees it: its own write count and the others' commit count. */
export interface MemoVersion {
  own: bigint;
  other: bigint;
}

interface Entry {
  version: MemoVersion;
  /** when the body was last known to match the database: rendered, or found unchanged since */
  renderedAtMs: number;
  /** the rendered JSON, UTF-8 */
  body: Blob;
  /** what the entry counts against the memo's bytes: body, key and overhead */
  costBytes: number;
  /** anything the route needs to decide whether the entry still applies (e.g. a reading's age) */
  note: number;
}

const totalChanges = statement<{ n: bigint }, []>("SELECT total_changes() AS n");
const dataVersion = statement<{ data_version: bigint }, []>("PRAGMA data_version");

export class ReadMemo {
  private readonly entries = new Map<string, Entry>();
  private heldBytes = 0;
  private readonly changes: Statement<{ n: bigint }, []>;
  private readonly dataVersion: Statement<{ data_version: bigint }, []>;
  /** how long an entry outlives other connections' writes; 0: not at all */
  staleMs = 0;

  constructor(
    db: Db,
    private readonly maxBytes = READ_MEMO_MAX_BYTES,
    private readonly maxEntries = READ_MEMO_MAX_ENTRIES,
    /** the clock `staleMs` is measured on (monotonic; a test's own) */
    private readonly nowMs: () => number = () => performance.now(),
  ) {
    this.changes = totalChanges(db);
    this.dataVersion = dataVersion(db);
  }

  /** Entries held now. */
  get size(): number {
    return this.entries.size;
  }

  /** What the entries count against `maxBytes`: bodies, keys and per-entry overhead. */
  get bytes(): number {
    return this.heldBytes;
  }

  /** Read before rendering: the body stored under it is at least as new as it says. */
  version(): MemoVersion {
    return { own: this.ownChanges(), other: this.dataVersion.get()?.data_version ?? 0n };
  }

  private ownChanges(): bigint {
    return this.changes.get()?.n ?? 0n;
  }

  /**
   * The entry when it still applies: no write of this thread since, and either seen current less
   * than `staleMs` ago or no commit of another connection since. A young entry costs one statement.
   * An entry found current again counts as seen current now: `data_version` begins a read
   * transaction (file locks on the WAL index), which on a quiet database cost a third of every hit.
   */
  get(key: string): Entry | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    if (this.ownChanges() === entry.version.own) {
      const nowMs = this.nowMs();
      if (nowMs - entry.renderedAtMs < this.staleMs) return entry;
      if ((this.dataVersion.get()?.data_version ?? 0n) === entry.version.other) {
        entry.renderedAtMs = nowMs;
        return entry;
      }
    }
    this.drop(key, entry);
    return null;
  }

  /** Remembers a rendered body and returns it encoded, as the caller should send it. */
  set(key: string, version: MemoVersion, json: string, note = 0): Blob {
    const old = this.entries.get(key);
    if (old) this.drop(key, old);
    // Encoded by the Blob from the string itself: through a TextEncoder each body was also a
    // Uint8Array of garbage, whose bytes the collector counts (a loop of 7 KB bodies: 343 -> 175
    // collections, 0.66 -> 0.40 µs each).
    const body = new Blob([json]);
    if (body.size > this.maxBytes / 8) return body;
    // A key's characters may take two bytes each in memory.
    const costBytes = body.size + key.length * 2 + READ_MEMO_ENTRY_OVERHEAD_BYTES;
    this.entries.set(key, { version, renderedAtMs: this.nowMs(), body, note, costBytes });
    this.heldBytes += costBytes;
    for (const [k, e] of this.entries) {
      if (this.heldBytes <= this.maxBytes && this.entries.size <= this.maxEntries) break;
      this.drop(k, e);
    }
    return body;
  }

  private drop(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.heldBytes -= entry.costBytes;
  }
}

const memos = new WeakMap<Db, ReadMemo>();

/** One memo per database, shared by the public read routes. */
export function readMemo(db: Db): ReadMemo {
  const found = memos.get(db);
  if (found) return found;
  const memo = new ReadMemo(db);
  memos.set(db, memo);
  return memo;
}

/**
 * A JSON answer from an already rendered body. The headers set so far (the route's, the front
 * door's) move into the answer and the context keeps none: Elysia rebuilds a returned Response
 * whose context still holds headers, copying them and reading the body back through a stream,
 * which cost more than the memo hit it answers.
 */
export function jsonBody(body: string | Blob, set: { headers: Record<string, unknown> }): Response {
  const headers = { ...(set.headers as Record<string, string>), "content-type": "application/json;charset=utf-8" };
  set.headers = {};
  return new Response(body, { headers });
}
