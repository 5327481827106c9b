/**
 * Proof that a transaction never landed, from the finalized blocks themselves (issue 61, item 5).
 *
 * A history search answering "not found" proves nothing on its own: a gateway may answer each call
 * of a batch from a different node (the search from a pruned one, the floor from a full one), and
 * an agave node restarted from a recent snapshot has a hole in its ledger above its
 * `minimumLedgerSlot`. A finalized block, though, is the same on every node that serves it, and
 * each names its parent: reading the blocks from the send's slot until one past the transaction's
 * `lastValidBlockHeight`, each linked to the one before (`parentSlot`, heights one apart), covers
 * every block the transaction could have landed in, whichever nodes answered. A node with a hole
 * answers -32007 for its slots and a pruned one -32001, so a hole can delay the proof but never
 * fake it. `getBlocks` only says where to look; a slot it left out is found through the links.
 *
 * Blocks read are kept (finalized blocks never change), so the transactions of one run that expire
 * together are proven with one read of their common blocks, and a pass cut short by a node that
 * could not serve a block resumes where it stopped.
 */

/** What the proof keeps of one finalized block. */
export interface BlockSummary {
  slot: bigint;
  parentSlot: bigint;
  blockHeight: bigint;
  /** `signatureKey` of each of its transactions, sorted */
  keys: Float64Array;
}

export type AbsenceProof =
  | { kind: "absent" }
  | { kind: "found"; slot: bigint }
  | { kind: "incomplete"; reason: string };

/** Slots past the send searched at most: ~150 blocks, with room for skipped slots. */
const MAX_SCAN_SLOTS = 1_000n;
/** Blocks kept across proofs: a few transactions' ranges. */
const SCANNED_BLOCKS_MAX = 512;
/** Blocks asked at once. */
const READ_CONCURRENCY = 8;

/**
 * A 53-bit key of a signature. A mainnet block holds ~3,000 transactions: their signatures as
 * strings would cost ~350 KB a block kept, the keys 24 KB. A collision can only make a block seem
 * to hold the transaction (the proof then waits, never proves a false absence); at 53 bits over a
 * few hundred thousand signatures it does not happen in practice.
 */
function signatureKey(signature: string): number {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < signature.length; i++) {
    const c = signature.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 13;
  }
  return (a >>> 0) * 0x200000 + ((b >>> 0) >>> 11);
}

export function summarizeBlock(
  slot: bigint,
  parentSlot: bigint,
  blockHeight: bigint,
  signatures: readonly string[],
): BlockSummary {
  const keys = Float64Array.from(signatures, signatureKey).sort();
  return { slot, parentSlot, blockHeight, keys };
}

function holds(block: BlockSummary, key: number): boolean {
  const keys = block.keys;
  let lo = 0;
  let hi = keys.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const k = keys[mid]!;
    if (k === key) return true;
    if (k < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** Finalized blocks read, the least recently used forgotten first. */
export class ScannedBlocks {
  private readonly blocks = new Map<bigint, BlockSummary>();

  constructor(private readonly max = SCANNED_BLOCKS_MAX) {}

  get(slot: bigint): BlockSummary | undefined {
    const block = this.blocks.get(slot);
    if (block) {
      this.blocks.delete(slot);
      this.blocks.set(slot, block);
    }
    return block;
  }

  set(block: BlockSummary): void {
    this.blocks.delete(block.slot);
    this.blocks.set(block.slot, block);
    if (this.blocks.size > this.max) this.blocks.delete(this.blocks.keys().next().value!);
  }
}

export interface AbsenceQuestion {
  signature: string;
  lastValidBlockHeight: bigint;
  /** the slot of the blockhash it was built on: it cannot have landed before */
  sentFromSlot: bigint;
  /** a finalized slot whose block height is past `lastValidBlockHeight` */
  finalizedSlot: bigint;
}

export interface BlockSource {
  /** the finalized blocks' slots in [from, to] one node lists (a hint: gaps are found by the links) */
  listBlocks(from: bigint, to: bigint): Promise<bigint[] | null>;
  /** a finalized block, or null when the node answering could not serve it now */
  readBlock(slot: bigint): Promise<BlockSummary | null>;
  cache: ScannedBlocks;
}

/** Whether the transaction is in any block it could have landed in; `incomplete` when not all could be read. */
export async function proveAbsence(q: AbsenceQuestion, source: BlockSource): Promise<AbsenceProof> {
  if (q.sentFromSlot <= 0n)
    return { kind: "incomplete", reason: "signed before its send slot was journalled: only an archive can prove it" };
  const end = q.finalizedSlot < q.sentFromSlot + MAX_SCAN_SLOTS ? q.finalizedSlot : q.sentFromSlot + MAX_SCAN_SLOTS;
  const listed = (await source.listBlocks(q.sentFromSlot, end))?.filter((s) => s >= q.sentFromSlot && s <= end);
  if (!listed) return { kind: "incomplete", reason: "the node did not list the blocks" };
  listed.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  await readListed(q, source, listed);
  return walkChain(q, source, listed);
}

/**
 * Reads the listed blocks not kept yet, a few at a time, until one is past the last valid height.
 * The first block's height says how many blocks are left to that height, so a complete list is
 * read no further than needed.
 */
async function readListed(q: AbsenceQuestion, source: BlockSource, listed: readonly bigint[]): Promise<void> {
  const first = listed[0] === undefined ? null : await blockAt(source, listed[0]);
  const needed = first ? Number(q.lastValidBlockHeight + 2n - first.blockHeight) : listed.length;
  const toRead = listed.slice(0, Math.max(1, needed));
  for (let i = 1; i < toRead.length; i += READ_CONCURRENCY) {
    const chunk = toRead.slice(i, i + READ_CONCURRENCY);
    const read = await Promise.all(chunk.map((slot) => source.cache.get(slot) ?? source.readBlock(slot)));
    for (const block of read) if (block) source.cache.set(block);
    if (read.some((block) => block && block.blockHeight > q.lastValidBlockHeight)) return;
  }
}

async function blockAt(source: BlockSource, slot: bigint): Promise<BlockSummary | null> {
  const kept = source.cache.get(slot);
  if (kept) return kept;
  const block = await source.readBlock(slot);
  if (block) source.cache.set(block);
  return block;
}

/**
 * Follows the chain from the send's slot: each block must name the one before it as its parent
 * (the first, a parent before the send), with a height one above it. A listed block whose parent
 * is not the one before means slots the list left out: they are read through the parents.
 */
async function walkChain(q: AbsenceQuestion, source: BlockSource, listed: readonly bigint[]): Promise<AbsenceProof> {
  const key = signatureKey(q.signature);
  let previous: BlockSummary | null = null;
  for (const slot of listed) {
    const block = await blockAt(source, slot);
    if (!block) return { kind: "incomplete", reason: `block ${slot} could not be read` };
    const between = await blocksBetween(q, source, previous, block);
    if (!Array.isArray(between)) return between;
    for (const b of [...between, block]) {
      if (previous && (b.parentSlot !== previous.slot || b.blockHeight !== previous.blockHeight + 1n))
        return { kind: "incomplete", reason: `block ${b.slot} does not follow block ${previous.slot}` };
      if (holds(b, key)) return { kind: "found", slot: b.slot };
      if (b.blockHeight > q.lastValidBlockHeight) return { kind: "absent" };
      previous = b;
    }
  }
  return {
    kind: "incomplete",
    reason: `the blocks read end before block height ${q.lastValidBlockHeight + 1n}`,
  };
}

/** The blocks between `previous` (or the send) and `block` the list left out, oldest first. */
async function blocksBetween(
  q: AbsenceQuestion,
  source: BlockSource,
  previous: BlockSummary | null,
  block: BlockSummary,
): Promise<BlockSummary[] | AbsenceProof> {
  const missing: BlockSummary[] = [];
  // Before the send's slot nothing can hold the transaction: the first block links to anything there.
  const stop = previous ? previous.slot : q.sentFromSlot - 1n;
  let parent = block.parentSlot;
  while (parent > stop) {
    if (missing.length >= Number(MAX_SCAN_SLOTS))
      return { kind: "incomplete", reason: "the blocks do not link back to the send" };
    const found = await blockAt(source, parent);
    if (!found) return { kind: "incomplete", reason: `block ${parent} could not be read` };
    missing.push(found);
    parent = found.parentSlot;
  }
  if (previous && parent !== previous.slot)
    return { kind: "incomplete", reason: `block ${block.slot} does not link to block ${previous.slot}` };
  return missing.reverse();
}
