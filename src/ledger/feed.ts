/**
 * The public ledger feed's index: one row per event with a unique integer-microsecond time, so
 * paging with `before` never skips or repeats (DESIGN §5). A collision is bumped by 1 µs.
 * Call inside the transaction that creates the event.
 */
import { AppError } from "../lib/errors";
import type { Db } from "../../db/client";
import { statement } from "../../db/statement";
import { announceFeedCommit } from "./feed-notifier";

export type FeedType = "launch" | "sweep" | "payout" | "payoutStatus" | "burn";

/**
 * Called inside the event's own transaction, so a committed event always has what the listener
 * wrote and a rolled-back one never does: the webhook outbox, connected by the composition root
 * (src/service.ts), so the ledger does not know who listens.
 */
export type FeedEventListener = (db: Db, type: FeedType, atUs: number) => void;

const feedEventListeners = new Set<FeedEventListener>();

/** Adds a listener to every feed event from now on, in this process; adding the same one again changes nothing. */
export function onFeedEvent(listener: FeedEventListener): void {
  feedEventListeners.add(listener);
}

/** Bounded: a burst of more than this many events in one millisecond is not a real workload. */
const MAX_BUMPS = 100_000;

// Every money write appends an event: these keep their compiled form (db/statement.ts).
const eventTime = statement<{ atUs: bigint }, [type: FeedType, refId: number]>(
  "SELECT at_us AS atUs FROM feed_events WHERE type = ? AND ref_id = ?",
);
/** The highest microsecond taken in [from, to), or `none` when all are free. */
const highestTaken = statement<{ top: bigint }, [none: number, from: number, to: number]>(
  `SELECT COALESCE(MAX(at_us), ?) AS top FROM (
     SELECT at_us FROM feed_events WHERE at_us >= ? AND at_us < ? ORDER BY at_us
   )`,
);
const insertEvent = statement<never, [atUs: number, type: FeedType, refId: number]>(
  "INSERT INTO feed_events (at_us, type, ref_id) VALUES (?, ?, ?)",
);
const insertCommit = statement<never, [atUs: number]>("INSERT INTO feed_commits (at_us) VALUES (?)");

/**
 * What a payout event says, fixed as it is published (payout_events): the payout's status and
 * signature now, and the handle its account signed in with most recently.
 */
const snapshotPayout = statement<{ id: bigint }, [replacementId: number | null, payoutId: number]>(
  `INSERT INTO payout_events (payout_id, status, signature, handle, replacement_id)
   SELECT p.id, p.status, p.signature, i.handle, ? FROM payouts p JOIN identities i ON i.idp_user_id = p.idp_user_id
    WHERE p.id = ?
   RETURNING id`,
);
/** The newest microsecond taken by an event of this payout (its `payout` event or a status change). */
const lastPayoutEventUs = statement<{ atUs: bigint | null }, [payoutId: number, payoutId: number]>(
  `SELECT MAX(f.at_us) AS atUs FROM feed_events f
    WHERE (f.type = 'payout' AND f.ref_id = ?)
       OR (f.type = 'payoutStatus' AND f.ref_id IN (SELECT id FROM payout_events WHERE payout_id = ?))`,
);

/**
 * A payout's status changed (sent, confirmed, failed, replaced; a held one queued or refused): a
 * `payoutStatus` event of its own, with what the payout says now. Call inside the transaction that
 * changes the status, after the change, so the event commits exactly when the change does. Its time
 * is never before the payout's earlier events (a block time can be), so the feed's order is the
 * payout's.
 */
export function appendPayoutStatusEvent(
  db: Db,
  payoutId: number,
  atMs: number,
  replacementId: number | null = null,
): number {
  const row = snapshotPayout(db).get(replacementId, payoutId);
  if (!row) throw new AppError("LEDGER_INVARIANT", `payout ${payoutId} has no account to publish its status for`);
  const lastUs = lastPayoutEventUs(db).get(payoutId, payoutId)?.atUs;
  const notBeforeMs =
    lastUs === null || lastUs === undefined ? atMs : Math.max(atMs, Math.floor(Number(lastUs) / 1000));
  return appendFeedEvent(db, "payoutStatus", Number(row.id), notBeforeMs);
}

export function appendFeedEvent(db: Db, type: FeedType, refId: number, atMs: number): number {
  const existing = eventTime(db).get(type, refId);
  if (existing) return Number(existing.atUs);
  // A payout's own event reads what the payout says as it is published, however it moves on.
  if (type === "payout") snapshotPayout(db).get(null, refId);
  let atUs = Math.trunc(atMs) * 1000;
  // Find the first free microsecond at or after the event's time.
  const top = Number(highestTaken(db).get(atUs - 1, atUs, atUs + MAX_BUMPS)!.top);
  if (top >= atUs) {
    // Gaps below `top` are possible, but the next free slot after the highest one is always free.
    atUs = top + 1;
  }
  if (atUs >= Math.trunc(atMs) * 1000 + MAX_BUMPS)
    throw new AppError("EVENT_SLOTS_EXHAUSTED", { events: "feed events" });
  insertEvent(db).run(atUs, type, refId);
  // Live readers: the commit order for the stream, the webhook outbox, and a wake-up after commit.
  insertCommit(db).run(atUs);
  for (const listener of feedEventListeners) listener(db, type, atUs);
  announceFeedCommit(db);
  return atUs;
}
