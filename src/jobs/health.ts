/** Job health as SPEC's `GET /api/cron/health` shows it. */
import type { Db } from "../../db/client";
import { undecidedTransactions } from "../landing";
import { moneyHalt } from "../custody";
import { providerHour, type ProviderHour } from "../chain/provider-usage";
import { JOB_NAMES, STALE_AFTER_SEC, type JobName } from "./names";
import { jobLeases } from "../../db/schema";
import { columnsOf, query, type TableRow } from "../../db/statement";
import { programWatchState } from "./program-watch";
import { backupStatus, type BackupStatus } from "./backup-status";

interface JobHealth {
  job: JobName;
  lastRunAt: string | null;
  lastOkAt: string | null;
  secondsSinceOk: number | null;
  stale: boolean;
  running: boolean;
  runs: number;
  lastError: string | null;
  /** false when the job has nothing to do on this deployment (e.g. `market` without a data source) */
  configured: boolean;
  /** when the schedule fires next; null when this process schedules no run of it */
  nextRunAt: string | null;
}

/** What this deployment runs: jobs it does not configure, and the schedules this process keeps. */
export interface JobSetup {
  notConfigured: readonly JobName[];
  nextRunAtMs(job: JobName, nowMs: number): number | null;
}

export interface HealthReport {
  ok: boolean;
  staleAfterSec: number;
  jobs: JobHealth[];
  checkedAt: string;
  /** tokens set aside by the money jobs; `stopped` ones (a credit mismatch) make `ok` false */
  setAside: { tokens: number; stopped: number };
  /** signed transactions no node has decided 10 minutes on (src/landing): they make `ok` false */
  undecided: { transactions: number; oldestSignedAt: string | null };
  /** a custody breaker that halted payouts, burn buys and withdrawals until an operator resumes; null when money moves */
  halted: { kind: string; detail: string; since: string } | null;
  /** what the RPC provider was asked per hour, by every thread (src/chain/provider-usage.ts) */
  provider: ProviderHour;
  /** the newest reconciliation with the chain (src/reconcile); absent when there never was one */
  reconciliation?: ReconciliationHealth;
  /** jobs standing still on a program upgrade no operator acknowledged yet; absent when none waits */
  programChange?: ProgramChangeHealth;
  /** the off-site backups (BACKUP_URL), when the caller passed their settings; absent without BACKUP_URL */
  backup?: BackupStatus;
}

/**
 * The public side of the program watch (src/jobs/program-watch.ts): which programs changed (their
 * names only; the operator reads the slots at /admin) and which jobs wait for an operator.
 */
interface ProgramChangeHealth {
  programs: string[];
  pausedJobs: JobName[];
  since: string;
}

interface ReconciliationHealth {
  status: "scanning" | "applying" | "done" | "blocked";
  reason: "restore" | "start";
  /** treasury signatures read, transactions to apply, applied so far, and those nobody can account for */
  scanned: number;
  total: number;
  applied: number;
  unknown: number;
  startedAt: string;
  finishedAt: string | null;
}

const LEASE_FIELDS = ["job", "holder", "expiresAtMs", "runs", "lastRunAtMs", "lastOkAtMs", "lastError"] as const;
type LeaseRow = Pick<TableRow<typeof jobLeases>, (typeof LEASE_FIELDS)[number]>;
const LEASE_COLUMNS = columnsOf(jobLeases, { only: LEASE_FIELDS });

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function jobHealth(
  db: Db,
  nowMs = Date.now(),
  setup: JobSetup | null = null,
  backupSettings: { url: string | null; schedule: string } | null = null,
): HealthReport {
  const rows = query<LeaseRow, []>(db, `SELECT ${LEASE_COLUMNS} FROM job_leases`).all();
  const byJob = new Map(rows.map((r) => [r.job, r]));
  const jobs = JOB_NAMES.map((job): JobHealth => {
    const row = byJob.get(job);
    const lastOkAtMs = row?.lastOkAtMs == null ? null : Number(row.lastOkAtMs);
    const lastRunAtMs = row?.lastRunAtMs == null ? null : Number(row.lastRunAtMs);
    const secondsSinceOk = lastOkAtMs === null ? null : Math.max(0, Math.floor((nowMs - lastOkAtMs) / 1000));
    return {
      job,
      lastRunAt: iso(lastRunAtMs),
      lastOkAt: iso(lastOkAtMs),
      secondsSinceOk,
      stale: secondsSinceOk === null || secondsSinceOk > STALE_AFTER_SEC,
      running: row ? row.holder !== null && Number(row.expiresAtMs) > nowMs : false,
      runs: row ? Number(row.runs) : 0,
      lastError: row?.lastError ?? null,
      configured: !setup?.notConfigured.includes(job),
      nextRunAt: iso(setup?.nextRunAtMs(job, nowMs) ?? null),
    };
  });
  const aside = setAsideCounts(db);
  const undecided = undecidedTransactions(db, nowMs);
  const halt = moneyHalt(db);
  const programChange = programChangeOf(db);
  const backup = backupSettings ? backupStatus(db, backupSettings, nowMs) : null;
  return {
    // A job with nothing to do here is not a reason to call the service unhealthy; a stopped
    // token is, and so is money in flight that no node can decide.
    ok:
      jobs.every((j) => !j.stale || !j.configured) &&
      aside.stopped === 0 &&
      undecided.transactions === 0 &&
      halt === null &&
      // A paused job still finishes its runs cleanly (it does nothing), so staleness never shows it.
      programChange === null &&
      // Backups that missed two generations in a row: the books are no longer safe off site.
      backup?.ok !== false,
    staleAfterSec: STALE_AFTER_SEC,
    jobs,
    checkedAt: new Date(nowMs).toISOString(),
    setAside: aside,
    undecided: { transactions: undecided.transactions, oldestSignedAt: iso(undecided.oldestPreparedAtMs) },
    halted: halt ? { kind: halt.kind, detail: halt.detail, since: new Date(halt.atMs).toISOString() } : null,
    provider: providerHour(db, nowMs),
    ...reconciliationOf(db),
    ...(programChange ? { programChange } : {}),
    ...(backup ? { backup } : {}),
  };
}

function programChangeOf(db: Db): ProgramChangeHealth | null {
  const { changes } = programWatchState(db);
  if (changes.length === 0) return null;
  const paused = new Set<string>(changes.flatMap((c) => c.builtBy));
  return {
    programs: [...new Set(changes.map((c) => c.name))],
    pausedJobs: JOB_NAMES.filter((job) => paused.has(job)),
    since: new Date(Math.min(...changes.map((c) => c.atMs))).toISOString(),
  };
}

function reconciliationOf(db: Db): { reconciliation?: ReconciliationHealth } {
  const row = query<
    {
      status: ReconciliationHealth["status"];
      reason: ReconciliationHealth["reason"];
      scanned: bigint;
      total: bigint;
      applied: bigint;
      unknown: bigint;
      startedAtMs: bigint;
      finishedAtMs: bigint | null;
    },
    []
  >(
    db,
    `SELECT status, reason, scanned, total, applied, unknown, started_at_ms AS startedAtMs, finished_at_ms AS finishedAtMs
         FROM reconciliations ORDER BY id DESC LIMIT 1`,
  ).get();
  if (!row) return {};
  return {
    reconciliation: {
      status: row.status,
      reason: row.reason,
      scanned: Number(row.scanned),
      total: Number(row.total),
      applied: Number(row.applied),
      unknown: Number(row.unknown),
      startedAt: new Date(Number(row.startedAtMs)).toISOString(),
      finishedAt: iso(row.finishedAtMs === null ? null : Number(row.finishedAtMs)),
    },
  };
}

function setAsideCounts(db: Db): { tokens: number; stopped: number } {
  const row = query<{ tokens: bigint; stopped: bigint }, []>(
    db,
    "SELECT COUNT(*) AS tokens, COALESCE(SUM(CASE WHEN retry_at_ms IS NULL THEN 1 ELSE 0 END), 0) AS stopped FROM set_aside WHERE set_aside_at_ms IS NOT NULL",
  ).get()!;
  return { tokens: Number(row.tokens), stopped: Number(row.stopped) };
}

/**
 * What the public health says of a halt: that money is halted, of which kind, and since when. The
 * incident's own detail (amounts against the outflow caps, treasury signatures) is for operators:
 * /admin and the admin routes read it from `jobHealth`.
 */
const PUBLIC_HALT_DETAIL = "payouts, burn buys and withdrawals are halted until an operator resumes";

export function publicHalted(halted: HealthReport["halted"]): HealthReport["halted"] {
  return halted ? { kind: halted.kind, detail: PUBLIC_HALT_DETAIL, since: halted.since } : null;
}
