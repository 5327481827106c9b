/**
 * `bun run restore <file>`: puts a backup back as the service database. The service must be
 * stopped first (restore refuses while a job lease is held). The backup is checked (integrity and
 * balanced books) before anything is touched; the current database is kept beside it as
 * service.db.before-restore-<time>, and its WAL files are moved with it.
 */
import { copyFileSync, existsSync, mkdirSync, renameSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { Database } from "bun:sqlite";
import { loadConfigOrExit } from "../src/config";
import { checkBackup } from "./backup";
import { refuseInOneLine } from "./refusal";

export function restoreDatabase(backupPath: string, databasePath: string, nowMs = Date.now()): string | null {
  if (!existsSync(backupPath)) throw new Error(`there is no backup file at ${backupPath}`);
  checkBackup(backupPath);
  let kept: string | null = null;
  if (existsSync(databasePath)) {
    const live = new Database(databasePath, { readonly: true, safeIntegers: true });
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
    kept = `${databasePath}.before-restore-${nowMs}`;
    renameSync(databasePath, kept);
    for (const suffix of ["-wal", "-shm"])
      if (existsSync(databasePath + suffix)) renameSync(databasePath + suffix, kept + suffix);
  }
  mkdirSync(dirname(databasePath), { recursive: true });
  copyFileSync(backupPath, `${databasePath}.restoring`);
  renameSync(`${databasePath}.restoring`, databasePath);
  return kept;
}

if (import.meta.main) {
  refuseInOneLine("restore");
  const source = process.argv[2];
  if (!source) {
    process.stderr.write("usage: bun run restore <backup file>   (stop the service first)\n");
    process.exit(2);
  }
  const config = loadConfigOrExit();
  const kept = restoreDatabase(resolve(source), config.databasePath);
  process.stdout.write(
    `restored ${resolve(source)} to ${config.databasePath}${kept ? `; the previous database is kept at ${kept}` : ""}\n`,
  );
}
