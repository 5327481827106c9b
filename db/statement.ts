/**
 * A typed statement, compiled once per connection and kept for the connection's life.
 *
 * bun's own `Database.query(sql)` caches compiled statements too, but only the 20 most recently
 * used (`Database.MAX_QUERY_CACHE_SIZE`): a service whose jobs, indexer and routes run far more
 * distinct statements than that keeps evicting them, and a posting or a feed page would compile
 * its SQL again on every call. Hot paths declare their SQL once with `statement()` instead; the
 * row and parameter types are written once, next to the SQL they describe.
 *
 *   const findPosting = statement<{ id: bigint }, [commandKey: string]>("SELECT id FROM ...");
 *   findPosting(db).get(commandKey); // { id: bigint } | null
 */
import type { Database, SQLQueryBindings } from "bun:sqlite";

function compile<Row, Params extends SQLQueryBindings[]>(client: Database, sql: string) {
  return client.prepare<Row, Params>(sql);
}

/** bun's statement for a parameter tuple (`prepare` wraps a lone value in a tuple of one). */
type Compiled<Row, Params extends SQLQueryBindings[]> = ReturnType<typeof compile<Row, Params>>;

export type TypedStatement<Row, Params extends SQLQueryBindings[]> = (db: {
  $client: Database;
}) => Compiled<Row, Params>;

export function statement<Row, Params extends SQLQueryBindings[] = []>(sql: string): TypedStatement<Row, Params> {
  const compiled = new WeakMap<Database, Compiled<Row, Params>>();
  return (db) => {
    const found = compiled.get(db.$client);
    if (found) return found;
    const fresh = compile<Row, Params>(db.$client, sql);
    compiled.set(db.$client, fresh);
    return fresh;
  };
}
