/**
 * Blocks as agave's RPC serves them: getBlock, getBlocks, getBlocksWithLimit, getBlockTime,
 * getBlockCommitment, getBlockProduction, getRecentPerformanceSamples, getRecentPrioritizationFees,
 * getFirstAvailableBlock, minimumLedgerSlot. One block a slot (none skipped), kept by the node
 * (node.ts `blocks`) for its most recent slots; agave's error codes for the rest.
 */
import {
  type BlockRecord,
  computeBudgetOf,
  rpcError,
  FINALIZATION_SLOTS,
  type LocalNode,
  type TxRecord,
} from "../node";
import {
  addressParam,
  configOf,
  ctx,
  type Handler,
  highestBlock,
  inHole,
  requireConfirmed,
  type RpcContext,
  slotParam,
  validatorOf,
  VOTE_ACCOUNT_STAKE_LAMPORTS,
  type View,
} from "./context";
import { metaJson, type TxEncoding, txEncodingOf, txJson, versionOf } from "./encode";
import { LAMPORTS_PER_SIGNATURE } from "../node";
import bs58 from "bs58";

export type TransactionDetails = "full" | "signatures" | "none" | "accounts";

export interface BlockEncodingOptions {
  encoding: TxEncoding;
  details: TransactionDetails;
  rewards: boolean;
  maxSupportedTransactionVersion: number | undefined;
}

/** `transactionDetails` as agave reads it (default `full`). */
export function transactionDetailsOf(v: unknown): TransactionDetails {
  const details = v ?? "full";
  if (details === "full" || details === "signatures" || details === "none" || details === "accounts") return details;
  throw rpcError(
    -32602,
    `Invalid params: unknown variant \`${String(details)}\`, expected one of \`full\`, \`signatures\`, \`none\`, \`accounts\`.`,
  );
}

/** The fee rewards a block paid its leader: half the base fees (the rest is burnt) and all priority fees. */
function blockRewards(node: LocalNode, records: TxRecord[]) {
  let lamports = 0n;
  for (const r of records) {
    const base = LAMPORTS_PER_SIGNATURE * BigInt(r.tx.message.header.numRequiredSignatures);
    lamports += base / 2n + (r.feeLamports - base);
  }
  if (lamports === 0n) return [];
  const { identity } = validatorOf(node);
  return [{ pubkey: identity, lamports, postBalance: node.getBalance(identity), rewardType: "Fee", commission: null }];
}

/** One transaction as `transactionDetails: "accounts"` writes it. */
function accountsOnly(r: TxRecord, version: "legacy" | number | undefined) {
  const keys = r.accountKeys.map((k, i) => ({
    pubkey: k.toBase58(),
    signer: i < r.tx.message.header.numRequiredSignatures,
    writable: r.writable[i] ?? false,
    source: i < r.tx.message.staticAccountKeys.length ? "transaction" : "lookupTable",
  }));
  const meta = metaJson(r);
  return {
    transaction: { signatures: r.tx.signatures.map((s) => bs58.encode(s)), accountKeys: keys },
    meta: {
      err: meta.err,
      status: meta.status,
      fee: meta.fee,
      preBalances: meta.preBalances,
      postBalances: meta.postBalances,
      preTokenBalances: meta.preTokenBalances,
      postTokenBalances: meta.postTokenBalances,
    },
    version,
  };
}

/**
 * A block as agave encodes it (getBlock, and blockSubscribe's notifications): a v0 transaction
 * without `maxSupportedTransactionVersion` throws -32015.
 */
export function encodeBlock(node: LocalNode, block: BlockRecord, records: TxRecord[], o: BlockEncodingOptions) {
  const head = {
    blockHeight: block.blockHeight,
    blockTime: block.blockTimeSec,
    blockhash: block.blockhash,
    parentSlot: block.parentSlot,
    previousBlockhash: block.previousBlockhash,
    ...(o.rewards ? { rewards: blockRewards(node, records) } : {}),
  };
  if (o.details === "none") return head;
  if (o.details === "signatures") return { ...head, signatures: records.map((r) => r.signature) };
  const transactions = records.map((r) => {
    const version = versionOf(r, o.maxSupportedTransactionVersion);
    if (o.details === "accounts") return accountsOnly(r, version);
    return { transaction: txJson(r, o.encoding), meta: metaJson(r, o.encoding), version };
  });
  return { ...head, transactions };
}

/** agave's MAX_GET_CONFIRMED_BLOCKS_RANGE */
const MAX_BLOCKS_RANGE = 500_000n;
const MAX_PRIORITIZATION_FEE_ADDRESSES = 128;
/** Slots getRecentPrioritizationFees reports, as agave's prioritization fee cache keeps. */
const PRIORITIZATION_FEE_SLOTS = 150n;
/** agave samples performance every 60 s and keeps 720 samples */
const PERFORMANCE_SAMPLE_SECS = 60;
const MAX_PERFORMANCE_SAMPLES = 720;
const MAX_SLOT_LEADERS = 5_000;

interface FeeSummary {
  /** the lowest price a transaction of the block paid (micro-lamports a unit); 0 for an empty block */
  blockMin: bigint;
  /** per writable account, the lowest price among the block's transactions writing it */
  byAccount: Map<string, bigint>;
}

/** What the handlers share: the node, its fault counters, and the fee summaries of closed blocks. */
interface BlockReads {
  node: LocalNode;
  faults: RpcContext["faults"];
  fees: WeakMap<BlockRecord, FeeSummary>;
}

export function blockMethods(c: RpcContext): Record<string, Handler> {
  const { node } = c;
  const b: BlockReads = { node, faults: c.faults, fees: new WeakMap() };

  return {
    getFirstAvailableBlock: (_p, v) => firstAvailable(b, v),
    minimumLedgerSlot: (_p, v) => firstAvailable(b, v),
    getBlock: (p, v) => getBlock(b, p, v),
    getBlockTime: (p, v) => {
      const slot = slotParam(p[0]);
      // agave answers confirmed blocks here whatever the commitment
      const view: View = { ...v, commitment: "confirmed", slot: v.at - 1n };
      return blockOf(b, slot, view).block.blockTimeSec;
    },
    getBlocks: (p, v) => getBlocks(b, p, v),
    getBlocksWithLimit: (p, v) => getBlocksWithLimit(b, p, v),
    getBlockCommitment: blockCommitment,
    getBlockProduction: (p, v) => blockProduction(node, p, v),
    getRecentPerformanceSamples: (p) => recentPerformanceSamples(node, p),
    getRecentPrioritizationFees: (p, v) => recentPrioritizationFees(b, p, v),
    getSlotLeader: () => validatorOf(node).identity,
    getSlotLeaders: (p) => {
      slotParam(p[0], "start slot");
      const limit = slotParam(p[1], "limit");
      if (limit > BigInt(MAX_SLOT_LEADERS)) throw rpcError(-32602, `Invalid limit; max ${MAX_SLOT_LEADERS}`);
      return Array.from({ length: Number(limit) }, () => validatorOf(node).identity);
    },
  };
}

/** The first block this view may serve: the node's oldest kept, or a pruned node's floor. */
function firstAvailable({ node, faults }: BlockReads, v: View): bigint {
  const kept = node.firstBlockSlot();
  if (v.historyFloorSlot === null || v.historyFloorSlot <= kept) return kept;
  faults.countPrunedAnswer();
  return v.historyFloorSlot;
}

/** The block at `slot` as the view sees it, or agave's error for why there is none. */
function blockOf(b: BlockReads, slot: bigint, v: View): { block: BlockRecord; records: TxRecord[] } {
  const { node, faults } = b;
  if (slot > highestBlock(v)) throw rpcError(-32004, `Block not available for slot ${slot}`);
  const first = firstAvailable(b, v);
  const cleanedUp = () =>
    rpcError(-32001, `Block ${slot} cleaned up, does not exist on node. First available block: ${first}`);
  if (slot < first) throw cleanedUp();
  const block = node.blockAt(slot);
  if (block && inHole(v, slot)) {
    // agave: a slot below the highest root that is not a root of the node's blockstore
    faults.countHoleAnswer();
    throw rpcError(-32007, `Slot ${slot} was skipped, or missing due to ledger jump to recent snapshot`);
  }
  if (!block) throw rpcError(-32007, `Slot ${slot} was skipped, or missing due to ledger jump to recent snapshot`);
  const records: TxRecord[] = [];
  for (const signature of block.signatures) {
    const record = node.getTransaction(signature);
    // Full records outlived by the block: the block can no longer be given whole.
    if (!record) throw cleanedUp();
    records.push(record);
  }
  return { block, records };
}

function feeSummary({ node, fees }: BlockReads, block: BlockRecord): FeeSummary {
  const known = fees.get(block);
  if (known && block.slot !== node.getSlot()) return known;
  let blockMin: bigint | null = null;
  const byAccount = new Map<string, bigint>();
  for (const signature of block.signatures) {
    const record = node.getTransaction(signature);
    if (!record) continue;
    const price = computeBudgetOf(record.tx).microLamportsPerUnit;
    if (blockMin === null || price < blockMin) blockMin = price;
    record.accountKeys.forEach((k, i) => {
      if (!record.writable[i]) return;
      const id = k.toBase58();
      const had = byAccount.get(id);
      if (had === undefined || price < had) byAccount.set(id, price);
    });
  }
  const summary = { blockMin: blockMin ?? 0n, byAccount };
  fees.set(block, summary);
  return summary;
}

/** The rooted slots a node with a history hole lists: the hole's are not roots of its blockstore. */
function outsideHole({ faults }: BlockReads, slots: bigint[], v: View, limit: number): bigint[] {
  if (!v.historyHole) return slots.slice(0, limit);
  const kept = slots.filter((slot) => !inHole(v, slot));
  if (kept.length < slots.length) faults.countHoleAnswer();
  return kept.slice(0, limit);
}

function getBlock(b: BlockReads, p: unknown[], v: View): unknown {
  requireConfirmed(v);
  const slot = slotParam(p[0]);
  const cfg = typeof p[1] === "string" ? { encoding: p[1] } : configOf(p[1]);
  const encoding = txEncodingOf(cfg.encoding);
  const details = transactionDetailsOf(cfg.transactionDetails);
  const { block, records } = blockOf(b, slot, v);
  return encodeBlock(b.node, block, records, {
    encoding,
    details,
    rewards: cfg.rewards !== false,
    maxSupportedTransactionVersion: cfg.maxSupportedTransactionVersion,
  });
}

function getBlocks(b: BlockReads, p: unknown[], v: View): unknown {
  requireConfirmed(v);
  const start = slotParam(p[0], "start slot");
  const endGiven = typeof p[1] === "number" || typeof p[1] === "bigint";
  const highest = highestBlock(v);
  const end = endGiven ? slotParam(p[1], "end slot") : highest;
  if (end > start && end - start > MAX_BLOCKS_RANGE)
    throw rpcError(-32602, `Slot range too large; max ${MAX_BLOCKS_RANGE}`);
  if (end < start) return [];
  const first = firstAvailable(b, v);
  // biome-ignore lint/complexity/useMathMinMax: bigint slots; Math.min and Math.max take numbers only
  const last = end < highest ? end : highest;
  // biome-ignore lint/complexity/useMathMinMax: bigint slots, as above
  const from = start < first ? first : start;
  const slots = b.node.blockSlots(from, last, Number(MAX_BLOCKS_RANGE));
  return outsideHole(b, slots, v, slots.length);
}

function getBlocksWithLimit(b: BlockReads, p: unknown[], v: View): unknown {
  requireConfirmed(v);
  const start = slotParam(p[0], "start slot");
  const limit = slotParam(p[1], "limit");
  if (limit > MAX_BLOCKS_RANGE) throw rpcError(-32602, `Limit too large; max ${MAX_BLOCKS_RANGE}`);
  const first = firstAvailable(b, v);
  const hole = v.historyHole;
  // The hole's slots are not the node's roots: the limit counts the roots it lists.
  const extra = hole ? Number(hole.toSlot - hole.fromSlot + 1n) : 0;
  // biome-ignore lint/complexity/useMathMinMax: bigint slots; Math.min and Math.max take numbers only
  const slots = b.node.blockSlots(start < first ? first : start, highestBlock(v), Number(limit) + extra);
  return outsideHole(b, slots, v, Number(limit));
}

function blockCommitment(p: unknown[], v: View): unknown {
  const slot = slotParam(p[0]);
  // agave's cache covers the slots not yet rooted: one vote a slot confirms them deeper
  const depth = v.at - slot;
  const commitment =
    depth >= 1n && depth <= FINALIZATION_SLOTS
      ? Array.from({ length: 32 }, (_, i) => (BigInt(i) === depth - 1n ? VOTE_ACCOUNT_STAKE_LAMPORTS : 0n))
      : null;
  return { commitment, totalStake: VOTE_ACCOUNT_STAKE_LAMPORTS };
}

function blockProduction(node: LocalNode, p: unknown[], v: View): unknown {
  const cfg = configOf(p[0]) as { identity?: unknown; range?: { firstSlot?: unknown; lastSlot?: unknown } };
  const firstSlot = cfg.range?.firstSlot === undefined ? 0n : slotParam(cfg.range.firstSlot, "firstSlot");
  const lastSlot = cfg.range?.lastSlot === undefined ? v.slot : slotParam(cfg.range.lastSlot, "lastSlot");
  if (lastSlot < firstSlot) throw rpcError(-32602, `lastSlot, ${lastSlot}, cannot be less than firstSlot`);
  if (lastSlot > v.slot) throw rpcError(-32602, `lastSlot, ${lastSlot}, cannot be greater than current slot`);
  const { identity } = validatorOf(node);
  const wanted = cfg.identity === undefined ? identity : addressParam(cfg.identity);
  const first = node.firstBlockSlot();
  // Slots before the chain's first block had no leader: the chain began there.
  const from = firstSlot > first ? firstSlot : first;
  const slots = lastSlot >= from ? lastSlot - from + 1n : 0n;
  return {
    context: ctx(v),
    value: {
      byIdentity: wanted === identity ? { [identity]: [slots, slots] } : {},
      range: { firstSlot, lastSlot },
    },
  };
}

function recentPerformanceSamples(node: LocalNode, p: unknown[]): unknown {
  const limit = p[0] === undefined ? MAX_PERFORMANCE_SAMPLES : Number(slotParam(p[0], "limit"));
  if (limit > MAX_PERFORMANCE_SAMPLES) throw rpcError(-32602, `Invalid limit; max ${MAX_PERFORMANCE_SAMPLES}`);
  // Newest first: 60-second windows ending at the last closed slot, as agave's sampler writes them.
  const out: {
    slot: bigint;
    numTransactions: bigint;
    numNonVoteTransactions: bigint;
    numSlots: bigint;
    samplePeriodSecs: number;
  }[] = [];
  let end = node.getSlot() - 1n;
  const first = node.firstBlockSlot();
  while (out.length < limit && end >= first) {
    const endBlock = node.blockAt(end);
    if (!endBlock) break;
    let txs = 0n;
    let s = end;
    for (; s >= first; s--) {
      const b = node.blockAt(s);
      if (!b || b.blockTimeSec <= endBlock.blockTimeSec - PERFORMANCE_SAMPLE_SECS) break;
      txs += BigInt(b.signatures.length);
    }
    out.push({
      slot: end,
      numTransactions: txs,
      numNonVoteTransactions: txs,
      numSlots: end - s,
      samplePeriodSecs: PERFORMANCE_SAMPLE_SECS,
    });
    end = s;
  }
  return out;
}

function recentPrioritizationFees(b: BlockReads, p: unknown[], v: View): unknown {
  const list = p[0] ?? [];
  if (!Array.isArray(list)) throw rpcError(-32602, "Invalid params: expected an array of addresses");
  if (list.length > MAX_PRIORITIZATION_FEE_ADDRESSES)
    throw rpcError(-32602, `Too many inputs provided; max ${MAX_PRIORITIZATION_FEE_ADDRESSES}`);
  const addresses = list.map(addressParam);
  // The slots before the open one (closed blocks only), oldest first as agave lists them. A
  // slot's fee is the most the block's lowest price and each named account's lowest price ask
  // (agave's prioritization fee cache: minimums, never what the market pays). Under a
  // `congestion` rule the market's own transactions in each block pay as little as nothing.
  const from = v.at > PRIORITIZATION_FEE_SLOTS ? v.at - PRIORITIZATION_FEE_SLOTS : 0n;
  const congested = b.faults.congested();
  const out: { slot: bigint; prioritizationFee: bigint }[] = [];
  for (let slot = from; slot < v.at; slot++) {
    let fee = 0n;
    const block = b.node.blockAt(slot);
    if (block?.signatures.length) {
      const summary = feeSummary(b, block);
      if (!congested) fee = summary.blockMin;
      for (const a of addresses) {
        const f = summary.byAccount.get(a);
        if (f !== undefined && f > fee) fee = f;
      }
    }
    out.push({ slot, prioritizationFee: fee });
  }
  return out;
}
