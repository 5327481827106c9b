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
import { type JobRunner, Scheduler } from "./jobs/scheduler";
import type { SchedulingContext } from "./jobs/setup";
import { verifyLedger } from "./ledger/verify";
import { log } from "./lib/log";
import { connectFeedListeners } from "./feed-listeners";
import type { AppContext } from "./context";

export interface Service<R extends JobRunner = Scheduler> {
  ctx: SchedulingContext<R>;
  app: ReturnType<typeof createApp>;
  /** stops schedules, waits for running jobs, closes the database */
  close(): Promise<void>;
}

export interface ServiceOptions {
  now?: () => number;
  chain?: ChainServices | null;
}

/** What runs the jobs when they run elsewhere (src/workers), built on the service's books before its context. */
export type JobsElsewhere<R extends JobRunner> = (
  books: Pick<AppContext, "config" | "db" | "metrics">,
) => R & Pick<AppContext, "extraMetrics">;

/** With `jobs`, the context's runner is theirs; without, an in-process Scheduler that job bodies register on. */
export function buildService<R extends JobRunner>(
  config: Config,
  options: ServiceOptions & { jobs: JobsElsewhere<R> },
): Service<R>;
export function buildService(config: Config, options?: ServiceOptions): Service;
export function buildService(
  config: Config,
  options: ServiceOptions & { jobs?: JobsElsewhere<JobRunner> } = {},
): Service<JobRunner> {
  connectFeedListeners();
  const db = openDatabase(config.databasePath);
  // Refuse to serve balances from books that do not add up. The accounts' stored figures are
  // checked against their balances here, and recomputed from the entries in tests and simulations
  // (at 100k tokens the recomputation alone would add ~20 s to every start).
  verifyLedger(db, { accountFigures: "identities" });
  const metrics = createServiceMetrics();
  const elsewhere = options.jobs?.({ config, db, metrics });
  const scheduler =
    elsewhere ??
    new Scheduler(db, {
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
  const ctx: SchedulingContext<JobRunner> = {
    config,
    db,
    scheduler,
    limiter: new RateLimiter(),
    metrics,
    extraMetrics: elsewhere?.extraMetrics,
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
