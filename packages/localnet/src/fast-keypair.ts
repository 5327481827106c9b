/**
 * `Keypair.fromSeed` with the public key computed by the runtime's native Ed25519 (BoringSSL in
 * Bun, OpenSSL in Node) instead of web3.js's JavaScript curve arithmetic: the same keypair, about
 * forty times faster. The local program derives three addresses per token and the creator keys
 * are derived per token, so a job over 100,000 tokens spent most of its CPU here. The service
 * uses this module too (`@fee-ledger/localnet/fast-keypair`): one copy for both.
 */
import { Keypair, type VersionedTransaction } from "@solana/web3.js";
import { createPrivateKey, createPublicKey, type KeyObject, sign } from "node:crypto";

/** PKCS#8 DER header of an Ed25519 private key; the 32-byte seed follows it. */
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

export function keypairFromSeed(seed: Uint8Array): Keypair {
  if (seed.length !== 32) return Keypair.fromSeed(seed);
  const publicKey = publicKeyBytesFromSeed(seed);
  const secretKey = new Uint8Array(64);
  secretKey.set(seed, 0);
  secretKey.set(publicKey, 32);
  return Keypair.fromSecretKey(secretKey, { skipValidation: true });
}

/**
 * The 32 public-key bytes of a 32-byte Ed25519 seed. For a caller that needs only the address: no
 * `PublicKey` (and its big number) is built, which costs more than the curve arithmetic itself.
 */
export function publicKeyBytesFromSeed(seed: Uint8Array): Uint8Array {
  if (seed.length !== 32) throw new RangeError("an Ed25519 seed is 32 bytes");
  // The SPKI DER of an Ed25519 public key ends with the 32 key bytes.
  return createPublicKey(privateKeyFromSeed(seed)).export({ format: "der", type: "spki" }).subarray(-32);
}

/** The runtime's private key object for a 32-byte Ed25519 seed. */
function privateKeyFromSeed(seed: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: "der", type: "pkcs8" });
}

/** Parsed signing keys by address, reused: parsing costs about as much as signing. Bounded, cleared when full. */
const signingKeys = new Map<string, KeyObject>();
const SIGNING_KEYS_MAX = 10_000;

function signingKeyOf(signer: Keypair): KeyObject {
  const address = signer.publicKey.toBase58();
  let key = signingKeys.get(address);
  if (!key) {
    key = privateKeyFromSeed(signer.secretKey.subarray(0, 32));
    if (signingKeys.size >= SIGNING_KEYS_MAX) signingKeys.clear();
    signingKeys.set(address, key);
  }
  return key;
}

/**
 * `VersionedTransaction.sign` with the runtime's native Ed25519: web3.js's JavaScript signer
 * derives the public key again on every signature, ~10% of the simulation's CPU. Ed25519 is
 * deterministic (RFC 8032), so the signatures are the same bytes; like `sign`, a key that is not one
 * of the message's signers is refused.
 */
export function signTransaction(tx: VersionedTransaction, signers: readonly Keypair[]): void {
  const message = tx.message.serialize();
  for (const signer of signers) tx.addSignature(signer.publicKey, sign(null, message, signingKeyOf(signer)));
}
