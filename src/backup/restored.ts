/**
 * The mark a restore leaves in the database it puts back: the moment of the restore, in the
 * `settings` table under `restored_at_ms`. A database that carries it may be behind the chain
 * (every money command since the backup was taken is missing from it), so the service reads it at
 * start and keeps money halted until the reconciliation with the chain (src/reconcile) has run.
 */
import { type Connection, query } from "../../db/statement";

export const RESTORED_AT_KEY = "restored_at_ms";

/** Records that this database was put back from a backup at `atMs` (replaces an earlier mark). */
export function markRestored(db: Connection, atMs: number): void {
  query<never, [key: string, value: string]>(
    db,
    "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = ?2",
  ).run(RESTORED_AT_KEY, String(Math.trunc(atMs)));
}

/**
 * Frees every job lease in a database being put back: a backup taken while a job ran (the
 * scheduled backup always does) carries leases of runs that are gone, which would keep that job,
 * and a second `restore`, refused until they expire.
 */
export function freeLeasesOfBackup(db: Connection): void {
  query<never, []>(db, "UPDATE job_leases SET holder = NULL, expires_at_ms = 0 WHERE holder IS NOT NULL").run();
}

/**
 * Ends every session (users' and the operator page's) in a database being put back: a backup
 * holds the sessions open when it was taken, so a cookie signed out since (one by one, or "sign
 * out all sessions") would answer as signed in again. Everyone signs in once more instead.
 */
export function endSessionsOfBackup(db: Connection): void {
  query<never, []>(db, "DELETE FROM sessions").run();
  query<never, []>(db, "DELETE FROM admin_sessions").run();
}
