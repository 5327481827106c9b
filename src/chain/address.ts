/** Solana addresses as users type them: checked before anything is stored or sent. */
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
