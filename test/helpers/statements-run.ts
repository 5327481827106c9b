/**
 * What a read asks the database, counted instead of timed (test/accounts/read-cost.test.ts,
 * test/stats/kept-counts.test.ts): the statements run on a connection and the plan of each.
 */
import type { Db } from "../../db/client";

/** One statement run: its SQL (whitespace folded), and whether it ran inside a transaction. */
export interface Ran {
  sql: string;
  inTransaction: boolean;
}

const RUNS = ["get", "all", "run", "values", "iterate"] as const;

/**
 * Records every statement run on `db` from now on. Only statements compiled after this call are
 * seen, so install it on a connection before the code under test compiles its statements there
 * (db/statement.ts keeps each compiled statement for the connection's life).
 */
export function countStatements(db: Db): Ran[] {
  const client = db.$client;
  const ran: Ran[] = [];
  const compile = client.query.bind(client);
  client.query = ((sql: string) => {
    const compiled = compile(sql) as unknown as Record<(typeof RUNS)[number], (...args: unknown[]) => unknown>;
    for (const name of RUNS) {
      const run = compiled[name].bind(compiled);
      compiled[name] = (...args: unknown[]) => {
        ran.push({ sql: sql.replace(/\s+/g, " ").trim(), inTransaction: client.inTransaction });
        return run(...args);
      };
    }
    return compiled;
  }) as typeof client.query;
  return ran;
}

/** SQLite's plan of `sql`, a line per step (`SEARCH t USING INDEX ...`, `SCAN t`, ...). */
export function planOf(db: Db, sql: string): string[] {
  return db.$client
    .query<{ detail: string }, []>(`EXPLAIN QUERY PLAN ${sql}`)
    .all()
    .map((r) => r.detail);
}
