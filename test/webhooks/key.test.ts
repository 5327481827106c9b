/**
 * The webhook signing key generated into DATA_DIR at a first start: the request thread (an endpoint
 * registered at once) and the jobs thread (the sender starting) can both be first. A run once
 * failed the jobs thread with EEXIST ("worker failed") and no webhook was ever sent.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const THREADS = 8;

async function keysFromThreadsAtOnce(dataDir: string): Promise<({ key: string } | { error: string })[]> {
  const gate = new SharedArrayBuffer(8);
  const view = new Int32Array(gate);
  const workers = Array.from({ length: THREADS }, () => new Worker(join(import.meta.dir, "fixtures", "key-thread.ts")));
  try {
    const answers = workers.map(
      (w) =>
        new Promise<{ key: string } | { error: string }>((resolve) =>
          w.addEventListener("message", (e) => resolve(e.data), { once: true }),
        ),
    );
    for (const w of workers) w.postMessage({ dataDir, gate });
    // Every thread is parked at the gate before it opens, so they all look for the file at once.
    while (Atomics.load(view, 1) < THREADS) await Bun.sleep(5);
    Atomics.store(view, 0, 1);
    Atomics.notify(view, 0);
    return await Promise.all(answers);
  } finally {
    for (const w of workers) w.terminate();
  }
}

describe("webhook signing key at a first start", () => {
  test("threads asking at the same moment all get the one key written, whole, mode 600, no file left over", async () => {
    for (let round = 0; round < 10; round++) {
      const dataDir = mkdtempSync(join(tmpdir(), "cfl-webhook-key-"));
      try {
        const answers = await keysFromThreadsAtOnce(dataDir);
        expect(answers.filter((a) => "error" in a)).toEqual([]);
        const keys = new Set(answers.map((a) => ("key" in a ? a.key : "")));
        expect(keys.size).toBe(1);
        expect(Buffer.from([...keys][0]!, "base64")).toHaveLength(32);
        expect(statSync(join(dataDir, "webhooks-key")).mode & 0o777).toBe(0o600);
        expect(readdirSync(dataDir)).toEqual(["webhooks-key"]);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  });
});
