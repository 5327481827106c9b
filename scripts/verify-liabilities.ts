/**
 * Independent verifier of a proof of liabilities: `npm run verify-liabilities -- <proof.json>`.
 *
 * The file is the body of `GET /api/me/proof` ({at, root, totalLamports, leaf: {nonce, lamports},
 * path: [{side, hash, sumLamports}]}). It shares no code with the service on purpose: it recomputes
 * the root from the leaf and the path exactly as docs/proof-of-liabilities.md says and compares it
 * with the published root and total. Exit 0 and one line when the proof holds; exit 1 and the
 * reason otherwise.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

const U64_MAX = 2n ** 64n - 1n;
const HEX32 = /^[0-9a-f]{64}$/;
const DECIMAL = /^(0|[1-9][0-9]{0,19})$/;

export type Verdict =
  | { ok: true; lamports: bigint; totalLamports: bigint; root: string }
  | { ok: false; reason: string };

function u64(value: bigint): Buffer {
  const out = Buffer.alloc(8);
  out.writeBigUInt64BE(value);
  return out;
}

function sha256(...parts: Buffer[]): Buffer {
  return createHash("sha256").update(Buffer.concat(parts)).digest();
}

function amount(value: unknown, what: string): bigint {
  if (typeof value !== "string" || !DECIMAL.test(value)) throw new Error(`${what} is not a decimal string`);
  const n = BigInt(value);
  if (n > U64_MAX) throw new Error(`${what} does not fit in a u64`);
  return n;
}

function hash(value: unknown, what: string): Buffer {
  if (typeof value !== "string" || !HEX32.test(value)) throw new Error(`${what} is not 32 bytes of lowercase hex`);
  return Buffer.from(value, "hex");
}

/** Checks one proof document; never throws. */
export function verifyLiabilityProof(doc: unknown): Verdict {
  try {
    if (typeof doc !== "object" || doc === null) throw new Error("the proof is not a JSON object");
    const proof = doc as Record<string, unknown>;
    const root = hash(proof.root, "root");
    const total = amount(proof.totalLamports, "totalLamports");
    const leaf = proof.leaf as Record<string, unknown> | undefined;
    if (typeof leaf !== "object" || leaf === null) throw new Error("leaf is missing");
    const nonce = hash(leaf.nonce, "leaf.nonce");
    const lamports = amount(leaf.lamports, "leaf.lamports");
    if (lamports === 0n) throw new Error("a leaf of 0 lamports is never in the tree");
    if (!Array.isArray(proof.path)) throw new Error("path is not a list");
    if (proof.path.length > 64) throw new Error("path is longer than any tree of u64 sums");

    let nodeHash = sha256(Buffer.from([0x00]), nonce, u64(lamports));
    let nodeSum = lamports;
    proof.path.forEach((raw: unknown, i: number) => {
      const step = raw as Record<string, unknown>;
      if (typeof step !== "object" || step === null) throw new Error(`path[${i}] is not an object`);
      const siblingHash = hash(step.hash, `path[${i}].hash`);
      const siblingSum = amount(step.sumLamports, `path[${i}].sumLamports`);
      const sum = nodeSum + siblingSum;
      if (sum > U64_MAX) throw new Error(`path[${i}] makes a sum over 2^64 - 1`);
      if (step.side === "left") {
        nodeHash = sha256(Buffer.from([0x01]), siblingHash, u64(siblingSum), nodeHash, u64(nodeSum));
      } else if (step.side === "right") {
        nodeHash = sha256(Buffer.from([0x01]), nodeHash, u64(nodeSum), siblingHash, u64(siblingSum));
      } else {
        throw new Error(`path[${i}].side is neither left nor right`);
      }
      nodeSum = sum;
    });
    if (!nodeHash.equals(root)) return { ok: false, reason: "the leaf and path do not hash to the published root" };
    if (nodeSum !== total) return { ok: false, reason: "the root's sum is not the published totalLamports" };
    return { ok: true, lamports, totalLamports: total, root: root.toString("hex") };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}

/** The command, as `npm run verify-liabilities -- <file>` or `fee-ledger verify-liabilities <file>` (scripts/cli.ts). */
export function verifyLiabilitiesCommand(args: readonly string[], invokedAs = "npm run verify-liabilities --"): void {
  const file = args[0];
  if (!file || args.length > 1) {
    console.error(`usage: ${invokedAs} <proof.json>`);
    process.exit(2);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    console.error(`cannot read ${file} as JSON`);
    process.exit(2);
  }
  const verdict = verifyLiabilityProof(doc);
  if (verdict.ok) {
    const at = (doc as { at?: unknown }).at;
    console.log(
      `OK: ${verdict.lamports} lamports are inside the total of ${verdict.totalLamports} lamports under root ${verdict.root}` +
        (typeof at === "string" ? ` (snapshot ${at})` : ""),
    );
  } else {
    console.error(`NOT VERIFIED: ${verdict.reason}`);
    process.exit(1);
  }
}

if (import.meta.main) verifyLiabilitiesCommand(process.argv.slice(2));
