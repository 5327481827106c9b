import type { Database } from "bun:sqlite";

/**
 * Runs `work` with this connection's busy wait set to `waitMs`, then puts the old one back. The
 * pragmas go through the connection's statement cache (`exec` would compile them on every call).
 */
export function withBusyTimeout<T>(client: Database, waitMs: number, work: () => T): T {
  const before = client.query<{ timeout: number | bigint }, []>("PRAGMA busy_timeout").get()?.timeout ?? 0;
  client.query(`PRAGMA busy_timeout = ${Math.max(0, Math.trunc(waitMs))}`).run();
  try {
    return work();
  } finally {
    client.query(`PRAGMA busy_timeout = ${Number(before)}`).run();
  }
}
