import { afterEach, describe, expect, test } from "bun:test";
import { runJob } from "../helpers/cron";
import { NOTHING_YET, testService, type TestService } from "../helpers/service";
import { JOB_NAMES } from "../../src/jobs/names";
import { immediate } from "../../db/transaction";
import { creditSweep } from "../../src/ledger/commands";
import { forgetStats } from "../../src/stats/service";

let svc: TestService;

afterEach(async () => svc && (await svc.cleanup()));

describe("GET /api/stats", () => {
  test("a fresh deployment answers zeros, amounts as decimal strings, with the public cache header", async () => {
    svc = testService();
    const { status, body, headers } = await svc.json("/api/stats?anything=ignored");
    expect(status).toBe(200);
    expect(body).toMatchObject(NOTHING_YET);
    expect(new Date(body.updatedAt).toISOString()).toBe(body.updatedAt);
    expect(headers.get("cache-control")).toBe("public, max-age=0, s-maxage=10, stale-while-revalidate=30");
    expect(headers.get("x-ratelimit-limit")).toBe("120");
  });

  test("figures follow the ledger and are memoised for up to 10 seconds", async () => {
    let now = 1_700_000_000_000;
    svc = testService({}, { now: () => now });
    expect((await svc.json("/api/stats")).body.sweptLamports).toBe("0");
    immediate(svc.ctx.db, () =>
      creditSweep(svc.ctx.db, {
        sweepId: 1,
        tokenId: 1,
        mint: "M",
        totalLamports: 9_007_199_254_740_993n,
        platformBps: 1000,
        recipients: [{ handle: "alice", bps: 10_000, idpUserId: null }],
        atMs: now,
      }),
    );
    expect((await svc.json("/api/stats")).body.sweptLamports).toBe("0");
    now += 10_001;
    const body = (await svc.json("/api/stats")).body;
    expect(body.sweptLamports).toBe("9007199254740993");
    // platform 10% floored; the rest is alice's, unclaimed and owed
    expect(body.unclaimedLamports).toBe((9_007_199_254_740_993n - 900_719_925_474_099n).toString());
    expect(body.owedLamports).toBe(body.unclaimedLamports);
    forgetStats(svc.ctx.db);
  });
});

describe("GET /api/cron/health", () => {
  test("lists all five jobs, never run and stale, on a fresh deployment", async () => {
    svc = testService();
    const { status, body } = await svc.json("/api/cron/health");
    expect(status).toBe(200);
    expect(body.ok).toBe(false);
    expect(body.staleAfterSec).toBe(1800);
    expect(body.jobs.map((j: { job: string }) => j.job)).toEqual([...JOB_NAMES]);
    for (const job of body.jobs) {
      // The local chain has no market data source: that job says so (issue 22) rather than look broken.
      expect(job).toEqual({
        job: job.job,
        lastRunAt: null,
        lastOkAt: null,
        secondsSinceOk: null,
        stale: true,
        running: false,
        runs: 0,
        lastError: null,
        configured: job.job !== "market",
        nextRunAt: null,
      });
    }
  });

  test("a job with nothing to do here does not make health fail; scheduled jobs say when they run next", async () => {
    const now = Date.parse("2026-11-22T10:00:30.000Z");
    svc = testService({ JOBS: "1", PAYOUTS_SCHEDULE: "*/5 * * * *" }, { now: () => now });
    for (const job of ["sweep", "payouts", "burns", "launches"] as const) {
      if (!svc.ctx.scheduler.isRegistered(job)) svc.ctx.scheduler.register(job, async () => {});
    }
    svc.ctx.db.$client.run(
      'INSERT OR REPLACE INTO job_leases (job, holder, expires_at_ms, generation, runs, last_run_at_ms, last_ok_at_ms) SELECT value, NULL, 0, 1, 1, ?, ? FROM json_each(\'["sweep","payouts","burns","launches"]\')',
      [now - 1000, now - 1000],
    );
    const { body } = await svc.json("/api/cron/health");
    expect(body.ok).toBe(true);
    const byJob = Object.fromEntries(body.jobs.map((j: { job: string }) => [j.job, j]));
    expect(byJob.market.configured).toBe(false);
    expect(byJob.market.stale).toBe(true);
    expect(byJob.payouts.nextRunAt).toBe("2026-11-22T10:05:00.000Z");
  });

  test("a clean run makes its job fresh; a failed run shows a scrubbed error", async () => {
    let now = Date.now();
    svc = testService({ CRON_SECRET: "s3cret-value-for-tests-0123456789ab" }, { now: () => now });
    svc.ctx.scheduler.register("sweep", async () => {});
    svc.ctx.scheduler.register("payouts", async () => {
      throw new Error("fetch https://rpc.example.com/?api-key=abc failed; check RPC_URL");
    });
    const secret = "s3cret-value-for-tests-0123456789ab";
    expect((await runJob(svc.call, "sweep", secret)).state).toBe("succeeded");
    const failed = await runJob(svc.call, "payouts", secret);
    expect(failed.state).toBe("failed");
    expect(failed.error).not.toContain("example.com");
    now = Date.now();
    const { body } = await svc.json("/api/cron/health");
    const sweep = body.jobs.find((j: { job: string }) => j.job === "sweep");
    const payouts = body.jobs.find((j: { job: string }) => j.job === "payouts");
    expect(sweep.stale).toBe(false);
    expect(sweep.runs).toBe(1);
    expect(sweep.secondsSinceOk).toBeLessThan(5);
    expect(payouts.stale).toBe(true);
    expect(payouts.lastError).not.toContain("example.com");
    expect(payouts.lastError).not.toContain("RPC_URL");
    expect(payouts.lastError).not.toContain("abc");
    expect(payouts.lastRunAt).not.toBeNull();
    expect(body.ok).toBe(false);
    // Half an hour later the clean job is stale again.
    now += 1801_000;
    const later = (await svc.json("/api/cron/health")).body;
    expect(later.jobs.find((j: { job: string }) => j.job === "sweep").stale).toBe(true);
  });
});

describe("cron routes", () => {
  test("answer 404 when the secret is unset, missing or wrong, and for unknown jobs", async () => {
    svc = testService();
    svc.ctx.scheduler.register("sweep", async () => {});
    expect((await svc.call("/api/cron/sweep", { method: "POST", headers: { authorization: "Bearer x" } })).status).toBe(
      404,
    );
    await svc.cleanup();
    svc = testService({ CRON_SECRET: "right-secret-for-tests-0123456789abc" });
    svc.ctx.scheduler.register("sweep", async () => {});
    expect((await svc.call("/api/cron/sweep", { method: "POST" })).status).toBe(404);
    expect(
      (
        await svc.call("/api/cron/sweep", {
          method: "POST",
          headers: { authorization: "Bearer wrong-secret-for-tests-0123456789abc" },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await svc.call("/api/cron/nope", {
          method: "POST",
          headers: { authorization: "Bearer right-secret-for-tests-0123456789abc" },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await svc.call("/api/cron/sweep", {
          method: "POST",
          headers: { authorization: "Bearer right-secret-for-tests-0123456789abc" },
        })
      ).status,
    ).toBe(202);
  });
});

describe("errors", () => {
  test("unknown routes and wrong methods answer the {error} envelope", async () => {
    svc = testService();
    for (const [path, method] of [
      ["/api/nope", "GET"],
      ["/api/stats", "DELETE"],
      ["/nowhere", "POST"],
    ] as const) {
      const response = await svc.call(path, { method });
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toContain("application/json");
      const body = await response.json();
      expect(Object.keys(body)).toEqual(["error"]);
      expect(typeof body.error).toBe("string");
    }
  });

  test("rate limits: headers on every answer, 429 with retry-after past the limit, per IP", async () => {
    svc = testService();
    let last: Response | null = null;
    for (let i = 0; i < 120; i++) {
      last = await svc.call("/api/stats", { ip: "198.51.100.1" });
      expect(last.status).toBe(200);
    }
    expect(last!.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(last!.headers.get("retry-after")).toBeNull();
    const over = await svc.call("/api/stats", { ip: "198.51.100.1" });
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(over.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    const reset = Number(over.headers.get("x-ratelimit-reset"));
    expect(reset).toBeGreaterThan(Date.now() / 1000 - 1);
    expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
    expect(Object.keys(await over.json())).toEqual(["error"]);
    // Another client is not affected.
    expect((await svc.call("/api/stats", { ip: "198.51.100.2" })).status).toBe(200);
  });

  test("RATE_LIMIT=off turns the limits off", async () => {
    svc = testService({ RATE_LIMIT: "off" });
    for (let i = 0; i < 130; i++) expect((await svc.call("/api/stats")).status).toBe(200);
    expect((await svc.call("/api/stats")).headers.get("x-ratelimit-limit")).toBeNull();
  });
});
