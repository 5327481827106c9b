/**
 * The launch message (DESIGN §5): the UTF-8 text the deployer's wallet signs before the image and
 * metadata are pinned. It names the site, the intent, the mint, the image digest and the expiry, so
 * a signature cannot be replayed on another site, for another launch or for another image.
 */
import { createPublicKey, verify } from "node:crypto";
import { PublicKey } from "@solana/web3.js";
import bs58 from "bs58";

export interface LaunchMessageFields {
  /** the site's origin, e.g. https://example.com */
  site: string;
  intentId: string;
  mint: string;
  wallet: string;
  /** hex SHA-256 of the image bytes */
  digest: string;
  expiresAtMs: number;
}

export function launchMessage(f: LaunchMessageFields): string {
  const host = new URL(f.site).host;
  return [
    `${host} wants you to launch a token.`,
    "",
    `Site: ${new URL(f.site).origin}`,
    `Intent: ${f.intentId}`,
    `Mint: ${f.mint}`,
    `Wallet: ${f.wallet}`,
    `Image SHA-256: ${f.digest}`,
    `Expires: ${new Date(f.expiresAtMs).toISOString()}`,
  ].join("\n");
}

const SPKI_ED25519_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

/**
 * Wallets hand back the 64-byte signature as base58 (Phantom, Solflare) or base64 (some adapters);
 * both are accepted. Anything else, or a signature that does not verify, is false.
 */
export function verifyWalletSignature(wallet: string, message: string, signature: string): boolean {
  const sig = decodeSignature(signature);
  if (!sig) return false;
  try {
    const key = createPublicKey({
      key: Buffer.concat([SPKI_ED25519_PREFIX, new PublicKey(wallet).toBuffer()]),
      format: "der",
      type: "spki",
    });
    return verify(null, new TextEncoder().encode(message), key, sig);
  } catch {
    return false;
  }
}

function decodeSignature(text: string): Uint8Array | null {
  const s = text.trim();
  if (/^[1-9A-HJ-NP-Za-km-z]{64,90}$/.test(s)) {
    try {
      const bytes = bs58.decode(s);
      if (bytes.length === 64) return bytes;
    } catch {
      // fall through to base64
    }
  }
  if (/^[A-Za-z0-9+/]{86}(==)?$/.test(s)) {
    const bytes = Buffer.from(s, "base64");
    if (bytes.length === 64) return new Uint8Array(bytes);
  }
  return null;
}
