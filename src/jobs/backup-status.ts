/**
 * Whether the off-site backups (src/backup) keep up, for health, /metrics and /admin. The backup
 * runs under the `backup` job lease, whose row keeps its last run, last success and last error;
 * what the lease does not keep (failures counted, the consecutive ones, the last generation's size)
 * is one `settings` row the backup writes after each run. Kept here, beside the health that reads
 * it, because the backup feature builds on the jobs' leases and not the other way round.
 */
import { Cron } from "croner";
import type { Db } from "../../db/client";
import { query } from "../../db/statement";

/** The backup's lease in `job_leases`. */
export const BACKUP_JOB = "backup";
const BACKUP_RECORD_KEY = "backup_record";

/** Missed generations at which the backups count as failing: health not ok, an incident. */
const BACKUP_MISSED_LIMIT = 2;

/** Missed generations are counted up to this many (a cron that fires every second would count on for ever). */
const MAX_COUNTED = 100;

interface BackupRecord {
  failuresTotal: number;
  consecutiveFailures: number;
  lastSizeBytes: number | null;
  /** when backups were first scheduled or tried on this database: the count of missed ones starts there */
  sinceMs: number;
}

export interface BackupStatus {
  /** false once `missedGenerations` reaches two */
  ok: boolean;
  /** scheduled generations since the last success that did not become one (the one running now not counted) */
  missedGenerations: number;
  lastOkAt: string | null;
  lastRunAt: string | null;
  lastError: string | null;
  running: boolean;
  failuresTotal: number;
  consecutiveFailures: number;
  lastSizeBytes: number | null;
}

function readRecord(db: Db): BackupRecord | null {
  const row = query<{ value: string }, [key: string]>(db, "SELECT value FROM settings WHERE key = ?").get(
    BACKUP_RECORD_KEY,
  );
  return row ? (JSON.parse(row.value) as BackupRecord) : null;
}

function writeRecord(db: Db, record: BackupRecord): void {
  query<never, [key: string, value: string]>(
    db,
    "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = ?2",
  ).run(BACKUP_RECORD_KEY, JSON.stringify(record));
}

/** The schedule started: a schedule that then never runs a backup still counts its missed generations. */
export function noteBackupsScheduled(db: Db, nowMs: number): void {
  if (readRecord(db) === null)
    writeRecord(db, { failuresTotal: 0, consecutiveFailures: 0, lastSizeBytes: null, sinceMs: nowMs });
}

/** One finished upload (`bytes` when it succeeded, null when it failed). */
export function recordBackupOutcome(db: Db, outcome: { ok: boolean; bytes: number | null }, nowMs: number): void {
  const record = readRecord(db) ?? { failuresTotal: 0, consecutiveFailures: 0, lastSizeBytes: null, sinceMs: nowMs };
  writeRecord(
    db,
    outcome.ok
      ? { ...record, consecutiveFailures: 0, lastSizeBytes: outcome.bytes }
      : { ...record, failuresTotal: record.failuresTotal + 1, consecutiveFailures: record.consecutiveFailures + 1 },
  );
}

/** Schedule times in (fromMs, toMs], at most `cap` of them. */
function firesBetween(schedule: string, fromMs: number, toMs: number, cap: number): number {
  const cron = new Cron(schedule, { paused: true });
  try {
    return cron.nextRuns(cap, new Date(fromMs)).filter((at) => at.getTime() <= toMs).length;
  } finally {
    cron.stop();
  }
}

/**
 * The backups' state; null when no backup is configured (`url` null). A generation is missed when
 * its run failed, or when its time passed with no run at all (a schedule that stopped): the
 * newest scheduled time is given the benefit of the doubt, its run may be under way.
 */
export function backupStatus(
  db: Db,
  backup: { url: string | null; schedule: string },
  nowMs: number,
): BackupStatus | null {
  if (backup.url === null) return null;
  const lease = query<
    {
      holder: string | null;
      expiresAtMs: bigint | number;
      lastRunAtMs: bigint | number | null;
      lastOkAtMs: bigint | number | null;
      lastError: string | null;
    },
    [job: string]
  >(
    db,
    "SELECT holder, expires_at_ms AS expiresAtMs, last_run_at_ms AS lastRunAtMs, last_ok_at_ms AS lastOkAtMs, last_error AS lastError FROM job_leases WHERE job = ?",
  ).get(BACKUP_JOB);
  const record = readRecord(db);
  const lastOkAtMs = lease?.lastOkAtMs == null ? null : Number(lease.lastOkAtMs);
  const lastRunAtMs = lease?.lastRunAtMs == null ? null : Number(lease.lastRunAtMs);
  const sinceMs = lastOkAtMs ?? record?.sinceMs ?? lastRunAtMs;
  const consecutiveFailures = record?.consecutiveFailures ?? 0;
  const unattended = sinceMs === null ? 0 : Math.max(0, firesBetween(backup.schedule, sinceMs, nowMs, MAX_COUNTED) - 1);
  const missedGenerations = Math.max(consecutiveFailures, unattended);
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    ok: missedGenerations < BACKUP_MISSED_LIMIT,
    missedGenerations,
    lastOkAt: iso(lastOkAtMs),
    lastRunAt: iso(lastRunAtMs),
    lastError: lease?.lastError ?? null,
    running: lease ? lease.holder !== null && Number(lease.expiresAtMs) > nowMs : false,
    failuresTotal: record?.failuresTotal ?? 0,
    consecutiveFailures,
    lastSizeBytes: record?.lastSizeBytes ?? null,
  };
}

/** What the public health shows of the backups: whether they keep up, never the store's errors or names. */
export function publicBackupStatus(status: BackupStatus): Pick<BackupStatus, "ok" | "missedGenerations" | "lastOkAt"> {
  return { ok: status.ok, missedGenerations: status.missedGenerations, lastOkAt: status.lastOkAt };
}
