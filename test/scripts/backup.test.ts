/** Backups taken while the service works restore to intact, balanced books. */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { openDatabase } from "../../db/client";
import { ledgerTotals } from "../../src/ledger/figures";
import { verifyLedger } from "../../src/ledger/verify";
import { restoreDatabase } from "../../scripts/restore";
import { backupDatabase } from "../../src/backup";
import { moneyHarness, type MoneyHarness } from "../jobs/harness";

const root = join(import.meta.dir, "..", "..");
let h: MoneyHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

describe("backup and restore", () => {
  test("a backup taken during a running sweep restores with integrity ok and balanced books", async () => {
    h = await moneyHarness();
    const tokens = [];
    for (let i = 0; i < 4; i++) tokens.push(await h.launch([{ handle: `holder${i}`, bps: 10_000 }]));
    for (const t of tokens) await h.trade(t.mint, 1_500_000_000n);
    await h.run("sweep");
    for (const t of tokens) await h.trade(t.mint, 2_500_000_000n);
    const dir = mkdtempSync(join(tmpdir(), "cfl-backup-"));
    const target = join(dir, "backup.db");
    const dataDir = h.service.ctx.config.dataDir;

    // The operator's command, in its own process, while a sweep runs in this one.
    const sweep = h.service.ctx.scheduler.runNow("sweep");
    const child = Bun.spawn([process.execPath, "run", join(root, "scripts", "backup.ts"), target], {
      env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "warn" },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await child.exited).toBe(0);
    expect(await new Response(child.stdout).text()).toContain("integrity ok");
    expect((await sweep).ran).toBe(true);
    expect(existsSync(target)).toBe(true);

    const restoredPath = join(dir, "restored", "service.db");
    expect(restoreDatabase(target, restoredPath)).toBeNull();
    const restored = openDatabase(restoredPath);
    expect(
      (restored.$client.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check,
    ).toBe("ok");
    verifyLedger(restored);
    const totals = ledgerTotals(restored);
    // The snapshot holds at least the first sweep's money and at most the second's.
    expect(totals.sweptLamports).toBeGreaterThan(0n);
    expect(totals.sweptLamports).toBeLessThanOrEqual(ledgerTotals(h.service.ctx.db).sweptLamports);
    restored.$client.close();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  /** A writer in another process (a service closing, a backup finishing) holding the database `ms`. */
  async function holdDatabase(path: string, ms: number): Promise<Bun.Subprocess> {
    const holder = Bun.spawn(
      [
        process.execPath,
        "-e",
        `const { Database } = require("bun:sqlite");
         const db = new Database(${JSON.stringify(path)});
         db.exec("BEGIN IMMEDIATE");
         db.exec("CREATE TABLE held_by_another_process (x)");
         console.log("held");
         await Bun.sleep(${ms});
         db.exec("COMMIT");
         db.close();`,
      ],
      { stdout: "pipe", stderr: "inherit" },
    );
    const first = await (holder.stdout as ReadableStream<Uint8Array>).getReader().read();
    expect(new TextDecoder().decode(first.value)).toContain("held");
    return holder;
  }

  function liveAndBackup(): { dir: string; live: string; backup: string } {
    const dir = mkdtempSync(join(tmpdir(), "cfl-restore-"));
    const live = join(dir, "service.db");
    openDatabase(live).$client.close();
    const backup = join(dir, "backup.db");
    backupDatabase(live, backup);
    return { dir, live, backup };
  }

  test("restore waits for a lock another process holds for a moment, then restores", async () => {
    const { dir, live, backup } = liveAndBackup();
    const holder = await holdDatabase(live, 800);
    const startedMs = Date.now();
    const kept = restoreDatabase(backup, live);
    expect(kept).toMatch(/service\.db\.before-restore-\d+$/);
    expect(Date.now() - startedMs).toBeGreaterThan(300);
    expect(await holder.exited).toBe(0);
    const restored = openDatabase(live);
    verifyLedger(restored);
    // The restored books, not the other writer's: its table was committed to the database kept aside.
    expect(
      restored.$client.query("SELECT name FROM sqlite_master WHERE name = 'held_by_another_process'").all(),
    ).toEqual([]);
    restored.$client.close();
    const aside = new Database(kept!, { readonly: true });
    expect(aside.query("SELECT name FROM sqlite_master WHERE name = 'held_by_another_process'").all()).toEqual([
      { name: "held_by_another_process" },
    ]);
    aside.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("restore refuses while another process goes on writing, and leaves the database in place", async () => {
    const { dir, live, backup } = liveAndBackup();
    const holder = await holdDatabase(live, 1_500);
    expect(() => restoreDatabase(backup, live, Date.now(), 300)).toThrow(/another process is writing/);
    expect(await holder.exited).toBe(0);
    const current = openDatabase(live);
    expect(
      current.$client.query("SELECT name FROM sqlite_master WHERE name = 'held_by_another_process'").all(),
    ).toEqual([{ name: "held_by_another_process" }]);
    current.$client.close();
    expect(readdirSync(dir).some((f) => f.includes("restoring") || f.includes("before-restore"))).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });

  test("restore refuses a damaged backup and leaves the current database in place", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cfl-restore-"));
    const live = join(dir, "service.db");
    openDatabase(live).$client.close();
    const bad = join(dir, "bad.db");
    await Bun.write(bad, "this is not a database");
    expect(() => restoreDatabase(bad, live)).toThrow();
    expect(existsSync(live)).toBe(true);
    verifyLedger(openDatabase(live));
    rmSync(dir, { recursive: true, force: true });
  });
});
