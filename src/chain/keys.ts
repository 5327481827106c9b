/**
 * Creator keys and the treasury key. Secrets come from the environment or a file and live only
 * in memory; nothing here writes them anywhere, and no error message repeats them.
 *
 * - `deriveCreatorKeypair(masterSecret, index)`: the creator key of the token with that index.
 *   seed = HMAC-SHA512(key = masterSecret, message = CREATOR_KEY_DOMAIN ‖ u64 BE index)[0..32],
 *   used as an ed25519 seed (DESIGN §4). The domain tag and encoding are frozen: changing either
 *   moves every creator address and strands the fees in the old ones.
 * - `loadMasterSecret(valueOrPath)`: hex (at least 32 bytes) or a file holding it.
 * - `loadTreasuryKeypair(valueOrPath)`: a base58 secret key (64 bytes, or a 32-byte seed), a JSON
 *   byte array as `solana-keygen` writes it, or a file holding either.
 */
import { createHmac } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { decodeHex } from "@oslojs/encoding";
import { Keypair } from "@solana/web3.js";
import bs58 from "bs58";
import { AppError, isAppError } from "../lib/errors";
import { keypairFromSeed } from "@fee-ledger/localnet/fast-keypair";

export const CREATOR_KEY_DOMAIN = "creator-fee-ledger/creator-key/v1";
const MIN_MASTER_SECRET_BYTES = 32;

/** A key setting that cannot be used (`CHAIN_KEY_INVALID`); its message never repeats the value. */
function keyInvalid(setting: KeySetting, reason: string): AppError<"CHAIN_KEY_INVALID"> {
  return new AppError("CHAIN_KEY_INVALID", { setting, reason });
}

type KeySetting = "master secret" | "treasury key" | "token index";

export function isKeyInvalid(error: unknown): error is AppError<"CHAIN_KEY_INVALID"> {
  return isAppError(error, "CHAIN_KEY_INVALID");
}

const domainBytes = new TextEncoder().encode(CREATOR_KEY_DOMAIN);

function deriveCreatorSeed(masterSecret: Uint8Array, index: number): Uint8Array {
  if (masterSecret.length < MIN_MASTER_SECRET_BYTES) {
    throw keyInvalid("master secret", `must be at least ${MIN_MASTER_SECRET_BYTES} bytes`);
  }
  if (!Number.isSafeInteger(index) || index < 0) {
    throw keyInvalid("token index", "must be a non-negative safe integer");
  }
  // Fixed-width index: variable-length encodings would let "1"‖"2" and "12" meet.
  const message = new Uint8Array(domainBytes.length + 8);
  message.set(domainBytes, 0);
  new DataView(message.buffer).setBigUint64(domainBytes.length, BigInt(index), false);
  // The runtime's native HMAC: the same bytes as any HMAC-SHA512 (pinned in test/chain/keys.test.ts),
  // at a fraction of a JavaScript SHA-512's CPU; one is derived per token a job touches.
  return new Uint8Array(createHmac("sha512", masterSecret).update(message).digest().subarray(0, 32));
}

export function deriveCreatorKeypair(masterSecret: Uint8Array, index: number): Keypair {
  return keypairFromSeed(deriveCreatorSeed(masterSecret, index));
}

/** Reads a setting that is either the secret itself or the path of a file holding it. */
function readValueOrFile(valueOrPath: string, what: KeySetting, looksLikeValue: (v: string) => boolean): string {
  const trimmed = valueOrPath.trim();
  if (trimmed === "") throw keyInvalid(what, "is empty");
  if (looksLikeValue(trimmed)) return trimmed;
  if (existsSync(trimmed)) {
    try {
      return readFileSync(trimmed, "utf8").trim();
    } catch {
      throw keyInvalid(what, "names a file that could not be read");
    }
  }
  throw keyInvalid(what, "is neither a valid value nor an existing file");
}

const HEX_SECRET = /^(?:0x)?[0-9a-fA-F]+$/;

function isHexSecret(v: string): boolean {
  const body = v.startsWith("0x") ? v.slice(2) : v;
  return HEX_SECRET.test(v) && body.length % 2 === 0 && body.length >= MIN_MASTER_SECRET_BYTES * 2;
}

export function loadMasterSecret(valueOrPath: string): Uint8Array {
  const text = readValueOrFile(valueOrPath, "master secret", isHexSecret);
  if (!isHexSecret(text)) {
    throw keyInvalid("master secret", `must be hex of at least ${MIN_MASTER_SECRET_BYTES} bytes`);
  }
  return decodeHex(text.startsWith("0x") ? text.slice(2) : text);
}

function parseSecretKey(text: string): Keypair | null {
  if (text.startsWith("[")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return null;
    }
    if (
      !Array.isArray(parsed) ||
      !parsed.every((b) => Number.isInteger(b) && b >= 0 && b <= 255) ||
      (parsed.length !== 64 && parsed.length !== 32)
    ) {
      return null;
    }
    return keypairFromBytes(Uint8Array.from(parsed as number[]));
  }
  let bytes: Uint8Array;
  try {
    bytes = bs58.decode(text);
  } catch {
    return null;
  }
  return bytes.length === 64 || bytes.length === 32 ? keypairFromBytes(bytes) : null;
}

function keypairFromBytes(bytes: Uint8Array): Keypair | null {
  try {
    // fromSecretKey checks that the public half matches the private half
    return bytes.length === 32 ? Keypair.fromSeed(bytes) : Keypair.fromSecretKey(bytes);
  } catch {
    return null;
  }
}

export function loadTreasuryKeypair(valueOrPath: string): Keypair {
  const text = readValueOrFile(valueOrPath, "treasury key", (v) => parseSecretKey(v) !== null);
  const keypair = parseSecretKey(text);
  if (!keypair) {
    throw keyInvalid(
      "treasury key",
      "must be a base58 secret key, a JSON byte array (solana-keygen) or a file holding one",
    );
  }
  return keypair;
}
