/**
 * What an operator's resume lets out beyond the outflow caps: exactly the rows that were waiting
 * (and that /admin listed) when they confirmed, by id, each once. Everything else, a claim made a
 * second after the resume included, counts against the caps as it always does.
 *
 * Releases are kept in `settings` (RESUME_KEY), every one still in force, so a second resume adds
 * its rows to the first's instead of putting back into the caps what the first let out. A released
 * row leaves beyond the caps within RELEASE_TTL_MS of its resume; one still waiting after that
 * counts like any other outflow. A payout that provably expired and was replaced stays released in
 * its replacement (the same money, sent again). A burn buy names the orders it takes: what of them
 * was released leaves beyond the caps, and so does the rest of a released order a buy took only in
 * part (`split_from_id`). An order that was not listed never rides on a listed one's release, even
 * in the same buy or mint.
 */
import type { Db } from "../../db/client";
import { query } from "../../db/statement";

/** Settings key of the releases in force. */
const RESUME_KEY = "custody_resume";
/** How long after its resume a released row may leave beyond the caps. */
const RELEASE_TTL_MS = 86_400_000;
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

interface Release extends ReleasedRows {
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
function liveReleases(db: Db, nowMs: number): Release[] {
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

/** What a send carries: a payout batch's payouts, a withdrawal, or a burn buy's orders (the lamports it takes of each). */
export interface OutflowRows {
  payoutIds?: readonly number[];
  withdrawalId?: number;
  burnOrders?: readonly OutflowRow[];
}

/** The released part of the outflow: what left of it in a window, and what of a send is released. */
export interface ReleasedOutflow {
  /** released lamports that left at or after `sinceMs` (they count against no cap) */
  leftSince(sinceMs: number): bigint;
  /** how much of a send of `lamports` carrying `rows` is released (a send naming no rows: none of it) */
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

/**
 * Released payouts (and the replacements of released ones), each once with its latest release. A
 * replacement may be released by a later resume as well as through the payout it replaces: joined
 * per release, it would count twice and let as much again past the caps (seed 403217).
 */
const RELEASED_PAYOUTS = `WITH RECURSIVE reached(id, until_ms) AS (
    SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?1)
    UNION SELECT p.id, reached.until_ms FROM payouts p JOIN reached ON p.replaces_id = reached.id
  ),
  released(id, until_ms) AS (SELECT id, MAX(until_ms) FROM reached GROUP BY id)`;

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

/** Released burn orders, and the rests split off them, each once with its latest release. */
const RELEASED_ORDERS = `WITH RECURSIVE reached(id, until_ms) AS (
    SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?1)
    UNION SELECT o.id, reached.until_ms FROM burn_orders o JOIN reached ON o.split_from_id = reached.id
  ),
  released(id, until_ms) AS (SELECT id, MAX(until_ms) FROM reached GROUP BY id)`;

/** Released orders taken by burn buys made at or after `sinceMs` (and not failed), within their release. */
function releasedOrdersLeft(db: Db, ids: string, sinceMs: number): bigint {
  const row = query<{ n: bigint }, [ids: string, sinceMs: number]>(
    db,
    `${RELEASED_ORDERS} SELECT COALESCE(SUM(o.lamports), 0) AS n FROM burn_orders o
        JOIN released r ON r.id = o.id JOIN burn_buys b ON b.id = o.buy_id
      WHERE b.status <> 'failed' AND b.created_at_ms >= ?2 AND b.created_at_ms < r.until_ms`,
  ).get(ids, sinceMs);
  return BigInt(row?.n ?? 0);
}

/** The orders among `sending` released at `nowMs`. */
function releasedOrderIds(db: Db, ids: string, sending: readonly OutflowRow[], nowMs: number): Set<number> {
  const rows = query<{ id: bigint }, [ids: string, sending: string, nowMs: number]>(
    db,
    `${RELEASED_ORDERS} SELECT id FROM released WHERE id IN (SELECT value FROM json_each(?2)) AND until_ms > ?3`,
  ).all(ids, JSON.stringify(sending.map((o) => o.id)), nowMs);
  return new Set(rows.map((r) => Number(r.id)));
}

/** The released outflow at `nowMs`, for the gate (outflow.ts). */
export function releasedOutflow(db: Db, nowMs: number): ReleasedOutflow {
  const releases = liveReleases(db, nowMs);
  if (releases.length === 0) return NONE;
  const payoutIds = JSON.stringify(untilById(releases, (r) => r.payouts));
  const withdrawalUntil = untilById(releases, (r) => r.withdrawals);
  const withdrawalIds = JSON.stringify(withdrawalUntil);
  const orderIds = JSON.stringify(untilById(releases, (r) => r.burnOrders));
  return {
    leftSince(sinceMs) {
      return (
        releasedPayoutsLeft(db, payoutIds, sinceMs) +
        releasedWithdrawalsLeft(db, withdrawalIds, sinceMs) +
        releasedOrdersLeft(db, orderIds, sinceMs)
      );
    },
    ofSend(lamports, rows) {
      if (rows?.payoutIds) return releasedPayoutsOf(db, payoutIds, rows.payoutIds, nowMs);
      if (rows?.withdrawalId !== undefined) {
        const until = withdrawalUntil.find(([id]) => id === rows.withdrawalId)?.[1] ?? 0;
        return until > nowMs ? lamports : 0n;
      }
      if (!rows?.burnOrders) return 0n;
      const released = releasedOrderIds(db, orderIds, rows.burnOrders, nowMs);
      return rows.burnOrders.reduce((n, o) => (released.has(o.id) ? n + o.lamports : n), 0n);
    },
  };
}
