/**
 * Builds the whole service from a Config: database, scheduler, HTTP app. `main.ts` starts it as a
 * process; tests build it in-process with a fresh data dir. Part of the composition root: the one
 * place (with app.ts, main.ts, register-jobs.ts) that knows every feature and wires them together.
 */
import { closeDatabase, openDatabase } from "../db/client";
import type { ChainServices } from "./chain/services";
import type { Config } from "./config";
import { createApp } from "./app";
import { LIMITER_SWEEP_MS, RateLimiter } from "./http/rate-limit";
import { createServiceMetrics } from "./lib/metrics";
import { Scheduler } from "./jobs/scheduler";
import type { SchedulingContext } from "./jobs/setup";
import { verifyLedger } from "./ledger/verify";
import { log } from "./lib/log";
import { connectFeedListeners } from "./feed-listeners";

export interface Service {
  ctx: SchedulingContext;
  app: ReturnType<typeof createApp>;
  /** stops schedules, waits for running jobs, closes the database */
  close(): Promise<void>;
}

export function buildService(
  config: Config,
  options: { now?: () => number; chain?: ChainServices | null } = {},
): Service {
  connectFeedListeners();
  const db = openDatabase(config.databasePath);
  // Refuse to serve balances from books that do not add up. The accounts' stored figures are
  // checked against their balances here, and recomputed from the entries in tests and simulations
  // (at 100k tokens the recomputation alone would add ~20 s to every start).
  verifyLedger(db, { accountFigures: "identities" });
  const metrics = createServiceMetrics();
  const scheduler = new Scheduler(db, {
    leaseMs: config.jobLeaseMs,
    schedules: config.schedules,
    onRunFinished: (job, result) => {
      if (!result.ran) return;
      metrics.jobRuns.inc({ job, outcome: result.ok ? "ok" : "error" });
      metrics.jobSeconds.observe({ job }, result.durationMs / 1000);
      if (result.ok) log.info("job finished", { job, durationMs: result.durationMs });
      else log.warn("job failed", { job, error: result.error, durationMs: result.durationMs });
    },
  });
  const ctx: SchedulingContext = {
    config,
    db,
    scheduler,
    limiter: new RateLimiter(),
    metrics,
    chain: options.chain ?? null,
    now: options.now ?? Date.now,
  };
  const app = createApp(ctx);
  // Expired rate-limit buckets go on a timer, so a request never pays for the others' windows.
  const limiterSweep = setInterval(() => ctx.limiter.sweepExpired(), LIMITER_SWEEP_MS);
  limiterSweep.unref?.();
  let closed = false;
  return {
    ctx,
    app,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(limiterSweep);
      await scheduler.stop();
      closeDatabase(db);
    },
  };
}
