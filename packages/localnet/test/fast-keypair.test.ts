/** Native Ed25519 derivation must give exactly the keypair web3.js derives: every address and signature depends on it. */
import { describe, expect, test } from "bun:test";
import { Keypair, SystemProgram, TransactionMessage, VersionedTransaction } from "@solana/web3.js";
import { keypairFromSeed, signTransaction } from "../src/fast-keypair";

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

describe("signTransaction", () => {
  const payer = Keypair.generate();
  const other = Keypair.generate();
  const unsigned = () =>
    new VersionedTransaction(
      new TransactionMessage({
        payerKey: payer.publicKey,
        recentBlockhash: Keypair.generate().publicKey.toBase58(),
        instructions: [SystemProgram.transfer({ fromPubkey: other.publicKey, toPubkey: payer.publicKey, lamports: 5 })],
      }).compileToLegacyMessage(),
    );

  test("signs the bytes web3.js's sign does, for every signer, and the transaction verifies", () => {
    for (let i = 0; i < 50; i++) {
      const fast = unsigned();
      const reference = VersionedTransaction.deserialize(fast.serialize());
      signTransaction(fast, [payer, other]);
      reference.sign([payer, other]);
      expect(Buffer.from(fast.serialize()).equals(Buffer.from(reference.serialize()))).toBe(true);
    }
  });

  test("refuses a key that is not one of the message's signers, as sign does", () => {
    expect(() => signTransaction(unsigned(), [Keypair.generate()])).toThrow();
    expect(() => unsigned().sign([Keypair.generate()])).toThrow();
  });
});
