/**
 * A consistent, checked copy of the service database while it runs. SQLite's VACUUM INTO writes a
 * transactionally consistent snapshot to a temporary name next to the target; the copy must pass
 * `PRAGMA integrity_check` and the full ledger audit before it is renamed into place, so a file at
 * the target is always a good backup.
 */
import { AppError } from "../lib/errors";
import { Database } from "bun:sqlite";
import { existsSync, renameSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { openDatabase } from "../../db/client";
import { verifyLedger } from "../ledger";
import { query } from "../../db/statement";

export function backupDatabase(sourcePath: string, targetPath: string): void {
  const target = resolve(targetPath);
  if (!existsSync(sourcePath))
    throw new AppError("CONFIG_INVALID", `there is no service database at ${sourcePath} (check DATA_DIR)`);
  const temporary = `${target}.partial-${process.pid}`;
  if (existsSync(temporary)) rmSync(temporary);
  const source = new Database(sourcePath, { readonly: true, safeIntegers: true });
  try {
    source.exec("PRAGMA busy_timeout = 10000");
    query<never, [path: string]>(source, "VACUUM INTO ?").run(temporary);
  } finally {
    source.close();
  }
  try {
    checkBackup(temporary);
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** Integrity and balanced books, or an exception saying which failed. */
export function checkBackup(path: string): void {
  const copy = new Database(path, { readonly: true, safeIntegers: true });
  try {
    const result = query<{ integrity_check: string }, []>(copy, "PRAGMA integrity_check").get();
    if (result?.integrity_check !== "ok")
      throw new AppError("BACKUP_INTEGRITY_FAILED", { result: String(result?.integrity_check) });
  } finally {
    copy.close();
  }
  // The audit needs the drizzle wrapper; migrations are already applied in a copy of a live database.
  const db = openDatabase(path);
  try {
    verifyLedger(db);
  } finally {
    // Opening set WAL mode: back to one self-contained file, with no -wal/-shm left beside it
    // (refused only while another connection of this process still has it open: then it stays WAL).
    try {
      db.$client.exec("PRAGMA journal_mode = DELETE");
    } catch {}
    db.$client.close();
  }
}
