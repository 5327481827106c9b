/**
 * Custody incidents and the halted state. A breaker that trips (the treasury short of what is
 * owed, broken books, an outflow cap) opens a halting incident: payouts, burn buys and withdrawals
 * stop sending until an operator resumes, with a reason. Distinct from the admin pause: a pause is
 * an operator's choice, a halt is the service refusing to go on by itself. A warning (the surplus
 * under the reserve) is recorded and clears itself when the surplus recovers. One open incident per
 * kind, so a breaker that keeps tripping does not flood the operator.
 */
import type { Db } from "../../db/client";
import { immediate } from "../../db/transaction";
import { AppError } from "../lib/errors";
import { log } from "../lib/log";
import { custodyIncidents } from "../../db/schema";
import { columnsOf, query, type TableRow } from "../../db/statement";
import { type ReleasedRows, recordRelease } from "./release";

export const HALTING_KINDS = [
  "shortfall",
  "audit",
  "outflow-hour",
  "outflow-day",
  "reconciling",
  "unknown-transaction",
] as const;
/**
 * Held by the reconciliation with the chain while it runs (src/reconcile) and resolved by it alone:
 * an operator's resume cannot let money move while the books may still miss what the chain did.
 */
const SYSTEM_RESOLVED_KINDS: readonly IncidentKind[] = ["reconciling"];
export const WARNING_KINDS = ["reserve-low", "token-anomaly", "program-changed", "backup-missed"] as const;
export type IncidentKind = (typeof HALTING_KINDS)[number] | (typeof WARNING_KINDS)[number];

export interface Incident {
  id: number;
  kind: IncidentKind;
  detail: string;
  halts: boolean;
  atMs: number;
  resolvedAtMs: number | null;
  resolvedBy: string | null;
  resolveReason: string | null;
}

/** The kind's type is the schema's list, which a CHECK holds the column to (migration 0024). */
type IncidentRow = TableRow<typeof custodyIncidents>;

const COLUMNS = columnsOf(custodyIncidents);

function toIncident(r: IncidentRow): Incident {
  return {
    id: Number(r.id),
    kind: r.kind,
    detail: r.detail,
    halts: Number(r.halts) === 1,
    atMs: Number(r.atMs),
    resolvedAtMs: r.resolvedAtMs === null ? null : Number(r.resolvedAtMs),
    resolvedBy: r.resolvedBy,
    resolveReason: r.resolveReason,
  };
}

/** What learns of a new incident inside its own transaction (the webhook outbox, set by the composition root). */
export type IncidentListener = (db: Db, incident: Incident) => void;
const listeners = new Set<IncidentListener>();

export function onIncident(listener: IncidentListener): void {
  listeners.add(listener);
}

/**
 * Opens an incident of `kind` unless one is open already; returns the open one and whether it is
 * new. Runs in its own immediate transaction (or the caller's, when inside one).
 */
export function raiseIncident(
  db: Db,
  raised: { kind: IncidentKind; detail: string; atMs: number },
): { incident: Incident; created: boolean } {
  const work = () => {
    const open = query<IncidentRow, [kind: string]>(
      db,
      `SELECT ${COLUMNS} FROM custody_incidents WHERE resolved_at_ms IS NULL AND kind = ? LIMIT 1`,
    ).get(raised.kind);
    if (open) return { incident: toIncident(open), created: false };
    const halts = (HALTING_KINDS as readonly string[]).includes(raised.kind);
    const row = query<IncidentRow, [kind: string, detail: string, halts: number, atMs: number]>(
      db,
      `INSERT INTO custody_incidents (kind, detail, halts, at_ms) VALUES (?, ?, ?, ?) RETURNING ${COLUMNS}`,
    ).get(raised.kind, raised.detail.slice(0, 500), halts ? 1 : 0, raised.atMs);
    const incident = toIncident(row!);
    for (const listener of listeners) listener(db, incident);
    return { incident, created: true };
  };
  const result = db.$client.inTransaction ? work() : immediate(db, work);
  if (result.created) {
    const { kind, detail, halts } = result.incident;
    if (halts)
      log.error("money halted: payouts, burn buys and withdrawals stop until an operator resumes", { kind, detail });
    else log.warn("custody warning", { kind, detail });
  }
  return result;
}

/** The first open halting incident, or the hold taken at start, or null when money may move. */
export function moneyHalt(db: Db): Incident | null {
  const row = query<IncidentRow, []>(
    db,
    `SELECT ${COLUMNS} FROM custody_incidents WHERE resolved_at_ms IS NULL AND halts = 1 ORDER BY id LIMIT 1`,
  ).get();
  if (row) return toIncident(row);
  const held = query<{ value: string }, [key: string]>(db, "SELECT value FROM settings WHERE key = ?").get(
    START_HOLD_KEY,
  );
  return held
    ? {
        id: 0,
        kind: "reconciling",
        detail: "the treasury's history since the last start is checked before money moves",
        halts: true,
        atMs: Number(held.value),
        resolvedAtMs: null,
        resolvedBy: null,
        resolveReason: null,
      }
    : null;
}

/**
 * The hold every start of the jobs takes until the reconciliation has checked the treasury's
 * history (src/reconcile). Not an incident: nothing happened yet, so nobody is told (no webhook,
 * no row in the operator's list); it halts money as a `reconciling` incident does, and only the
 * reconciliation lets it go.
 */
export const START_HOLD_KEY = "money_start_hold";

export function holdMoneyAtStart(db: Db, atMs: number): void {
  query<never, [key: string, value: string]>(
    db,
    "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = ?2",
  ).run(START_HOLD_KEY, String(atMs));
}

export function releaseStartHold(db: Db): void {
  query<never, [key: string]>(db, "DELETE FROM settings WHERE key = ?").run(START_HOLD_KEY);
}

export function listIncidents(db: Db, limit: number): Incident[] {
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new AppError("LIST_LIMIT_INVALID");
  return query<IncidentRow, [limit: number]>(db, `SELECT ${COLUMNS} FROM custody_incidents ORDER BY id DESC LIMIT ?`)
    .all(limit)
    .map(toIncident);
}

/** Closes open incidents of these kinds (a warning whose cause went away); returns how many. */
export function clearIncidents(db: Db, kinds: readonly IncidentKind[], atMs: number): number {
  let cleared = 0;
  for (const kind of kinds) {
    cleared += query<never, [atMs: number, kind: string]>(
      db,
      `UPDATE custody_incidents SET resolved_at_ms = ?, resolved_by = 'system', resolve_reason = 'the cause went away'
          WHERE resolved_at_ms IS NULL AND kind = ?`,
    ).run(atMs, kind).changes;
  }
  return cleared;
}

/** Whether money is held by something a resume cannot lift: the reconciliation, or the hold every start takes. */
function heldBySystem(db: Db): boolean {
  const kinds = SYSTEM_RESOLVED_KINDS.map((k) => `'${k}'`).join(", ");
  const row = query<{ held: bigint | number }, [key: string]>(
    db,
    `SELECT EXISTS (SELECT 1 FROM custody_incidents WHERE resolved_at_ms IS NULL AND kind IN (${kinds}))
         OR EXISTS (SELECT 1 FROM settings WHERE key = ?) AS held`,
  ).get(START_HOLD_KEY);
  return Number(row?.held ?? 0) === 1;
}

/**
 * An operator resumes: every open halting incident is resolved with their reason, and `release`
 * (the rows that were waiting to leave, as /admin listed them) goes out once even above an outflow
 * cap (release.ts). Refused when money is not halted (nothing is granted for later) and while the
 * reconciliation holds it (a resume cannot lift that, and must not say it did). Call inside the
 * audit's transaction. Returns the incidents resolved and the released total.
 */
export function resumeMoney(
  db: Db,
  resume: { actor: string; reason: string; atMs: number; release: ReleasedRows },
): { resolved: number; releasedLamports: bigint } {
  if (!db.$client.inTransaction) throw new AppError("LEDGER_INVARIANT", "a resume must run inside a transaction");
  if (resume.reason.trim() === "") throw new AppError("REASON_REQUIRED");
  if (!moneyHalt(db)) throw new AppError("MONEY_NOT_HALTED");
  if (heldBySystem(db)) throw new AppError("MONEY_HELD_RECONCILING");
  const resolved = query<never, [atMs: number, actor: string, reason: string]>(
    db,
    `UPDATE custody_incidents SET resolved_at_ms = ?, resolved_by = ?, resolve_reason = ?
        WHERE resolved_at_ms IS NULL AND halts = 1`,
  ).run(resume.atMs, resume.actor, resume.reason.slice(0, 500)).changes;
  return { resolved, releasedLamports: recordRelease(db, resume.atMs, resume.release) };
}

/** Incidents by kind ever opened, for /metrics. */
export function incidentCounts(db: Db): { kind: string; n: number; open: number }[] {
  return query<{ kind: string; n: bigint; open: bigint }, []>(
    db,
    `SELECT kind, COUNT(*) AS n, SUM(resolved_at_ms IS NULL) AS open FROM custody_incidents GROUP BY kind ORDER BY kind`,
  )
    .all()
    .map((r) => ({ kind: r.kind, n: Number(r.n), open: Number(r.open) }));
}
