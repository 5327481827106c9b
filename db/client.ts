import { Database } from "bun:sqlite";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { migrate } from "drizzle-orm/bun-sqlite/migrator";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { appFile } from "../src/lib/app-files";
import { AppError } from "../src/lib/errors";
import { log } from "../src/lib/log";
import * as schema from "./schema";
import { query } from "./statement";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };

// Found in the checkout, or in the single executable's embedded files (scripts/build.ts).
const migrationsFolder = appFile("db", "migrations");

// Every query of the service goes through db/statement.ts's `query()` (test/db/one-query-path.test.ts),
// whose own cache keeps each statement: bun's second cache would only cost. Its LRU moves each hit
// to the back of a Map, ~2 µs a lookup with 300 statements cached against ~20 ns for `query()`'s
// (bench:queries, docs/queries.md). At 0 a direct `$client.query()` (scripts, tests) compiles anew.
Database.MAX_QUERY_CACHE_SIZE = 0;

/**
 * Each connection's SQLite page cache, in KiB (the default is 2 MiB). It was 32 MiB, but SQLite
 * drops a connection's whole cache when its next read transaction finds that another connection
 * committed since: with the jobs' thread committing several times a second, the request thread's
 * cache filled with pages it never read twice. At 8 MiB, in probes at 100k tokens, peak RSS fell
 * by ~25 MB with the jobs working and ~35 MB without, for ~6% fewer random details per second
 * with the jobs off (whose cache is never dropped).
 */
const PAGE_CACHE_KIB = 8 * 1024;

/**
 * The jobs' connection's page cache, in KiB. Theirs is the one that fills, since no other
 * connection's commits drop it as often, and the jobs read pages in order (keyset pages) and rarely
 * twice: at 2 MiB instead of 8, peak RSS with the jobs working fell ~7 MB with the same reads served.
 */
export const JOBS_PAGE_CACHE_KIB = 2 * 1024;

/**
 * What a WAL file may keep on disk once it is started over (`journal_size_limit`): SQLite reuses
 * the file rather than shrinking it, so one long burst (a history export's reader holding old
 * frames while refreshes commit) would otherwise leave its size behind for good. Above what the
 * WAL reaches between two checkpoints under full load (~70 MB at 100k tokens), so the file is not
 * cut and grown again on every restart: growing it costs the kernel new blocks to zero.
 */
const WAL_SIZE_LIMIT_BYTES = 128 * 1024 * 1024;

/** Readable by the service's user only: the file holds session hashes and liability nonces. */
const OWNER_ONLY_FILE_MODE = 0o600;
const OWNER_ONLY_DIR_MODE = 0o700;

/**
 * Creates the database file 0600 before SQLite opens it (SQLite gives the WAL and shared-memory
 * files the database file's mode), and tightens the files of a data directory made before this
 * rule. A directory the operator made (a mounted volume) keeps its own mode.
 */
function ownerOnly(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: OWNER_ONLY_DIR_MODE });
  if (!existsSync(path)) closeSync(openSync(path, "a", OWNER_ONLY_FILE_MODE));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      if (existsSync(file)) chmodSync(file, OWNER_ONLY_FILE_MODE);
    } catch {
      // Another user's file (a restore run as root): it opens as its owner left it.
    }
  }
}

/**
 * Opens (creating if needed) the service database and applies pending migrations.
 * `:memory:` gives a private database for tests.
 */
export function openDatabase(
  path: string,
  options: { busyTimeoutMs?: number; pageCacheKib?: number; walSizeLimitBytes?: number } = {},
): Db {
  if (path === ":memory:") return openMigratedMemory();
  ownerOnly(path);
  const client = new Database(path, { create: true, safeIntegers: true, strict: true });
  // First: every statement after it waits for a lock another connection holds instead of failing
  // at once ("database is locked" in 0 ms when switching to WAL while a backup or a crashed
  // process's recovery holds the file).
  client.exec(`PRAGMA busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  client.exec("PRAGMA journal_mode = WAL");
  // FULL: a committed posting survives power loss, not just a process crash.
  client.exec("PRAGMA synchronous = FULL");
  client.exec("PRAGMA foreign_keys = ON");
  client.exec(`PRAGMA cache_size = -${options.pageCacheKib ?? PAGE_CACHE_KIB}`);
  client.exec(`PRAGMA journal_size_limit = ${options.walSizeLimitBytes ?? WAL_SIZE_LIMIT_BYTES}`);
  const db = drizzle({ client, schema }) as Db;
  const pending = pendingMigrations(db, path);
  migrate(db, { migrationsFolder });
  for (const entry of pending) log.info("migration applied", { migration: entry.tag });
  return db;
}

/** A migration of this build as its journal lists it; drizzle records `when` as its `created_at`. */
interface JournalEntry {
  tag: string;
  when: number;
}

let journal: JournalEntry[] | null = null;

/** The build's own journal (embedded in the single executable with the migrations). */
function buildJournal(): JournalEntry[] {
  journal ??= (
    JSON.parse(readFileSync(join(migrationsFolder, "meta", "_journal.json"), "utf8")) as { entries: JournalEntry[] }
  ).entries;
  return journal;
}

/**
 * The build's migrations not yet applied to `db`. A database that holds migrations this build does
 * not know (a newer build ran on it) is refused: drizzle applies only migrations newer than the
 * database's last and passes over the rest in silence, so an older build would write to tables whose
 * rules it does not know. Going back means restoring a backup this build's version made.
 */
function pendingMigrations(db: Db, path: string): JournalEntry[] {
  const known = buildJournal();
  const table = query<{ found: bigint }, []>(
    db,
    "SELECT count(*) AS found FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'",
  ).get();
  if (!table?.found) return known;
  const applied = query<{ createdAt: bigint | number | string | null }, []>(
    db,
    "SELECT created_at AS createdAt FROM __drizzle_migrations",
  )
    .all()
    .map((row) => Number(row.createdAt));
  const knownWhens = new Set(known.map((entry) => entry.when));
  const unknown = applied.filter((when) => !knownWhens.has(when)).length;
  if (unknown > 0) {
    const last = known[known.length - 1]?.tag ?? "none";
    throw new AppError("DATABASE_FROM_NEWER_VERSION", { path, unknown, lastKnown: last });
  }
  const lastApplied = Math.max(-1, ...applied);
  return known.filter((entry) => entry.when > lastApplied);
}

/**
 * The migrated schema of an empty database, made once per process. Tests and the seeded simulation
 * open thousands of private databases; each migrated anew took ~6-12 ms (every migration file read
 * and hashed, then run), a copy of these bytes takes a fraction of that. Its migrations table comes
 * with it, so a later `migrate` finds them all applied.
 */
let migratedEmpty: Uint8Array | null = null;

function openMigratedMemory(): Db {
  if (!migratedEmpty) {
    const client = new Database(":memory:", { safeIntegers: true, strict: true });
    migrate(drizzle({ client, schema }), { migrationsFolder });
    migratedEmpty = client.serialize();
    client.close();
  }
  const client = Database.deserialize(migratedEmpty, { safeIntegers: true, strict: true });
  client.exec("PRAGMA foreign_keys = ON");
  client.exec(`PRAGMA cache_size = -${PAGE_CACHE_KIB}`);
  return drizzle({ client, schema }) as Db;
}

export function closeDatabase(db: Db): void {
  db.$client.close();
}

/**
 * The process's last word on the file, once every thread has closed its connection: the WAL copied
 * into the database and emptied, so the books stand in the one file whichever close came last.
 * Returns the WAL frames found; more than zero means some connection outlived its thread's close
 * (seen about once in ten stops under load, cause not yet found), which the caller logs.
 */
export function checkpointAtExit(path: string): number {
  const db = openDatabase(path);
  try {
    // A truncating checkpoint reports zero frames once it has emptied the WAL: count them first.
    const found = query<{ log: bigint }, []>(db, "PRAGMA wal_checkpoint(PASSIVE)").get();
    db.$client.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    return Number(found?.log ?? 0n);
  } finally {
    closeDatabase(db);
  }
}
