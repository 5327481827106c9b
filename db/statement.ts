/**
 * The one way to run a query (docs/queries.md): raw SQL, compiled once per connection and kept in
 * one cache, typed with the row it returns and the parameters it binds.
 *
 *   query<{ id: bigint }, [commandKey: string]>(db, "SELECT id FROM ... WHERE command_key = ?").get(key);
 *
 *   // SQL fixed at load: declared once, next to the types it is read with
 *   const findPosting = statement<{ id: bigint }, [commandKey: string]>("SELECT id FROM ...");
 *   findPosting(db).get(commandKey); // { id: bigint } | null
 *
 * Row types of whole table rows come from db/schema.ts (`TableRow`, `columnsOf`), so a column added
 * there reaches the queries that read it.
 */
import { Database, type SQLQueryBindings, type Statement } from "bun:sqlite";
import { type Column, getTableColumns, type Table } from "drizzle-orm";

/** A drizzle database (`db`) or the bun:sqlite connection under it (a copy opened on its own). */
export type Connection = Database | { $client: Database };

/**
 * Statement texts kept per connection. The source runs ~400 distinct texts (one per call site,
 * a few with variants), each compiled statement ~5 KB (measured: a joined page query); the bound
 * stops a text built from data (a placeholder list per length) from growing a connection's cache
 * for its whole life, at ~5 MB. Past it, a new text is compiled and not kept here, and what is
 * kept is never evicted: no hit pays for reordering (bench:queries, docs/queries.md).
 */
export const STATEMENTS_PER_CONNECTION = 1024;

const compiledByConnection = new WeakMap<Database, Map<string, Statement>>();

function clientOf(db: Connection): Database {
  return db instanceof Database ? db : db.$client;
}

/**
 * `sql` compiled on `db`'s connection, from the cache after its first call. Compiled through bun's
 * `query()`, so the statement is the connection's own and `close()` finalizes it: a statement left
 * unfinalized keeps the closed connection open in SQLite (its WAL file stays, and a backup's
 * switch back to a single file is refused). Never `finalize()` one: every caller shares it.
 * Without type arguments it binds nothing and returns no row, so a call site states both.
 */
export function query<Row = never, Params extends SQLQueryBindings[] = []>(
  db: Connection,
  sql: string,
): Statement<Row, Params> {
  const client = clientOf(db);
  let compiled = compiledByConnection.get(client);
  if (!compiled) {
    compiled = new Map();
    compiledByConnection.set(client, compiled);
  }
  const found = compiled.get(sql);
  if (found) return found as Statement<Row, Params>;
  const fresh = client.query<Row, Params>(sql) as Statement<Row, Params>;
  if (compiled.size < STATEMENTS_PER_CONNECTION) compiled.set(sql, fresh as Statement);
  return fresh;
}

/** A query whose SQL is fixed at load, declared once with its types; `query()` underneath. */
export type TypedStatement<Row, Params extends SQLQueryBindings[]> = (db: Connection) => Statement<Row, Params>;

export function statement<Row = never, Params extends SQLQueryBindings[] = []>(
  sql: string,
): TypedStatement<Row, Params> {
  return (db) => query<Row, Params>(db, sql);
}

/**
 * A statement outside the cache, which the caller finalizes: for a cursor held across awaits (a
 * streamed export), which the next caller of a shared statement would reset under it.
 */
export function ownStatement<Row = never, Params extends SQLQueryBindings[] = []>(
  db: Connection,
  sql: string,
): Statement<Row, Params> {
  return clientOf(db).prepare<Row, Params>(sql) as Statement<Row, Params>;
}

// ---------------------------------------------------------------- rows from the schema

/**
 * What SQLite hands back for a column, on a connection opened with `safeIntegers`: every INTEGER
 * (ids, times, booleans, lamports) a bigint, REAL a number, BLOB a Uint8Array, TEXT a string (an
 * enum column's union as the schema declares it; a JSON column's text unparsed).
 */
type SqlValue<C extends Column> = C["_"]["dataType"] extends "custom"
  ? bigint extends C["_"]["driverParam"]
    ? bigint
    : C["_"]["driverParam"]
  : C["_"]["dataType"] extends "buffer"
    ? Uint8Array
    : C["_"]["dataType"] extends "json"
      ? string
      : C["_"]["data"];

type Nullable<C extends Column> = C["_"]["notNull"] extends true ? never : null;

/**
 * A whole row of `T` as raw SQL returns it when selected with `columnsOf(T)`: the schema's
 * property names (camelCase), SQLite's values. `Pick<>` it for a query that selects fewer.
 */
export type TableRow<T extends Table> = {
  [K in keyof T["_"]["columns"]]: SqlValue<T["_"]["columns"][K]> | Nullable<T["_"]["columns"][K]>;
};

/**
 * The SELECT list of `table`'s columns (all, or those named) under the names `TableRow` gives them:
 * `launched_at_ms AS launchedAtMs, ...`, each prefixed with `alias.` when one is given. Built once,
 * where the query's SQL is declared.
 */
export function columnsOf<T extends Table>(
  table: T,
  options: { alias?: string; only?: readonly (keyof T["_"]["columns"] & string)[] } = {},
): string {
  const columns = getTableColumns(table) as Record<string, Column>;
  const keys = options.only ?? Object.keys(columns);
  const prefix = options.alias ? `${options.alias}.` : "";
  return keys
    .map((name) => {
      const column = columns[name]!.name;
      return column === name ? `${prefix}${column}` : `${prefix}${column} AS ${name}`;
    })
    .join(", ");
}
