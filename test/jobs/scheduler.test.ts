import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../db/client";
import { acquireLease, assertLeaseHeld, releaseLease, renewLease } from "../../src/jobs/lease";
import { Scheduler } from "../../src/jobs/scheduler";
import { immediate } from "../../db/transaction";

const worker = join(import.meta.dir, "fixtures", "scheduler-worker.ts");

describe("job leases", () => {
  test("two scheduler processes on one database never run the same job at once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cfl-lease-"));
    const dbPath = join(dir, "service.db");
    openDatabase(dbPath).$client.close();
    const children = [0, 1].map(() =>
      Bun.spawn([process.execPath, "run", worker, dbPath, "60"], { stdout: "pipe", stderr: "inherit" }),
    );
    const outputs = await Promise.all(children.map(async (c) => JSON.parse(await new Response(c.stdout).text())));
    for (const c of children) expect(await c.exited).toBe(0);

    const db = openDatabase(dbPath);
    const intervals = (
      db.$client.query("SELECT holder, start_us AS s, end_us AS e FROM test_intervals ORDER BY start_us").all() as {
        holder: string;
        s: bigint;
        e: bigint;
      }[]
    ).map((r) => ({ holder: r.holder, s: Number(r.s), e: Number(r.e) }));
    expect(intervals.length).toBe(outputs[0].ran + outputs[1].ran);
    for (let i = 1; i < intervals.length; i++) expect(intervals[i]!.s).toBeGreaterThanOrEqual(intervals[i - 1]!.e);
    // Both processes got runs, and both were turned away at least once: they really contended.
    expect(new Set(intervals.map((i) => i.holder)).size).toBe(2);
    expect(outputs[0].busy + outputs[1].busy).toBeGreaterThan(0);
    const lease = db.$client.query("SELECT runs, generation, holder FROM job_leases WHERE job = 'sweep'").get() as {
      runs: bigint;
      generation: bigint;
      holder: string | null;
    };
    expect(Number(lease.runs)).toBe(intervals.length);
    expect(lease.holder).toBeNull();
    db.$client.close();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  test("an expired lease is taken over and the old holder is fenced out of writes", () => {
    const db = openDatabase(":memory:");
    const t0 = 1_000_000;
    const first = acquireLease(db, "sweep", "A", 1000, t0)!;
    expect(acquireLease(db, "sweep", "B", 1000, t0 + 500)).toBeNull();
    const second = acquireLease(db, "sweep", "B", 1000, t0 + 1001)!;
    expect(second.generation).toBe(first.generation + 1);
    expect(renewLease(db, first, 1000, t0 + 1002)).toBe(false);
    expect(() => immediate(db, () => assertLeaseHeld(db, first, t0 + 1002))).toThrow(
      expect.objectContaining({ code: "LEASE_LOST" }),
    );
    expect(() => immediate(db, () => assertLeaseHeld(db, second, t0 + 1002))).not.toThrow();
    // The old holder's release does not free the new holder's lease.
    releaseLease(db, first, { ok: true, error: null }, t0 + 1003);
    expect(acquireLease(db, "sweep", "C", 1000, t0 + 1004)).toBeNull();
  });

  test("a scheduled job and a manual run in one process do not overlap", async () => {
    const db = openDatabase(":memory:");
    const scheduler = new Scheduler(db, { leaseMs: 5000 });
    let running = 0;
    let maxRunning = 0;
    scheduler.register("payouts", async () => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      await Bun.sleep(20);
      running--;
    });
    const results = await Promise.all(Array.from({ length: 10 }, () => scheduler.runNow("payouts")));
    expect(maxRunning).toBe(1);
    expect(results.filter((r) => r.ran)).toHaveLength(1);
    expect(results.filter((r) => !r.ran && r.reason === "busy")).toHaveLength(9);
    expect(await scheduler.runNow("burns")).toEqual({ ran: false, reason: "not_registered" });
  });

  test("stop() aborts a running job at its next safe point and releases the lease", async () => {
    const db = openDatabase(":memory:");
    const scheduler = new Scheduler(db, { leaseMs: 5000 });
    let sawAbort = false;
    scheduler.register("sweep", async ({ signal }) => {
      for (let i = 0; i < 200 && !signal.aborted; i++) await Bun.sleep(5);
      sawAbort = signal.aborted;
    });
    const run = scheduler.runNow("sweep");
    await Bun.sleep(20);
    await scheduler.stop();
    await run;
    expect(sawAbort).toBe(true);
    const lease = db.$client.query("SELECT holder FROM job_leases WHERE job = 'sweep'").get() as {
      holder: string | null;
    };
    expect(lease.holder).toBeNull();
  });
});
