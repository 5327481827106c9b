/** Native Ed25519 derivation must give exactly the keypair web3.js derives: every address and signature depends on it. */
import { describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import { keypairFromSeed } from "../../src/chain/fast-keypair";

describe("keypairFromSeed", () => {
  test("200 random seeds give the same public key and 64-byte secret key as Keypair.fromSeed", () => {
    for (let i = 0; i < 200; i++) {
      const seed = crypto.getRandomValues(new Uint8Array(32));
      const fast = keypairFromSeed(seed);
      const reference = Keypair.fromSeed(seed);
      expect(fast.publicKey.toBase58()).toBe(reference.publicKey.toBase58());
      expect(Buffer.from(fast.secretKey).equals(Buffer.from(reference.secretKey))).toBe(true);
    }
  });

  test("the all-zero seed (a known vector) matches too", () => {
    const seed = new Uint8Array(32);
    expect(keypairFromSeed(seed).publicKey.toBase58()).toBe(Keypair.fromSeed(seed).publicKey.toBase58());
  });
});
