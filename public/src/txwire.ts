/**
 * Just enough of Solana's transaction wire format to put one more signature into a transaction
 * the service built: the launch needs the new mint's key to co-sign after the user's wallet.
 * Doing this by hand keeps @solana/web3.js (hundreds of kB) out of the page.
 */
import bs58 from "bs58";

function readShortVec(bytes: Uint8Array, offset: number): [value: number, size: number] {
  let value = 0;
  for (let size = 0; size < 3; size++) {
    const byte = bytes[offset + size];
    if (byte === undefined) throw new Error("The transaction is truncated.");
    value |= (byte & 0x7f) << (7 * size);
    if ((byte & 0x80) === 0) return [value, size + 1];
  }
  throw new Error("The transaction is malformed.");
}

export interface ParsedTransaction {
  signatureCount: number;
  /** offset of the first signature */
  signaturesAt: number;
  message: Uint8Array;
  /** base58 addresses that must sign, in signature order */
  signers: string[];
}

export function parseTransaction(wire: Uint8Array): ParsedTransaction {
  const [signatureCount, size] = readShortVec(wire, 0);
  const signaturesAt = size;
  const message = wire.subarray(signaturesAt + signatureCount * 64);
  let at = message[0]! & 0x80 ? 1 : 0; // versioned messages start with a version byte
  const required = message[at]!;
  at += 3;
  const [keyCount, keySize] = readShortVec(message, at);
  at += keySize;
  if (required > keyCount || required !== signatureCount)
    throw new Error("The transaction's signer list is inconsistent.");
  const signers: string[] = [];
  for (let i = 0; i < required; i++) signers.push(bs58.encode(message.subarray(at + i * 32, at + (i + 1) * 32)));
  return { signatureCount, signaturesAt, message, signers };
}

/** A copy of `wire` with `signature` in the slot of `signer`. */
export function withSignature(wire: Uint8Array, signer: string, signature: Uint8Array): Uint8Array {
  const parsed = parseTransaction(wire);
  const index = parsed.signers.indexOf(signer);
  if (index < 0) throw new Error(`${signer} is not a signer of this transaction.`);
  if (signature.length !== 64) throw new Error("A signature must be 64 bytes.");
  const out = wire.slice();
  out.set(signature, parsed.signaturesAt + index * 64);
  return out;
}

/** The transaction id: the fee payer's (first) signature. */
export function firstSignature(wire: Uint8Array): string {
  const parsed = parseTransaction(wire);
  return bs58.encode(wire.subarray(parsed.signaturesAt, parsed.signaturesAt + 64));
}

export function toBase64(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

export function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}
