/**
 * What the operator page reads beyond the admin actions: job runs with their errors, the settings
 * in force, and tokens (hidden ones included) to hide or unhide. Sign-ins to the page are audited
 * like any admin action.
 */
import type { Db } from "../../db/client";
import type { Config } from "../config";
import { jobHealth, type HealthReport } from "../jobs";
import { immediate } from "../../db/transaction";
import { getPlatformTokenMint, settingsInForce } from "../settings";
import { isoMs, isoMsOrNull } from "../http/public-schemas";
import { type AdminOrigin, ADMIN_PAGE_ACTOR } from "./authorized";
import { audit } from "./service";

export { ADMIN_PAGE_ACTOR };
const RECENT_RUNS = 40;
const TOKEN_ROWS = 50;

export interface JobRun {
  id: number;
  job: string;
  startedAt: string;
  finishedAt: string | null;
  ok: boolean | null;
  error: string | null;
}

export interface AdminOverview {
  health: HealthReport;
  runs: JobRun[];
  settings: {
    minClaimLamports: string;
    autopayMinLamports: string;
    claimsPaused: boolean;
    launchesPaused: boolean;
    platformTokenMint: string | null;
  };
}

interface JobRunRow {
  id: bigint;
  job: string;
  startedAtMs: bigint;
  finishedAtMs: bigint | null;
  ok: bigint | null;
  error: string | null;
}

export function adminOverview(db: Db, config: Config, nowMs: number): AdminOverview {
  const runs = db.$client
    .query<JobRunRow, [number]>(
      `SELECT id, job, started_at_ms AS startedAtMs, finished_at_ms AS finishedAtMs, ok, error
         FROM job_runs ORDER BY id DESC LIMIT ?`,
    )
    .all(RECENT_RUNS);
  const s = settingsInForce(db, config);
  return {
    health: jobHealth(db, nowMs),
    runs: runs.map((r) => ({
      id: Number(r.id),
      job: r.job,
      startedAt: isoMs(r.startedAtMs),
      finishedAt: isoMsOrNull(r.finishedAtMs),
      ok: r.ok === null ? null : Number(r.ok) === 1,
      error: r.error,
    })),
    settings: {
      minClaimLamports: s.minClaimLamports.toString(),
      autopayMinLamports: s.autopayMinLamports.toString(),
      claimsPaused: s.claimsPaused,
      launchesPaused: s.launchesPaused,
      platformTokenMint: getPlatformTokenMint(db),
    },
  };
}

export interface AdminToken {
  mint: string;
  name: string;
  symbol: string;
  hidden: boolean;
  launchedAt: string;
}

/** Newest first; `q` matches the start of a mint or anywhere in a name or symbol (case-insensitive). */
export function adminTokens(db: Db, q: string | null): AdminToken[] {
  const escaped = q ? q.replace(/[\\%_]/g, (m) => `\\${m}`) : null;
  const rows = db.$client
    .query<
      { mint: string; name: string; symbol: string; hidden: bigint; launchedAtMs: bigint },
      [string | null, string | null, number]
    >(
      `SELECT mint, name, symbol, hidden, launched_at_ms AS launchedAtMs FROM tokens
        WHERE ?1 IS NULL OR mint LIKE ?2 ESCAPE '\\' OR name LIKE ?1 ESCAPE '\\' OR symbol LIKE ?1 ESCAPE '\\'
        ORDER BY hidden DESC, launched_at_ms DESC, id DESC LIMIT ?3`,
    )
    .all(escaped === null ? null : `%${escaped}%`, escaped === null ? null : `${escaped}%`, TOKEN_ROWS);
  return rows.map((r) => ({
    mint: r.mint,
    name: r.name,
    symbol: r.symbol,
    hidden: Number(r.hidden) === 1,
    launchedAt: isoMs(r.launchedAtMs),
  }));
}

/** Sign-ins and sign-outs of the page, audited like any admin action: credential, request id, client IP. */
export function auditPageEvent(
  db: Db,
  action: "admin_sign_in" | "admin_sign_out" | "admin_sign_out_all",
  origin: AdminOrigin,
  nowMs: number,
  details: { subject?: string | null; reason?: string | null } = {},
): void {
  immediate(db, () => {
    audit(db, { ...origin, reason: details.reason ?? null, nowMs }, action, details.subject ?? null);
  });
}
