/**
 * `bun run backup <file>`: a consistent online copy of the service database while it runs.
 * SQLite's VACUUM INTO writes a transactionally consistent snapshot to a temporary name next to
 * the target; the copy must pass `PRAGMA integrity_check` and the full ledger audit before it is
 * renamed into place, so a file at <file> is always a good backup (src/backup/snapshot.ts).
 * `bun run backup s3://bucket/prefix` seals that checked snapshot (with the volume's generated
 * secrets) with the key in BACKUP_KEY_FILE, uploads it as a new generation and keeps the newest
 * BACKUP_KEEP (src/backup, docs/operations.md). A local file stays a plain SQLite file.
 */
import { resolve } from "node:path";
import { backupDatabase, isS3Url, parseS3Url, readBackupKey, readVolumeSecrets, uploadGeneration } from "../src/backup";
import { type Config, loadConfigOrExit } from "../src/config";
import { refuseInOneLine } from "./refusal";

export { backupDatabase, checkBackup } from "../src/backup";

/** The command, as `bun run backup <file>` or the executable's `fee-ledger backup <file>` (scripts/cli.ts). */
export function backupCommand(args: readonly string[], invokedAs = "bun run backup"): void | Promise<void> {
  refuseInOneLine("backup");
  const target = args[0];
  if (!target) {
    process.stderr.write(`usage: ${invokedAs} <file | s3://bucket/prefix>\n`);
    process.exit(2);
  }
  const config = loadConfigOrExit();
  if (isS3Url(target)) return backupToS3(config, target);
  backupDatabase(config.databasePath, target);
  process.stdout.write(`backup written to ${resolve(target)} (integrity ok, books balanced)\n`);
}

/** A failure rejects, and refuseInOneLine prints it as one line (the store's error code, never a credential). */
async function backupToS3(config: Config, url: string): Promise<void> {
  if (config.backup.s3 === null)
    throw new Error("S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY (or the AWS_ names) must be set to back up to S3");
  if (config.backup.keyFile === null)
    throw new Error(
      "BACKUP_KEY_FILE must be set to back up to S3 (the key generations are sealed with, outside DATA_DIR)",
    );
  const target = parseS3Url(url);
  if (target.generation !== null) throw new Error("back up to a prefix (s3://bucket/prefix), not to a generation");
  const outcome = await uploadGeneration({
    databasePath: config.databasePath,
    target,
    settings: config.backup.s3,
    keep: config.backup.keep,
    key: readBackupKey(config.backup.keyFile),
    secrets: readVolumeSecrets(config),
  });
  process.stdout.write(
    `backup uploaded to ${outcome.url} (${outcome.bytes} bytes, integrity ok, books balanced; ${outcome.pruned.length} older generations pruned, ${config.backup.keep} kept)\n`,
  );
  if (outcome.pruneError) process.stderr.write(`backup: older generations not pruned: ${outcome.pruneError}\n`);
}

if (import.meta.main) await backupCommand(process.argv.slice(2));
