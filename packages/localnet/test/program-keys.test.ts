/**
 * The local program's read path names its vaults by address alone. Those addresses must be the
 * ones the node signs for (the Keypair path), however the caller spells the subject, or a refresh
 * or a sweep would read an empty account and report no fees.
 */
import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { Keypair, PublicKey } from "@solana/web3.js";
import { LocalProgramKeys } from "../src/program";

const seed = () => crypto.getRandomValues(new Uint8Array(32));

describe("LocalProgramKeys addresses", () => {
  test("each address equals the derived keypair's public key, given a string or a PublicKey", () => {
    const programSeed = seed();
    const reads = new LocalProgramKeys(programSeed);
    const signs = new LocalProgramKeys(programSeed);
    for (let i = 0; i < 50; i++) {
      const mint = Keypair.generate().publicKey;
      const creator = Keypair.generate().publicKey;
      expect(reads.curveVaultAddress(creator.toBase58())).toBe(signs.curveVault(creator).publicKey.toBase58());
      expect(reads.poolVaultAddress(creator)).toBe(signs.poolVault(creator).publicKey.toBase58());
      expect(reads.bondingCurveAddress(mint.toBase58())).toBe(signs.bondingCurve(mint).publicKey.toBase58());
      expect(reads.sharingConfigAddress(mint)).toBe(signs.sharingConfig(mint).publicKey.toBase58());
      // Asked again (now remembered) and after the keypair was derived on the same instance.
      expect(reads.curveVaultAddress(creator)).toBe(signs.curveVault(creator.toBase58()).publicKey.toBase58());
      expect(signs.bondingCurveAddress(mint)).toBe(signs.bondingCurve(mint).publicKey.toBase58());
    }
  });

  test("keys are HMAC-SHA512(program seed, label/subject) seeds, as node:crypto and web3.js compute them", () => {
    // Fixes the derivation itself: the local chain's vaults of a saved state must keep their addresses.
    const programSeed = seed();
    const keys = new LocalProgramKeys(programSeed);
    const expected = (label: string, subject: string) =>
      Keypair.fromSeed(
        createHmac("sha512", programSeed).update(`local-launch/${label}/${subject}`).digest().subarray(0, 32),
      ).publicKey.toBase58();
    for (let i = 0; i < 20; i++) {
      const creator = Keypair.generate().publicKey.toBase58();
      const mint = Keypair.generate().publicKey.toBase58();
      expect(keys.curveVaultAddress(creator)).toBe(expected("creator-vault", creator));
      expect(keys.poolVault(creator).publicKey.toBase58()).toBe(expected("pool-creator-vault", creator));
      expect(keys.sharingConfigAddress(mint)).toBe(expected("sharing-config", mint));
    }
  });

  test("another program seed names other vaults", () => {
    const creator = Keypair.generate().publicKey;
    expect(new LocalProgramKeys(seed()).curveVaultAddress(creator)).not.toBe(
      new LocalProgramKeys(seed()).curveVaultAddress(creator),
    );
  });

  test("a subject that is not an address is refused, as by the keypair path", () => {
    const keys = new LocalProgramKeys(seed());
    expect(() => keys.curveVaultAddress("not-an-address")).toThrow();
    expect(() => keys.curveVault("not-an-address")).toThrow();
    expect(() => keys.bondingCurveAddress(`1${new PublicKey(seed()).toBase58()}`)).toThrow();
  });

  test("past its bound the address memo forgets the oldest and still answers correctly", () => {
    // A small bound, so that passing it takes a few hundred derivations, not 40,000 (27 s on a loaded machine).
    const bound = 200;
    const keys = new LocalProgramKeys(seed(), { addressCacheLimit: bound });
    const first = Keypair.generate().publicKey.toBase58();
    const expected = keys.curveVaultAddress(first);
    for (let i = 0; i < bound + 50; i++)
      keys.poolVaultAddress(new PublicKey(crypto.getRandomValues(new Uint8Array(32))));
    expect(keys.curveVaultAddress(first)).toBe(expected);
  });
});
