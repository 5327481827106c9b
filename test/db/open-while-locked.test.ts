/**
 * Opening the database waits for a lock another process holds instead of failing at once: the
 * busy timeout is set before the first statement that needs a lock (switching to WAL). In the
 * other order `openDatabase` failed with "database is locked" in 0 ms while, for example, a
 * crashed process's connection or a backup held the file (test/ledger/crash.test.ts failed so).
 */
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../../db/client";

let dir: string | null = null;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

// Holds an exclusive lock on a database still in rollback-journal mode, says so, and lets go
// when its standard input closes (after the opener has started waiting).
const HOLDER = `
import { Database } from "bun:sqlite";
const db = new Database(process.argv[1], { create: true });
db.exec("PRAGMA locking_mode = EXCLUSIVE");
db.exec("BEGIN EXCLUSIVE");
db.exec("CREATE TABLE held (x)");
console.log("locked");
for await (const _ of Bun.stdin.stream()) {}
db.exec("COMMIT");
db.close();
`;

test("a database another process has locked opens once the lock is released", async () => {
  dir = mkdtempSync(join(tmpdir(), "cfl-open-while-locked-"));
  const path = join(dir, "service.db");
  const holder = Bun.spawn([process.execPath, "-e", HOLDER, path], { stdin: "pipe", stdout: "pipe" });
  const reader = holder.stdout.getReader();
  let said = "";
  while (!said.includes("locked")) {
    const chunk = await reader.read();
    if (chunk.done) throw new Error("the lock holder exited before it held the lock");
    said += new TextDecoder().decode(chunk.value);
  }
  // The opener runs in a worker thread so this one can release the lock while it waits.
  const worker = new Worker(new URL("./open-worker.ts", import.meta.url));
  const messages: string[] = [];
  let heard: () => void = () => {};
  worker.onmessage = (event: MessageEvent<string>) => {
    messages.push(event.data);
    heard();
  };
  const next = (): Promise<void> => new Promise((resolve) => (heard = resolve));
  worker.postMessage(path);
  while (messages.length === 0) await next();
  // Give a failure in the other order (at once, in 0 ms) a second to show, then let go: an opener
  // that waits, as it must, opens then.
  await Promise.race([next(), Bun.sleep(1_000)]);
  holder.stdin.end();
  await holder.exited;
  while (messages.length < 2) await next();
  worker.terminate();
  expect(messages[1]).toBe("opened");
  const db = openDatabase(path);
  expect(db.$client.query("SELECT COUNT(*) AS n FROM held").get()).toEqual({ n: 0n });
  closeDatabase(db);
});
