import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { type CommandKey, decodeCommandKey, encodeCommandKey } from "../../src/chain/command-key";

const id = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });
const user = fc.oneof(fc.bigInt({ min: 1n, max: 2n ** 63n }).map(String), fc.string({ minLength: 1, maxLength: 40 }));
const key: fc.Arbitrary<CommandKey> = fc.oneof(
  fc.record({
    kind: fc.constant("payouts" as const),
    items: fc.array(
      fc.record({
        payoutId: id,
        kind: fc.constantFrom("claim" as const, "autopay" as const),
        idpUserId: user,
        firstPayoutId: fc.option(id, { nil: null }),
      }),
      { minLength: 1, maxLength: 12 },
    ),
  }),
  fc.record({ kind: fc.constant("sweeps" as const), tokenIds: fc.array(id, { minLength: 1, maxLength: 20 }) }),
  fc.record({
    kind: fc.constant("burn-buy" as const),
    buyId: id,
    tokenId: id,
    orders: fc.array(
      fc.oneof(
        fc.record({
          orderId: id,
          lamports: fc.bigInt({ min: 1n, max: 2n ** 63n }),
          source: fc.constant("recipient" as const),
          idpUserId: user,
        }),
        fc.record({
          orderId: id,
          lamports: fc.bigInt({ min: 1n, max: 2n ** 63n }),
          source: fc.constant("platform" as const),
          idpUserId: fc.constant(null),
        }),
      ),
      { minLength: 1, maxLength: 8 },
    ),
  }),
  fc.record({ kind: fc.constant("burn" as const), buyId: id }),
  fc.record({ kind: fc.constant("withdrawal" as const), withdrawalId: id }),
  fc.record({ kind: fc.constant("anchor" as const), anchorId: id }),
);

describe("command keys", () => {
  test("every key reads back as itself from its memo text", () => {
    fc.assert(
      fc.property(key, (k) => expect(decodeCommandKey(encodeCommandKey(k))).toEqual(k)),
      { numRuns: 2_000 },
    );
  });

  test("a payout batch of twelve X users fits a memo next to its transfers", () => {
    const text = encodeCommandKey({
      kind: "payouts",
      items: Array.from({ length: 12 }, (_, i) => ({
        payoutId: 1_000_000 + i,
        kind: "claim" as const,
        idpUserId: "1790000000000000000",
        firstPayoutId: null,
      })),
    });
    expect(text.length).toBeLessThan(260);
    expect(encodeCommandKey({ kind: "sweeps", tokenIds: [123_456, 7] })).toBe("fl1:s:2n9c,7");
  });

  test("another memo is not a key; a broken key of this form is refused, not guessed", () => {
    expect(decodeCommandKey("hello")).toBeNull();
    expect(decodeCommandKey("liabilities:abc")).toBeNull();
    for (const broken of [
      "fl1:",
      "fl1:q:1",
      "fl1:p:1.z.u",
      "fl1:s:",
      "fl1:s:1,,2",
      "fl1:b:1:2.3.p",
      "fl1:w:-1",
      "fl1:p:1.c.",
    ]) {
      expect(() => decodeCommandKey(broken)).toThrow("does not decode");
    }
  });
});
