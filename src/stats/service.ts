/** SPEC's Stats, derived from the ledger and the token tables; memoised up to 10 s per process. */
import type { Db } from "../../db/client";
import { ledgerTotals } from "../ledger";
import type { Stats } from "./schemas";

export type { Stats };

export const STATS_MEMO_MS = 10_000;

export function computeStats(db: Db, nowMs: number): Stats {
  const c = db.$client;
  const count = (sql: string, ...args: number[]) => Number(c.query<{ n: bigint }, number[]>(sql).get(...args)!.n);
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

/** Drop the memo, for tests that change the books and read at once. */
export function forgetStats(db: Db): void {
  memo.delete(db);
}
