/**
 * When the sweep reads a token's vaults next (table `reading_schedule`, issue 42).
 *
 * A token's vaults only grow through trades, and pump.fun tokens trade mostly in their first hours.
 * So a token is read every sweep run while its readings change; after a reading that did not
 * change, the next one waits twice as long as the last wait (from QUIET_FIRST_INTERVAL_MS up to the
 * configured maximum); any sign of activity (a changed reading taken by anyone: the sweep, the
 * indexer's stream, a detail's refresh) makes it due at once and active again.
 *
 * Never losing a fee rests on one rule: a reading never pushes the next one further than the
 * quiet cap after itself. A fee that accrues after a reading is therefore read at the latest one
 * cap (plus the wait for the next run) later; the cap leaves room for that run and its settling
 * within the configured maximum. Tokens without a row are due (new tokens, and every token
 * before the table existed).
 */
import type { Db } from "../../db/client";
import { readingSchedule, tokens } from "../../db/schema";
import { columnsOf, statement, type TableRow } from "../../db/statement";

/** The first quiet wait: one default sweep period (every 2 minutes). */
export const QUIET_FIRST_INTERVAL_MS = 120_000;

/**
 * A token is due in a run that starts this long before its time: a run every 2 minutes that
 * starts a little early would otherwise skip it for a whole period. Only ever reads earlier.
 */
export const DUE_SLACK_MS = 15_000;

/**
 * The longest quiet wait for a configured maximum: the maximum less two first intervals, which
 * cover the wait for the next run after the token becomes due and that run's settling, so a fee
 * is credited within the maximum when the sweep runs at its default period.
 */
export function quietCapMs(maxIntervalMs: number): number {
  return Math.max(QUIET_FIRST_INTERVAL_MS, maxIntervalMs - 2 * QUIET_FIRST_INTERVAL_MS);
}

/** The wait after a reading that did not change, given the wait that led to it. */
function nextQuietIntervalMs(previousMs: number, maxIntervalMs: number): number {
  return Math.min(quietCapMs(maxIntervalMs), Math.max(QUIET_FIRST_INTERVAL_MS, previousMs * 2));
}

const upsertActive = statement<never, [tokenId: number, atMs: number, atMs2: number]>(
  `INSERT INTO reading_schedule (token_id, interval_ms, next_read_at_ms, active_at_ms) VALUES (?, 0, ?, ?)
   ON CONFLICT (token_id) DO UPDATE SET interval_ms = 0,
     next_read_at_ms = MIN(next_read_at_ms, excluded.next_read_at_ms),
     active_at_ms = MAX(active_at_ms, excluded.active_at_ms)`,
);

/**
 * Signs of activity: each token is due at once and counts as active from `atMs` (the indexer
 * watches the most recently active tokens). Call inside the writer's transaction.
 */
export function noteActivity(db: Db, tokenIds: readonly number[], atMs: number): void {
  if (tokenIds.length === 0) return;
  const upsert = upsertActive(db);
  for (const id of tokenIds) upsert.run(id, atMs, atMs);
}

const previousInterval = statement<{ interval: number }, [tokenId: number]>(
  "SELECT interval_ms AS interval FROM reading_schedule WHERE token_id = ?",
);

const upsertQuiet = statement<never, [tokenId: number, intervalMs: number, nextAtMs: number, readAtMs: number]>(
  `INSERT INTO reading_schedule (token_id, interval_ms, next_read_at_ms, active_at_ms)
     SELECT id, ?2, ?3, MIN(launched_at_ms, ?4) FROM tokens WHERE id = ?1 AND true
   ON CONFLICT (token_id) DO UPDATE SET interval_ms = excluded.interval_ms, next_read_at_ms = excluded.next_read_at_ms
     WHERE reading_schedule.active_at_ms < ?4`,
);

/**
 * Sweep readings taken at `readAtMs` that did not change: the next one waits twice as long as the
 * last wait, up to the cap, counted from when the reading was taken. A sign of activity noted
 * since then wins (the reading may predate that trade). A token never scheduled before counts its
 * launch as its last activity.
 */
export function noteQuietReadings(db: Db, tokenIds: readonly number[], readAtMs: number, maxIntervalMs: number): void {
  if (tokenIds.length === 0) return;
  const previous = previousInterval(db);
  const upsert = upsertQuiet(db);
  for (const id of tokenIds) {
    const interval = nextQuietIntervalMs(Number(previous.get(id)?.interval ?? 0), maxIntervalMs);
    upsert.run(id, interval, readAtMs + interval, readAtMs);
  }
}

const DUE_FIELDS = ["id", "mint", "creator", "creatorIndex"] as const;
export type DueToken = Pick<TableRow<typeof tokens>, (typeof DUE_FIELDS)[number]>;

/**
 * The next page of tokens due a reading at `nowMs`, in id order after `afterId` (hidden tokens
 * included: they are swept too). `everyToken` reads them all, as before the schedule (the
 * baseline of bench:cost).
 */
export function dueTokensAfter(db: Db, afterId: number, nowMs: number, limit: number, everyToken = false): DueToken[] {
  if (everyToken) return everyTokenPage(db).all(afterId, limit);
  return dueTokensPage(db).all(afterId, nowMs + DUE_SLACK_MS, limit);
}

/**
 * A page of due tokens (parameters: after id, due at, limit). The ids are walked in the narrow
 * index `tokens_ids` (migration 0019), the schedule probed by its key, and a token's row read only
 * once it is due: walked through the table, a run with 1% of 1M tokens due read the whole table
 * (~620 MB) every two minutes to find them.
 */
export const DUE_TOKENS_PAGE_SQL = `SELECT ${columnsOf(tokens, { alias: "t", only: DUE_FIELDS })}
  FROM tokens t INDEXED BY tokens_ids LEFT JOIN reading_schedule s ON s.token_id = t.id
 WHERE t.id > ? AND (s.next_read_at_ms IS NULL OR s.next_read_at_ms <= ?)
 ORDER BY t.id LIMIT ?`;

const dueTokensPage = statement<DueToken, [afterId: number, dueAtMs: number, limit: number]>(DUE_TOKENS_PAGE_SQL);

/** Every token, as before the schedule: the baseline of bench:cost. */
const everyTokenPage = statement<DueToken, [afterId: number, limit: number]>(
  `SELECT ${columnsOf(tokens, { only: DUE_FIELDS })} FROM tokens WHERE id > ? ORDER BY id LIMIT ?`,
);

const mostRecentlyActivePage = statement<{ id: bigint }, [limit: number]>(
  `SELECT t.id FROM tokens t LEFT JOIN reading_schedule s ON s.token_id = t.id
    ORDER BY COALESCE(s.active_at_ms, t.launched_at_ms) DESC, t.id DESC LIMIT ?`,
);

/** Token ids by most recent activity (a token never scheduled counts from its launch), newest first. */
export function mostRecentlyActive(db: Db, limit: number): number[] {
  return mostRecentlyActivePage(db)
    .all(limit)
    .map((r) => Number(r.id));
}

const ACTIVE_FIELDS = ["tokenId", "activeAtMs"] as const;
type ActiveRow = Pick<TableRow<typeof readingSchedule>, (typeof ACTIVE_FIELDS)[number]>;
const activeSincePage = statement<ActiveRow, [sinceMs: number, limit: number]>(
  `SELECT ${columnsOf(readingSchedule, { only: ACTIVE_FIELDS })} FROM reading_schedule
    WHERE active_at_ms >= ? ORDER BY active_at_ms LIMIT ?`,
);

/** Tokens that showed activity at or after `sinceMs`, oldest activity first, a bounded page. */
export function activeSince(db: Db, sinceMs: number, limit = 5_000): { id: number; activeAtMs: number }[] {
  return activeSincePage(db)
    .all(sinceMs, limit)
    .map((r) => ({ id: Number(r.tokenId), activeAtMs: Number(r.activeAtMs) }));
}
