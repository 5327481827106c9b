/**
 * A write on the request thread that only keeps a cached reading fresh (a vault reading taken on
 * request). bun:sqlite is synchronous, so two things a ledger write rightly does would stop every
 * other request while this one writes: waiting out `busy_timeout` for the jobs' thread to commit,
 * and the fsync of `synchronous = FULL`. Such a write tries once (whoever holds the lock is writing
 * fresher figures anyway) and commits without its own fsync: in WAL mode the next FULL commit, or
 * the checkpoint, makes it durable, and a reading lost to a power cut is read again from the chain.
 */
import { SQLiteError } from "bun:sqlite";
import { withBusyTimeout } from "./busy-timeout";
import type { Db } from "./client";
import { query } from "./statement";

function isBusy(error: unknown): boolean {
  return error instanceof SQLiteError && (error.code === "SQLITE_BUSY" || error.code === "SQLITE_LOCKED");
}

/** Runs `write` with no busy wait and no fsync of its own; null when another connection holds the write lock. */
export function writeWithoutWaiting<T>(db: Db, write: () => T): T | null {
  const client = db.$client;
  return withBusyTimeout(client, 0, () => {
    const synchronous =
      query<{ synchronous: number | bigint }, []>(client, "PRAGMA synchronous").get()?.synchronous ?? 2;
    query(client, "PRAGMA synchronous = NORMAL").run();
    try {
      return write();
    } catch (error) {
      if (isBusy(error)) return null;
      throw error;
    } finally {
      query(client, `PRAGMA synchronous = ${Number(synchronous)}`).run();
    }
  });
}
