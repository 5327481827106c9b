/** SPEC's Stats, derived from the ledger and the token tables; memoised up to 10 s per process. */
import type { Db } from "../../db/client";
import { ledgerTotals } from "../ledger";
import type { Stats } from "./schemas";
import { query } from "../../db/statement";

export type { Stats };

export const STATS_MEMO_MS = 10_000;
/**
 * How often the jobs' thread counts the stats for the request thread, which serves them while
 * they are younger than STATS_MEMO_MS: a count may come late by most of that bound (a run's
 * synchronous stretch) before the request thread has to count on its own.
 */
export const STATS_PUBLISH_EVERY_MS = Math.floor(STATS_MEMO_MS / 3);

export function computeStats(db: Db, nowMs: number): Stats {
  const count = (sql: string, ...args: number[]) => Number(query<{ n: bigint }, number[]>(db, sql).get(...args)!.n);
  const totals = ledgerTotals(db);
  return {
    tokens: count("SELECT COUNT(*) AS n FROM tokens"),
    recipients: count("SELECT COUNT(DISTINCT handle) AS n FROM token_recipients"),
    claimedAccounts: count(
      `SELECT COUNT(DISTINCT h.idp_user_id) AS n FROM handles h
         JOIN identities i ON i.idp_user_id = h.idp_user_id
        WHERE i.first_sign_in_at_ms IS NOT NULL
          AND EXISTS (SELECT 1 FROM token_recipients r WHERE r.handle = h.handle)`,
    ),
    sweptLamports: totals.sweptLamports.toString(),
    paidLamports: totals.paidLamports.toString(),
    burnedLamports: totals.burnedLamports.toString(),
    owedLamports: totals.owedLamports.toString(),
    unclaimedLamports: totals.unclaimedLamports.toString(),
    launches24h: count("SELECT COUNT(*) AS n FROM tokens WHERE launched_at_ms >= ?", nowMs - 86_400_000),
    updatedAt: new Date(nowMs).toISOString(),
  };
}

const memo = new WeakMap<Db, { atMs: number; stats: Stats }>();

export function memoisedStats(db: Db, nowMs: number): Stats {
  const hit = memo.get(db);
  if (hit && nowMs - hit.atMs < STATS_MEMO_MS && nowMs >= hit.atMs) return hit.stats;
  const stats = computeStats(db, nowMs);
  memo.set(db, { atMs: nowMs, stats });
  return stats;
}

/**
 * Figures computed on another thread (the jobs' thread: src/workers/jobs-thread.ts). At 100,000
 * tokens the counts take ~200 ms, which on the request thread stalled every request in flight
 * once per STATS_MEMO_MS; published figures stand in for that computation while they are younger
 * than the memo's bound. Older figures than the ones held are ignored.
 */
export function publishStats(db: Db, stats: Stats, atMs: number): void {
  const held = memo.get(db);
  if (held && held.atMs > atMs) return;
  memo.set(db, { atMs, stats });
}

/** Drop the memo, for tests that change the books and read at once. */
export function forgetStats(db: Db): void {
  memo.delete(db);
}
