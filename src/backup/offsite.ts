/**
 * Off-site generations: a checked snapshot uploaded as a new generation, older ones pruned; and the
 * way back, the newest (or a named) generation downloaded and checked against the hash in its name.
 * An upload is one object (a multipart upload becomes visible only when complete), so a failed or
 * interrupted upload never leaves a generation a restore could pick.
 */
import { AppError } from "../lib/errors";
import { readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { S3Settings } from "../config";
import {
  checksumOf,
  generationName,
  generationOfKey,
  generationsToPrune,
  listPrefix,
  newestFirst,
  objectKey,
} from "./generations";
import { s3Store, type ObjectStore } from "./s3";
import { backupDatabase } from "./snapshot";
import { s3UrlOf, type S3Target } from "./target";

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
  nowMs?: number;
  /** where the snapshot is written before upload (deleted after); default beside the database */
  snapshotPath?: string;
  store?: ObjectStore;
}

/** Beside the database: the volume that holds it has room for a copy, a small /tmp may not. */
export function snapshotPathFor(databasePath: string): string {
  return join(dirname(databasePath), `.offsite-snapshot-${process.pid}-${crypto.randomUUID().slice(0, 8)}.db`);
}

/**
 * Snapshots (and their `.partial-…` files) left by a process killed mid-backup, e.g. by a stop
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
  try {
    backupDatabase(options.databasePath, snapshotPath);
    const generation = generationName(nowMs, await sha256OfFile(snapshotPath));
    await store.upload(objectKey(options.target, generation), snapshotPath);
    const bytes = Bun.file(snapshotPath).size;
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
  }
}

async function prune(store: ObjectStore, target: S3Target, keep: number, justUploaded: string): Promise<string[]> {
  const doomed = generationsToPrune(await listGenerations(store, target), keep, justUploaded);
  for (const generation of doomed) await store.remove(objectKey(target, generation));
  return doomed;
}

/** Every generation under the target's prefix, newest first. */
export async function listGenerations(store: ObjectStore, target: S3Target): Promise<string[]> {
  const keys = await store.list(listPrefix(target));
  return newestFirst(keys.map((key) => generationOfKey(target, key)).filter((g): g is string => g !== null));
}

export interface DownloadOptions {
  target: S3Target;
  settings: S3Settings;
  /** the local file the generation is written to */
  destinationPath: string;
  store?: ObjectStore;
}

/**
 * Writes the target's named generation, else its newest, to `destinationPath`, and refuses it
 * (deleting the download) when its bytes do not hash to the name: an object damaged or replaced
 * in the store is never restored. The database checks (integrity, the books) are the restore's.
 */
export async function downloadGeneration(options: DownloadOptions): Promise<{ generation: string; url: string }> {
  const { target, destinationPath } = options;
  const store = options.store ?? s3Store(target, options.settings);
  const generation = target.generation ?? (await listGenerations(store, target))[0];
  if (generation === undefined) throw new AppError("BACKUP_NOT_FOUND", { url: s3UrlOf(target) });
  const url = s3UrlOf(target, generation);
  try {
    await store.download(objectKey(target, generation), destinationPath);
    if (!(await sha256OfFile(destinationPath)).startsWith(checksumOf(generation)))
      throw new AppError("BACKUP_CHECKSUM_MISMATCH", { url });
  } catch (error) {
    rmSync(destinationPath, { force: true });
    throw error;
  }
  return { generation, url };
}

async function sha256OfFile(path: string): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  const reader = Bun.file(path).stream().getReader();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) hasher.update(chunk.value);
  return hasher.digest("hex");
}
