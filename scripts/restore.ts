/**
 * `bun run restore <file>`: puts a backup back as the service database. The service must be
 * stopped first (restore refuses while a job lease is held). The backup is checked (integrity and
 * balanced books) before anything is touched; the current database is kept beside it as
 * service.db.before-restore-<time>, and its WAL files are moved with it. `bun run restore
 * s3://bucket/prefix` restores the newest generation there (`…/prefix/<generation>` a named one),
 * after checking its bytes against the hash in its name and opening it with the key in
 * BACKUP_KEY_FILE (a generation planted or re-encrypted by whoever can write the bucket is refused,
 * and no older one is taken in its place). Any file restored must carry exactly the schema the
 * migrations make for its version. The secrets the generation carries (webhooks-key, and the local
 * chain's keys) are written back into DATA_DIR, and the admin audit rows the store holds beyond the
 * file's are added to it (src/backup/audit-offsite.ts). The database put back carries the
 * moment of the restore (`restored_at_ms`, src/backup/restored.ts): the service reconciles with
 * the chain before money moves, and no session: everyone (users and the operator page) signs in again.
 */
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { Database } from "bun:sqlite";
import {
  type StoredAudit,
  checkBackup,
  checkSchema,
  downloadGeneration,
  endSessionsOfBackup,
  fetchAuditRowsAfter,
  freeLeasesOfBackup,
  isS3Url,
  markRestored,
  newestAuditId,
  parseS3Url,
  putAuditRows,
  putVolumeSecrets,
  readBackupKey,
  s3Store,
  takeVolumeSecrets,
} from "../src/backup";
import { type Config, loadConfigOrExit } from "../src/config";
import { crashPoint } from "../src/jobs";
import { refuseInOneLine } from "./refusal";

/**
 * How long a restore waits on a lock another connection holds for a moment (a process closing its
 * connection folds the WAL in as it goes) before it refuses. Without a wait SQLite answered
 * "database is locked" at once (seen in a test that restored right after its own backup), and the
 * WAL fold reported "busy" in a row nobody read, so the file was replaced under a writer.
 */
const LOCK_WAIT_MS = 10_000;

function connect(path: string, lockWaitMs: number, options: { readonly?: boolean } = {}): Database {
  const db = new Database(path, { ...options, safeIntegers: true });
  db.exec(`PRAGMA busy_timeout = ${lockWaitMs}`);
  return db;
}

export interface RestoreExtras {
  /** how the operator named the backup, for a refusal (default: its path) */
  source?: string;
  /** admin audit rows newer than the file's, from the off-site store */
  audit?: StoredAudit;
}

export interface RestoreOutcome {
  /** where the database it replaced is kept; null when there was none */
  kept: string | null;
  /** the secret files written back into DATA_DIR */
  secrets: string[];
  auditRows: number;
}

export function restoreDatabase(
  backupPath: string,
  databasePath: string,
  nowMs = Date.now(),
  lockWaitMs = LOCK_WAIT_MS,
  extras: RestoreExtras = {},
): string | null {
  return restoreWithExtras(backupPath, databasePath, nowMs, lockWaitMs, extras).kept;
}

function restoreWithExtras(
  backupPath: string,
  databasePath: string,
  nowMs: number,
  lockWaitMs: number,
  extras: RestoreExtras,
): RestoreOutcome {
  if (!existsSync(backupPath)) throw new Error(`there is no backup file at ${backupPath}`);
  // Before anything opens it as the service would (migrating it): a foreign trigger never runs.
  checkSchema(backupPath, extras.source ?? backupPath);
  checkBackup(backupPath);
  const live = existsSync(databasePath);
  if (live) refuseWhileAlive(databasePath, nowMs, lockWaitMs);
  mkdirSync(dirname(databasePath), { recursive: true });
  // The order makes a kill at any step safe: until the last rename the database is the old one,
  // whole (its WAL folded in first, so no stale WAL is ever left beside the restored file); after
  // it, the restored one, marked. Running the command again finishes the job.
  const restoring = `${databasePath}.restoring`;
  copyFileSync(backupPath, restoring);
  // Marked before it takes the database's name: no start can see the restored books unmarked.
  const copy = connect(restoring, lockWaitMs);
  let secrets: Record<string, string> = {};
  try {
    copy.transaction(() => {
      markRestored(copy, nowMs);
      freeLeasesOfBackup(copy);
      endSessionsOfBackup(copy);
      secrets = takeVolumeSecrets(copy);
      if (extras.audit) putAuditRows(copy, extras.audit);
    })();
    copy.exec("PRAGMA journal_mode = DELETE");
  } finally {
    copy.close();
  }
  crashPoint("restore:after-prepare");
  let kept: string | null = null;
  if (live) {
    const current = connect(databasePath, lockWaitMs);
    try {
      const folded = current.query<{ busy: bigint }, []>("PRAGMA wal_checkpoint(TRUNCATE)").get();
      if (folded?.busy !== 0n) {
        rmSync(restoring, { force: true });
        throw new Error("refused: another process is writing to the database; stop it, then restore");
      }
    } finally {
      current.close();
    }
    kept = `${databasePath}.before-restore-${nowMs}`;
    copyFileSync(databasePath, kept);
    crashPoint("restore:after-keep");
  }
  // Before the database: a kill between the two leaves the old books with the backup's keys,
  // which running the command again puts right, never restored books with the volume's new keys.
  const written = putVolumeSecrets(dirname(databasePath), secrets, nowMs);
  renameSync(restoring, databasePath);
  for (const suffix of ["-wal", "-shm"]) rmSync(databasePath + suffix, { force: true });
  return { kept, secrets: written, auditRows: extras.audit?.records.length ?? 0 };
}

function refuseWhileAlive(databasePath: string, nowMs: number, lockWaitMs: number): void {
  const live = connect(databasePath, lockWaitMs, { readonly: true });
  try {
    const held = live
      .query<{ n: bigint }, [number]>(
        "SELECT COUNT(*) AS n FROM job_leases WHERE holder IS NOT NULL AND expires_at_ms > ?",
      )
      .get(nowMs);
    if (held && Number(held.n) > 0)
      throw new Error("refused: the service looks alive (a job lease is held); stop it, then restore");
  } finally {
    live.close();
  }
}

/** The command, as `bun run restore <file>` or the executable's `fee-ledger restore <file>` (scripts/cli.ts). */
export function restoreCommand(args: readonly string[], invokedAs = "bun run restore"): void | Promise<void> {
  refuseInOneLine("restore");
  const source = args[0];
  if (!source) {
    process.stderr.write(
      `usage: ${invokedAs} <backup file | s3://bucket/prefix[/<generation>]>   (stop the service first)\n`,
    );
    process.exit(2);
  }
  const config = loadConfigOrExit();
  if (isS3Url(source)) return restoreFromS3(config, source);
  return restoreFromFile(config, resolve(source));
}

/** The off-site store's settings, or the one line saying what is missing. */
function offsite(config: Config, url: string) {
  if (config.backup.s3 === null)
    throw new Error("S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY (or the AWS_ names) must be set to restore from S3");
  if (config.backup.keyFile === null)
    throw new Error("BACKUP_KEY_FILE must be set to restore from S3 (the key the generations are sealed with)");
  const target = parseS3Url(url);
  return {
    target,
    settings: config.backup.s3,
    key: readBackupKey(config.backup.keyFile),
    store: s3Store(target, config.backup.s3),
  };
}

/** The audit rows the store holds beyond those of the file at `path`. */
async function auditRowsBeyond(path: string, source: string, store: ReturnType<typeof offsite>) {
  checkSchema(path, source);
  const file = new Database(path, { readonly: true });
  let newest: number;
  try {
    newest = newestAuditId(file);
  } finally {
    file.close();
  }
  return fetchAuditRowsAfter(store.store, { ...store.target, generation: null }, store.key, newest);
}

function report(source: string, config: Config, outcome: RestoreOutcome): void {
  const notes = [
    outcome.kept ? `the previous database is kept at ${outcome.kept}` : null,
    outcome.secrets.length > 0 ? `${outcome.secrets.join(", ")} written back into DATA_DIR` : null,
    outcome.auditRows > 0 ? `${outcome.auditRows} newer admin audit rows added from the store` : null,
  ].filter((note) => note !== null);
  process.stdout.write(`restored ${source} to ${config.databasePath}${notes.map((n) => `; ${n}`).join("")}\n`);
}

/**
 * A local file; with off-site backups configured (BACKUP_URL), the audit rows the store holds
 * beyond the file's are added too, so the trail never rolls back with the books.
 */
async function restoreFromFile(config: Config, path: string): Promise<void> {
  const { url } = config.backup;
  const audit = url !== null && existsSync(path) ? await auditRowsBeyond(path, path, offsite(config, url)) : undefined;
  report(path, config, restoreWithExtras(path, config.databasePath, Date.now(), LOCK_WAIT_MS, { audit }));
}

/** Downloads beside the database (the volume has room for it), restores, and deletes the download. */
async function restoreFromS3(config: Config, url: string): Promise<void> {
  const store = offsite(config, url);
  const download = `${config.databasePath}.download-${process.pid}`;
  mkdirSync(dirname(download), { recursive: true });
  try {
    const fetched = await downloadGeneration({ ...store, destinationPath: download });
    const audit = await auditRowsBeyond(download, fetched.url, store);
    const outcome = restoreWithExtras(download, config.databasePath, Date.now(), LOCK_WAIT_MS, {
      source: fetched.url,
      audit,
    });
    report(fetched.url, config, outcome);
  } finally {
    rmSync(download, { force: true });
  }
}

if (import.meta.main) await restoreCommand(process.argv.slice(2));
