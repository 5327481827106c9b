/**
 * Sealed objects: AES-256-GCM under the backup key (src/backup/key.ts), so an object is both
 * secret (a generation holds webhook URLs, client IPs and the volume's secrets) and authenticated:
 * a byte changed, an object made with another key or with none, or one moved to another name,
 * fails to open. The name it was sealed for (a generation's time, an audit row's id) is the
 * associated data: a genuine old generation copied under a newer name does not open either.
 *
 * Layout: `CFLSEAL1` (8 bytes), a random 12-byte nonce, the ciphertext, the 16-byte tag. Files are
 * sealed and opened as streams (a database may be large); an opened file is written to its
 * destination as it is decrypted and deleted unless the tag checks out at the end.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { closeSync, openSync, rmSync, writeSync } from "node:fs";
import { AppError } from "../lib/errors";
import type { BackupKey } from "./key";

const MAGIC = Buffer.from("CFLSEAL1", "latin1");
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = MAGIC.length + NONCE_BYTES;

function associatedData(sealedFor: string): Buffer {
  return Buffer.concat([MAGIC, Buffer.from(`\u0000${sealedFor}`, "utf8")]);
}

/** Seals `sourcePath` into `destinationPath` for the name `sealedFor`. */
export async function sealFile(key: BackupKey, sealedFor: string, sourcePath: string, destinationPath: string) {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  cipher.setAAD(associatedData(sealedFor));
  const fd = openSync(destinationPath, "w", 0o600);
  try {
    writeSync(fd, MAGIC);
    writeSync(fd, nonce);
    const reader = Bun.file(sourcePath).stream().getReader();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      writeSync(fd, cipher.update(chunk.value));
    writeSync(fd, cipher.final());
    writeSync(fd, cipher.getAuthTag());
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens a sealed file into `destinationPath`; throws BACKUP_NOT_AUTHENTIC (naming `url`) and leaves
 * no destination when it was not sealed with `key` for `sealedFor`.
 */
export async function openSealedFile(
  key: BackupKey,
  sealedFor: string,
  sourcePath: string,
  destinationPath: string,
  url: string,
): Promise<void> {
  const source = Bun.file(sourcePath);
  const size = source.size;
  const header = Buffer.from(await source.slice(0, HEADER_BYTES).arrayBuffer());
  if (size < HEADER_BYTES + TAG_BYTES || !header.subarray(0, MAGIC.length).equals(MAGIC))
    throw new AppError("BACKUP_NOT_AUTHENTIC", { url, advice: "" });
  const decipher = createDecipheriv("aes-256-gcm", key, header.subarray(MAGIC.length));
  decipher.setAAD(associatedData(sealedFor));
  decipher.setAuthTag(Buffer.from(await source.slice(size - TAG_BYTES).arrayBuffer()));
  const fd = openSync(destinationPath, "w", 0o600);
  let opened = false;
  try {
    const reader = source
      .slice(HEADER_BYTES, size - TAG_BYTES)
      .stream()
      .getReader();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      writeSync(fd, decipher.update(chunk.value));
    try {
      writeSync(fd, decipher.final());
    } catch (error) {
      throw new AppError("BACKUP_NOT_AUTHENTIC", { url, advice: "" }, { cause: error });
    }
    opened = true;
  } finally {
    closeSync(fd);
    if (!opened) rmSync(destinationPath, { force: true });
  }
}

/** Seals a small object (an audit row) in memory. */
export function sealBytes(key: BackupKey, sealedFor: string, plain: Uint8Array): Uint8Array {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  cipher.setAAD(associatedData(sealedFor));
  return Buffer.concat([MAGIC, nonce, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
}

/** Opens what `sealBytes` sealed, or throws BACKUP_NOT_AUTHENTIC naming `url`. */
export function openSealedBytes(key: BackupKey, sealedFor: string, sealed: Uint8Array, url: string): Buffer {
  const bytes = Buffer.from(sealed);
  if (bytes.length < HEADER_BYTES + TAG_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC))
    throw new AppError("BACKUP_NOT_AUTHENTIC", { url, advice: "" });
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(MAGIC.length, HEADER_BYTES));
    decipher.setAAD(associatedData(sealedFor));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(HEADER_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
  } catch (error) {
    throw new AppError("BACKUP_NOT_AUTHENTIC", { url, advice: "" }, { cause: error });
  }
}
