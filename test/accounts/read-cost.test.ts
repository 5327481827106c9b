/**
 * What one account record (`GET /api/idp/:handle`) costs the database, counted instead of timed: the
 * statements it runs, the plan of each, and the pages it reads from the file when nothing is cached.
 * A layout that multiplies any of them (a statement more per read or per token, a table lookup where
 * an index covered, a scan) fails here, whatever the machine's load.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase, type Db } from "../../db/client";
import { type SeedSummary, seedDatabase } from "../../scripts/seed";
import { accountPublicRoutes } from "../../src/accounts/public-routes";
import { accountRecord } from "../../src/accounts/record";
import { countStatements, planOf, type Ran } from "../helpers/statements-run";

/** The read syscalls this process has made: with the page cache emptied, one per database page read. */
function readSyscalls(): number {
  const io = readFileSync("/proc/self/io", "utf8");
  return Number(/syscr:\s*(\d+)/.exec(io)?.[1] ?? Number.NaN);
}

let dir: string;
let db: Db;
let ran: Ran[];
let summary: SeedSummary;
let app: ReturnType<typeof accountPublicRoutes>;

beforeAll(() => {
  // Seeded in memory (no fsync per batch), then read from a file as the service reads its own.
  dir = mkdtempSync(join(tmpdir(), "read-cost-"));
  const seeded = openDatabase(":memory:");
  summary = seedDatabase(seeded, { tokens: 800, seed: 17, nowMs: Date.UTC(2026, 10, 1), sweepsPerToken: 2 });
  writeFileSync(join(dir, "service.db"), seeded.$client.serialize());
  closeDatabase(seeded);
  db = openDatabase(join(dir, "service.db"));
  ran = countStatements(db);
  app = accountPublicRoutes({ db });
}, 120_000);

afterAll(() => {
  if (db) closeDatabase(db);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * The pages one record reads with nothing cached: the read syscalls of the record's reads, in the
 * route's read transaction, after the page cache is emptied. The least of three tries, so a read
 * another thread of this process makes meanwhile cannot count against it.
 */
function pagesOf(handle: string): number {
  let least = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < 3; attempt++) {
    db.$client.exec("PRAGMA shrink_memory");
    const before = readSyscalls();
    // Reading the counter is itself a read or two: counted once here, taken off twice below.
    const probe = readSyscalls() - before;
    db.$client.transaction(() => accountRecord(db, handle)).deferred();
    least = Math.min(least, readSyscalls() - before - 2 * probe);
  }
  return least;
}

/** One record through the route, asked once (the read memo never answers for the database), and its pages. */
async function readRecord(
  handle: string,
): Promise<{ statements: Ran[]; pages: number; tokens: number; payouts: number }> {
  ran.length = 0;
  const response = await app.handle(new Request(`http://localhost/api/idp/${handle}`));
  expect(response.status).toBe(200);
  const statements = [...ran];
  const body = (await response.json()) as { tokens: unknown[]; payouts: unknown[] };
  return { statements, pages: pagesOf(handle), tokens: body.tokens.length, payouts: body.payouts.length };
}

/** Named handles, pinned to a user id or not, in a fixed order; then the seed's most named ones. */
function handlesToRead(): { pinned: string[]; unpinned: string[] } {
  const named = (pinned: boolean) =>
    db.$client
      .query<{ handle: string }, [pinned: number]>(
        `SELECT DISTINCT r.handle AS handle FROM token_recipients r LEFT JOIN handles h ON h.handle = r.handle
          WHERE (h.idp_user_id IS NOT NULL) = ? ORDER BY r.handle LIMIT 40`,
      )
      .all(pinned ? 1 : 0)
      .map((r) => r.handle);
  const pinned = named(true);
  const unpinned = named(false);
  for (const handle of summary.samples.handles) {
    if (pinned.includes(handle) || unpinned.includes(handle)) continue;
    const owner = db.$client
      .query<{ idpUserId: string | null }, [string]>("SELECT idp_user_id AS idpUserId FROM handles WHERE handle = ?")
      .get(handle);
    (owner?.idpUserId ? pinned : unpinned).push(handle);
  }
  return { pinned, unpinned };
}

/**
 * Every index search the record's statements make, as SQLite plans them: each table reached by key
 * through the index meant for it, the handle's tokens and shares and the identity's part from
 * covering indexes (migration 0025 and the identity's `INDEXED BY`).
 */
const INTENDED_SEARCHES = [
  // the handle is named: a token_recipients leaf
  "SEARCH token_recipients USING COVERING INDEX token_recipients_handle (handle=?)",
  // its profile, and its identity's part from the covering index
  "SEARCH h USING INDEX sqlite_autoindex_handles_1 (handle=?)",
  "SEARCH i USING COVERING INDEX identities_recipient (idp_user_id=?) LEFT-JOIN",
  // whether the books are being reconciled: three small tables
  "SEARCH settings USING COVERING INDEX sqlite_autoindex_settings_1 (key=?)",
  "SEARCH custody_incidents USING COVERING INDEX custody_incidents_open (resolved_at_ms=? AND kind=?)",
  "SEARCH reconciliations USING COVERING INDEX reconciliations_status (status=?)",
  // the account's figures (one row of the ledger's projection)
  "SEARCH a USING INDEX ledger_accounts_kind_ref (kind=? AND ref=?)",
  "SEARCH f USING INTEGER PRIMARY KEY (rowid=?)",
  // its tokens: shares from the covering index, then each token's row and image mark
  "SEARCH r USING COVERING INDEX token_recipients_handle (handle=?)",
  "SEARCH handles USING COVERING INDEX handles_idp_user (idp_user_id=?)",
  "SEARCH t USING INTEGER PRIMARY KEY (rowid=?)",
  "SEARCH i USING INTEGER PRIMARY KEY (rowid=?)",
  // what each token on the page credited it
  "SEARCH a USING COVERING INDEX ledger_accounts_kind_ref (kind=? AND ref=?)",
  "SEARCH c USING INDEX sqlite_autoindex_ledger_account_token_credits_1 (account_id=?)",
  // its payouts, newest first
  "SEARCH payouts USING INDEX payouts_user (idp_user_id=? AND id<?)",
].sort();

/** Plan lines that read no table from end to end: a constant row, the page's token ids as a list. */
const SCANS_ALLOWED = ["SCAN CONSTANT ROW", "SCAN json_each VIRTUAL TABLE INDEX 1:"];

/**
 * Pages a record reads with nothing cached: the paths down each b-tree it searches and the leaves
 * of the account's own rows (at most this many), then one page per token and per payout on its page.
 * Measured at 39 for the 800-token world; with a handle's shares read from the table, a handle named
 * by 100 tokens read 158 pages (58 past the tokens), and any statement run once per token adds its
 * own path per token.
 */
const PAGES_PER_RECORD = 42;

describe("one account record", () => {
  test("runs a fixed number of statements, all in one read transaction, each by the index meant for it, reading a bounded number of pages", async () => {
    const { pinned, unpinned } = handlesToRead();
    expect(pinned.length).toBeGreaterThan(30);
    expect(unpinned.length).toBeGreaterThan(30);
    expect(Number.isFinite(readSyscalls())).toBe(true);
    const run = new Set<string>();
    let largest = 0;
    for (const [handles, statements] of [
      // memo stamp (2), named, profile, reconciling, figures, tokens page, credits, payouts
      [pinned, 9],
      // the same without payouts: an unpinned handle has none
      [unpinned, 8],
    ] as const) {
      for (const handle of handles) {
        const read = await readRecord(handle);
        expect({ handle, statements: read.statements.length }).toEqual({ handle, statements });
        expect(read.statements.filter((s) => !s.inTransaction)).toEqual([]);
        const bound = PAGES_PER_RECORD + read.tokens + read.payouts;
        expect({ handle, pages: read.pages, bound }).toEqual({ handle, pages: Math.min(read.pages, bound), bound });
        expect(read.pages).toBeGreaterThan(0);
        for (const s of read.statements) run.add(s.sql);
        largest = Math.max(largest, read.tokens);
      }
    }
    // Some of the records read hold a full page of tokens: their cost is in the bound above.
    expect(largest).toBe(100);

    const searches = new Set<string>();
    for (const sql of run) {
      const plan = planOf(db, sql);
      expect(plan.filter((line) => line.startsWith("SCAN ") && !SCANS_ALLOWED.includes(line))).toEqual([]);
      for (const line of plan) if (line.startsWith("SEARCH ")) searches.add(line);
    }
    expect([...searches].sort()).toEqual(INTENDED_SEARCHES);
  }, 60_000);
});
