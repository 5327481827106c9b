/**
 * SIGTERM: the process stops taking requests, lets a running job reach a safe point, releases its
 * lease and closes the database cleanly (no WAL left to recover, books intact).
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../db/client";
import { verifyLedger } from "../../src/ledger/verify";
import { freePortsSync } from "../helpers/socket";
import { startService } from "../workers/support";
import { serviceExecutable } from "../helpers/executable";

describe("graceful shutdown", () => {
  test("SIGTERM during a sweep run finishes at a safe point, releases leases and closes the books", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "cfl-term-"));
    const [port] = freePortsSync(1) as [number];
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    const child = Bun.spawn([await serviceExecutable()], {
      env: {
        ...env,
        DATA_DIR: dataDir,
        PORT: String(port),
        LOCAL_CHAIN_RPC_PORT: "0",
        LOCAL_CHAIN_GRPC_PORT: "0",
        LOCAL_CHAIN_SLOT_MS: "50",
        CRON_SECRET: "cron-secret-for-tests-0123456789abcd",
        SWEEP_MIN_LAMPORTS: "1",
        LOG_LEVEL: "warn",
        JOBS: "0",
      },
      stdout: "ignore",
      stderr: "inherit",
    });
    const deadline = Date.now() + 20_000;
    let ready = false;
    while (!ready && Date.now() < deadline) {
      ready = await fetch(`http://127.0.0.1:${port}/api/cron/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (!ready) await Bun.sleep(100);
    }
    expect(ready).toBe(true);
    // Let the demo trade a little, then start a sweep and stop the process while it runs.
    await Bun.sleep(1500);
    const sweep = fetch(`http://127.0.0.1:${port}/api/cron/sweep`, {
      method: "POST",
      headers: { authorization: "Bearer cron-secret-for-tests-0123456789abcd" },
    }).catch(() => null);
    await Bun.sleep(30);
    child.kill("SIGTERM");
    expect(await child.exited).toBe(0);
    await sweep;
    // No new connections are accepted once it has stopped.
    expect(
      await fetch(`http://127.0.0.1:${port}/api/stats`).then(
        () => "answered",
        () => "refused",
      ),
    ).toBe("refused");
    const dbPath = join(dataDir, "service.db");
    // A clean close checkpoints the WAL: nothing left for a recovery.
    expect(!existsSync(`${dbPath}-wal`) || statSync(`${dbPath}-wal`).size === 0).toBe(true);
    const db = openDatabase(dbPath);
    expect((db.$client.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check).toBe(
      "ok",
    );
    verifyLedger(db);
    const held = db.$client.query("SELECT COUNT(*) AS n FROM job_leases WHERE holder IS NOT NULL").get() as {
      n: bigint;
    };
    expect(Number(held.n)).toBe(0);
    const unfinished = db.$client.query("SELECT COUNT(*) AS n FROM job_runs WHERE finished_at_ms IS NULL").get() as {
      n: bigint;
    };
    expect(Number(unfinished.n)).toBe(0);
    db.$client.close();
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  test("SIGTERM while a run waits for its liability anchor to finalize: out without waiting for it, the anchor kept for the next pass", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "cfl-term-anchor-"));
    // Jobs on and mainnet-like slots: the start-up payouts run takes the first liability snapshot
    // and waits for its anchor memo to finalize, ~13 s after it lands.
    const { child } = await startService(dataDir, { JOBS: "on", LOCAL_CHAIN_SLOT_MS: "400" });
    const dbPath = join(dataDir, "service.db");
    let signature: string | null = null;
    for (const deadline = Date.now() + 30_000; signature === null && Date.now() < deadline; ) {
      await Bun.sleep(100);
      if (!existsSync(dbPath)) continue;
      const reader = new Database(dbPath);
      try {
        const row = reader
          .query<{ s: string }, []>(
            "SELECT anchor_signature AS s FROM liability_snapshots WHERE anchor_signature IS NOT NULL AND anchored_at_ms IS NULL",
          )
          .get();
        signature = row?.s ?? null;
      } catch {
        // the schema is still being created
      } finally {
        reader.close();
      }
    }
    expect(signature).toEqual(expect.any(String));
    const sentAtMs = Date.now();
    child.kill("SIGTERM");
    expect(await child.exited).toBe(0);
    // It used to wait out the finalization (~12 s), past a container's 10 s stop timeout: the
    // anchor is still not marked finalized, so the stop did not wait for it (how long the stop took
    // is printed; a loaded machine stretches it, the mechanism it checks does not move).
    console.log(`shutdown: out ${Date.now() - sentAtMs} ms after SIGTERM`);
    const db = openDatabase(dbPath);
    // The memo's signature stays saved: the next pass follows that transaction, not a second anchor.
    const kept = db.$client
      .query("SELECT anchor_signature AS s, anchored_at_ms AS at FROM liability_snapshots ORDER BY id DESC")
      .get() as { s: string | null; at: number | null };
    expect(kept).toEqual({ s: signature, at: null });
    const runs = db.$client
      .query("SELECT ok FROM job_runs WHERE job = 'payouts' AND finished_at_ms IS NOT NULL ORDER BY id")
      .all() as { ok: bigint }[];
    expect(runs.map((r) => Number(r.ok))).toContain(1);
    const held = db.$client.query("SELECT COUNT(*) AS n FROM job_leases WHERE holder IS NOT NULL").get() as {
      n: bigint;
    };
    expect(Number(held.n)).toBe(0);
    db.$client.close();
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);
});
