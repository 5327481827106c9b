/**
 * The request thread's cache writes (a vault reading refreshed on token detail) must never hold a
 * request while the jobs' connection writes: they try once, without the busy wait, and leave the
 * connection's settings as they found them.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase, type Db } from "../../db/client";
import { writeWithoutWaiting } from "../../db/write-without-waiting";

let dir: string | null = null;
const open: Db[] = [];

afterEach(() => {
  for (const db of open.splice(0)) closeDatabase(db);
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

function twoConnections(): { requests: Db; jobs: Db } {
  dir = mkdtempSync(join(tmpdir(), "cfl-write-without-waiting-"));
  const path = join(dir, "service.db");
  const requests = openDatabase(path);
  const jobs = openDatabase(path);
  open.push(requests, jobs);
  requests.$client.exec("CREATE TABLE cache (k TEXT PRIMARY KEY, v INTEGER)");
  return { requests, jobs };
}

const pragma = (db: Db, name: string) => Number(Object.values(db.$client.query(`PRAGMA ${name}`).get() as object)[0]);

describe("writeWithoutWaiting", () => {
  test("writes when the lock is free, and the connection keeps its busy timeout and FULL sync", () => {
    const { requests } = twoConnections();
    const changes = writeWithoutWaiting(
      requests,
      () => requests.$client.query("INSERT INTO cache (k, v) VALUES ('a', 1)").run().changes,
    );
    expect(changes).toBe(1);
    expect(pragma(requests, "busy_timeout")).toBe(5000);
    expect(pragma(requests, "synchronous")).toBe(2);
  });

  test("while another connection holds the write lock it gives up at once instead of waiting 5 s", () => {
    const { requests, jobs } = twoConnections();
    jobs.$client.exec("BEGIN IMMEDIATE");
    jobs.$client.query("INSERT INTO cache (k, v) VALUES ('jobs', 1)").run();
    const started = performance.now();
    const result = writeWithoutWaiting(requests, () =>
      requests.$client.query("INSERT INTO cache (k, v) VALUES ('request', 1)").run(),
    );
    expect(result).toBeNull();
    expect(performance.now() - started).toBeLessThan(500);
    // Settings restored: the next ledger write on this connection still waits its turn and syncs.
    expect(pragma(requests, "busy_timeout")).toBe(5000);
    expect(pragma(requests, "synchronous")).toBe(2);
    jobs.$client.exec("COMMIT");
    const rows = requests.$client.query("SELECT k FROM cache ORDER BY k").all() as { k: string }[];
    expect(rows.map((r) => r.k)).toEqual(["jobs"]);
  });

  test("other failures are not swallowed", () => {
    const { requests } = twoConnections();
    expect(() =>
      writeWithoutWaiting(requests, () => requests.$client.query("INSERT INTO missing (k) VALUES (1)").run()),
    ).toThrow();
    expect(pragma(requests, "busy_timeout")).toBe(5000);
  });
});
