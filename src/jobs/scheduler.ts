/**
 * The job scheduler: croner fires each registered job on its schedule; every run, scheduled or
 * fired by the cron route, takes the job's database lease first, so two starts never overlap, in
 * one process or across processes on one database file. A job with no body registered (its
 * capability is not built) never runs and shows in health as never run.
 */
import { AppError } from "../lib/errors";
import { stopOnBrokenInvariant } from "../lib/invariant";
import { Cron } from "croner";
import type { Db } from "../../db/client";
import { scrubErrorText } from "../lib/scrub";
import { immediate } from "../../db/transaction";
import { acquireLease, assertLeaseHeld, releaseLease, renewLease, type Lease } from "./lease";
import { JOB_NAMES, type JobName } from "./names";
import type { JobReport } from "./cron-schemas";
import { query } from "../../db/statement";

export interface JobContext {
  lease: Lease;
  /** aborted when the lease is lost or the service shuts down: stop at the next safe point */
  signal: AbortSignal;
  /** call inside every write transaction of the run (fencing) */
  assertHeld(): void;
}

/** A job's body; what it answers is the run's report (`GET /api/cron/runs/:runId`). */
// biome-ignore lint/suspicious/noConfusingVoidType: a body that reports nothing (a test's, a plain task) returns void
export type JobBody = (ctx: JobContext) => Promise<JobReport | undefined | void>;

export type RunResult =
  | { ran: false; reason: "busy" | "not_registered" | "stopping" }
  | { ran: true; ok: boolean; error: string | null; durationMs: number; report?: JobReport | null };

export interface SchedulerOptions {
  holder?: string;
  leaseMs: number;
  schedules?: Partial<Record<JobName, string>>;
  /** how many past runs of each job to keep in job_runs (the run count is kept separately) */
  keepRunsPerJob?: number;
  onRunFinished?: (job: JobName, result: RunResult) => void;
}

/**
 * What the routes ask of whatever runs the jobs: this process's Scheduler, or the request thread's
 * handle on the jobs' thread (src/workers/threads.ts), which registers and schedules nothing itself.
 */
export interface JobRunner {
  isRegistered(job: JobName): boolean;
  /** runs one job now under its lease; answers `busy` when a run holds the lease */
  runNow(job: JobName): Promise<RunResult>;
  /** refuses new runs; running ones stop at their next safe point */
  stop(): Promise<void>;
}

export class Scheduler implements JobRunner {
  readonly holder: string;
  private readonly bodies = new Map<JobName, JobBody>();
  private readonly crons: Cron[] = [];
  private readonly running = new Map<JobName, { controller: AbortController; done: Promise<RunResult> }>();
  private stopping = false;

  constructor(
    private readonly db: Db,
    private readonly options: SchedulerOptions,
  ) {
    this.holder = options.holder ?? `${process.pid}-${crypto.randomUUID().slice(0, 8)}`;
  }

  register(job: JobName, body: JobBody): void {
    if (this.bodies.has(job)) throw new AppError("JOB_ALREADY_REGISTERED", { job });
    this.bodies.set(job, body);
  }

  isRegistered(job: JobName): boolean {
    return this.bodies.has(job);
  }

  start(): void {
    for (const job of JOB_NAMES) {
      const pattern = this.options.schedules?.[job];
      if (!pattern || !this.bodies.has(job)) continue;
      this.crons.push(
        new Cron(pattern, { protect: true, name: job }, async () => {
          await this.runNow(job);
        }),
      );
    }
  }

  /** Runs one job now under its lease; answers `busy` when a run holds the lease. */
  async runNow(job: JobName): Promise<RunResult> {
    if (this.stopping) return { ran: false, reason: "stopping" };
    const body = this.bodies.get(job);
    if (!body) return { ran: false, reason: "not_registered" };
    const lease = acquireLease(this.db, job, this.holder, this.options.leaseMs);
    if (!lease) return { ran: false, reason: "busy" };

    const controller = new AbortController();
    const done = this.execute(job, body, lease, controller);
    this.running.set(job, { controller, done });
    try {
      return await done;
    } finally {
      this.running.delete(job);
    }
  }

  private async execute(job: JobName, body: JobBody, lease: Lease, controller: AbortController): Promise<RunResult> {
    const startedAtMs = Date.now();
    const runId = immediate(this.db, () => {
      const row = query<{ id: bigint }, [job: JobName, generation: number, holder: string, atMs: number]>(
        this.db,
        "INSERT INTO job_runs (job, generation, holder, started_at_ms) VALUES (?, ?, ?, ?) RETURNING id",
      ).get(job, lease.generation, lease.holder, startedAtMs);
      return Number(row!.id);
    });
    const heartbeat = setInterval(
      () => {
        try {
          if (!renewLease(this.db, lease, this.options.leaseMs)) controller.abort(new Error("lease lost"));
        } catch (error) {
          controller.abort(error);
        }
      },
      Math.max(250, Math.floor(this.options.leaseMs / 3)),
    );
    let ok = true;
    let error: string | null = null;
    let failure: unknown;
    let report: JobReport | null = null;
    try {
      report =
        (await body({
          lease,
          signal: controller.signal,
          assertHeld: () => assertLeaseHeld(this.db, lease),
        })) ?? null;
    } catch (caught) {
      ok = false;
      failure = caught;
      error = scrubErrorText(caught);
    } finally {
      clearInterval(heartbeat);
    }
    const finishedAtMs = Date.now();
    const keep = this.options.keepRunsPerJob ?? 1000;
    immediate(this.db, () => {
      query<never, [atMs: number, ok: number, error: string | null, runId: number]>(
        this.db,
        "UPDATE job_runs SET finished_at_ms = ?, ok = ?, error = ? WHERE id = ?",
      ).run(finishedAtMs, ok ? 1 : 0, error, runId);
      query<never, [job: JobName, upToId: number]>(this.db, "DELETE FROM job_runs WHERE job = ? AND id <= ?").run(
        job,
        runId - keep,
      );
    });
    releaseLease(this.db, lease, { ok, error }, finishedAtMs);
    const result: RunResult = { ran: true, ok, error, durationMs: finishedAtMs - startedAtMs, report };
    this.options.onRunFinished?.(job, result);
    // After the run is written down and its lease let go, so the operator finds it in job_runs.
    stopOnBrokenInvariant(failure, `job ${job}`);
    return result;
  }

  /** Stops the schedules, asks running jobs to stop at a safe point and waits for them (bounded). */
  async stop(timeoutMs = 30_000): Promise<void> {
    this.stopping = true;
    for (const cron of this.crons) cron.stop();
    this.crons.length = 0;
    const runs = [...this.running.values()];
    for (const run of runs) run.controller.abort(new Error("shutting down"));
    await Promise.race([
      Promise.allSettled(runs.map((r) => r.done)),
      new Promise((resolve) => setTimeout(resolve, timeoutMs)),
    ]);
  }
}
