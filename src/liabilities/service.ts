/**
 * Reads of liability snapshots for the routes: the published summary of a snapshot (no nonce, no
 * account) and one account's inclusion proof (its own nonce, its path to the root).
 */
import type { Db } from "../../db/client";
import { inclusionProofJson, type InclusionProofJson } from "./document";
import { buildTree, compareBytes, indexOfLeaf, proofPath, toHex, type SumTree } from "./tree";
import { AppError } from "../lib/errors";
import { query } from "../../db/statement";

export interface SnapshotSummary {
  id: number;
  atMs: number;
  root: string;
  totalLamports: bigint;
  leafCount: number;
  /** null until the anchor memo is confirmed on chain */
  anchorSignature: string | null;
}

/** The latest snapshot taken at or before `atMs` (the latest of all without it). */
export function snapshotAt(db: Db, atMs: number | null): SnapshotSummary | null {
  const row = query<
    {
      id: bigint;
      atMs: bigint;
      root: string;
      totalLamports: bigint;
      leafCount: bigint;
      anchorSignature: string | null;
    },
    [atMs: number]
  >(
    db,
    `SELECT id, at_ms AS atMs, root, total_lamports AS totalLamports, leaf_count AS leafCount,
              CASE WHEN anchored_at_ms IS NULL THEN NULL ELSE anchor_signature END AS anchorSignature
         FROM liability_snapshots WHERE at_ms <= ? ORDER BY at_ms DESC LIMIT 1`,
  ).get(atMs ?? Number.MAX_SAFE_INTEGER);
  if (!row) return null;
  return {
    id: Number(row.id),
    atMs: Number(row.atMs),
    root: row.root,
    totalLamports: BigInt(row.totalLamports),
    leafCount: Number(row.leafCount),
    anchorSignature: row.anchorSignature,
  };
}

/** Trees rebuilt from stored leaves, for the few snapshots being asked about (the latest, mostly). */
const TREES_KEPT = 4;
const trees = new WeakMap<Db, Map<number, SumTree>>();

function cacheOf(db: Db): Map<number, SumTree> {
  let cache = trees.get(db);
  if (!cache) {
    cache = new Map();
    trees.set(db, cache);
  }
  return cache;
}

function keep(cache: Map<number, SumTree>, snapshotId: number, tree: SumTree): void {
  cache.set(snapshotId, tree);
  for (const key of cache.keys()) {
    if (cache.size <= TREES_KEPT) break;
    cache.delete(key);
  }
}

/** The tree a snapshot was just built from, so the first proofs of it need not hash it all again. */
export function rememberTree(db: Db, snapshotId: number, tree: SumTree): void {
  keep(cacheOf(db), snapshotId, tree);
}

function treeOf(db: Db, snapshot: SnapshotSummary): SumTree {
  const cache = cacheOf(db);
  const hit = cache.get(snapshot.id);
  if (hit) return hit;
  const leaves = query<{ hash: Uint8Array; lamports: bigint }, [snapshotId: number]>(
    db,
    "SELECT leaf_hash AS hash, lamports FROM liability_leaves WHERE snapshot_id = ?",
  ).all(snapshot.id);
  const tree = buildTree(leaves.map((l) => ({ hash: new Uint8Array(l.hash), sumLamports: BigInt(l.lamports) })));
  // The stored leaves must rebuild the published root: anything else is a corrupted snapshot.
  if (toHex(tree.root.hash) !== snapshot.root || tree.root.sumLamports !== snapshot.totalLamports) {
    throw new AppError("LEDGER_INVARIANT", `liability snapshot ${snapshot.id} does not rebuild its root`);
  }
  keep(cache, snapshot.id, tree);
  return tree;
}

/**
 * The inclusion proof of the account signed in as `idpUserId` in `snapshot`: its own leaf (as a user,
 * or, in snapshots taken before its handle was pinned, as that handle), or null when it had none.
 */
export function inclusionProof(db: Db, snapshot: SnapshotSummary, idpUserId: string): InclusionProofJson | null {
  const leaf = query<
    { nonce: Uint8Array; lamports: bigint; hash: Uint8Array },
    [snapshotId: number, user: string, user: string]
  >(
    db,
    `SELECT l.nonce AS nonce, l.lamports AS lamports, l.leaf_hash AS hash
         FROM liability_leaves l
        WHERE l.snapshot_id = ?
          AND ((l.account_kind = 'user' AND l.account_ref = ?)
               OR (l.account_kind = 'handle' AND l.account_ref IN (SELECT handle FROM handles WHERE idp_user_id = ?)))
        ORDER BY l.account_kind DESC, l.account_ref LIMIT 1`,
  ).get(snapshot.id, idpUserId, idpUserId);
  if (!leaf) return null;
  const tree = treeOf(db, snapshot);
  const index = indexOfLeaf(tree, new Uint8Array(leaf.hash));
  if (index < 0 || compareBytes(tree.levels[0]![index]!.hash, new Uint8Array(leaf.hash)) !== 0) {
    throw new AppError("LEDGER_INVARIANT", `liability snapshot ${snapshot.id} lost a leaf`);
  }
  return inclusionProofJson({
    at: new Date(snapshot.atMs).toISOString(),
    root: tree.root.hash,
    totalLamports: tree.root.sumLamports,
    leaf: { nonce: new Uint8Array(leaf.nonce), lamports: BigInt(leaf.lamports) },
    path: proofPath(tree, index),
  });
}
