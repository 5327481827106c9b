/**
 * Properties of the Merkle sum tree of liabilities, checked through the independent verifier
 * (scripts/verify-liabilities.ts) that recipients run: every leaf of every tree verifies against
 * the root, the root's sum is the total, and any tampered amount, nonce, sibling or side fails.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { inclusionProofJson } from "../../src/liabilities/document";
import {
  buildTree,
  indexOfLeaf,
  leafNode,
  proofPath,
  toHex,
  U64_MAX,
  ZERO_NODE,
  type Leaf,
} from "../../src/liabilities/tree";
import { verifyLiabilityProof } from "../../scripts/verify-liabilities";

const nonceArb = fc.uint8Array({ minLength: 32, maxLength: 32 });
/** Small amounts, amounts near 2^63 and near the u64 limit of a single leaf. */
const amountArb = fc.oneof(
  fc.bigInt({ min: 1n, max: 1_000_000_000_000n }),
  fc.bigInt({ min: (1n << 63n) - 1_000n, max: (1n << 63n) + 1_000n }),
  fc.constant(1n),
);

/** Leaves whose total fits a u64 (at most one amount near 2^63 plus small ones, or two below 2^63). */
const leavesArb = fc
  .array(fc.record({ nonce: nonceArb, lamports: amountArb }), { maxLength: 40 })
  .filter((leaves) => leaves.reduce((s, l) => s + l.lamports, 0n) <= U64_MAX)
  .filter((leaves) => new Set(leaves.map((l) => toHex(l.nonce) + l.lamports)).size === leaves.length);

function proofOf(leaves: Leaf[], i: number) {
  const tree = buildTree(leaves.map(leafNode));
  const index = indexOfLeaf(tree, leafNode(leaves[i]!).hash);
  return inclusionProofJson({
    at: "2026-11-22T12:00:00.000Z",
    root: tree.root.hash,
    totalLamports: tree.root.sumLamports,
    leaf: leaves[i]!,
    path: proofPath(tree, index),
  });
}

const flipHexChar = (hex: string, at: number) => hex.slice(0, at) + (hex[at] === "0" ? "1" : "0") + hex.slice(at + 1);

describe("Merkle sum tree of liabilities", () => {
  test("every leaf verifies and the root's sum is the total", () => {
    fc.assert(
      fc.property(leavesArb, (leaves) => {
        const tree = buildTree(leaves.map(leafNode));
        const total = leaves.reduce((s, l) => s + l.lamports, 0n);
        expect(tree.root.sumLamports).toBe(total);
        for (let i = 0; i < leaves.length; i++) {
          const verdict = verifyLiabilityProof(proofOf(leaves, i));
          expect(verdict).toEqual({
            ok: true,
            lamports: leaves[i]!.lamports,
            totalLamports: total,
            root: toHex(tree.root.hash),
          });
        }
      }),
      { numRuns: 150 },
    );
  });

  test("counts 0, 1, 2 and odd counts all build and verify", () => {
    for (const count of [0, 1, 2, 3, 5, 7, 9, 33]) {
      fc.assert(
        fc.property(
          fc.array(nonceArb, { minLength: count, maxLength: count }),
          fc.array(amountArb, { minLength: count, maxLength: count }),
          (nonces, amounts) => {
            // Two amounts near 2^63 would overflow: keep the big ones to the first leaf.
            const leaves = nonces.map((nonce, i) => ({
              nonce,
              lamports: i === 0 ? amounts[i]! : (amounts[i]! % 1_000_000_000n) + 1n,
            }));
            fc.pre(new Set(nonces.map(toHex)).size === count);
            const tree = buildTree(leaves.map(leafNode));
            expect(tree.root.sumLamports).toBe(leaves.reduce((s, l) => s + l.lamports, 0n));
            if (count === 0) expect(tree.root).toEqual(ZERO_NODE);
            // One leaf is already the single node left: it is the root, with an empty path.
            if (count === 1) expect(toHex(tree.root.hash)).toBe(toHex(leafNode(leaves[0]!).hash));
            for (let i = 0; i < count; i++) {
              const proof = proofOf(leaves, i);
              expect(proof.path).toHaveLength(Math.ceil(Math.log2(count)));
              expect(verifyLiabilityProof(proof).ok).toBe(true);
            }
          },
        ),
        { numRuns: 20 },
      );
    }
  });

  test("a tampered amount, nonce, sibling hash, sibling sum, side or total fails", () => {
    fc.assert(
      fc.property(
        leavesArb.filter((l) => l.length >= 2),
        fc.nat(),
        fc.nat(),
        fc.nat({ max: 63 }),
        fc.bigInt({ min: 1n, max: 1000n }),
        (leaves, pick, stepPick, hexAt, delta) => {
          const i = pick % leaves.length;
          const proof = proofOf(leaves, i);
          const step = stepPick % proof.path.length;
          const variants: unknown[] = [
            { ...proof, leaf: { ...proof.leaf, lamports: (BigInt(proof.leaf.lamports) + delta).toString() } },
            {
              ...proof,
              leaf: {
                ...proof.leaf,
                lamports: (BigInt(proof.leaf.lamports) > delta
                  ? BigInt(proof.leaf.lamports) - delta
                  : BigInt(proof.leaf.lamports) + delta
                ).toString(),
              },
            },
            { ...proof, leaf: { ...proof.leaf, nonce: flipHexChar(proof.leaf.nonce, hexAt) } },
            { ...proof, path: proof.path.map((s, k) => (k === step ? { ...s, hash: flipHexChar(s.hash, hexAt) } : s)) },
            {
              ...proof,
              path: proof.path.map((s, k) =>
                k === step ? { ...s, sumLamports: (BigInt(s.sumLamports) + delta).toString() } : s,
              ),
            },
            {
              ...proof,
              path: proof.path.map((s, k) => (k === step ? { ...s, side: s.side === "left" ? "right" : "left" } : s)),
            },
            { ...proof, path: proof.path.slice(0, -1) },
            { ...proof, totalLamports: (BigInt(proof.totalLamports) + delta).toString() },
            { ...proof, root: flipHexChar(proof.root, hexAt) },
          ];
          for (const variant of variants) expect(verifyLiabilityProof(variant).ok).toBe(false);
        },
      ),
      { numRuns: 200 },
    );
  });

  test("a total over 2^64 - 1 is refused, not wrapped", () => {
    const leaves = [
      { nonce: new Uint8Array(32).fill(1), lamports: 1n << 63n },
      { nonce: new Uint8Array(32).fill(2), lamports: 1n << 63n },
    ];
    expect(() => buildTree(leaves.map(leafNode))).toThrow(expect.objectContaining({ code: "LIABILITY_TREE_INVALID" }));
    expect(() => leafNode({ nonce: new Uint8Array(32), lamports: U64_MAX + 1n })).toThrow(
      expect.objectContaining({ code: "LIABILITY_TREE_INVALID" }),
    );
    expect(() => leafNode({ nonce: new Uint8Array(32), lamports: 0n })).toThrow(
      expect.objectContaining({ code: "LIABILITY_TREE_INVALID" }),
    );
  });

  test("the verifier refuses malformed documents with a reason", () => {
    const leaves = [{ nonce: new Uint8Array(32).fill(0xab), lamports: 52_300_000n }];
    const proof = proofOf(leaves, 0);
    expect(verifyLiabilityProof(proof).ok).toBe(true);
    for (const bad of [
      null,
      { ...proof, leaf: { ...proof.leaf, lamports: "-1" } },
      { ...proof, leaf: { ...proof.leaf, lamports: "18446744073709551616" } },
      { ...proof, leaf: { ...proof.leaf, nonce: proof.leaf.nonce.toUpperCase() } },
      { ...proof, path: "nope" },
      { ...proof, leaf: { ...proof.leaf, lamports: 52_300_000 } },
    ]) {
      const verdict = verifyLiabilityProof(bad);
      expect(verdict.ok).toBe(false);
      if (!verdict.ok) expect(verdict.reason.length).toBeGreaterThan(0);
    }
  });
});
