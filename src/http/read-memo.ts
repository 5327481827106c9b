/**
 * A memo of rendered public read bodies, valid exactly as long as the database has not changed:
 * each entry carries the connection's write count (`total_changes()`, bumped by every write this
 * process makes) and `data_version` (bumped by commits of other connections, e.g. the admin CLI).
 * Any write anywhere invalidates every entry, so a memo hit is byte-for-byte what a fresh read
 * would answer; between writes, the hot pages of the Explore list cost a lookup instead of a
 * query plan, a ledger walk and a serialisation. Bounded by total bytes; oldest entries go first.
 */
import type { Statement } from "bun:sqlite";
import type { Db } from "../../db/client";

export const READ_MEMO_MAX_BYTES = 16 * 1024 * 1024;

interface Entry {
  version: string;
  body: string;
  /** anything the route needs to decide whether the entry still applies (e.g. a reading's age) */
  note: number;
}

export class ReadMemo {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private readonly changes: Statement<{ n: bigint }, []>;
  private readonly dataVersion: Statement<{ data_version: bigint }, []>;

  constructor(
    db: Db,
    private readonly maxBytes = READ_MEMO_MAX_BYTES,
  ) {
    this.changes = db.$client.prepare<{ n: bigint }, []>("SELECT total_changes() AS n");
    this.dataVersion = db.$client.prepare<{ data_version: bigint }, []>("PRAGMA data_version");
  }

  version(): string {
    const changes = this.changes.get()?.n ?? 0n;
    const other = this.dataVersion.get()?.data_version ?? 0n;
    return `${changes}:${other}`;
  }

  get(key: string, version: string): Entry | null {
    const entry = this.entries.get(key);
    if (!entry) return null;
    if (entry.version !== version) {
      this.drop(key, entry);
      return null;
    }
    return entry;
  }

  set(key: string, version: string, body: string, note = 0): void {
    const old = this.entries.get(key);
    if (old) this.drop(key, old);
    if (body.length > this.maxBytes / 8) return;
    this.entries.set(key, { version, body, note });
    this.bytes += body.length;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.drop(k, e);
    }
  }

  private drop(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.body.length;
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

/** A JSON answer from an already rendered body, with the headers the route has set. */
export function jsonBody(body: string, headers: Record<string, unknown>): Response {
  return new Response(body, {
    headers: { ...(headers as Record<string, string>), "content-type": "application/json;charset=utf-8" },
  });
}
