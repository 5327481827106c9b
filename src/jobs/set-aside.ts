/**
 * Set-aside tokens of the money jobs: one mint that cannot be swept or bought (collect always
 * failing, pool missing, buy too small) must not fail its batch or the whole run every time. Each
 * failure of a token is counted; from SET_ASIDE_AFTER consecutive failures on, the token is set
 * aside and only retried on a back-off. A token whose sweep credit disagrees with the transfer that
 * moved it is stopped outright (no retry time) until an operator looks. A success clears the row.
 * A token stopped because the program changed under it is held back from every job.
 *
 * Times are the job's clock (`atMs`), so the simulation's virtual clock drives the back-off.
 */
import type { Db } from "../../db/client";
import { setAside } from "../../db/schema";
import { columnsOf, query, type TableRow } from "../../db/statement";
import { immediate } from "../../db/transaction";

export type SetAsideJob = "sweep" | "burns";

const SET_ASIDE_AFTER = 3;
const SET_ASIDE_BACKOFF_BASE_MS = 10 * 60_000;
const SET_ASIDE_BACKOFF_MAX_MS = 24 * 60 * 60_000;
const REASON_MAX = 300;

export interface SetAsideItem {
  mint: string;
  symbol: string | null;
  job: SetAsideJob;
  reason: string;
  failures: number;
  since: string;
  retryAt: string | null;
}

type Row = TableRow<typeof setAside>;

/** The back-off after `failures` consecutive failures (the first set-aside waits the base). */
function setAsideBackoffMs(failures: number): number {
  const step = Math.max(0, failures - SET_ASIDE_AFTER);
  return Math.min(SET_ASIDE_BACKOFF_MAX_MS, SET_ASIDE_BACKOFF_BASE_MS * 2 ** Math.min(step, 20));
}

const SELECT_ROW = `SELECT ${columnsOf(setAside)} FROM set_aside`;

function read(db: Db, mint: string, job: SetAsideJob): Row | null {
  return query<Row, [mint: string, job: SetAsideJob]>(db, `${SELECT_ROW} WHERE mint = ? AND job = ?`).get(mint, job);
}

/** One more failure of this token; returns whether it is (now) set aside. */
export function recordTokenFailure(
  db: Db,
  f: { mint: string; job: SetAsideJob; reason: string; atMs: number },
  assertHeld?: () => void,
): { setAside: boolean; failures: number } {
  return immediate(db, () => {
    assertHeld?.();
    const row = read(db, f.mint, f.job);
    if (row && row.setAsideAtMs !== null && row.retryAtMs === null)
      return { setAside: true, failures: Number(row.failures) };
    const failures = (row ? Number(row.failures) : 0) + 1;
    const setAside = failures >= SET_ASIDE_AFTER;
    const setAsideAtMs = setAside
      ? row?.setAsideAtMs !== null && row?.setAsideAtMs !== undefined
        ? Number(row.setAsideAtMs)
        : f.atMs
      : null;
    const retryAtMs = setAside ? f.atMs + setAsideBackoffMs(failures) : null;
    query<
      never,
      [
        mint: string,
        job: SetAsideJob,
        reason: string,
        failures: number,
        sinceMs: number,
        setAsideAtMs: number | null,
        retryAtMs: number | null,
      ]
    >(
      db,
      `INSERT INTO set_aside (mint, job, reason, failures, since_ms, set_aside_at_ms, retry_at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
         ON CONFLICT (mint, job) DO UPDATE SET reason = ?3, failures = ?4, set_aside_at_ms = ?6, retry_at_ms = ?7`,
    ).run(f.mint, f.job, f.reason.slice(0, REASON_MAX), failures, f.atMs, setAsideAtMs, retryAtMs);
    return { setAside, failures };
  });
}

/** Stops a token until an operator clears it (a credit that disagrees with the chain). Idempotent. */
export function stopToken(
  db: Db,
  s: { mint: string; job: SetAsideJob; reason: string; atMs: number },
  assertHeld?: () => void,
): void {
  immediate(db, () => {
    assertHeld?.();
    const row = read(db, s.mint, s.job);
    if (row && row.setAsideAtMs !== null && row.retryAtMs === null) return;
    query<never, [mint: string, job: SetAsideJob, reason: string, atMs: number]>(
      db,
      `INSERT INTO set_aside (mint, job, reason, failures, since_ms, set_aside_at_ms, retry_at_ms) VALUES (?1, ?2, ?3, 1, ?4, ?4, NULL)
         ON CONFLICT (mint, job) DO UPDATE SET reason = ?3, failures = failures + 1, set_aside_at_ms = ?4, retry_at_ms = NULL`,
    ).run(s.mint, s.job, s.reason.slice(0, REASON_MAX), s.atMs);
  });
}

/** The token worked: its failures are forgotten (a stopped token stays stopped). */
export function recordTokenSuccess(db: Db, mint: string, job: SetAsideJob, assertHeld?: () => void): void {
  immediate(db, () => {
    assertHeld?.();
    query<never, [mint: string, job: SetAsideJob]>(
      db,
      "DELETE FROM set_aside WHERE mint = ? AND job = ? AND NOT (set_aside_at_ms IS NOT NULL AND retry_at_ms IS NULL)",
    ).run(mint, job);
  });
}

/**
 * How a stop for a program change reads (the adapters' `programChanged`, "program-changed: …"):
 * accounts in a layout the adapter does not know make every instruction built on them a guess.
 */
const PROGRAM_CHANGED_REASON_PREFIX = "program-changed: ";

/**
 * Mints the job must not try now: set aside and not yet due, or stopped; and, whichever job found
 * it, a mint stopped for a program change (a burn buy built on a layout nobody knows is as much a
 * guess as a sweep's reading), until an operator clears that stop.
 */
export function heldBackMints(db: Db, job: SetAsideJob, nowMs: number): Set<string> {
  const rows = query<{ mint: string }, [SetAsideJob, number, string]>(
    db,
    `SELECT mint FROM set_aside
      WHERE set_aside_at_ms IS NOT NULL
        AND ((job = ?1 AND (retry_at_ms IS NULL OR retry_at_ms > ?2))
          OR (retry_at_ms IS NULL AND substr(reason, 1, length(?3)) = ?3))`,
  ).all(job, nowMs, PROGRAM_CHANGED_REASON_PREFIX);
  return new Set(rows.map((r) => r.mint));
}

/** Mints that failed at least once and have not worked since: they go in a transaction of their own. */
export function suspectMints(db: Db, job: SetAsideJob): Set<string> {
  const rows = query<{ mint: string }, [SetAsideJob]>(db, "SELECT mint FROM set_aside WHERE job = ?").all(job);
  return new Set(rows.map((r) => r.mint));
}

/** The admin list (`GET /api/admin/set-aside`): set-aside and stopped tokens, oldest first. */
export function listSetAside(db: Db, limit = 1_000): SetAsideItem[] {
  const rows = query<Omit<Row, "setAsideAtMs"> & { symbol: string | null }, [number]>(
    db,
    `SELECT s.mint, s.job, s.reason, s.failures, s.since_ms AS sinceMs, s.retry_at_ms AS retryAtMs, t.symbol
         FROM set_aside s LEFT JOIN tokens t ON t.mint = s.mint
        WHERE s.set_aside_at_ms IS NOT NULL ORDER BY s.since_ms, s.mint, s.job LIMIT ?`,
  ).all(limit);
  return rows.map((r) => ({
    mint: r.mint,
    symbol: r.symbol ?? null,
    job: r.job,
    reason: r.reason,
    failures: Number(r.failures),
    since: new Date(Number(r.sinceMs)).toISOString(),
    retryAt: r.retryAtMs === null ? null : new Date(Number(r.retryAtMs)).toISOString(),
  }));
}

// ---------------------------------------------------------------- operator clear

/** One set-aside row of a token as the operator clear sees it. */
export interface SetAsideState {
  job: SetAsideJob;
  /** stopped on a credit mismatch (no retry time), rather than set aside on a back-off */
  stopped: boolean;
  failures: number;
}

function stateOf(r: Row): SetAsideState {
  return { job: r.job, stopped: r.setAsideAtMs !== null && r.retryAtMs === null, failures: Number(r.failures) };
}

/** The rows of this token (of one job when given), set aside or only counting failures. */
export function setAsideStates(db: Db, mint: string, job: SetAsideJob | null): SetAsideState[] {
  const rows =
    job === null
      ? query<Row, [mint: string]>(db, `${SELECT_ROW} WHERE mint = ? ORDER BY job`).all(mint)
      : query<Row, [mint: string, job: SetAsideJob]>(db, `${SELECT_ROW} WHERE mint = ? AND job = ?`).all(mint, job);
  return rows.map(stateOf);
}

/**
 * Forgets the rows of this token the operator looked at, in one transaction with `audit` (the
 * admin audit row), so the clear never happens unaudited. Refuses (false, nothing written) when
 * the rows changed since `seen` was read: a token stopped meanwhile must be looked at again.
 * Clearing credits nothing: a stopped sweep stays `sent`, and the sweep job credits it on its next
 * run through its own cross-check, exactly as if it had never been stopped.
 */
export function clearSetAside(db: Db, mint: string, seen: readonly SetAsideState[], audit: () => void): boolean {
  return immediate(db, () => {
    const now = setAsideStates(db, mint, null).filter((r) => seen.some((s) => s.job === r.job));
    const same =
      now.length === seen.length &&
      now.every((r) => seen.some((s) => s.job === r.job && s.stopped === r.stopped && s.failures === r.failures));
    if (!same) return false;
    const forget = query<never, [string, SetAsideJob]>(db, "DELETE FROM set_aside WHERE mint = ? AND job = ?");
    for (const r of seen) forget.run(mint, r.job);
    audit();
    return true;
  });
}
