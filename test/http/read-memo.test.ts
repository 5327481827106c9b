/**
 * The read memo (src/http/read-memo.ts): what this thread writes shows on the next read; what
 * other connections (the jobs' thread, the admin CLI) write shows once the memoised body is
 * `staleMs` old, and that bound stays under every s-maxage the memoised reads advertise.
 */
import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase, type Db } from "../../db/client";
import { CACHE } from "../../src/http/cache";
import { READ_MEMO_STALE_MS, ReadMemo } from "../../src/http/read-memo";

let dir: string | null = null;
let db: Db | null = null;
afterEach(() => {
  if (db) closeDatabase(db);
  if (dir) rmSync(dir, { recursive: true, force: true });
  db = null;
  dir = null;
});

function fresh(): { db: Db; other: Database; memo: ReadMemo } {
  dir = mkdtempSync(join(tmpdir(), "cfl-memo-"));
  db = openDatabase(join(dir, "service.db"));
  const other = new Database(join(dir, "service.db"));
  other.exec("PRAGMA busy_timeout = 5000");
  return { db, other, memo: new ReadMemo(db) };
}

const otherWrite = (other: Database, value: string) =>
  other
    .query("INSERT INTO settings (key, value) VALUES ('memo_test', ?1) ON CONFLICT (key) DO UPDATE SET value = ?1")
    .run(value);

test("exact by default: any write anywhere invalidates", async () => {
  const { other, memo } = fresh();
  memo.set("k", memo.version(), "a");
  expect(await memo.get("k")?.body.text()).toBe("a");
  otherWrite(other, "1");
  expect(memo.get("k")).toBeNull();
  other.close();
});

test("with staleMs: other connections' writes wait out the bound, this thread's own do not", async () => {
  const { db, other, memo } = fresh();
  memo.staleMs = 200;
  memo.set("k", memo.version(), "a");
  otherWrite(other, "1");
  expect(await memo.get("k")?.body.text()).toBe("a");
  await Bun.sleep(250);
  expect(memo.get("k")).toBeNull();
  memo.set("k", memo.version(), "b");
  db.$client.query("INSERT INTO settings (key, value) VALUES ('own', '1')").run();
  expect(memo.get("k")).toBeNull();
  other.close();
});

test("with staleMs: an entry past the bound still answers while nobody wrote since", async () => {
  const { other, memo } = fresh();
  memo.staleMs = 50;
  memo.set("k", memo.version(), "a");
  await Bun.sleep(80);
  expect(await memo.get("k")?.body.text()).toBe("a");
  otherWrite(other, "1");
  expect(memo.get("k")).toBeNull();
  other.close();
});

test("the stale bound is under every s-maxage the memoised public reads advertise", () => {
  const maxAges = [CACHE.publicRead, CACHE.ledger, CACHE.proof].map((v) => Number(/s-maxage=(\d+)/.exec(v)![1]));
  for (const seconds of maxAges) expect(READ_MEMO_STALE_MS).toBeLessThan(seconds * 1000);
});
