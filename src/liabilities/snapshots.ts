/**
 * Liability snapshots: every account's share of `owedLamports` at one instant, as a Merkle sum
 * tree whose root's sum must equal `owedLamports` read in the same transaction. A tree that does
 * not add up (or would overflow a u64) is an incident, recorded and logged, never a snapshot.
 *
 * An account's amount is its ledger balance plus its payouts queued or in flight (each payout's
 * own ledger account) plus its burn orders waiting for their buy: exactly the parts of
 * `owedLamports` (user + handle + payout + burn_pending balances), attributed to whom they are owed.
 */
import type { Db } from "../../db/client";
import { ledgerTotals } from "../ledger";
import { immediate } from "../../db/transaction";
import { buildTree, leafNode, randomNonce, toHex, type SumTree } from "./tree";
import { anchorMemo } from "./document";
import { AppError, isAppError } from "../lib/errors";
import { query } from "../../db/statement";

export const SNAPSHOT_EVERY_MS = 60 * 60 * 1000;
export const SNAPSHOT_KEEP_MS = 365 * 24 * 60 * 60 * 1000;

interface AccountLiability {
  kind: "user" | "handle";
  ref: string;
  lamports: bigint;
}

/** What each account is owed now. Call inside the snapshot's transaction. */
function currentLiabilities(db: Db): AccountLiability[] {
  const owed = new Map<string, AccountLiability>();
  const add = (kind: "user" | "handle", ref: string, lamports: bigint) => {
    if (lamports < 0n) throw new AppError("LEDGER_INVARIANT", `a ${kind} liability is negative`);
    const key = `${kind}:${ref}`;
    const row = owed.get(key);
    if (row) row.lamports += lamports;
    else owed.set(key, { kind, ref, lamports });
  };
  const balances = query<{ kind: "user" | "handle"; ref: string; balance: bigint }, []>(
    db,
    "SELECT kind, ref, balance FROM ledger_accounts WHERE kind IN ('user', 'handle') AND balance <> 0",
  ).all();
  for (const b of balances) add(b.kind, b.ref, BigInt(b.balance));
  const payouts = query<{ user: string; balance: bigint }, []>(
    db,
    `SELECT p.idp_user_id AS user, a.balance AS balance
         FROM ledger_accounts a JOIN payouts p ON a.ref = CAST(p.id AS TEXT)
        WHERE a.kind = 'payout' AND a.balance <> 0`,
  ).all();
  for (const p of payouts) add("user", p.user, BigInt(p.balance));
  const burns = query<{ user: string | null; lamports: bigint }, []>(
    db,
    `SELECT idp_user_id AS user, SUM(lamports) AS lamports FROM burn_orders
        WHERE source = 'recipient' AND status IN ('pending', 'buying') GROUP BY idp_user_id`,
  ).all();
  for (const b of burns) {
    if (b.user === null) throw new AppError("LEDGER_INVARIANT", "a recipient burn order names nobody");
    add("user", b.user, BigInt(b.lamports));
  }
  return [...owed.values()].filter((l) => l.lamports > 0n);
}

export type SnapshotResult =
  | {
      taken: true;
      snapshotId: number;
      atMs: number;
      root: string;
      totalLamports: bigint;
      leafCount: number;
      tree: SumTree;
    }
  | { taken: false; reason: "unchanged" | "same_instant" }
  | { taken: false; reason: "incident"; owedLamports: bigint; treeLamports: bigint | null; detail: string };

interface SnapshotRead {
  postingId: number;
  owedLamports: bigint;
  leaves: (AccountLiability & { nonce: Uint8Array; hash: Uint8Array })[];
  tree: SumTree | null;
  treeError: string | null;
}

function latestSnapshot(db: Db): { atMs: number; postingId: number } | null {
  const row = query<{ atMs: bigint; postingId: bigint }, []>(
    db,
    "SELECT at_ms AS atMs, posting_id AS postingId FROM liability_snapshots ORDER BY at_ms DESC LIMIT 1",
  ).get();
  return row ? { atMs: Number(row.atMs), postingId: Number(row.postingId) } : null;
}

function skipReason(
  latest: { atMs: number; postingId: number } | null,
  atMs: number,
  postingId: number,
): "same_instant" | "unchanged" | null {
  if (!latest) return null;
  if (latest.atMs >= atMs) return "same_instant";
  const due = atMs - latest.atMs >= SNAPSHOT_EVERY_MS;
  return !due && latest.postingId === postingId ? "unchanged" : null;
}

/**
 * Takes a snapshot at `atMs`, unless the books have not moved since the latest snapshot and it is
 * less than an hour old. The liabilities and `owedLamports` are read in one read transaction (one
 * consistent view of the books) and the tree is built inside it, without holding the write lock;
 * the snapshot, or the incident, is then written in a write transaction of its own.
 */
export function takeSnapshot(db: Db, atMs: number): SnapshotResult {
  const c = db.$client;
  const read = c
    .transaction((): SnapshotRead | "same_instant" | "unchanged" => {
      const postingId = Number(
        query<{ id: bigint }, []>(db, "SELECT COALESCE(MAX(id), 0) AS id FROM ledger_postings").get()!.id,
      );
      const skip = skipReason(latestSnapshot(db), atMs, postingId);
      if (skip) return skip;
      const owedLamports = ledgerTotals(db).owedLamports;
      const leaves = currentLiabilities(db).map((l) => {
        const nonce = randomNonce();
        return { ...l, nonce, hash: leafNode({ nonce, lamports: l.lamports }).hash };
      });
      try {
        const tree = buildTree(leaves.map((l) => ({ hash: l.hash, sumLamports: l.lamports })));
        return { postingId, owedLamports, leaves, tree, treeError: null };
      } catch (error) {
        if (!isAppError(error, "LIABILITY_TREE_INVALID")) throw error;
        return { postingId, owedLamports, leaves, tree: null, treeError: error.message };
      }
    })
    .deferred();
  if (typeof read === "string") return { taken: false, reason: read };
  const { postingId, owedLamports, leaves, tree } = read;

  return immediate(db, () => {
    // Another process may have taken one since the read.
    const skip = skipReason(latestSnapshot(db), atMs, postingId);
    if (skip) return { taken: false, reason: skip };
    if (!tree) return incident(db, atMs, owedLamports, null, read.treeError ?? "the tree could not be built");
    if (tree.root.sumLamports !== owedLamports) {
      return incident(db, atMs, owedLamports, tree.root.sumLamports, "the tree's sum is not what the books owe");
    }
    const root = toHex(tree.root.hash);
    const atIso = new Date(atMs).toISOString();
    const inserted = query<
      { id: bigint },
      [atMs: number, root: string, totalLamports: bigint, leafCount: number, postingId: number, memo: string]
    >(
      db,
      `INSERT INTO liability_snapshots (at_ms, root, total_lamports, leaf_count, posting_id, memo)
         VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
    ).get(atMs, root, owedLamports, leaves.length, postingId, anchorMemo(root, owedLamports, atIso));
    const snapshotId = Number(inserted!.id);
    const insertLeaf = query<
      never,
      [snapshotId: number, kind: "user" | "handle", ref: string, nonce: Uint8Array, lamports: bigint, hash: Uint8Array]
    >(
      db,
      "INSERT INTO liability_leaves (snapshot_id, account_kind, account_ref, nonce, lamports, leaf_hash) VALUES (?, ?, ?, ?, ?, ?)",
    );
    for (const l of leaves) insertLeaf.run(snapshotId, l.kind, l.ref, l.nonce, l.lamports, l.hash);
    return { taken: true, snapshotId, atMs, root, totalLamports: owedLamports, leafCount: leaves.length, tree };
  });
}

function incident(
  db: Db,
  atMs: number,
  owedLamports: bigint,
  treeLamports: bigint | null,
  detail: string,
): SnapshotResult {
  query<never, [atMs: number, owedLamports: bigint, treeLamports: bigint | null, detail: string]>(
    db,
    "INSERT INTO liability_incidents (at_ms, owed_lamports, tree_lamports, detail) VALUES (?, ?, ?, ?)",
  ).run(atMs, owedLamports, treeLamports, detail);
  return { taken: false, reason: "incident", owedLamports, treeLamports, detail };
}

/** Drops snapshots (and their leaves) older than a year. */
export function pruneSnapshots(db: Db, nowMs: number): number {
  return immediate(db, () => {
    const cutoff = nowMs - SNAPSHOT_KEEP_MS;
    query<never, [cutoffMs: number]>(
      db,
      "DELETE FROM liability_leaves WHERE snapshot_id IN (SELECT id FROM liability_snapshots WHERE at_ms < ?)",
    ).run(cutoff);
    return query<never, [cutoffMs: number]>(db, "DELETE FROM liability_snapshots WHERE at_ms < ?").run(cutoff).changes;
  });
}
