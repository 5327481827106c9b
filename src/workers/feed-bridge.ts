/**
 * The feed notifier across threads (see src/ledger/feed-notifier.ts): a commit of feed events in
 * one thread wakes the readers of every thread on the same database (the SSE hub on the request
 * thread, the webhook dispatcher on the jobs' thread). Each thread installs one on its own
 * connection; they meet on a BroadcastChannel named after the database file.
 */
import type { Db } from "../../db/client";
import { LocalFeedNotifier, setFeedNotifier, type FeedNotifier } from "../ledger/feed-notifier";

class BridgedFeedNotifier implements FeedNotifier {
  private readonly local = new LocalFeedNotifier();
  private readonly channel: BroadcastChannel;

  constructor(databasePath: string) {
    this.channel = new BroadcastChannel(`feed:${databasePath}`);
    this.channel.onmessage = () => this.local.notify();
    // The channel alone must not keep a thread alive.
    (this.channel as BroadcastChannel & { unref?: () => void }).unref?.();
  }

  notify(): void {
    this.local.notify();
    this.channel.postMessage(1);
  }

  subscribe(listener: () => void): () => void {
    return this.local.subscribe(listener);
  }

  close(): void {
    this.channel.close();
  }
}

/** Installs the bridge on this thread's connection; returns its closer. */
export function bridgeFeed(db: Db, databasePath: string): () => void {
  const bridge = new BridgedFeedNotifier(databasePath);
  setFeedNotifier(db, bridge);
  return () => bridge.close();
}
