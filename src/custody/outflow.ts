/**
 * Outflow caps and the gate every send of money passes. Outflow is what left (or is leaving) the
 * treasury in a rolling window: payouts sent, burn buys' budgets, withdrawals sent; a payout that
 * failed or provably expired, and a buy that failed, moved nothing and do not count. A send that
 * would take the window past its cap trips the breaker instead of going out.
 */
import type { Db } from "../../db/client";
import { moneyHalt, raiseIncident, type Incident } from "./incidents";
import { type OutflowRow, type OutflowRows, type ReleasedRows, releasedOutflow, totalOf } from "./release";
import { query } from "../../db/statement";
import { log } from "../lib/log";
import { solText } from "../lib/sol-text";

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

export interface OutflowCaps {
  outflowMaxLamportsPerHour: bigint;
  outflowMaxLamportsPerDay: bigint;
}

/** Lamports that left or are leaving the treasury since `sinceMs`. */
function outflowSince(db: Db, sinceMs: number): bigint {
  const row = query<{ payouts: bigint; buys: bigint; withdrawals: bigint }, [sinceMs: number]>(
    db,
    `SELECT
         (SELECT COALESCE(SUM(lamports), 0) FROM payouts WHERE status IN ('sent', 'confirmed') AND sent_at_ms >= ?1) AS payouts,
         (SELECT COALESCE(SUM(lamports), 0) FROM burn_buys WHERE status <> 'failed' AND created_at_ms >= ?1) AS buys,
         (SELECT COALESCE(SUM(lamports), 0) FROM withdrawals WHERE status IN ('sent', 'confirmed') AND sent_at_ms >= ?1) AS withdrawals`,
  ).get(sinceMs)!;
  return BigInt(row.payouts) + BigInt(row.buys) + BigInt(row.withdrawals);
}

/**
 * Whether `lamports` more may leave now, carrying `rows` (a burn buy names none). What a resume
 * released (release.ts) leaves beyond the caps: it is left out of the window's outflow and of the
 * send; everything else that left in the window, and the rest of the send, counts against the cap.
 */
export function outflowAllows(
  db: Db,
  caps: OutflowCaps,
  nowMs: number,
  lamports: bigint,
  rows?: OutflowRows,
): { ok: true } | { ok: false; kind: "outflow-hour" | "outflow-day"; detail: string } {
  const released = releasedOutflow(db, nowMs);
  const counted = lamports - released.ofSend(lamports, rows);
  // Wholly released: the operator let exactly this out beyond the caps, whatever the window holds
  // (a reconciliation may have filled it with what the chain paid before a restore).
  if (counted <= 0n) return { ok: true };
  for (const [kind, windowMs, cap, label] of [
    ["outflow-hour", HOUR_MS, caps.outflowMaxLamportsPerHour, "hour"],
    ["outflow-day", DAY_MS, caps.outflowMaxLamportsPerDay, "day"],
  ] as const) {
    const windowStart = nowMs - windowMs;
    const left = outflowSince(db, windowStart);
    const releasedLeft = released.leftSince(windowStart);
    // What left released is part of what left: more means it was counted twice, and the gate
    // fails closed (everything counts) rather than let the difference past the cap.
    if (releasedLeft > left) log.error("released outflow exceeds the outflow; counting all of it", { kind });
    const out = releasedLeft > left ? left : left - releasedLeft;
    if (out + counted > cap) {
      return {
        ok: false,
        kind,
        detail: `sending ${solText(lamports)} would take the outflow of the rolling ${label} to ${solText(out + counted)}, above its cap of ${solText(cap)}`,
      };
    }
  }
  return { ok: true };
}

/**
 * The gate before a send of `lamports`: null when it may go; otherwise the halting incident that
 * stops it (an open one, or the outflow breaker tripping now).
 */
export function moneyGate(
  db: Db,
  caps: OutflowCaps,
  nowMs: number,
  lamports: bigint,
  rows?: OutflowRows,
): Incident | null {
  const halted = moneyHalt(db);
  if (halted) return halted;
  const allowed = outflowAllows(db, caps, nowMs, lamports, rows);
  if (allowed.ok) return null;
  return raiseIncident(db, { kind: allowed.kind, detail: allowed.detail, atMs: nowMs }).incident;
}

const waitingRows = (db: Db, sql: string): OutflowRow[] =>
  query<{ id: bigint; lamports: bigint }, []>(db, sql)
    .all()
    .map((r) => ({ id: Number(r.id), lamports: BigInt(r.lamports) }));

/**
 * What is waiting to leave, row by row: queued payouts, pending burn orders, queued withdrawals.
 * /admin lists them while money is halted, and a resume releases exactly these (release.ts).
 */
export function waitingOutflow(db: Db): ReleasedRows & { totalLamports: bigint } {
  const rows = {
    payouts: waitingRows(db, "SELECT id, lamports FROM payouts WHERE status = 'queued' ORDER BY id"),
    withdrawals: waitingRows(db, "SELECT id, lamports FROM withdrawals WHERE status = 'queued' ORDER BY id"),
    burnOrders: waitingRows(db, "SELECT id, lamports FROM burn_orders WHERE status = 'pending' ORDER BY id"),
  };
  return { ...rows, totalLamports: totalOf(rows) };
}
