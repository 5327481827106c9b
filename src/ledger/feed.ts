/**
 * The public ledger feed's index: one row per event with a unique integer-microsecond time, so
 * paging with `before` never skips or repeats (DESIGN §5). A collision is bumped by 1 µs.
 * Call inside the transaction that creates the event.
 */
import { AppError } from "../lib/errors";
import type { Db } from "../../db/client";
import { statement } from "../../db/statement";
import { announceFeedCommit } from "./feed-notifier";

export type FeedType = "launch" | "sweep" | "payout" | "burn";

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

export function appendFeedEvent(db: Db, type: FeedType, refId: number, atMs: number): number {
  const existing = eventTime(db).get(type, refId);
  if (existing) return Number(existing.atUs);
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
