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
import { READ_MEMO_MAX_BYTES, READ_MEMO_MAX_ENTRIES, READ_MEMO_STALE_MS, ReadMemo } from "../../src/http/read-memo";
import { testService } from "../helpers/service";

let dir: string | null = null;
let db: Db | null = null;
afterEach(() => {
  if (db) closeDatabase(db);
  if (dir) rmSync(dir, { recursive: true, force: true });
  db = null;
  dir = null;
});

/** The memo's clock, moved by the test: a loaded machine's pauses are not the bound's business. */
let clockMs = 0;

function fresh(): { db: Db; other: Database; memo: ReadMemo } {
  dir = mkdtempSync(join(tmpdir(), "cfl-memo-"));
  db = openDatabase(join(dir, "service.db"));
  const other = new Database(join(dir, "service.db"));
  other.exec("PRAGMA busy_timeout = 5000");
  clockMs = 0;
  return { db, other, memo: new ReadMemo(db, undefined, undefined, () => clockMs) };
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
  clockMs += 199;
  expect(await memo.get("k")?.body.text()).toBe("a");
  clockMs += 1;
  expect(memo.get("k")).toBeNull();
  memo.set("k", memo.version(), "b");
  db.$client.query("INSERT INTO settings (key, value) VALUES ('own', '1')").run();
  expect(memo.get("k")).toBeNull();
  other.close();
});

test("with staleMs: an entry found unchanged counts as current from then, for the bound and no longer", async () => {
  const { other, memo } = fresh();
  memo.staleMs = 100;
  memo.set("k", memo.version(), "a");
  clockMs += 130;
  // Past the bound, nobody wrote: the entry answers and was current just now.
  expect(await memo.get("k")?.body.text()).toBe("a");
  otherWrite(other, "1");
  expect(await memo.get("k")?.body.text()).toBe("a");
  clockMs += 99;
  expect(await memo.get("k")?.body.text()).toBe("a");
  clockMs += 1;
  expect(memo.get("k")).toBeNull();
  other.close();
});

test("the stale bound is under every s-maxage the memoised public reads advertise", () => {
  const maxAges = [CACHE.publicRead, CACHE.ledger, CACHE.proof].map((v) => Number(/s-maxage=(\d+)/.exec(v)![1]));
  for (const seconds of maxAges) expect(READ_MEMO_STALE_MS).toBeLessThan(seconds * 1000);
});

test("an answer from the memo carries the same headers as the first render: type, cache, request id, limits", async () => {
  const svc = testService();
  try {
    for (const path of ["/api/tokens?sort=fees", "/api/ledger", "/api/stats"]) {
      const ask = () =>
        svc.call(path, { headers: { "x-request-id": `req-${path.length}-${Math.random()}`.slice(0, 40) } });
      const rendered = await ask();
      const remembered = await ask();
      expect(await remembered.text()).toBe(await rendered.text());
      for (const response of [rendered, remembered]) {
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toBe("application/json;charset=utf-8");
        expect(response.headers.get("cache-control")).toMatch(/^public, .*s-maxage=\d+/);
        expect(response.headers.get("x-ratelimit-limit")).not.toBeNull();
      }
      expect(remembered.headers.get("x-request-id")).not.toBe(rendered.headers.get("x-request-id"));
      expect(Number(remembered.headers.get("x-ratelimit-remaining"))).toBe(
        Number(rendered.headers.get("x-ratelimit-remaining")) - 1,
      );
    }
  } finally {
    await svc.cleanup();
  }
});

test("a remembered body is the UTF-8 of its JSON: accents, emoji and a lone surrogate (as U+FFFD), its size in bytes", async () => {
  const { other, memo } = fresh();
  const json = JSON.stringify({ name: "Café 🚀" }).replace("}", ',"bad":"\ud800"}');
  const rendered = memo.set("k", memo.version(), json);
  const hit = memo.get("k");
  expect(hit?.body).toBe(rendered);
  const bytes = new Uint8Array(await rendered.arrayBuffer());
  expect(bytes).toEqual(new TextEncoder().encode(json));
  expect(rendered.size).toBe(bytes.length);
  expect(JSON.parse(await rendered.text())).toEqual({ name: "Café 🚀", bad: "\ufffd" });
  other.close();
});

test("issue 43, finding 4: distinct tiny bodies are capped by count and by what each entry really costs", () => {
  const { memo } = fresh();
  const empty = '{"tokens":[],"nextCursor":null}';
  // 100,000 distinct empty searches. Before the cap the memo kept all of them (+75 MB resident,
  // measured alone; 258,704 of them, +184 MB): it counted 31 bytes of body each and nothing else.
  const version = memo.version();
  for (let i = 0; i < 100_000; i++) memo.set(`/api/tokens?sort=new&q=nothing-${i}&limit=24`, version, empty);
  expect(memo.size).toBeLessThanOrEqual(READ_MEMO_MAX_ENTRIES);
  // What the memo counts is what it holds: keys and per-entry overhead, not the bodies alone.
  expect(memo.bytes).toBeLessThanOrEqual(READ_MEMO_MAX_BYTES);
  expect(memo.bytes).toBeGreaterThan(memo.size * (empty.length + 500));
  // The newest entries are the ones kept.
  expect(memo.get("/api/tokens?sort=new&q=nothing-99999&limit=24")).not.toBeNull();
  expect(memo.get("/api/tokens?sort=new&q=nothing-0&limit=24")).toBeNull();
}, 20_000);
