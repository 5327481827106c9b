/** Solana addresses as users type them: checked before anything is stored or sent. */
import { PublicKey } from "@solana/web3.js";

/** A base58 ed25519 public key exactly as written (no re-encoding differences). */
export function isAddress(value: unknown): value is string {
  if (typeof value !== "string" || !/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(value)) return false;
  try {
    return new PublicKey(value).toBase58() === value;
  } catch {
    return false;
  }
}
