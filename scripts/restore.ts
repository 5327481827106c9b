/**
 * `bun run restore <file>`: puts a backup back as the service database. The service must be
 * stopped first (restore refuses while a job lease is held). The backup is checked (integrity and
 * balanced books) before anything is touched; the current database is kept beside it as
 * service.db.before-restore-<time>, and its WAL files are moved with it. `bun run restore
 * s3://bucket/prefix` restores the newest generation there (`…/prefix/<generation>` a named one),
 * after checking its bytes against the hash in its name. The database put back carries the
 * moment of the restore (`restored_at_ms`, src/backup/restored.ts): the service reconciles with
 * the chain before money moves, and no session: everyone (users and the operator page) signs in again.
 */
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { Database } from "bun:sqlite";
import {
  checkBackup,
  downloadGeneration,
  endSessionsOfBackup,
  freeLeasesOfBackup,
  isS3Url,
  markRestored,
  parseS3Url,
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

export function restoreDatabase(
  backupPath: string,
  databasePath: string,
  nowMs = Date.now(),
  lockWaitMs = LOCK_WAIT_MS,
): string | null {
  if (!existsSync(backupPath)) throw new Error(`there is no backup file at ${backupPath}`);
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
  try {
    copy.transaction(() => {
      markRestored(copy, nowMs);
      freeLeasesOfBackup(copy);
      endSessionsOfBackup(copy);
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
  renameSync(restoring, databasePath);
  for (const suffix of ["-wal", "-shm"]) rmSync(databasePath + suffix, { force: true });
  return kept;
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
  const kept = restoreDatabase(resolve(source), config.databasePath);
  process.stdout.write(
    `restored ${resolve(source)} to ${config.databasePath}${kept ? `; the previous database is kept at ${kept}` : ""}\n`,
  );
}

/** Downloads beside the database (the volume has room for it), restores, and deletes the download. */
async function restoreFromS3(config: Config, url: string): Promise<void> {
  if (config.backup.s3 === null)
    throw new Error("S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY (or the AWS_ names) must be set to restore from S3");
  const download = `${config.databasePath}.download-${process.pid}`;
  mkdirSync(dirname(download), { recursive: true });
  try {
    const fetched = await downloadGeneration({
      target: parseS3Url(url),
      settings: config.backup.s3,
      destinationPath: download,
    });
    const kept = restoreDatabase(download, config.databasePath);
    process.stdout.write(
      `restored ${fetched.url} to ${config.databasePath}${kept ? `; the previous database is kept at ${kept}` : ""}\n`,
    );
  } finally {
    rmSync(download, { force: true });
  }
}

if (import.meta.main) await restoreCommand(process.argv.slice(2));
