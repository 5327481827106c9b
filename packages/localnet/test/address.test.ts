/**
 * The node reads accounts by the bytes an address spells (node.ts getAccount), decoded here rather
 * than through a PublicKey: a wrong byte would answer another account's balance.
 */
import { describe, expect, test } from "bun:test";
import bs58 from "bs58";
import { addressBytes } from "../src/address";

function randomBytes(length: number, count: number): Uint8Array[] {
  return Array.from({ length: count }, () => crypto.getRandomValues(new Uint8Array(length)));
}

describe("addressBytes", () => {
  test("gives the 32 bytes bs58 decodes, leading zeros and extremes included", () => {
    const cases = [
      ...randomBytes(32, 300).map((b, i) => b.fill(0, 0, i % 5)),
      new Uint8Array(32),
      new Uint8Array(32).fill(255),
      Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? 1 : 0)),
    ];
    // Alternating long and short numbers: a decode must not keep limbs of the one before.
    for (const bytes of cases.flatMap((b) => [b, new Uint8Array(32)])) {
      expect(addressBytes(bs58.encode(bytes))).toEqual(bytes);
    }
  });

  test("refuses what is not exactly a 32-byte address", () => {
    for (const bytes of [...randomBytes(31, 20), ...randomBytes(33, 20)]) {
      const text = bs58.encode(bytes);
      if (text.length >= 32 && text.length <= 44) expect(addressBytes(text)).toBeNull();
    }
    for (const text of ["", "0".repeat(32), "z".repeat(45), "I".repeat(40), "l".repeat(40)])
      expect(addressBytes(text)).toBeNull();
  });
});
