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
import { addressOfKey, encodeBase58 } from "../../src/chain/address";
import { LocalProgramKeys } from "../../src/chain/localnet/program";

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
    for (const bytes of [...randomBytes(32, 50), ...randomBytes(64, 50), new Uint8Array(32), new Uint8Array(0)]) {
      expect(encodeBase58(bytes)).toBe(bs58.encode(bytes));
    }
    const key = Keypair.generate().publicKey;
    expect(addressOfKey(key)).toBe(key.toBase58());
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
