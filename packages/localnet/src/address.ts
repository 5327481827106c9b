/**
 * Solana addresses as users type them: checked before anything is stored or sent. The one base58
 * codec of the repository: the service imports it as `@fee-ledger/localnet/address`.
 */
import type { PublicKey } from "@solana/web3.js";
import bs58 from "bs58";

export const BASE58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
/** digit of each ASCII code, -1 for a character outside the alphabet */
const DIGIT_OF = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE58_ALPHABET.length; i++) DIGIT_OF[BASE58_ALPHABET.charCodeAt(i)] = i;
const CHAR_CODE_OF = Uint8Array.from(BASE58_ALPHABET, (c) => c.charCodeAt(0));
const LIMB = 2 ** 32;
const ONE = 49; // "1", the digit zero, which spells a leading zero byte
/** An address is 32 bytes, at most 44 characters: 8 limbs, and one more to see a number too big. */
const ADDRESS_LIMBS = 9;
/** The longest input encoded here (a signature is 64 bytes); longer ones go to bs58. */
const ENCODE_BYTES_MAX = 128;

// Scratch space, reused: these run thousands of times a second on the request thread, and bs58
// allocates arrays on every call. Each thread has its own module, and the functions never yield.
const decodeLimbs = new Float64Array(ADDRESS_LIMBS);
const encodeLimbs = new Float64Array(ENCODE_BYTES_MAX / 4);
const encodeDigits: number[] = [];
/** how many of decodeLimbs the last bytesSpelled filled */
let decodedLimbs = 0;

/**
 * How many bytes a base58 string of at most 44 characters spells (leading "1"s are zero bytes, the
 * rest a big-endian number in as few bytes as it needs, as bs58 decodes), or -1 when it is not
 * base58 or spells more than 32 bytes. The number is built in 32-bit limbs held in doubles, exact
 * since a limb times 58 plus a carry stays below 2^38.
 */
function bytesSpelled(text: string): number {
  let i = 0;
  while (i < text.length && text.charCodeAt(i) === ONE) i++;
  const zeroBytes = i;
  let used = 0;
  for (; i < text.length; i++) {
    const code = text.charCodeAt(i);
    let carry = code < 128 ? DIGIT_OF[code]! : -1;
    if (carry < 0) return -1;
    for (let j = 0; j < used; j++) {
      const x = decodeLimbs[j]! * 58 + carry;
      carry = Math.floor(x / LIMB);
      decodeLimbs[j] = x - carry * LIMB;
    }
    if (carry > 0) {
      if (used === ADDRESS_LIMBS) return -1;
      decodeLimbs[used++] = carry;
    }
  }
  decodedLimbs = used;
  if (used === 0) return zeroBytes;
  const top = decodeLimbs[used - 1]!;
  const topBytes = top >= 2 ** 24 ? 4 : top >= 2 ** 16 ? 3 : top >= 2 ** 8 ? 2 : 1;
  return zeroBytes + (used - 1) * 4 + topBytes;
}

/**
 * A base58 ed25519 public key exactly as written. Base58 spells 32 bytes one way only, so a string
 * that decodes to 32 bytes is the spelling `PublicKey.toBase58()` gives (no re-encoding differences);
 * no `PublicKey` is built, as the chain reads check thousands of addresses a second with this
 * (a token detail's refresh checks a dozen: bs58's decode was ~5% of the request thread's time under
 * random details; this takes a third of bs58's time in isolation).
 */
export function isAddress(value: unknown): value is string {
  return typeof value === "string" && value.length >= 32 && value.length <= 44 && bytesSpelled(value) === 32;
}

/**
 * The 32 bytes a base58 address spells, or null when it spells anything else: what `new
 * PublicKey(text).toBytes()` gives, without the PublicKey's big number (the node reads thousands of
 * accounts a second by address).
 */
export function addressBytes(text: string): Uint8Array | null {
  if (text.length < 32 || text.length > 44 || bytesSpelled(text) !== 32) return null;
  // bytesSpelled left the number in decodeLimbs, least significant limb first; the leading "1"s
  // are the zero bytes above it.
  const bytes = new Uint8Array(32);
  for (let j = 0; j < decodedLimbs; j++) {
    const limb = decodeLimbs[j]!;
    for (let b = 0; b < 4; b++) {
      const at = 31 - 4 * j - b;
      if (at >= 0) bytes[at] = Math.floor(limb / 2 ** (8 * b)) % 256;
    }
  }
  return bytes;
}

/**
 * Base58 of `bytes` as one flat string, for anything that keeps it (caches, maps, queues), spelled
 * as bs58 spells it. bs58 builds its answer a character at a time, and JavaScriptCore keeps a
 * string built that way as a rope, a cell per character, until the characters are read: a kept
 * address took ~1.4 KB instead of ~100 bytes, and the caches of addresses grew the threads' heaps by
 * tens of MB. This builds the string from its character codes at once (flat), with no arrays per
 * call, in a third of bs58's time.
 */
export function encodeBase58(bytes: Uint8Array): string {
  const length = bytes.length;
  if (length > ENCODE_BYTES_MAX) return bs58.encode(bytes).normalize();
  let zeroBytes = 0;
  while (zeroBytes < length && bytes[zeroBytes] === 0) zeroBytes++;
  // Big-endian 32-bit limbs, the first one short when the length is not a multiple of 4.
  let limbs = 0;
  let k = zeroBytes;
  const lead = (length - zeroBytes) % 4;
  if (lead > 0) {
    let v = 0;
    for (let t = 0; t < lead; t++) v = v * 256 + bytes[k++]!;
    encodeLimbs[limbs++] = v;
  }
  for (; k < length; k += 4) {
    encodeLimbs[limbs++] = bytes[k]! * 2 ** 24 + bytes[k + 1]! * 2 ** 16 + bytes[k + 2]! * 2 ** 8 + bytes[k + 3]!;
  }
  // Divide by 58 until nothing is left; the remainders are the digits, least significant first.
  encodeDigits.length = 0;
  let first = 0;
  while (first < limbs) {
    let remainder = 0;
    for (let j = first; j < limbs; j++) {
      const x = remainder * LIMB + encodeLimbs[j]!;
      const quotient = Math.floor(x / 58);
      remainder = x - quotient * 58;
      encodeLimbs[j] = quotient;
    }
    encodeDigits.push(CHAR_CODE_OF[remainder]!);
    while (first < limbs && encodeLimbs[first] === 0) first++;
  }
  for (let t = 0; t < zeroBytes; t++) encodeDigits.push(ONE);
  encodeDigits.reverse();
  return String.fromCharCode(...encodeDigits);
}

/** `key.toBase58()` as one flat string (see encodeBase58): web3.js encodes with bs58 too. */
export function addressOfKey(key: PublicKey): string {
  return key.toBase58().normalize();
}
