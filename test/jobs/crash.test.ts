/**
 * Kill-and-restart of the money jobs. The local chain runs in this process; the job runs in a
 * child process (fixtures/job-worker.ts) that talks to it over JSON-RPC and SIGKILLs itself at a
 * crash point (src/jobs/crash-points.ts). A second child, started without CRASH_AT on the same
 * database once the dead holder's lease has run out, runs the job to completion. Then, reading the
 * chain itself: every lamport collected is credited exactly once, every payout paid exactly once,
 * every burn order bought and burned exactly once, and the books and SPEC's relations hold.
 */
import { afterEach, describe, expect, test } from "bun:test";
import {
  checkBurnedExactlyOnce,
  checkPaidExactlyOnce,
  checkSweptExactlyOnce,
  setupBurns,
  setupPayouts,
  setupSweep,
} from "./scenarios";
import { moneyWorld, type World } from "./world";

let w: World | null = null;
afterEach(async () => {
  await w?.close();
  w = null;
});

async function crashThenRecover(
  world: World,
  job: string,
  crashAt: string,
  env: Record<string, string> = {},
): Promise<void> {
  // A long lease: a loaded machine can miss renewing a short one, and a run that lost its lease
  // stops at its next safe point, before the crash point.
  const crashed = await world.worker({ jobs: [job], crashAt, env: { JOB_LEASE_MS: "10000", ...env } });
  // The point was reached and the process died there, without finishing its run.
  // A run that finished instead says why.
  expect({ crashAt, signal: crashed.signalCode, results: crashed.results.map((r) => r.error ?? "ok") }).toEqual({
    crashAt,
    signal: "SIGKILL",
    results: [],
  });
  world.checkRelations();
  // The dead holder's lease runs out (what its 10 s would do; test/jobs/scheduler.test.ts takes an
  // expired lease over and fences the old holder, and test/e2e/restore.test.ts waits a killed
  // process's lease out for real): the restart takes the job with the next generation.
  expect(world.db.$client.query("SELECT holder FROM job_leases WHERE job = ?").get(job)).not.toBeNull();
  world.db.$client.query("UPDATE job_leases SET expires_at_ms = 0 WHERE job = ?").run(job);
  // Two runs: the first resolves what the dead run left (an unsent transaction is only given up
  // once provably expired), the second does what that freed.
  const recovered = await world.worker({ jobs: [job], runs: 2, env: { JOB_LEASE_MS: "10000", ...env } });
  expect(recovered.exitCode).toBe(0);
  expect(recovered.results.map((r) => [r.ran, r.ok, r.error ?? null])).toEqual([
    [true, true, null],
    [true, true, null],
  ]);
}

describe("sweep: SIGKILL at every step boundary, then restart", () => {
  const points = [
    "sweep:after-read",
    "sweep:after-save",
    "sweep:after-send",
    "sweep:after-send@2",
    "sweep:after-confirm",
    "sweep:mid-credit@2",
    "sweep:before-reconcile",
  ];
  for (const point of points) {
    test(point, async () => {
      w = await moneyWorld();
      const setup = await setupSweep(w, 12);
      await crashThenRecover(w, "sweep", point);
      await checkSweptExactlyOnce(w, setup);
    }, 60_000);
  }

  test("sweep:after-read@2 (the second chunk of a run, the first one sent)", async () => {
    w = await moneyWorld();
    const setup = await setupSweep(w, 12);
    await crashThenRecover(w, "sweep", "sweep:after-read@2", { SWEEP_READ_BATCH: "2", SWEEP_SEND_CHUNK: "4" });
    await checkSweptExactlyOnce(w, setup);
  }, 60_000);
});

describe("payouts: SIGKILL at every step boundary, then restart", () => {
  const points = [
    "payouts:after-autopay",
    "payouts:after-save",
    "payouts:after-send",
    "payouts:after-send@2",
    "payouts:after-confirm",
  ];
  for (const point of points) {
    test(point, async () => {
      w = await moneyWorld();
      // 14 claims and 2 autopays: two transactions of up to 12 transfers.
      const setup = await setupPayouts(w, 14, 2);
      await crashThenRecover(w, "payouts", point);
      checkPaidExactlyOnce(w, setup);
    }, 60_000);
  }

  test("payouts:after-expiry", async () => {
    w = await moneyWorld();
    const setup = await setupPayouts(w, 3, 0);
    // The batch never lands; the run proves it expired and dies before replacing it.
    w.local.faults.dropNextSends(1);
    await crashThenRecover(w, "payouts", "payouts:after-expiry");
    expect(
      w.db.$client.query("SELECT status, COUNT(*) AS n FROM payouts GROUP BY status ORDER BY status").all(),
    ).toEqual([
      { status: "confirmed", n: 3n },
      { status: "replaced", n: 3n },
    ]);
    checkPaidExactlyOnce(w, setup);
  }, 60_000);
});

describe("burns: SIGKILL at every step boundary, then restart", () => {
  const points = [
    "burns:buy-after-save",
    "burns:buy-after-send",
    "burns:buy-after-send@2",
    "burns:buy-after-confirm",
    "burns:burn-after-save",
    "burns:burn-after-send",
    "burns:burn-after-confirm",
  ];
  for (const point of points) {
    test(point, async () => {
      w = await moneyWorld();
      const setup = await setupBurns(w);
      await crashThenRecover(w, "burns", point, { PLATFORM_BUYBACK_BPS: "5000" });
      checkBurnedExactlyOnce(w, setup);
    }, 60_000);
  }
});
