/**
 * Runs started by `POST /api/cron/:job`, kept so `GET /api/cron/runs/:runId` can report them.
 * The route answers as soon as the run has started: a sweep may take half a minute and a
 * scheduler's HTTP client gives up long before (and a lost socket said nothing of the run).
 *
 * Records live in this process's memory, the last MAX_RUNS of them: a run outlives its request,
 * not a restart (health and the job_runs table still show every run).
 */
import type { Db } from "../../db/client";
import { scrubErrorText } from "../lib/scrub";
import type { JobName } from "./names";
import type { JobRunner, RunResult } from "./scheduler";
import type { JobReport } from "./cron-schemas";
import { query } from "../../db/statement";

export const MAX_RUNS = 500;

/**
 * How long the route waits for the scheduler to refuse a start (another process took the lease
 * between the check here and the run's own acquisition, or the service is stopping): a refusal
 * comes back at once, a run that started does not.
 */
const START_GRACE_MS = 50;

type CronRunState = "running" | "succeeded" | "failed" | "not_run";

export interface CronRun {
  runId: string;
  job: JobName;
  state: CronRunState;
  startedAt: string;
  finishedAt: string | null;
  durationMs: number | null;
  /** why the run failed or did not run, scrubbed of addresses and setting names; null otherwise */
  error: string | null;
  /** what the run did; null while running, when it failed or did not run */
  report: JobReport | null;
}

export type StartOutcome = { started: CronRun } | { refused: "busy" | "not_registered" | "stopping" };

const REFUSED_TEXT = {
  busy: "That job was running already.",
  not_registered: "That job is not available on this deployment.",
  stopping: "The service was shutting down.",
} as const;

export class CronRuns {
  private readonly runs = new Map<string, CronRun>();

  constructor(
    private readonly db: Db,
    private readonly runner: Pick<JobRunner, "runNow">,
  ) {}

  get(runId: string): CronRun | null {
    const run = this.runs.get(runId);
    return run ? { ...run } : null;
  }

  /** Starts `job` and answers once it is running (or finished, or refused); never waits for the run. */
  async start(job: JobName): Promise<StartOutcome> {
    if (this.isRunning(job)) return { refused: "busy" };
    const run: CronRun = {
      runId: `run_${crypto.randomUUID().replaceAll("-", "")}`,
      job,
      state: "running",
      startedAt: new Date().toISOString(),
      finishedAt: null,
      durationMs: null,
      error: null,
      report: null,
    };
    const startedAtMs = Date.now();
    const outcome = this.runner.runNow(job).then(
      (result) => result,
      (error: unknown): RunResult => ({
        ran: true,
        ok: false,
        error: scrubErrorText(error),
        durationMs: Date.now() - startedAtMs,
      }),
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const early = await Promise.race([
      outcome,
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), START_GRACE_MS))),
    ]);
    clearTimeout(timer);
    if (early && !early.ran) return { refused: early.reason };
    this.remember(run);
    void outcome.then((result) => this.finish(run, result));
    return { started: { ...run } };
  }

  /** A run of `job` holds its lease now: started here and not finished, or held by any process. */
  private isRunning(job: JobName): boolean {
    for (const run of this.runs.values()) if (run.job === job && run.state === "running") return true;
    const lease = query<{ holder: string | null; expiresAtMs: bigint }, [job: string]>(
      this.db,
      "SELECT holder, expires_at_ms AS expiresAtMs FROM job_leases WHERE job = ?",
    ).get(job);
    return lease !== null && lease.holder !== null && Number(lease.expiresAtMs) > Date.now();
  }

  private finish(run: CronRun, result: RunResult): void {
    const finishedAtMs = Date.now();
    run.finishedAt = new Date(finishedAtMs).toISOString();
    if (!result.ran) {
      run.state = "not_run";
      run.error = REFUSED_TEXT[result.reason];
      run.durationMs = 0;
      return;
    }
    run.state = result.ok ? "succeeded" : "failed";
    run.error = result.ok ? null : result.error;
    run.durationMs = result.durationMs;
    run.report = result.ok ? (result.report ?? null) : null;
  }

  private remember(run: CronRun): void {
    this.runs.set(run.runId, run);
    if (this.runs.size <= MAX_RUNS) return;
    // The oldest finished record goes first; running ones stay until they finish.
    for (const [id, old] of this.runs) {
      if (old.state !== "running") {
        this.runs.delete(id);
        return;
      }
    }
  }
}
