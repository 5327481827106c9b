/**
 * The Explore list cursor (DESIGN §5): a keyset position (sort key, mint) bound to its sort and
 * signed with HMAC-SHA256, so a cursor from another sort, another deployment or a hand edit is
 * refused instead of silently paging from a wrong place. The key comes from the master secret
 * when one is configured, otherwise from a random secret file in the data dir; it never sits in
 * the database, where a copy of the data would let anyone forge positions.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config";

export type TokenSort = "new" | "fees" | "mcap";

/** Where the next page starts: strictly after this (key, mint) in the sort's descending order. */
export interface CursorPosition {
  sort: TokenSort;
  /**
   * launchedAtMs (new), fees lamports as a decimal string (fees); mcap: the market cap, or for a
   * token without one (those come after every known cap, by fees) its fees as a decimal string
   */
  key: number | string | null;
  mint: string;
}

const SIG_BYTES = 16;

const isLamports = (key: unknown): key is string => typeof key === "string" && /^[0-9]{1,19}$/.test(key);
const CURSOR_FILE = "cursor.secret";

export class CursorSigner {
  constructor(private readonly key: Buffer) {}

  encode(position: CursorPosition): string {
    const payload = Buffer.from(JSON.stringify([position.sort, position.key, position.mint])).toString("base64url");
    return `${payload}.${this.sign(payload)}`;
  }

  /** The position, or null when the cursor is not one this service issued for `sort`. */
  decode(cursor: string, sort: TokenSort): CursorPosition | null {
    const dot = cursor.indexOf(".");
    if (dot <= 0 || cursor.length > 512) return null;
    const payload = cursor.slice(0, dot);
    const given = Buffer.from(cursor.slice(dot + 1), "base64url");
    const expected = Buffer.from(this.sign(payload), "base64url");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    } catch {
      return null;
    }
    if (!Array.isArray(parsed) || parsed.length !== 3) return null;
    const [s, key, mint] = parsed as [unknown, unknown, unknown];
    if (s !== sort || typeof mint !== "string") return null;
    if (sort === "new" && !Number.isSafeInteger(key)) return null;
    if (sort === "fees" && !isLamports(key)) return null;
    // A null mcap key (unknown caps once ran by mint alone) is no longer issued: it holds no fees to seek from.
    if (sort === "mcap" && !((typeof key === "number" && Number.isFinite(key)) || isLamports(key))) return null;
    return { sort, key: key as CursorPosition["key"], mint };
  }

  private sign(payload: string): string {
    return createHmac("sha256", this.key).update(payload).digest().subarray(0, SIG_BYTES).toString("base64url");
  }
}

const signers = new WeakMap<Config, CursorSigner>();

export function cursorSigner(config: Config): CursorSigner {
  let signer = signers.get(config);
  if (!signer) {
    signer = new CursorSigner(cursorKey(config));
    signers.set(config, signer);
  }
  return signer;
}

function cursorKey(config: Config): Buffer {
  const master =
    config.masterSecret ?? (config.masterSecretFile ? readFileSync(config.masterSecretFile, "utf8").trim() : null);
  // A purpose label keeps this key unrelated to the creator keys derived from the same secret.
  if (master) return createHmac("sha256", master).update("tokens-cursor-v1").digest();
  const path = join(config.dataDir, CURSOR_FILE);
  if (existsSync(path)) {
    const stored = readFileSync(path, "utf8").trim();
    if (/^[0-9a-f]{64}$/.test(stored)) return Buffer.from(stored, "hex");
  }
  mkdirSync(config.dataDir, { recursive: true });
  const fresh = randomBytes(32);
  writeFileSync(path, `${fresh.toString("hex")}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return fresh;
}
