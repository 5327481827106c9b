/**
 * In the threaded process the request thread's commits never run a WAL checkpoint (one stalls
 * every request in flight for the copy and its fsync); the jobs' thread checkpoints on a timer
 * instead, so the WAL still wraps around instead of growing without end.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { handOffCheckpoints, startCheckpoints } from "../../db/checkpoints";
import { closeDatabase, openDatabase, type Db } from "../../db/client";

const PAGE_BYTES = 4096;
let dir: string | null = null;
const open: Db[] = [];
const stops: (() => void)[] = [];

afterEach(() => {
  for (const stop of stops.splice(0)) stop();
  for (const db of open.splice(0)) closeDatabase(db);
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

function twoConnections(): { requests: Db; jobs: Db; walBytes: () => number } {
  dir = mkdtempSync(join(tmpdir(), "cfl-checkpoints-"));
  const path = join(dir, "service.db");
  const requests = openDatabase(path);
  const jobs = openDatabase(path);
  open.push(requests, jobs);
  requests.$client.exec("CREATE TABLE readings (id INTEGER PRIMARY KEY, body BLOB)");
  return { requests, jobs, walBytes: () => statSync(`${path}-wal`).size };
}

/** `n` commits of about one page each, as vault refreshes on many different tokens are. */
function writePages(db: Db, n: number): void {
  const insert = db.$client.query("INSERT INTO readings (body) VALUES (?)");
  for (let i = 0; i < n; i++) insert.run(new Uint8Array(PAGE_BYTES - 200));
}

describe("WAL checkpoints handed to a background connection", () => {
  test("by default a connection's own commits checkpoint: the WAL wraps at about 1,000 pages", () => {
    const { requests, walBytes } = twoConnections();
    writePages(requests, 2_500);
    expect(walBytes()).toBeLessThan(1_300 * PAGE_BYTES);
  });

  test("once handed off, the request connection's commits never checkpoint", () => {
    const { requests, walBytes } = twoConnections();
    handOffCheckpoints(requests);
    writePages(requests, 2_500);
    expect(walBytes()).toBeGreaterThan(2_500 * PAGE_BYTES);
  });

  test("the background connection's timer checkpoints them, so the WAL is reused from its start", async () => {
    const { requests, jobs, walBytes } = twoConnections();
    handOffCheckpoints(requests);
    writePages(requests, 1_500);
    const grown = walBytes();
    stops.push(startCheckpoints(jobs, 10));
    await Bun.sleep(150);
    writePages(requests, 1_500);
    // Checkpointed: the next commits overwrite the WAL from its start instead of appending.
    expect(walBytes()).toBeLessThanOrEqual(grown);
    const rows = requests.$client.query("SELECT COUNT(*) AS n FROM readings").get() as { n: bigint };
    expect(Number(rows.n)).toBe(3_000);
  });
});
