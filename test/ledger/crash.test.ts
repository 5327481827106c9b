/**
 * SIGKILL in the middle of a stream of postings: after every kill the database reopens with
 * integrity ok, no partial posting, and every ledger invariant holding.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../db/client";
import { ledgerTotals } from "../../src/ledger/figures";
import { verifyLedger } from "../../src/ledger/verify";

const fixture = join(import.meta.dir, "fixtures", "posting-stream.ts");

async function runUntilKilled(dbPath: string, afterLines: number, extraDelayMs: number): Promise<number> {
  const child = Bun.spawn([process.execPath, "run", fixture, dbPath], { stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  let lines = 0;
  const decoder = new TextDecoder();
  const deadline = Date.now() + 30_000;
  while (lines < afterLines && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    lines += decoder.decode(value).split("\n").length - 1;
  }
  // Kill at an arbitrary point, most likely mid-transaction of a later command.
  await Bun.sleep(extraDelayMs);
  child.kill("SIGKILL");
  await child.exited;
  expect(child.signalCode).toBe("SIGKILL");
  return lines;
}

describe("crash safety", () => {
  test("SIGKILL mid-stream leaves an intact database with balanced books, every time", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cfl-crash-"));
    const dbPath = join(dir, "service.db");
    let previousSwept = -1n;
    for (let round = 0; round < 4; round++) {
      const lines = await runUntilKilled(dbPath, 20 + round * 10, 3 + round * 7);
      expect(lines).toBeGreaterThan(0);
      const db = openDatabase(dbPath);
      const integrity = db.$client.query("PRAGMA integrity_check").get() as { integrity_check: string };
      expect(integrity.integrity_check).toBe("ok");
      verifyLedger(db);
      const partial = db.$client
        .query(
          "SELECT COUNT(*) AS n FROM ledger_postings p WHERE (SELECT COUNT(*) FROM ledger_entries e WHERE e.posting_id = p.id) < 2",
        )
        .get() as { n: bigint };
      expect(Number(partial.n)).toBe(0);
      // Sweeps confirmed without credit, or credited without confirming, would break this.
      const unconfirmedCredits = db.$client
        .query(
          "SELECT COUNT(*) AS n FROM ledger_postings p WHERE p.kind = 'sweep' AND NOT EXISTS (SELECT 1 FROM sweeps s WHERE 'sweep:' || s.id = p.command_key AND s.status = 'confirmed')",
        )
        .get() as { n: bigint };
      expect(Number(unconfirmedCredits.n)).toBe(0);
      const totals = ledgerTotals(db);
      expect(totals.sweptLamports).toBeGreaterThan(previousSwept);
      previousSwept = totals.sweptLamports;
      db.$client.close();
    }
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);
});
