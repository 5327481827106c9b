/**
 * A file to restore must carry exactly the schema this build's migrations make for the version it
 * records: the same tables, indexes, triggers and views, statement for statement. Restore would
 * otherwise take the file's schema whole, and one added trigger (say, one that rewrites a payout's
 * wallet) would run inside every write the service makes afterwards. The reference is built here,
 * with the project's own migrations applied to an empty in-memory database up to that version.
 */
import { Database } from "bun:sqlite";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { appFile } from "../lib/app-files";
import { AppError } from "../lib/errors";
import { query } from "../../db/statement";

const migrationsFolder = appFile("db", "migrations");

interface SchemaObject {
  type: string;
  name: string;
  tblName: string;
  sql: string | null;
}

/** One line per object; whitespace in the SQL collapsed (older migrators wrote it differently). */
function schemaOf(db: Database): Map<string, SchemaObject> {
  const rows = query<SchemaObject, []>(
    db,
    // sqlite_stat tables hold ANALYZE's statistics, no statements: they may or may not be there.
    "SELECT type, name, tbl_name AS tblName, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_stat%'",
  ).all();
  return new Map(
    rows.map((row) => [
      `${row.type} ${row.name}`,
      { ...row, sql: row.sql === null ? null : row.sql.replace(/\s+/g, " ").trim() },
    ]),
  );
}

/** The migrations recorded in a file: their `created_at`, oldest first. */
function recordedMigrations(db: Database): number[] | null {
  const table = query<{ n: number }, []>(
    db,
    "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'",
  ).get();
  if (!table?.n) return null;
  return query<{ createdAt: number | string }, []>(
    db,
    "SELECT created_at AS createdAt FROM __drizzle_migrations ORDER BY created_at",
  )
    .all()
    .map((row) => Number(row.createdAt));
}

type Migration = ReturnType<typeof readMigrationFiles>[number];

/** The schema this build's first `count` migrations make, through drizzle's own migrator. */
function referenceSchema(migrations: Migration[]): Map<string, SchemaObject> {
  const client = new Database(":memory:");
  try {
    const db = drizzle({ client }) as unknown as {
      dialect: { migrate(m: Migration[], session: unknown, config: { migrationsFolder: string }): void };
      session: unknown;
    };
    db.dialect.migrate(migrations, db.session, { migrationsFolder });
    return schemaOf(client);
  } finally {
    client.close();
  }
}

/** What tells two schemas apart, for the refusal: the first object added, missing or changed. */
function difference(found: Map<string, SchemaObject>, expected: Map<string, SchemaObject>): string | null {
  for (const [key, object] of found) {
    const wanted = expected.get(key);
    if (!wanted) return `an added ${object.type} ${object.name}`;
    if (wanted.sql !== object.sql || wanted.tblName !== object.tblName)
      return `a changed ${object.type} ${object.name}`;
  }
  for (const [key, object] of expected) if (!found.has(key)) return `a missing ${object.type} ${object.name}`;
  return null;
}

/**
 * Refuses (BACKUP_SCHEMA_DIFFERS, naming `source`) a database file whose schema is not the one
 * this build's migrations make for the migrations it records.
 */
export function checkSchema(path: string, source: string): void {
  const file = new Database(path, { readonly: true });
  let found: Map<string, SchemaObject>;
  let recorded: number[] | null;
  try {
    recorded = recordedMigrations(file);
    found = schemaOf(file);
  } finally {
    file.close();
  }
  const refuse = (why: string) => new AppError("BACKUP_SCHEMA_DIFFERS", { source, difference: why });
  if (recorded === null) throw refuse("it records no migrations");
  const known = readMigrationFiles({ migrationsFolder });
  if (recorded.length > known.length || recorded.some((when, i) => known[i]?.folderMillis !== when))
    throw refuse("it records migrations this build does not know");
  const why = difference(found, referenceSchema(known.slice(0, recorded.length)));
  if (why !== null) throw refuse(why);
}
