import type { Database } from "bun:sqlite";
import { query } from "./statement";

/**
 * Runs `work` with this connection's busy wait set to `waitMs`, then puts the old one back. The
 * pragmas go through the connection's statement cache (`exec` would compile them on every call).
 */
export function withBusyTimeout<T>(client: Database, waitMs: number, work: () => T): T {
  const before = query<{ timeout: number | bigint }, []>(client, "PRAGMA busy_timeout").get()?.timeout ?? 0;
  query(client, `PRAGMA busy_timeout = ${Math.max(0, Math.trunc(waitMs))}`).run();
  try {
    return work();
  } finally {
    query(client, `PRAGMA busy_timeout = ${Number(before)}`).run();
  }
}
