/** Solana addresses as users type them: checked before anything is stored or sent. */
import type { PublicKey } from "@solana/web3.js";
import bs58 from "bs58";

/**
 * A base58 ed25519 public key exactly as written. Base58 spells 32 bytes one way only, so a string
 * that decodes to 32 bytes is the spelling `PublicKey.toBase58()` gives (no re-encoding differences);
 * no `PublicKey` is built, as the chain reads check thousands of addresses a second with this.
 */
export function isAddress(value: unknown): value is string {
  return (
    typeof value === "string" && /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(value) && bs58.decodeUnsafe(value)?.length === 32
  );
}

/**
 * Base58 of `bytes` as one flat string, for anything that keeps it (caches, maps, queues). bs58
 * builds its answer a character at a time, and JavaScriptCore keeps a string built that way as a
 * rope, a cell per character, until the characters are read: a kept address took ~1.4 KB instead
 * of ~100 bytes (20,000 of them: 28 MB against 0.2 MB), and the caches of addresses grew the
 * threads' heaps by tens of MB. `normalize()` reads the characters, which resolves the rope in
 * place; base58 is ASCII, so the string is unchanged. (A read whose result is unused, such as a
 * bare `charCodeAt(0)`, is dropped by the optimizing compiler and resolves nothing.)
 */
export function encodeBase58(bytes: Uint8Array): string {
  return bs58.encode(bytes).normalize();
}

/** `key.toBase58()` as one flat string (see encodeBase58): web3.js encodes with bs58 too. */
export function addressOfKey(key: PublicKey): string {
  return key.toBase58().normalize();
}
