/**
 * The JSON shapes of a liability proof: hex for bytes, decimal strings for lamports. What
 * `GET /api/me/proof` answers, what the verifier script and the page read.
 */
import { toHex, type Leaf, type PathStep } from "./tree";

interface PathStepJson {
  side: "left" | "right";
  hash: string;
  sumLamports: string;
}

export interface InclusionProofJson {
  at: string;
  root: string;
  totalLamports: string;
  leaf: { nonce: string; lamports: string };
  path: PathStepJson[];
}

function pathJson(path: readonly PathStep[]): PathStepJson[] {
  return path.map((step) => ({ side: step.side, hash: toHex(step.hash), sumLamports: step.sumLamports.toString() }));
}

export function inclusionProofJson(input: {
  at: string;
  root: Uint8Array;
  totalLamports: bigint;
  leaf: Leaf;
  path: readonly PathStep[];
}): InclusionProofJson {
  return {
    at: input.at,
    root: toHex(input.root),
    totalLamports: input.totalLamports.toString(),
    leaf: { nonce: toHex(input.leaf.nonce), lamports: input.leaf.lamports.toString() },
    path: pathJson(input.path),
  };
}

/** The memo anchoring a root on chain: `liabilities:<root hex>:<totalLamports>:<at ISO>`. */
export function anchorMemo(rootHex: string, totalLamports: bigint, atIso: string): string {
  return `liabilities:${rootHex}:${totalLamports}:${atIso}`;
}
