/**
 * Outflow caps and the gate every send of money passes. Outflow is what left (or is leaving) the
 * treasury in a rolling window: payouts sent, burn buys' budgets, withdrawals sent; a payout that
 * failed or provably expired, and a buy that failed, moved nothing and do not count. A send that
 * would take the window past its cap trips the breaker instead of going out.
 */
import type { Db } from "../../db/client";
import { lastResume, moneyHalt, raiseIncident, type Incident } from "./incidents";
import { query } from "../../db/statement";

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

export interface OutflowCaps {
  outflowMaxLamportsPerHour: bigint;
  outflowMaxLamportsPerDay: bigint;
}

/** Lamports that left or are leaving the treasury since `sinceMs`. */
export function outflowSince(db: Db, sinceMs: number): bigint {
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
 * Whether `lamports` more may leave now. A resume lets through what was waiting at that moment
 * (its allowance) on top of the cap of every window it falls in: the payouts an operator looked at
 * go out once, and everything else still counts against the caps.
 */
export function outflowAllows(
  db: Db,
  caps: OutflowCaps,
  nowMs: number,
  lamports: bigint,
): { ok: true } | { ok: false; kind: "outflow-hour" | "outflow-day"; detail: string } {
  const resume = lastResume(db);
  for (const [kind, windowMs, cap, label] of [
    ["outflow-hour", HOUR_MS, caps.outflowMaxLamportsPerHour, "hour"],
    ["outflow-day", DAY_MS, caps.outflowMaxLamportsPerDay, "day"],
  ] as const) {
    const windowStart = nowMs - windowMs;
    const granted = resume !== null && resume.atMs > windowStart;
    const limit = cap + (granted ? resume.allowanceLamports : 0n);
    const out = outflowSince(db, windowStart);
    if (out + lamports > limit) {
      return {
        ok: false,
        kind,
        detail: `sending ${lamports} lamports would take the outflow of the rolling ${label} to ${out + lamports}, above its cap of ${cap}`,
      };
    }
  }
  return { ok: true };
}

/**
 * The gate before a send of `lamports`: null when it may go; otherwise the halting incident that
 * stops it (an open one, or the outflow breaker tripping now).
 */
export function moneyGate(db: Db, caps: OutflowCaps, nowMs: number, lamports: bigint): Incident | null {
  const halted = moneyHalt(db);
  if (halted) return halted;
  const allowed = outflowAllows(db, caps, nowMs, lamports);
  if (allowed.ok) return null;
  return raiseIncident(db, { kind: allowed.kind, detail: allowed.detail, atMs: nowMs }).incident;
}

/** What is waiting to leave: queued payouts, pending burn orders, queued withdrawals (a resume's allowance). */
export function waitingOutflowLamports(db: Db): bigint {
  const row = query<{ payouts: bigint; burns: bigint; withdrawals: bigint }, []>(
    db,
    `SELECT
         (SELECT COALESCE(SUM(lamports), 0) FROM payouts WHERE status = 'queued') AS payouts,
         (SELECT COALESCE(SUM(lamports), 0) FROM burn_orders WHERE status = 'pending') AS burns,
         (SELECT COALESCE(SUM(lamports), 0) FROM withdrawals WHERE status = 'queued') AS withdrawals`,
  ).get()!;
  return BigInt(row.payouts) + BigInt(row.burns) + BigInt(row.withdrawals);
}
