/**
 * Which connection copies the WAL back into the database file. SQLite checkpoints inside the
 * commit that takes the WAL past `wal_autocheckpoint` pages, on the connection that commits. On the
 * request thread that commit then holds the event loop for the copy and its fsync (about 30 ms on
 * the 1.6 GB database of 100k tokens, once every few hundred vault refreshes), and every request in
 * flight waits for it. So when a background thread exists, the request thread's connection hands
 * checkpoints over and that thread checkpoints on a timer (and in its own commits, as before).
 */
import type { Db } from "./client";

export const CHECKPOINT_EVERY_MS = 1_000;

/** This connection's commits never checkpoint; another connection must run `startCheckpoints`. */
export function handOffCheckpoints(db: Db): void {
  db.$client.exec("PRAGMA wal_autocheckpoint = 0");
}

/**
 * A passive checkpoint every `everyMs`: it copies what no reader still needs and never waits for
 * a lock, so it cannot stall the writers. Returns the stop function (call it before closing `db`).
 */
export function startCheckpoints(db: Db, everyMs = CHECKPOINT_EVERY_MS): () => void {
  const checkpoint = db.$client.prepare("PRAGMA wal_checkpoint(PASSIVE)");
  const timer = setInterval(() => checkpoint.get(), everyMs);
  return () => {
    clearInterval(timer);
    checkpoint.finalize();
  };
}
