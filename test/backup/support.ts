/** A service database with a visible marker, an S3 store (stores.ts), and the operator commands run as processes. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../../db/client";
import { startFakeS3, type FakeS3 } from "../fakes/s3";

export const ACCESS_KEY_ID = "AKIAFEELEDGERTEST01";
export const BUCKET = "fee-ledger-backups";
const ROOT = join(import.meta.dir, "..", "..");

/** A secret no other string in a test resembles, so finding it anywhere is a leak. */
export function uniqueSecret(): string {
  return `sEcReT-${crypto.randomUUID().replaceAll("-", "")}`;
}

export function fakeStore(secret: string, maxKeysPerPage?: number): FakeS3 {
  return startFakeS3({ accessKeyId: ACCESS_KEY_ID, secretAccessKey: secret, buckets: [BUCKET], maxKeysPerPage });
}

/** A data dir whose service.db has migrated, balanced (empty) books. */
export function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "cfl-offsite-"));
  closeDatabase(openDatabase(join(dir, "service.db")));
  return dir;
}

/** A row that tells one snapshot from another: the books stay balanced whatever it says. */
export function setMarker(dir: string, value: string): void {
  const db = openDatabase(join(dir, "service.db"));
  db.$client
    .query("INSERT INTO settings (key, value) VALUES ('test_marker', ?1) ON CONFLICT (key) DO UPDATE SET value = ?1")
    .run(value);
  closeDatabase(db);
}

export function readSettingOf(dir: string, key: string): string | null {
  const db = openDatabase(join(dir, "service.db"));
  try {
    return (
      db.$client.query<{ value: string }, [string]>("SELECT value FROM settings WHERE key = ?").get(key)?.value ?? null
    );
  } finally {
    closeDatabase(db);
  }
}

/**
 * A BACKUP_KEY_FILE outside every data dir, as an operator mounts it (like the treasury key); one
 * per text, so a test can seal with another key.
 */
export function backupKeyFile(text = `backup-key-for-the-tests-${crypto.randomUUID()}`): string {
  const path = join(mkdtempSync(join(tmpdir(), "cfl-backup-key-")), "backup-key");
  writeFileSync(path, text, { mode: 0o600 });
  return path;
}

/** The one key the store's own test generations are sealed with, unless a test passes another. */
export const BACKUP_KEY_FILE = backupKeyFile();

/** The service's S3 settings for a store: the fake of fakeStore() (ACCESS_KEY_ID) or a TestStore (its own key id). */
export function s3Env(
  store: { endpoint: string; accessKeyId?: string },
  secret: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    BACKUP_KEY_FILE,
    S3_ENDPOINT: store.endpoint,
    S3_REGION: "us-east-1",
    S3_ACCESS_KEY_ID: store.accessKeyId ?? ACCESS_KEY_ID,
    S3_SECRET_ACCESS_KEY: secret,
    ...extra,
  };
}

export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** `bun run backup|restore <args>` as the operator runs it, with only the environment given. */
export async function runCommand(
  script: "backup" | "restore",
  args: string[],
  env: Record<string, string>,
): Promise<CommandResult> {
  const child = Bun.spawn([process.execPath, "run", join(ROOT, "scripts", `${script}.ts`), ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", LOG_LEVEL: "info", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { exitCode, stdout, stderr };
}
