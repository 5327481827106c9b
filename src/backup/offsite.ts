/**
 * Off-site generations: a checked snapshot, sealed with the backup key (src/backup/seal.ts),
 * uploaded as a new generation, older ones pruned; and the way back, the newest (or a named)
 * generation downloaded, checked against the hash in its name (damage) and opened with the key
 * (authenticity). An upload is one object (a multipart upload becomes visible only when complete),
 * so a failed or interrupted upload never leaves a generation a restore could pick.
 */
import { Database } from "bun:sqlite";
import { AppError, isAppError } from "../lib/errors";
import { readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { S3Settings } from "../config";
import {
  checksumOf,
  generationName,
  generationOfKey,
  generationStamp,
  generationsToPrune,
  listPrefix,
  newestFirst,
  objectKey,
  sealedForGeneration,
  stampOf,
} from "./generations";
import type { BackupKey } from "./key";
import { s3Store, type ObjectStore } from "./s3";
import { openSealedFile, sealFile } from "./seal";
import { backupDatabase } from "./snapshot";
import { s3UrlOf, type S3Target } from "./target";
import { stashVolumeSecrets } from "./volume-secrets";

export interface UploadOutcome {
  /** `s3://bucket/prefix/<generation>`, for the operator */
  url: string;
  generation: string;
  bytes: number;
  pruned: string[];
  /** the upload counts; a failed prune is retried by the next upload's */
  pruneError: string | null;
}

export interface UploadOptions {
  databasePath: string;
  target: S3Target;
  settings: S3Settings;
  keep: number;
  /** the key every generation is sealed with (BACKUP_KEY_FILE) */
  key: BackupKey;
  /** the volume's generated secrets (src/backup/volume-secrets.ts), carried inside the sealed snapshot */
  secrets?: Record<string, string>;
  nowMs?: number;
  /** where the snapshot is written before upload (deleted after); default beside the database */
  snapshotPath?: string;
  store?: ObjectStore;
}

/** Beside the database: the volume that holds it has room for a copy, a small /tmp may not. */
export function snapshotPathFor(databasePath: string): string {
  return join(dirname(databasePath), `.offsite-snapshot-${process.pid}-${crypto.randomUUID().slice(0, 8)}.db`);
}

/** Where a snapshot is sealed before upload (deleted after, like the snapshot). */
export function sealedPathOf(snapshotPath: string): string {
  return `${snapshotPath}.sealed`;
}

/**
 * Snapshots (and their `.partial-…` and `.sealed` files) left by a process killed mid-backup, e.g. by a stop
 * grace shorter than the snapshot: the process id in the name is no longer running.
 */
function removeAbandonedSnapshots(databasePath: string): void {
  const dir = dirname(databasePath);
  for (const name of readdirSync(dir)) {
    const pid = /^\.offsite-snapshot-(\d+)-/.exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid || isRunning(Number(pid))) continue;
    rmSync(join(dir, name), { force: true });
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export async function uploadGeneration(options: UploadOptions): Promise<UploadOutcome> {
  const nowMs = options.nowMs ?? Date.now();
  const snapshotPath = options.snapshotPath ?? snapshotPathFor(options.databasePath);
  const store = options.store ?? s3Store(options.target, options.settings);
  removeAbandonedSnapshots(options.databasePath);
  const sealedPath = sealedPathOf(snapshotPath);
  try {
    backupDatabase(options.databasePath, snapshotPath);
    withSecrets(snapshotPath, options.secrets ?? {});
    const stamp = generationStamp(nowMs);
    await sealFile(options.key, sealedForGeneration(stamp), snapshotPath, sealedPath);
    const generation = generationName(nowMs, await sha256OfFile(sealedPath));
    await store.upload(objectKey(options.target, generation), sealedPath);
    const bytes = Bun.file(sealedPath).size;
    let pruned: string[] = [];
    let pruneError: string | null = null;
    try {
      pruned = await prune(store, options.target, options.keep, generation);
    } catch (error) {
      pruneError = error instanceof Error ? error.message : "pruning failed";
    }
    return { url: s3UrlOf(options.target, generation), generation, bytes, pruned, pruneError };
  } finally {
    rmSync(snapshotPath, { force: true });
    rmSync(sealedPath, { force: true });
  }
}

/** The volume's secrets into the checked snapshot, which is sealed next (never into the live database). */
function withSecrets(snapshotPath: string, secrets: Record<string, string>): void {
  if (Object.keys(secrets).length === 0) return;
  const snapshot = new Database(snapshotPath);
  try {
    stashVolumeSecrets(snapshot, secrets);
  } finally {
    snapshot.close();
  }
}

async function prune(store: ObjectStore, target: S3Target, keep: number, justUploaded: string): Promise<string[]> {
  const doomed = generationsToPrune(await listGenerations(store, target), keep, justUploaded);
  for (const generation of doomed) await store.remove(objectKey(target, generation));
  return doomed;
}

/** Every generation under the target's prefix, newest first. */
async function listGenerations(store: ObjectStore, target: S3Target): Promise<string[]> {
  const keys = await store.list(listPrefix(target));
  return newestFirst(keys.map((key) => generationOfKey(target, key)).filter((g): g is string => g !== null));
}

export interface DownloadOptions {
  target: S3Target;
  settings: S3Settings;
  /** the local file the opened generation (the SQLite file) is written to */
  destinationPath: string;
  /** the key generations are sealed with (BACKUP_KEY_FILE) */
  key: BackupKey;
  store?: ObjectStore;
}

/**
 * Writes the target's named generation, else its newest, opened, to `destinationPath`. Refused
 * (the download deleted): an object whose bytes do not hash to its name (damaged), and one that
 * does not open with the key (planted, sealed with another key, or copied under another name).
 * A refused newest generation is not passed over for an older one: whoever can write the bucket
 * could otherwise choose, by planting, which genuine generation is restored. The refusal names the
 * next newest, which the operator may restore by name. The database checks are the restore's.
 */
export async function downloadGeneration(options: DownloadOptions): Promise<{ generation: string; url: string }> {
  const { target, destinationPath } = options;
  const store = options.store ?? s3Store(target, options.settings);
  const listed = target.generation === null ? await listGenerations(store, target) : [];
  const generation = target.generation ?? listed[0];
  if (generation === undefined) throw new AppError("BACKUP_NOT_FOUND", { url: s3UrlOf(target) });
  const url = s3UrlOf(target, generation);
  const sealedPath = `${destinationPath}.sealed`;
  try {
    await store.download(objectKey(target, generation), sealedPath);
    if (!(await sha256OfFile(sealedPath)).startsWith(checksumOf(generation)))
      throw new AppError("BACKUP_CHECKSUM_MISMATCH", { url });
    await openSealedFile(options.key, sealedForGeneration(stampOf(generation)), sealedPath, destinationPath, url);
  } catch (error) {
    rmSync(destinationPath, { force: true });
    if (isAppError(error, "BACKUP_NOT_AUTHENTIC"))
      throw new AppError("BACKUP_NOT_AUTHENTIC", { url, advice: adviceAfterRefusal(target, listed.slice(1)) });
    throw error;
  } finally {
    rmSync(sealedPath, { force: true });
  }
  return { generation, url };
}

function adviceAfterRefusal(target: S3Target, older: string[]): string {
  if (target.generation !== null) return "; nothing was restored";
  const next = older[0];
  return next === undefined
    ? "; nothing was restored, and there is no older generation"
    : `; nothing was restored, and no older generation is tried in its place: name one to restore it (the next newest is ${s3UrlOf(target, next)})`;
}

async function sha256OfFile(path: string): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  const reader = Bun.file(path).stream().getReader();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) hasher.update(chunk.value);
  return hasher.digest("hex");
}
