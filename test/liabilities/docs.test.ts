/**
 * The worked example of docs/proof-of-liabilities.md is this code's output: the leaf hashes, the
 * nodes, the root, account A's proof and the memo are recomputed from the leaves the page lists,
 * and the proof on the page verifies with the independent verifier.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { anchorMemo, inclusionProofJson } from "../../src/liabilities/document";
import { buildTree, indexOfLeaf, leafNode, proofPath, toHex } from "../../src/liabilities/tree";
import { verifyLiabilityProof } from "../../scripts/verify-liabilities";

const page = await Bun.file(join(import.meta.dir, "..", "..", "docs", "proof-of-liabilities.md")).text();
const example = page.slice(page.indexOf("## Worked example"));

describe("docs/proof-of-liabilities.md", () => {
  test("the worked example is what the code computes, and its proof verifies", () => {
    const rows = [...example.matchAll(/^\| ([A-C]) \| `([0-9a-f]{2})` × 32 \| (\d+) \| `([0-9a-f]{64})` \|$/gm)];
    expect(rows).toHaveLength(3);
    const leaves = rows.map((r) => ({ nonce: new Uint8Array(32).fill(parseInt(r[2]!, 16)), lamports: BigInt(r[3]!) }));
    const nodes = leaves.map(leafNode);
    for (const [i, r] of rows.entries()) expect(toHex(nodes[i]!.hash)).toBe(r[4]!);
    const tree = buildTree(nodes);
    for (const node of tree.levels[1]!) expect(example).toContain(toHex(node.hash));

    const proofText = /```json\n([\s\S]*?)\n```/.exec(example)![1]!;
    const onPage = JSON.parse(proofText);
    const computed = inclusionProofJson({
      at: onPage.at,
      root: tree.root.hash,
      totalLamports: tree.root.sumLamports,
      leaf: leaves[0]!,
      path: proofPath(tree, indexOfLeaf(tree, nodes[0]!.hash)),
    });
    expect(onPage).toEqual(computed);
    expect(verifyLiabilityProof(onPage)).toMatchObject({
      ok: true,
      lamports: 52_300_000n,
      totalLamports: 1_052_307_000n,
    });
    expect(example).toContain(anchorMemo(toHex(tree.root.hash), tree.root.sumLamports, onPage.at));
  });
});
