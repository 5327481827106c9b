/**
 * The backup key (BACKUP_KEY_FILE): every off-site object (a generation, an audit row) is sealed
 * with it, so only a holder of the key can write something a restore accepts. It lives outside
 * the data volume (mounted like the treasury key) and is never the store's credentials: whoever
 * can write the bucket, the service's own S3 keys included, cannot forge or re-encrypt a backup.
 * The file holds at least 32 characters of secret text (`openssl rand -base64 32`); the AES key
 * is derived from it with HKDF-SHA256, so any such text makes a full-strength key.
 */
import { hkdfSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { AppError } from "../lib/errors";

/** Fewer characters than this could be guessed offline from a stolen object. */
const MIN_BACKUP_KEY_CHARS = 32;

const INFO = "fee-ledger backup seal v1";

export type BackupKey = Buffer & { readonly __backupKey: true };

/** The sealing key derived from the key file's text (exported for tests that make planted copies). */
function backupKeyOf(text: string): BackupKey {
  return Buffer.from(hkdfSync("sha256", Buffer.from(text, "utf8"), Buffer.alloc(0), INFO, 32)) as BackupKey;
}

/** Reads BACKUP_KEY_FILE; one line naming the variable when it cannot be used. */
export function readBackupKey(path: string): BackupKey {
  let text: string;
  try {
    text = readFileSync(path, "utf8").trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new AppError("CONFIG_INVALID", `BACKUP_KEY_FILE cannot be read (${code})`, {}, { cause: error });
  }
  if (text.length < MIN_BACKUP_KEY_CHARS)
    throw new AppError("CONFIG_INVALID", `BACKUP_KEY_FILE must hold at least ${MIN_BACKUP_KEY_CHARS} characters`);
  return backupKeyOf(text);
}
