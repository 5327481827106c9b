/**
 * The S3-compatible store, through Bun's built-in client. Credentials come from the configuration
 * (S3_* or AWS_* in the environment) and go nowhere but the client: every failure is rethrown as a
 * new error naming the action and the store's error code only (`SignatureDoesNotMatch`,
 * `ConnectionRefused`, ...), never the client's own message, the endpoint or a header.
 */
import type { S3Settings } from "../config";
import { AppError } from "../lib/errors";
import type { S3Target } from "./target";

export interface ObjectStore {
  /** uploads a local file (multipart for large files) */
  upload(key: string, path: string): Promise<void>;
  /** writes the object to a local file */
  download(key: string, path: string): Promise<void>;
  /** every key under `prefix`, all pages */
  list(prefix: string): Promise<string[]>;
  remove(key: string): Promise<void>;
  /** writes a small object (an audit row) from memory */
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** reads a small object into memory */
  get(key: string): Promise<Uint8Array>;
}

/** The store's error code when it is a plain identifier; anything else is not repeated. */
function codeOf(error: unknown): string {
  const code = typeof error === "object" && error !== null && "code" in error ? error.code : null;
  return typeof code === "string" && /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(code) ? code : "error";
}

async function guarded<T>(action: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    // Safe to print and log: the action and the store's error code, never the client's own message.
    throw new AppError("BACKUP_STORE_FAILED", { action, storeCode: codeOf(error) });
  }
}

export function s3Store(target: Pick<S3Target, "bucket">, settings: S3Settings): ObjectStore {
  const client = new Bun.S3Client({
    bucket: target.bucket,
    accessKeyId: settings.accessKeyId,
    secretAccessKey: settings.secretAccessKey,
    ...(settings.sessionToken ? { sessionToken: settings.sessionToken } : {}),
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    ...(settings.region ? { region: settings.region } : {}),
  });
  return {
    upload: (key, path) =>
      guarded(`upload of ${key}`, async () => {
        // Sealed (src/backup/seal.ts): no longer an SQLite file anyone can open.
        await client.write(key, Bun.file(path), { type: "application/octet-stream" });
      }),
    download: (key, path) =>
      guarded(`download of ${key}`, async () => {
        await Bun.write(path, client.file(key));
      }),
    list: (prefix) =>
      guarded("listing the generations", async () => {
        const keys: string[] = [];
        let continuationToken: string | undefined;
        do {
          const page = await client.list({ prefix, ...(continuationToken ? { continuationToken } : {}) });
          for (const item of page.contents ?? []) keys.push(item.key);
          continuationToken = page.isTruncated ? page.nextContinuationToken : undefined;
        } while (continuationToken);
        return keys;
      }),
    remove: (key) =>
      guarded(`deleting ${key}`, async () => {
        await client.delete(key);
      }),
    put: (key, bytes) =>
      guarded(`upload of ${key}`, async () => {
        await client.write(key, bytes, { type: "application/octet-stream" });
      }),
    get: (key) => guarded(`download of ${key}`, () => client.file(key).bytes()),
  };
}
