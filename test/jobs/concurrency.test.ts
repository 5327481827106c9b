/**
 * Two job processes on one database, and the cron route fired while a scheduled run holds the
 * lease: no job ever overlaps itself, and the money still moves exactly once.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { registerJobs } from "../../src/register-jobs";
import { buildService, type Service } from "../../src/service";
import { testConfig } from "../../src/config";
import { waitForRun } from "../helpers/cron";
import { checkPaidExactlyOnce, checkSweptExactlyOnce, setupPayouts, setupSweep } from "./scenarios";
import { moneyWorld, type World } from "./world";

let w: World | null = null;
let service: Service | null = null;
afterEach(async () => {
  await service?.close();
  service = null;
  await w?.close();
  w = null;
});

function runsOf(world: World): { job: string; holder: string; start: number; end: number | null }[] {
  return (
    world.db.$client
      .query("SELECT job, holder, started_at_ms AS s, finished_at_ms AS e FROM job_runs ORDER BY job, started_at_ms")
      .all() as {
      job: string;
      holder: string;
      s: bigint;
      e: bigint | null;
    }[]
  ).map((r) => ({ job: r.job, holder: r.holder, start: Number(r.s), end: r.e === null ? null : Number(r.e) }));
}

describe("one job never overlaps itself", () => {
  test("two processes running sweep and payouts against one database: runs never overlap, money moves once", async () => {
    w = await moneyWorld();
    const race = async (job: string) => {
      const workers = [0, 1].map((i) =>
        w!.spawnWorker({ jobs: [job], runs: 3, env: { NO_WAIT: "1", HOLDER: `worker-${i}` } }),
      );
      const done = await Promise.all(workers.map((x) => x.done));
      for (const r of done) expect(r.exitCode).toBe(0);
      const results = done.flatMap((r) => r.results);
      expect(results).toHaveLength(6);
      // Each attempt either ran cleanly or met the other's lease.
      for (const r of results) expect(r.ran ? r.ok === true : r.reason === "busy").toBe(true);
      return results;
    };
    const sweepSetup = await setupSweep(w, 8);
    await race("sweep");
    await checkSweptExactlyOnce(w, sweepSetup);
    const payoutSetup = await setupPayouts(w, 13, 2);
    await race("payouts");
    checkPaidExactlyOnce(w, payoutSetup);
    // The database's own record of every run: per job, each run ended before the next began.
    const runs = runsOf(w);
    for (const job of ["sweep", "payouts"]) {
      const list = runs.filter((r) => r.job === job);
      expect(list.length).toBeGreaterThanOrEqual(2);
      for (let i = 1; i < list.length; i++) {
        expect(list[i - 1]!.end).not.toBeNull();
        expect(list[i]!.start).toBeGreaterThanOrEqual(list[i - 1]!.end!);
      }
    }
  }, 60_000);

  test("the cron route fired during a scheduled run answers 409 and runs nothing; after it, it runs the job", async () => {
    w = await moneyWorld();
    const setup = await setupPayouts(w, 2, 0);
    const config = testConfig({
      DATA_DIR: w.dir,
      CRON_SECRET: "cron-secret-for-tests-0123456789",
      JOB_LEASE_MS: "2000",
    });
    service = buildService(config, { chain: w.chain });
    registerJobs(service.ctx);
    const cron = () =>
      service!.app.handle(
        new Request("http://localhost/api/cron/payouts", {
          method: "POST",
          headers: { authorization: "Bearer cron-secret-for-tests-0123456789" },
        }),
      );
    // A scheduled run in another process, held in flight by a delayed confirmation.
    w.local.faults.delayNextSends(1, 100);
    const scheduled = w.spawnWorker({ jobs: ["payouts"] });
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && !w.db.$client.query("SELECT 1 FROM payouts WHERE status = 'sent'").get())
      await Bun.sleep(20);
    expect(w.db.$client.query("SELECT COUNT(*) AS n FROM payouts WHERE status = 'sent'").get()).toEqual({ n: 2n });
    const during = await cron();
    expect(during.status).toBe(409);
    // The in-process scheduled start meets the same lease.
    expect(await service.ctx.scheduler.runNow("payouts")).toEqual({ ran: false, reason: "busy" });
    const done = await scheduled.done;
    expect(done.results[0]).toMatchObject({ ran: true, ok: true });
    const after = await cron();
    expect(after.status).toBe(202);
    const { runId } = (await after.json()) as { runId: string };
    const call = (path: string, init?: RequestInit) =>
      service!.app.handle(new Request(`http://localhost${path}`, init));
    expect(await waitForRun(call, runId, "cron-secret-for-tests-0123456789")).toMatchObject({
      job: "payouts",
      state: "succeeded",
    });
    const runs = runsOf(w).filter((r) => r.job === "payouts");
    expect(runs).toHaveLength(2);
    expect(runs[1]!.start).toBeGreaterThanOrEqual(runs[0]!.end!);
    checkPaidExactlyOnce(w, setup);
  }, 60_000);
});
