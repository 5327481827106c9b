/**
 * Addresses the service keeps (caches, maps, queues) cost what their characters cost: bs58 builds
 * a string a character at a time, which JavaScriptCore keeps as a rope of one cell per character
 * until the characters are read (~1.4 KB for an address). The caches of vault addresses and of
 * the indexer's accounts hold tens of thousands of them.
 */
import { describe, expect, test } from "bun:test";
import { heapStats } from "bun:jsc";
import { Keypair } from "@solana/web3.js";
import bs58 from "bs58";
import { addressOfKey, encodeBase58, isAddress } from "@fee-ledger/localnet/address";
import { LocalProgramKeys } from "@fee-ledger/localnet/program";

const KEPT = 20_000;

/** Live heap bytes after a full collection. */
function liveHeapBytes(): number {
  Bun.gc(true);
  return heapStats().heapSize;
}

/** Heap bytes held by what `make` returns, kept alive until measured. */
function heapHeldBy(make: () => unknown): number {
  const before = liveHeapBytes();
  const kept = make();
  const after = liveHeapBytes();
  expect(kept).toBeDefined();
  return after - before;
}

function randomBytes(length: number, count: number): Uint8Array[] {
  return Array.from({ length: count }, () => crypto.getRandomValues(new Uint8Array(length)));
}

describe("base58 that is kept", () => {
  test("spells bytes exactly as bs58 and web3.js do", () => {
    const withZeros = randomBytes(32, 50).map((b, i) => b.fill(0, 0, 1 + (i % 3)));
    const lengths = Array.from({ length: 140 }, (_, n) => randomBytes(n, 3)).flat();
    const extremes = [new Uint8Array(32), new Uint8Array(0), new Uint8Array(32).fill(255), new Uint8Array(200).fill(9)];
    for (const bytes of [...randomBytes(32, 50), ...randomBytes(64, 50), ...withZeros, ...lengths, ...extremes]) {
      expect(encodeBase58(bytes)).toBe(bs58.encode(bytes));
    }
    const key = Keypair.generate().publicKey;
    expect(addressOfKey(key)).toBe(key.toBase58());
  });

  test("takes as an address exactly what bs58 decodes to 32 bytes", () => {
    const bs58Says = (text: string) =>
      /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(text) && bs58.decodeUnsafe(text)?.length === 32;
    const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    const texts = [
      ...randomBytes(32, 200).map((b, i) => bs58.encode(b.fill(0, 0, i % 4))),
      ...randomBytes(31, 50).map((b) => bs58.encode(b)),
      ...randomBytes(33, 50).map((b) => bs58.encode(b)),
      "11111111111111111111111111111111",
      "11111111111111111111111111111112",
      "1".repeat(33),
      "z".repeat(44),
      "z".repeat(45),
      "So11111111111111111111111111111111111111112",
      "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
      `${"z".repeat(20)}0${"z".repeat(23)}`,
      `${"z".repeat(20)}é${"z".repeat(23)}`,
      "",
    ];
    // Random spellings of every length around an address's, some crowded with "1"s or low digits.
    for (let i = 0; i < 3_000; i++) {
      const digits = i % 5 === 0 ? 2 : 58;
      const length = 28 + (i % 20);
      texts.push(Array.from({ length }, () => alphabet[Math.floor(Math.random() * digits)]).join(""));
    }
    for (const text of texts) expect([text, isAddress(text)]).toEqual([text, bs58Says(text)]);
    expect(isAddress(42)).toBe(false);
    expect(isAddress(null)).toBe(false);
  });

  test(`${KEPT.toLocaleString("en")} kept addresses take a few MB, not the ~28 MB of bs58's ropes`, () => {
    const inputs = randomBytes(32, KEPT);
    // Measured first, so a change of JavaScriptCore that made bs58's own strings small shows here.
    const asRopes = heapHeldBy(() => inputs.map((b) => bs58.encode(b)));
    const flat = heapHeldBy(() => inputs.map((b) => encodeBase58(b)));
    expect(flat).toBeLessThan(4 * 1024 * 1024);
    expect(flat).toBeLessThan(asRopes / 4);
  });

  test("the local program's vault address cache stays small when full", () => {
    const keys = new LocalProgramKeys(new Uint8Array(32).fill(7));
    const mints = randomBytes(32, KEPT / 2).map((b) => bs58.encode(b));
    const held = heapHeldBy(() => {
      for (const mint of mints) {
        keys.curveVaultAddress(mint);
        keys.bondingCurveAddress(mint);
      }
      return keys;
    });
    // Two addresses and their keys for each of 10,000 mints: ~100 bytes each, plus the map.
    expect(held).toBeLessThan(8 * 1024 * 1024);
  });
});
