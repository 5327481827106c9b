/**
 * The scheduled off-site backup (BACKUP_URL on BACKUP_SCHEDULE) and the one taken at SIGTERM.
 * Not one of SPEC's five jobs, so it keeps its own schedule, but it runs under a database lease
 * like them (`job_leases` row `backup`): two processes on one database never upload at once,
 * `restore` refuses while an upload holds it, and the row keeps the last run, the last success
 * and the last error for health (`backupHealth`).
 */
import { rmSync } from "node:fs";
import { Cron } from "croner";
import type { Db } from "../../db/client";
import type { Config } from "../config";
import {
  acquireLease,
  BACKUP_JOB,
  backupStatus,
  noteBackupsScheduled,
  recordBackupOutcome,
  releaseLease,
  renewLease,
  type Scheduler,
} from "../jobs";
import { clearIncidents, raiseIncident } from "../custody";
import { log } from "../lib/log";
import { scrubErrorText } from "../lib/scrub";
import { sealedPathOf, snapshotPathFor, uploadGeneration, type UploadOutcome } from "./offsite";
import type { ObjectStore } from "./s3";
import { parseS3Url } from "./target";
import { readBackupKey } from "./key";
import { AuditShipper } from "./audit-offsite";
import { readVolumeSecrets, type VolumeSecretsConfig } from "./volume-secrets";
import { AppError, isAppError } from "../lib/errors";
import { query } from "../../db/statement";

/** The lease's name in `job_leases`. */
export const BACKUP_LEASE = BACKUP_JOB;

/** Below this much of the stop's budget left, the upload at SIGTERM is not started: it could not finish. */
const SHUTDOWN_UPLOAD_MIN_MS = 250;

/** A scheduled upload that takes longer than this is abandoned (its lease released) and tried next time. */
const SCHEDULED_UPLOAD_TIMEOUT_MS = 30 * 60_000;

export interface BackupDeps {
  db: Db;
  config: Pick<Config, "databasePath" | "jobLeaseMs" | "backup"> & VolumeSecretsConfig;
  /** the lease holder (the scheduler's, or the process's at shutdown) */
  holder: string;
  now?: () => number;
  store?: ObjectStore;
}

export type BackupRun =
  | { ran: false; reason: "busy" | "not_configured" | "out_of_time" }
  | { ran: true; ok: true; outcome: UploadOutcome; durationMs: number }
  /** `abandoned`: still running at its bound, given up on (it leaves no generation) */
  | { ran: true; ok: false; error: string; durationMs: number; abandoned: boolean };

/** One upload now under the backup lease, bounded by `timeoutMs`; never throws. */
export async function runBackup(deps: BackupDeps, options: { timeoutMs?: number } = {}): Promise<BackupRun> {
  const { db, config } = deps;
  const { url, s3, keep, keyFile } = config.backup;
  if (url === null || s3 === null || keyFile === null) return { ran: false, reason: "not_configured" };
  const now = deps.now ?? Date.now;
  const lease = acquireLease(db, BACKUP_LEASE, deps.holder, config.jobLeaseMs, now());
  if (!lease) return { ran: false, reason: "busy" };
  const startedAtMs = now();
  const heartbeat = setInterval(
    () => {
      try {
        renewLease(db, lease, config.jobLeaseMs);
      } catch {
        // The database closed under a run abandoned at shutdown: nothing left to renew.
      }
    },
    Math.max(250, Math.floor(config.jobLeaseMs / 3)),
  );
  const snapshotPath = snapshotPathFor(config.databasePath);
  const timeoutMs = options.timeoutMs ?? SCHEDULED_UPLOAD_TIMEOUT_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let run: BackupRun;
  try {
    const outcome = await Promise.race([
      (async () =>
        uploadGeneration({
          databasePath: config.databasePath,
          target: parseS3Url(url),
          settings: s3,
          keep,
          // Read at each run: a key file replaced (rotated) is used from the next generation on.
          key: readBackupKey(keyFile),
          secrets: readVolumeSecrets(config),
          nowMs: startedAtMs,
          snapshotPath,
          store: deps.store,
        }))(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new AppError("BACKUP_UPLOAD_TIMEOUT", { timeoutMs })), timeoutMs);
      }),
    ]);
    run = { ran: true, ok: true, outcome, durationMs: now() - startedAtMs };
  } catch (error) {
    // A store failure's text is built from the action and the store's code only; anything else is scrubbed.
    const text = isAppError(error, "BACKUP_STORE_FAILED") ? error.message : scrubErrorText(error);
    const abandoned = isAppError(error, "BACKUP_UPLOAD_TIMEOUT");
    run = { ran: true, ok: false, error: text, durationMs: now() - startedAtMs, abandoned };
    // An abandoned upload may still be reading it; unlinking leaves its open handle valid.
    rmSync(snapshotPath, { force: true });
    rmSync(sealedPathOf(snapshotPath), { force: true });
  } finally {
    clearTimeout(timer);
    clearInterval(heartbeat);
  }
  try {
    releaseLease(db, lease, { ok: run.ok, error: run.ok ? null : run.error }, now());
    recordOutcome(deps, run, now());
  } catch {
    // As above: a run outlived its database at shutdown; its lease expires on its own.
  }
  if (run.ok)
    log.info("backup uploaded", {
      generation: run.outcome.generation,
      bytes: run.outcome.bytes,
      pruned: run.outcome.pruned.length,
      pruneError: run.outcome.pruneError,
      durationMs: run.durationMs,
    });
  else log.warn("backup failed", { error: run.error, durationMs: run.durationMs });
  return run;
}

/**
 * The run's outcome where health, /metrics and /admin read it; and the operator told (an `incident`
 * webhook, a warning that halts nothing) once backups have missed two generations, the incident
 * closed by the next success.
 */
function recordOutcome(deps: BackupDeps, run: BackupRun & { ran: true }, nowMs: number): void {
  const { db, config } = deps;
  recordBackupOutcome(db, { ok: run.ok, bytes: run.ok ? run.outcome.bytes : null }, nowMs);
  if (run.ok) {
    clearIncidents(db, ["backup-missed"], nowMs);
    return;
  }
  const status = backupStatus(db, config.backup, nowMs);
  if (status === null || status.ok) return;
  raiseIncident(db, {
    kind: "backup-missed",
    detail: `off-site backups missed ${status.missedGenerations} generations in a row; the last error: ${run.error}`,
    atMs: nowMs,
  });
}

/**
 * The upload at SIGTERM, bounded so a slow or unreachable store cannot hold the stop: it ends
 * `BACKUP_STOP_TIMEOUT_MS` after `stopStartedAtMs` (the signal), whatever an upload in flight
 * already took of that; an upload still running then is abandoned (no generation is left: an
 * upload becomes an object only when complete) and the next start's schedule takes a fresh one.
 * A plain number is the bound from now.
 */
export async function backupAtShutdown(
  deps: Omit<BackupDeps, "holder">,
  within: number | { stopStartedAtMs: number } = deps.config.backup.stopTimeoutMs,
): Promise<BackupRun> {
  const now = deps.now ?? Date.now;
  const timeoutMs =
    typeof within === "number" ? within : within.stopStartedAtMs + deps.config.backup.stopTimeoutMs - now();
  if (timeoutMs < SHUTDOWN_UPLOAD_MIN_MS) {
    log.warn("backup at stop skipped: the stop's time for uploads is spent", {
      stopTimeoutMs: deps.config.backup.stopTimeoutMs,
    });
    return { ran: false, reason: "out_of_time" };
  }
  const run = await runBackup({ ...deps, holder: `${process.pid}-shutdown` }, { timeoutMs });
  if (run.ran && !run.ok && run.abandoned)
    log.warn("backup upload abandoned at stop: still running at the bound", { boundMs: timeoutMs });
  return run;
}

/** The backup on its cron schedule (croner, like the jobs), started and stopped with the job scheduler. */
export class BackupSchedule {
  private cron: Cron | null = null;
  private running: Promise<BackupRun> | null = null;
  /** the audit rows' uploads (src/backup/audit-offsite.ts) ride on the same start and stop */
  private readonly audit: AuditShipper;

  constructor(private readonly deps: BackupDeps) {
    this.audit = new AuditShipper({ db: deps.db, config: deps.config, store: deps.store });
  }

  start(): void {
    if (this.cron || this.deps.config.backup.url === null) return;
    this.audit.start();
    noteBackupsScheduled(this.deps.db, (this.deps.now ?? Date.now)());
    this.cron = new Cron(this.deps.config.backup.schedule, { protect: true, name: BACKUP_LEASE }, async () => {
      await this.runNow();
    });
  }

  async runNow(): Promise<BackupRun> {
    const run = runBackup(this.deps);
    this.running = run;
    try {
      return await run;
    } finally {
      if (this.running === run) this.running = null;
    }
  }

  /**
   * Stops the schedule; an upload in flight gets `graceMs` (the stop's budget for uploads), then
   * shutdown goes on without it and the abandoned upload is logged.
   */
  async stop(graceMs = this.deps.config.backup.stopTimeoutMs): Promise<void> {
    this.cron?.stop();
    this.cron = null;
    const audit = this.audit.stop(graceMs);
    await this.stopUpload(graceMs);
    await audit;
  }

  private async stopUpload(graceMs: number): Promise<void> {
    const running = this.running;
    if (!running) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = await Promise.race([
      running.then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), graceMs);
      }),
    ]);
    clearTimeout(timer);
    // Given up: the lease is freed now, so the upload at SIGTERM and `restore` are not refused by it.
    if (expired) {
      this.releaseAbandoned();
      log.warn("backup upload abandoned at stop: still running at the bound", { boundMs: graceMs });
    }
  }

  private releaseAbandoned(): void {
    const { db } = this.deps;
    query<never, [error: string, job: string, holder: string]>(
      db,
      "UPDATE job_leases SET holder = NULL, expires_at_ms = 0, last_error = ? WHERE job = ? AND holder = ?",
    ).run("stopped before the upload finished", BACKUP_LEASE, this.deps.holder);
  }
}

/**
 * Runs `schedule` alongside the job scheduler: it starts when the scheduler's schedules start (JOBS
 * on) and stops, its upload in flight bounded, when the scheduler stops. The scheduler knows only
 * SPEC's jobs, so the backup rides on its start and stop instead of joining its list.
 */
export function scheduleBackupsWith(scheduler: Scheduler, schedule: BackupSchedule): void {
  const start = scheduler.start.bind(scheduler);
  const stop = scheduler.stop.bind(scheduler);
  scheduler.start = () => {
    start();
    schedule.start();
  };
  scheduler.stop = async (timeoutMs?: number) => {
    await Promise.all([schedule.stop(), stop(timeoutMs)]);
  };
}

export interface BackupHealth {
  lastRunAt: string | null;
  lastOkAt: string | null;
  lastError: string | null;
  runs: number;
  running: boolean;
}

/** The backup lease's record, for `/api/cron/health`; null when no backup ever ran on this database. */
export function backupHealth(db: Db, nowMs = Date.now()): BackupHealth | null {
  const row = query<
    {
      holder: string | null;
      expiresAtMs: bigint | number;
      runs: bigint | number;
      lastRunAtMs: bigint | number | null;
      lastOkAtMs: bigint | number | null;
      lastError: string | null;
    },
    [job: string]
  >(
    db,
    "SELECT holder, expires_at_ms AS expiresAtMs, runs, last_run_at_ms AS lastRunAtMs, last_ok_at_ms AS lastOkAtMs, last_error AS lastError FROM job_leases WHERE job = ?",
  ).get(BACKUP_LEASE);
  if (!row) return null;
  const iso = (ms: bigint | number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());
  return {
    lastRunAt: iso(row.lastRunAtMs),
    lastOkAt: iso(row.lastOkAtMs),
    lastError: row.lastError,
    runs: Number(row.runs),
    running: row.holder !== null && Number(row.expiresAtMs) > nowMs,
  };
}
