/**
 * The request thread's scheduler when the jobs run in their own thread: the same surface the cron
 * route and the health route use (`runNow`, `isRegistered`), answered by the jobs' thread. Runs
 * keep their database lease there, so a run fired here and a scheduled one there never overlap.
 */
import type { Db } from "../../db/client";
import type { JobName } from "../jobs/names";
import { Scheduler, type JobBody, type RunResult } from "../jobs/scheduler";
import { AppError } from "../lib/errors";

export interface JobsThreadPort {
  run(job: JobName): Promise<RunResult>;
}

export class RemoteScheduler extends Scheduler {
  private closed = false;

  constructor(
    db: Db,
    private readonly registered: ReadonlySet<JobName>,
    private readonly thread: JobsThreadPort,
  ) {
    super(db, { leaseMs: 0 });
  }

  override register(job: JobName, _body: JobBody): void {
    throw new AppError("INTERNAL", `job ${job} is registered in the jobs' thread, not the request thread`, { job });
  }

  override isRegistered(job: JobName): boolean {
    return this.registered.has(job);
  }

  /** The jobs' thread keeps the schedules. */
  override start(): void {}

  override async runNow(job: JobName): Promise<RunResult> {
    if (this.closed) return { ran: false, reason: "stopping" };
    if (!this.registered.has(job)) return { ran: false, reason: "not_registered" };
    return this.thread.run(job);
  }

  /** New runs are refused from here on; the jobs' thread stops its own at a safe point. */
  override async stop(): Promise<void> {
    this.closed = true;
  }
}
