/**
 * Proof-of-liabilities answers for the fake API, computed by the service's own tree code: the
 * signed-in fake account's balance is one leaf among three, so the page's in-browser check runs
 * against a real proof (and tests can hand it a tampered one through FakeApi overrides).
 */
import { inclusionProofJson } from "../../src/liabilities/document";
import { buildTree, indexOfLeaf, leafNode, proofPath, toHex } from "../../src/liabilities/tree";

export const FAKE_ANCHOR_SIGNATURE = "4".repeat(87);

export function fakeLiabilities(balanceLamports: bigint, atMs: number) {
  const at = new Date(atMs - 60_000).toISOString();
  const leaves = [
    { nonce: new Uint8Array(32).fill(0xa1), lamports: balanceLamports },
    { nonce: new Uint8Array(32).fill(0xb2), lamports: 1_000_000n },
    { nonce: new Uint8Array(32).fill(0xc3), lamports: 7n },
  ].filter((l) => l.lamports > 0n);
  const nodes = leaves.map(leafNode);
  const tree = buildTree(nodes);
  const published = {
    at,
    root: toHex(tree.root.hash),
    totalLamports: tree.root.sumLamports.toString(),
    leaves: leaves.length,
    anchorSignature: FAKE_ANCHOR_SIGNATURE,
  };
  const proof =
    balanceLamports > 0n
      ? inclusionProofJson({
          at,
          root: tree.root.hash,
          totalLamports: tree.root.sumLamports,
          leaf: leaves[0]!,
          path: proofPath(tree, indexOfLeaf(tree, nodes[0]!.hash)),
        })
      : null;
  return { published, proof };
}
