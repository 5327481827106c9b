/**
 * Issue 43, finding 11: the database and its WAL and shared-memory files hold session hashes and
 * liability nonces, so the service creates them readable by its own user only (0600), and
 * tightens the files of a data directory made before this rule.
 */
import { afterEach, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase, type Db } from "../../db/client";
import { testService, type TestService } from "../helpers/service";

let svc: TestService | null = null;
let db: Db | null = null;
let dir: string | null = null;
afterEach(async () => {
  if (db) closeDatabase(db);
  await svc?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
  svc = db = dir = null;
});

const modeOf = (path: string) => statSync(path).mode & 0o777;
const FILES = ["service.db", "service.db-wal", "service.db-shm"];

test("a new data directory's database, WAL and shared-memory files are 0600, the directory 0700", async () => {
  const previous = process.umask(0o022);
  try {
    svc = testService();
    // A write, so the WAL holds frames and every file exists.
    svc.ctx.db.$client.query("INSERT INTO settings (key, value) VALUES ('mode_test', '1')").run();
    const data = svc.ctx.config.dataDir;
    for (const name of FILES) {
      expect(existsSync(join(data, name))).toBe(true);
      expect({ name, mode: modeOf(join(data, name)).toString(8) }).toEqual({ name, mode: "600" });
    }
    expect(modeOf(data).toString(8)).toBe("700");
  } finally {
    process.umask(previous);
  }
});

test("the files of a data directory made before are tightened to 0600 when opened", () => {
  dir = mkdtempSync(join(tmpdir(), "cfl-modes-"));
  const path = join(dir, "service.db");
  db = openDatabase(path);
  db.$client.query("INSERT INTO settings (key, value) VALUES ('mode_test', '1')").run();
  closeDatabase(db);
  db = null;
  chmodSync(path, 0o644);
  db = openDatabase(path);
  db.$client.query("INSERT INTO settings (key, value) VALUES ('mode_test2', '1')").run();
  for (const name of FILES) expect({ name, mode: modeOf(join(dir, name)).toString(8) }).toEqual({ name, mode: "600" });
});
