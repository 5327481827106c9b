/**
 * The Merkle sum tree of liabilities (docs/proof-of-liabilities.md is the normative description):
 *
 * - leafHash = SHA-256(0x00 ‖ nonce ‖ u64be(lamports)), sum = lamports; leaves with 0 are left out;
 * - leaves ordered by leafHash (bytewise); each level pairs neighbours, an odd last node is paired
 *   with the zero node (32 zero bytes, sum 0);
 * - nodeHash = SHA-256(0x01 ‖ leftHash ‖ u64be(leftSum) ‖ rightHash ‖ u64be(rightSum)),
 *   nodeSum = leftSum + rightSum; a sum over 2^64 − 1 is refused;
 * - the root is the single node left; an empty tree's root is the zero node.
 *
 * Pure functions over bytes and bigints. The nonce hides the amount behind a leaf hash (32 random
 * bytes cannot be guessed), so only the account that is given its nonce can point at its leaf.
 */
import { AppError } from "../lib/errors";

export const U64_MAX = (1n << 64n) - 1n;
const NONCE_BYTES = 32;
const HASH_BYTES = 32;

export interface TreeNode {
  hash: Uint8Array;
  sumLamports: bigint;
}

export interface Leaf {
  nonce: Uint8Array;
  lamports: bigint;
}

export interface PathStep {
  /** the side the sibling sits on */
  side: "left" | "right";
  hash: Uint8Array;
  sumLamports: bigint;
}

export const ZERO_NODE: TreeNode = Object.freeze({ hash: new Uint8Array(HASH_BYTES), sumLamports: 0n }) as TreeNode;

function sha256(message: Uint8Array): Uint8Array {
  return Bun.SHA256.hash(message) as Uint8Array;
}

function checkU64(value: bigint): void {
  if (value < 0n || value > U64_MAX) throw new AppError("LIABILITY_TREE_INVALID", "an amount does not fit in a u64");
}

function leafHash(nonce: Uint8Array, lamports: bigint): Uint8Array {
  if (nonce.length !== NONCE_BYTES) throw new AppError("LIABILITY_TREE_INVALID", "a nonce is 32 bytes");
  checkU64(lamports);
  // 0x00 ‖ nonce ‖ u64be(lamports), written into one buffer: a tree of 100k leaves hashes 200k times.
  const message = Buffer.allocUnsafe(1 + NONCE_BYTES + 8);
  message[0] = 0x00;
  message.set(nonce, 1);
  message.writeBigUInt64BE(lamports, 1 + NONCE_BYTES);
  return sha256(message);
}

export function leafNode(leaf: Leaf): TreeNode {
  if (leaf.lamports <= 0n) throw new AppError("LIABILITY_TREE_INVALID", "a leaf holds a positive amount");
  return { hash: leafHash(leaf.nonce, leaf.lamports), sumLamports: leaf.lamports };
}

function parentNode(left: TreeNode, right: TreeNode): TreeNode {
  checkU64(left.sumLamports);
  checkU64(right.sumLamports);
  const sumLamports = left.sumLamports + right.sumLamports;
  if (sumLamports > U64_MAX) throw new AppError("LIABILITY_TREE_INVALID", "a node's sum is over 2^64 - 1");
  if (left.hash.length !== HASH_BYTES || right.hash.length !== HASH_BYTES)
    throw new AppError("LIABILITY_TREE_INVALID", "a node hash is 32 bytes");
  // 0x01 ‖ leftHash ‖ u64be(leftSum) ‖ rightHash ‖ u64be(rightSum)
  const message = Buffer.allocUnsafe(1 + 2 * (HASH_BYTES + 8));
  message[0] = 0x01;
  message.set(left.hash, 1);
  message.writeBigUInt64BE(left.sumLamports, 1 + HASH_BYTES);
  message.set(right.hash, 1 + HASH_BYTES + 8);
  message.writeBigUInt64BE(right.sumLamports, 1 + 2 * HASH_BYTES + 8);
  return { hash: sha256(message), sumLamports };
}

/** Bytewise (unsigned) order, as the leaves are sorted. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}

function byteKey(bytes: Uint8Array): string {
  return String.fromCharCode.apply(null, bytes as unknown as number[]);
}

/** Every level of the tree, leaves (ordered by hash) first, the root's level last. */
export interface SumTree {
  levels: TreeNode[][];
  root: TreeNode;
}

/** Builds the tree from leaf nodes in any order; refuses duplicates (a nonce reused) and overflow. */
export function buildTree(leaves: readonly TreeNode[]): SumTree {
  // Sorted on one-char-per-byte string keys: UTF-16 code units 0..255 compare as the bytes do, and
  // the default sort compares strings natively (a comparator call per comparison is 50x slower at
  // 100k leaves).
  const byKey = new Map<string, TreeNode>();
  for (const node of leaves) {
    const key = byteKey(node.hash);
    if (byKey.has(key)) throw new AppError("LIABILITY_TREE_INVALID", "two leaves have the same hash");
    byKey.set(key, node);
  }
  const ordered = [...byKey.keys()].sort().map((key) => byKey.get(key)!);
  for (const leaf of ordered) {
    if (leaf.sumLamports <= 0n || leaf.sumLamports > U64_MAX)
      throw new AppError("LIABILITY_TREE_INVALID", "a leaf holds a positive u64 amount");
  }
  if (ordered.length === 0) return { levels: [[]], root: ZERO_NODE };
  const levels: TreeNode[][] = [ordered];
  let level = ordered;
  while (level.length > 1) {
    const next: TreeNode[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(parentNode(level[i]!, level[i + 1] ?? ZERO_NODE));
    levels.push(next);
    level = next;
  }
  return { levels, root: level[0]! };
}

/** The path from the leaf at `index` (in hash order) up to the root. */
export function proofPath(tree: SumTree, index: number): PathStep[] {
  const leaves = tree.levels[0]!;
  if (!Number.isInteger(index) || index < 0 || index >= leaves.length)
    throw new AppError("LIABILITY_TREE_INVALID", "no such leaf");
  const path: PathStep[] = [];
  let i = index;
  for (let depth = 0; depth < tree.levels.length - 1; depth++) {
    const level = tree.levels[depth]!;
    const siblingIndex = i % 2 === 0 ? i + 1 : i - 1;
    const sibling = level[siblingIndex] ?? ZERO_NODE;
    path.push({ side: i % 2 === 0 ? "right" : "left", hash: sibling.hash, sumLamports: sibling.sumLamports });
    i = Math.floor(i / 2);
  }
  return path;
}

/** Index of a leaf hash among the ordered leaves, or -1. */
export function indexOfLeaf(tree: SumTree, hash: Uint8Array): number {
  const leaves = tree.levels[0]!;
  let lo = 0;
  let hi = leaves.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = compareBytes(leaves[mid]!.hash, hash);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

export const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");

export function randomNonce(): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
}
