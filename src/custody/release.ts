/**
 * What an operator's resume lets out beyond the outflow caps: exactly the rows that were waiting
 * (and that /admin listed) when they confirmed, by id, each once. Everything else, a claim made a
 * second after the resume included, counts against the caps as it always does.
 *
 * Releases are kept in `settings` (RESUME_KEY), every one still in force, so a second resume adds
 * its rows to the first's instead of putting back into the caps what the first let out. A released
 * row leaves beyond the caps within RELEASE_TTL_MS of its resume; one still waiting after that
 * counts like any other outflow. A payout that provably expired and was replaced stays released in
 * its replacement (the same money, sent again). Burn buys are not tied to their orders at the gate
 * (the burns job names none), so they spend the released orders' total, oldest buys first: a
 * mint's oldest orders are bought first, and the released ones were waiting before any new one.
 */
import type { Db } from "../../db/client";
import { query } from "../../db/statement";

/** Settings key of the releases in force. */
export const RESUME_KEY = "custody_resume";
/** How long after its resume a released row may leave beyond the caps. */
export const RELEASE_TTL_MS = 86_400_000;
/** A release is kept until it can no longer fall in the daily window of a row it let out. */
const KEPT_MS = 2 * RELEASE_TTL_MS;

export interface OutflowRow {
  id: number;
  lamports: bigint;
}

/** The rows of one resume: queued payouts, queued withdrawals and pending burn orders. */
export interface ReleasedRows {
  payouts: readonly OutflowRow[];
  withdrawals: readonly OutflowRow[];
  burnOrders: readonly OutflowRow[];
}

export interface Release extends ReleasedRows {
  atMs: number;
  totalLamports: bigint;
}

interface StoredRow {
  id: number;
  lamports: string;
}

interface Stored {
  atMs: number;
  payouts: StoredRow[];
  withdrawals: StoredRow[];
  burnOrders: StoredRow[];
  totalLamports: string;
}

const rowsIn = (rows: readonly StoredRow[]): OutflowRow[] =>
  rows.map((r) => ({ id: r.id, lamports: BigInt(r.lamports) }));
const rowsOut = (rows: readonly OutflowRow[]): StoredRow[] =>
  rows.map((r) => ({ id: r.id, lamports: r.lamports.toString() }));

export function totalOf(rows: ReleasedRows): bigint {
  return [...rows.payouts, ...rows.withdrawals, ...rows.burnOrders].reduce((n, r) => n + r.lamports, 0n);
}

/** The releases still kept at `nowMs`, oldest first (a value of the former single allowance reads as none). */
export function liveReleases(db: Db, nowMs: number): Release[] {
  const row = query<{ value: string }, [key: string]>(db, "SELECT value FROM settings WHERE key = ?").get(RESUME_KEY);
  if (!row) return [];
  const parsed = JSON.parse(row.value) as { releases?: Stored[] };
  return (parsed.releases ?? [])
    .filter((r) => r.atMs > nowMs - KEPT_MS)
    .map((r) => ({
      atMs: r.atMs,
      payouts: rowsIn(r.payouts),
      withdrawals: rowsIn(r.withdrawals),
      burnOrders: rowsIn(r.burnOrders),
      totalLamports: BigInt(r.totalLamports),
    }));
}

/** Adds a resume's rows to the releases in force (call inside the resume's transaction); returns their total. */
export function recordRelease(db: Db, atMs: number, rows: ReleasedRows): bigint {
  const totalLamports = totalOf(rows);
  const kept: Stored[] = liveReleases(db, atMs).map((r) => ({
    atMs: r.atMs,
    payouts: rowsOut(r.payouts),
    withdrawals: rowsOut(r.withdrawals),
    burnOrders: rowsOut(r.burnOrders),
    totalLamports: r.totalLamports.toString(),
  }));
  if (totalLamports > 0n) {
    kept.push({
      atMs,
      payouts: rowsOut(rows.payouts),
      withdrawals: rowsOut(rows.withdrawals),
      burnOrders: rowsOut(rows.burnOrders),
      totalLamports: totalLamports.toString(),
    });
  }
  query<never, [key: string, value: string]>(
    db,
    "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = ?2",
  ).run(RESUME_KEY, JSON.stringify({ releases: kept }));
  return totalLamports;
}

/** What a send carries, as far as its sender can name it (burn buys name nothing). */
export interface OutflowRows {
  payoutIds?: readonly number[];
  withdrawalId?: number;
}

/** The released part of the outflow: what left of it in a window, and what of a send is released. */
export interface ReleasedOutflow {
  /** released lamports that left at or after `sinceMs` (they count against no cap) */
  leftSince(sinceMs: number): bigint;
  /** how much of a send of `lamports` carrying `rows` is released (a send without rows: a burn buy) */
  ofSend(lamports: bigint, rows: OutflowRows | undefined): bigint;
}

const NONE: ReleasedOutflow = { leftSince: () => 0n, ofSend: () => 0n };

/** Each released id with the moment its release stops letting it out (the latest, when two resumes listed it). */
function untilById(releases: readonly Release[], pick: (r: Release) => readonly OutflowRow[]): [number, number][] {
  const until = new Map<number, number>();
  for (const r of releases) {
    for (const row of pick(r)) until.set(row.id, Math.max(until.get(row.id) ?? 0, r.atMs + RELEASE_TTL_MS));
  }
  return [...until];
}

/** Released payouts (and the replacements of released ones) sent at or after `sinceMs`, within their release. */
const RELEASED_PAYOUTS = `WITH RECURSIVE released(id, until_ms) AS (
    SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?1)
    UNION SELECT p.id, released.until_ms FROM payouts p JOIN released ON p.replaces_id = released.id
  )`;

function releasedPayoutsLeft(db: Db, ids: string, sinceMs: number): bigint {
  const row = query<{ n: bigint }, [ids: string, sinceMs: number]>(
    db,
    `${RELEASED_PAYOUTS} SELECT COALESCE(SUM(p.lamports), 0) AS n FROM payouts p JOIN released r ON r.id = p.id
      WHERE p.status IN ('sent', 'confirmed') AND p.sent_at_ms >= ?2 AND p.sent_at_ms < r.until_ms`,
  ).get(ids, sinceMs);
  return BigInt(row?.n ?? 0);
}

function releasedPayoutsOf(db: Db, ids: string, sending: readonly number[], nowMs: number): bigint {
  const row = query<{ n: bigint }, [ids: string, sending: string, nowMs: number]>(
    db,
    `${RELEASED_PAYOUTS} SELECT COALESCE(SUM(p.lamports), 0) AS n FROM payouts p JOIN released r ON r.id = p.id
      WHERE p.id IN (SELECT value FROM json_each(?2)) AND r.until_ms > ?3`,
  ).get(ids, JSON.stringify(sending), nowMs);
  return BigInt(row?.n ?? 0);
}

function releasedWithdrawalsLeft(db: Db, ids: string, sinceMs: number): bigint {
  const row = query<{ n: bigint }, [ids: string, sinceMs: number]>(
    db,
    `SELECT COALESCE(SUM(w.lamports), 0) AS n FROM withdrawals w
       JOIN (SELECT json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS until_ms FROM json_each(?1)) r
         ON r.id = w.id
      WHERE w.status IN ('sent', 'confirmed') AND w.sent_at_ms >= ?2 AND w.sent_at_ms < r.until_ms`,
  ).get(ids, sinceMs);
  return BigInt(row?.n ?? 0);
}

/** Burn buys' budgets created in [fromMs, toMs). */
function buysBetween(db: Db, fromMs: number, toMs: number): bigint {
  if (toMs <= fromMs) return 0n;
  const row = query<{ n: bigint }, [fromMs: number, toMs: number]>(
    db,
    "SELECT COALESCE(SUM(lamports), 0) AS n FROM burn_buys WHERE status <> 'failed' AND created_at_ms >= ? AND created_at_ms < ?",
  ).get(fromMs, toMs);
  return BigInt(row?.n ?? 0);
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);

/** The released burn orders: their total, spent by the burn buys made from the first release on. */
function burnAllowance(releases: readonly Release[]) {
  const orders = new Map<number, bigint>();
  let fromMs: number | null = null;
  let untilMs = 0;
  for (const r of releases) {
    if (r.burnOrders.length === 0) continue;
    fromMs ??= r.atMs;
    untilMs = Math.max(untilMs, r.atMs + RELEASE_TTL_MS);
    for (const o of r.burnOrders) orders.set(o.id, o.lamports);
  }
  const totalLamports = [...orders.values()].reduce((n, l) => n + l, 0n);
  return fromMs === null ? null : { fromMs, untilMs, totalLamports };
}

/** The released outflow at `nowMs`, for the gate (outflow.ts). */
export function releasedOutflow(db: Db, nowMs: number): ReleasedOutflow {
  const releases = liveReleases(db, nowMs);
  if (releases.length === 0) return NONE;
  const payoutIds = JSON.stringify(untilById(releases, (r) => r.payouts));
  const withdrawalUntil = untilById(releases, (r) => r.withdrawals);
  const withdrawalIds = JSON.stringify(withdrawalUntil);
  const burns = burnAllowance(releases);
  const burnsLeft = (toMs: number) =>
    burns ? min(burns.totalLamports, buysBetween(db, burns.fromMs, Math.min(toMs, burns.untilMs))) : 0n;
  return {
    leftSince(sinceMs) {
      const burned = burns ? burnsLeft(Number.MAX_SAFE_INTEGER) - burnsLeft(sinceMs) : 0n;
      return releasedPayoutsLeft(db, payoutIds, sinceMs) + releasedWithdrawalsLeft(db, withdrawalIds, sinceMs) + burned;
    },
    ofSend(lamports, rows) {
      if (rows?.payoutIds) return releasedPayoutsOf(db, payoutIds, rows.payoutIds, nowMs);
      if (rows?.withdrawalId !== undefined) {
        const until = withdrawalUntil.find(([id]) => id === rows.withdrawalId)?.[1] ?? 0;
        return until > nowMs ? lamports : 0n;
      }
      if (!burns || burns.untilMs <= nowMs) return 0n;
      const left = burns.totalLamports - burnsLeft(nowMs + 1);
      return left > 0n ? min(lamports, left) : 0n;
    },
  };
}
