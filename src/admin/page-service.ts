/**
 * What the operator page reads beyond the admin actions: job runs with their errors, the settings
 * in force, and tokens (hidden ones included) to hide or unhide. Sign-ins to the page are audited
 * like any admin action.
 */
import type { Db } from "../../db/client";
import { jobRuns, tokens } from "../../db/schema";
import { columnsOf, statement, type TableRow } from "../../db/statement";
import { claimsPausedCode, claimsPausedReason } from "../custody";
import { jobHealth, jobSetup, type HealthReport, type JobRunner, type SchedulingContext } from "../jobs";
import { immediate } from "../../db/transaction";
import { getPlatformTokenMint, settingsInForce } from "../settings";
import { isoMs, isoMsOrNull } from "../http/public-schemas";
import type { AdminOrigin } from "./authorized";
import { audit } from "./service";
const RECENT_RUNS = 40;
const TOKEN_ROWS = 50;

interface JobRun {
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
    /** whether a claim is refused now (503), as `/api/me` says: the operator's pause or a halt */
    claimsPaused: boolean;
    /** the operator's own pause, which the pause/resume control sets; a halt is resumed under Custody */
    claimsPausedByOperator: boolean;
    /** the sentence a refused claim answers with; null while claims are open */
    claimsPausedReason: string | null;
    launchesPaused: boolean;
    platformTokenMint: string | null;
  };
}

const RUN_FIELDS = ["id", "job", "startedAtMs", "finishedAtMs", "ok", "error"] as const;
type JobRunRow = Pick<TableRow<typeof jobRuns>, (typeof RUN_FIELDS)[number]>;
const recentRuns = statement<JobRunRow, [limit: number]>(
  `SELECT ${columnsOf(jobRuns, { only: RUN_FIELDS })} FROM job_runs ORDER BY id DESC LIMIT ?`,
);

const TOKEN_FIELDS = ["mint", "name", "symbol", "hidden", "launchedAtMs"] as const;
type TokenRow = Pick<TableRow<typeof tokens>, (typeof TOKEN_FIELDS)[number]>;
const matchingTokens = statement<TokenRow, [contains: string | null, startsWith: string | null, limit: number]>(
  `SELECT ${columnsOf(tokens, { only: TOKEN_FIELDS })} FROM tokens
    WHERE ?1 IS NULL OR mint LIKE ?2 ESCAPE '\\' OR name LIKE ?1 ESCAPE '\\' OR symbol LIKE ?1 ESCAPE '\\'
    ORDER BY hidden DESC, launched_at_ms DESC, id DESC LIMIT ?3`,
);

/**
 * The page's figures come from the sources the API answers from: job health from the same call
 * `/api/cron/health` makes (with this deployment's job setup, so a job it does not configure is
 * not called stale), claims from what a claim is answered.
 */
export function adminOverview(ctx: SchedulingContext<JobRunner>): AdminOverview {
  const { db, config } = ctx;
  const nowMs = ctx.now();
  const runs = recentRuns(db).all(RECENT_RUNS);
  const s = settingsInForce(db, config);
  return {
    health: jobHealth(db, nowMs, jobSetup(ctx), config.backup),
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
      claimsPaused: claimsPausedCode(db) !== null,
      claimsPausedByOperator: s.claimsPaused,
      claimsPausedReason: claimsPausedReason(db),
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
  const rows = matchingTokens(db).all(
    escaped === null ? null : `%${escaped}%`,
    escaped === null ? null : `${escaped}%`,
    TOKEN_ROWS,
  );
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
