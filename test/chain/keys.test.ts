import { hmac } from "@oslojs/crypto/hmac";
import { SHA512 } from "@oslojs/crypto/sha2";
import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Keypair } from "@solana/web3.js";
import bs58 from "bs58";
import fc from "fast-check";
import {
  CREATOR_KEY_DOMAIN,
  deriveCreatorKeypair,
  isKeyInvalid,
  loadMasterSecret,
  loadTreasuryKeypair,
} from "../../src/chain/keys";
import { secretsFor } from "../../src/chain/setup";

/** true when `fn` throws the key-setting error (CHAIN_KEY_INVALID) */
function throwsKeyInvalid(fn: () => unknown): boolean {
  try {
    fn();
  } catch (error) {
    return isKeyInvalid(error);
  }
  return false;
}

const SECRET = new Uint8Array(32).map((_, i) => i + 1);

describe("creator key derivation", () => {
  test("is stable: pinned addresses for a fixed secret never change", () => {
    // Pinned on first implementation. If this fails, every token's creator address moved and
    // the fees already in the old addresses are stranded: do not update the constants.
    expect(deriveCreatorKeypair(SECRET, 0).publicKey.toBase58()).toBe(PINNED[0]);
    expect(deriveCreatorKeypair(SECRET, 1).publicKey.toBase58()).toBe(PINNED[1]);
    expect(deriveCreatorKeypair(SECRET, 2 ** 40).publicKey.toBase58()).toBe(PINNED[2]);
  });

  test("matches an independent HMAC-SHA512 computation (@oslojs/crypto's, in JavaScript)", () => {
    for (const index of [0, 7, 65_535, 2 ** 32 + 5]) {
      const msg = Buffer.alloc(CREATOR_KEY_DOMAIN.length + 8);
      msg.write(CREATOR_KEY_DOMAIN, 0, "ascii");
      msg.writeBigUInt64BE(BigInt(index), CREATOR_KEY_DOMAIN.length);
      const seed = hmac(SHA512, SECRET, msg).slice(0, 32);
      expect(deriveCreatorKeypair(SECRET, index).publicKey.toBase58()).toBe(
        Keypair.fromSeed(seed).publicKey.toBase58(),
      );
    }
  });

  test("the same index gives the same key on every call", () => {
    const a = deriveCreatorKeypair(SECRET, 42);
    const b = deriveCreatorKeypair(Uint8Array.from(SECRET), 42);
    expect(bs58.encode(a.secretKey)).toBe(bs58.encode(b.secretKey));
  });

  test("two indexes never share an address (first 500 indexes)", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 500; i++) seen.add(deriveCreatorKeypair(SECRET, i).publicKey.toBase58());
    expect(seen.size).toBe(500);
  }, 30_000);

  test("two different indexes never share an address (random pairs up to 2^53)", () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), fc.maxSafeNat(), (a, b) => {
        fc.pre(a !== b);
        return !deriveCreatorKeypair(SECRET, a).publicKey.equals(deriveCreatorKeypair(SECRET, b).publicKey);
      }),
      { numRuns: 150 },
    );
  }, 30_000);

  test("a different master secret gives unrelated addresses", () => {
    const other = Uint8Array.from(SECRET);
    other[0] = other[0]! ^ 1;
    expect(deriveCreatorKeypair(other, 0).publicKey.toBase58()).not.toBe(PINNED[0]);
  });

  test("refuses short secrets and invalid indexes", () => {
    expect(throwsKeyInvalid(() => deriveCreatorKeypair(new Uint8Array(16), 0))).toBe(true);
    expect(throwsKeyInvalid(() => deriveCreatorKeypair(SECRET, -1))).toBe(true);
    expect(throwsKeyInvalid(() => deriveCreatorKeypair(SECRET, 1.5))).toBe(true);
    expect(throwsKeyInvalid(() => deriveCreatorKeypair(SECRET, 2 ** 53))).toBe(true);
  });
});

describe("secret loading", () => {
  const dir = mkdtempSync(join(tmpdir(), "keys-test-"));
  const treasury = Keypair.generate();

  test("treasury key from a base58 secret, a JSON byte array, or a file holding either", () => {
    const b58 = bs58.encode(treasury.secretKey);
    const json = JSON.stringify([...treasury.secretKey]);
    const jsonFile = join(dir, "id.json");
    writeFileSync(jsonFile, `${json}\n`);
    const b58File = join(dir, "treasury.b58");
    writeFileSync(b58File, b58);
    for (const v of [b58, json, ` ${json} `, jsonFile, b58File]) {
      expect(loadTreasuryKeypair(v).publicKey.equals(treasury.publicKey)).toBe(true);
    }
  });

  test("a bad treasury value fails without echoing it", () => {
    const secretish = bs58.encode(treasury.secretKey).slice(0, 60);
    for (const v of [secretish, "[1,2,3]", JSON.stringify(new Array(64).fill(300)), join(dir, "missing.json"), ""]) {
      let message = "";
      try {
        loadTreasuryKeypair(v);
      } catch (e) {
        expect(isKeyInvalid(e)).toBe(true);
        message = (e as Error).message;
      }
      expect(message).not.toBe("");
      if (v.length > 8) expect(message).not.toContain(v);
    }
  });

  test("a keypair whose public half does not match is refused", () => {
    const forged = Uint8Array.from(treasury.secretKey);
    forged.set(Keypair.generate().publicKey.toBytes(), 32);
    expect(throwsKeyInvalid(() => loadTreasuryKeypair(bs58.encode(forged)))).toBe(true);
  });

  test("master secret from hex or a file; too short is refused", () => {
    const hexSecret = Buffer.from(SECRET).toString("hex");
    const file = join(dir, "master.hex");
    writeFileSync(file, `${hexSecret}\n`);
    expect([...loadMasterSecret(hexSecret)]).toEqual([...SECRET]);
    expect([...loadMasterSecret(file)]).toEqual([...SECRET]);
    expect(throwsKeyInvalid(() => loadMasterSecret("abcd"))).toBe(true);
  });
});

describe("chain secrets at start", () => {
  const HEX = "ab".repeat(32);
  const TREASURY = bs58.encode(Keypair.generate().secretKey);
  const configWith = (secrets: { masterSecret: string; treasuryKey: string }) =>
    ({ chain: "devnet", rpcUrl: "http://127.0.0.1:1", dataDir: "/nonexistent", localChain: null, ...secrets }) as never;
  const refusal = (secrets: { masterSecret: string; treasuryKey: string }) => {
    try {
      secretsFor(configWith(secrets));
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
    return "accepted";
  };

  test("a bad key setting is named as the setting at fault, never with its value", () => {
    expect(refusal({ masterSecret: HEX, treasuryKey: TREASURY })).toBe("accepted");
    expect(refusal({ masterSecret: HEX, treasuryKey: " " })).toBe("TREASURY_KEY is not valid: treasury key is empty");
    expect(refusal({ masterSecret: " ", treasuryKey: TREASURY })).toBe(
      "MASTER_SECRET is not valid: master secret is empty",
    );
    const shortHex = "ab".repeat(8);
    const short = refusal({ masterSecret: shortHex, treasuryKey: TREASURY });
    expect(short).toStartWith("MASTER_SECRET is not valid: master secret is neither a valid value");
    expect(short).not.toContain(shortHex);
  });
});

const PINNED = [
  "4qFCGz8MMjKCaKuEDR62kYVogr6WUfcSq3reCPeamg2R",
  "BPXFUKD2yETabCXQqs8EcfwULE71tjWmPJ3iztvHhFMK",
  "Gwg6vpEzGcsEzfQYzjEKCquBKaBo1Htrqt3pR54u1CUM",
] as const;
