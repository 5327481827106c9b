/**
 * SPEC's Stats, from counts kept as they change: `stats_counts` and the ledger's totals per account
 * kind, each written by triggers in the statement that changes what it counts (migration 0025).
 * Reading them is a few rows whatever the size of the books; memoised up to 10 s per process.
 */
import type { Db } from "../../db/client";
import { statement } from "../../db/statement";
import { ledgerTotals } from "../ledger";
import type { Stats } from "./schemas";

export type { Stats };

export const STATS_MEMO_MS = 10_000;
/**
 * How often the jobs' thread reads the stats for the request thread, which serves them while
 * they are younger than STATS_MEMO_MS and otherwise reads them itself (a few rows either way).
 */
export const STATS_PUBLISH_EVERY_MS = Math.floor(STATS_MEMO_MS / 3);

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

/**
 * Figures read on another thread (the jobs' thread: src/workers/jobs-thread.ts), served while
 * younger than the memo's bound; older figures than the ones held are ignored. Before the counts
 * were kept, counting took ~200 ms at 100,000 tokens (1.2-1.35 s at a million) and this kept it
 * off the request thread; now the request thread's own read is as cheap.
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
