/**
 * How a writer of feed events tells the readers (the SSE hub, the webhook dispatcher) that new
 * events are committed, without any of them polling the database. Today the jobs run in the API's
 * process and the in-process notifier below is all there is; when the jobs move to a worker
 * thread, a bridge implements the same two methods over a MessagePort and is installed with
 * `setFeedNotifier` on both sides.
 */
import type { Db } from "../../db/client";

export interface FeedNotifier {
  /** new feed events were committed (any number; readers look up what is new) */
  notify(): void;
  /** returns the unsubscribe function */
  subscribe(listener: () => void): () => void;
}

export class LocalFeedNotifier implements FeedNotifier {
  private readonly listeners = new Set<() => void>();

  notify(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // A reader's failure must not reach the writer that announced the commit.
      }
    }
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

const notifiers = new WeakMap<Db, FeedNotifier>();
const announced = new WeakSet<Db>();

export function feedNotifier(db: Db): FeedNotifier {
  let notifier = notifiers.get(db);
  if (!notifier) {
    notifier = new LocalFeedNotifier();
    notifiers.set(db, notifier);
  }
  return notifier;
}

export function setFeedNotifier(db: Db, notifier: FeedNotifier): void {
  notifiers.set(db, notifier);
}

/**
 * Called inside the event's transaction. Ledger transactions are synchronous, so a microtask runs
 * only once the transaction has committed (or rolled back, when readers simply find nothing new);
 * a burst of events in one transaction or one tick makes one notification.
 */
export function announceFeedCommit(db: Db): void {
  if (announced.has(db)) return;
  announced.add(db);
  queueMicrotask(() => {
    announced.delete(db);
    feedNotifier(db).notify();
  });
}
