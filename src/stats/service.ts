/**
 * SPEC's Stats, from counts kept as they change: `stats_counts` and the ledger's totals per account
 * kind, each written by triggers in the statement that changes what it counts (migration 0025).
 * Reading them is a few rows whatever the size of the books, so the request thread reads them
 * itself (the jobs' thread used to count them for it); memoised up to 10 s per process, which the
 * route's Cache-Control matches.
 */
import type { Db } from "../../db/client";
import { statement } from "../../db/statement";
import { ledgerTotals } from "../ledger";
import type { Stats } from "./schemas";

export type { Stats };

const STATS_MEMO_MS = 10_000;

/** The public counts the triggers keep, by name. */
type KeptCount = "tokens" | "recipients" | "claimed_accounts";

const keptCounts = statement<{ name: KeptCount; count: bigint }, []>("SELECT name, count FROM stats_counts");

// `hidden` is a flag (0 or 1, src/admin/service.ts): as two ranges of `tokens_new`, a day's launches
// are counted from that day's index entries, where `launched_at_ms >= ?` alone walked the whole index.
const launchedSince = statement<{ n: bigint }, [sinceMs: number]>(
  "SELECT COUNT(*) AS n FROM tokens WHERE hidden IN (0, 1) AND launched_at_ms >= ?",
);

/** The counts `stats_counts` keeps (migration 0025 writes its three rows). */
function keptStatsCounts(db: Db): Record<KeptCount, number> {
  const counts: Record<KeptCount, number> = { tokens: 0, recipients: 0, claimed_accounts: 0 };
  for (const row of keptCounts(db).all()) counts[row.name] = Number(row.count);
  return counts;
}

export function computeStats(db: Db, nowMs: number): Stats {
  const counts = keptStatsCounts(db);
  const totals = ledgerTotals(db);
  return {
    tokens: counts.tokens,
    recipients: counts.recipients,
    claimedAccounts: counts.claimed_accounts,
    sweptLamports: totals.sweptLamports.toString(),
    paidLamports: totals.paidLamports.toString(),
    burnedLamports: totals.burnedLamports.toString(),
    owedLamports: totals.owedLamports.toString(),
    unclaimedLamports: totals.unclaimedLamports.toString(),
    launches24h: Number(launchedSince(db).get(nowMs - 86_400_000)?.n ?? 0n),
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
