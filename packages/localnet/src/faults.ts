/**
 * The hostile local chain: fault rules that make the one consistent local node behave like a
 * provider's pool of nodes (lost, late, failed and ghost sends; 429/503/timeouts; reads answered by
 * a node behind). Callable in-process (`chain.faults.apply(rule)`) and over JSON-RPC
 * (`localnet_fault`, `localnet_faults`), which only the embedded local chain answers.
 *
 * Which reads a `lag` rule's `share` hits, which requests a `prunedHistory` node answers and which
 * underpriced sends `congestion` loses are drawn from a seeded generator, so a simulation seed
 * reproduces the same answers. See the package README.
 */
import type { LocalNode } from "./node";
import { type RpcError, rpcError } from "./node";
import { seededRandom } from "./random";

export type FaultRule =
  | { kind: "dropSends"; count: number }
  | { kind: "delaySends"; count: number; slots: number }
  | { kind: "failSends"; count: number }
  | { kind: "ghostSends"; count: number; slots?: number }
  | {
      kind: "rpcError";
      method: string;
      count: number;
      as: "429" | "503" | "timeout";
      retryAfterSec?: number;
      holdMs?: number;
    }
  | { kind: "lag"; slots: number; share?: number; methods?: string[]; count?: number }
  | { kind: "congestion"; priceMicroLamports: number; dropShare: number }
  | { kind: "prunedHistory"; firstSlot: number; share?: number }
  /**
   * Nodes that jumped to a recent snapshot: slots [fromSlot, toSlot] are missing from their ledger
   * although their floor (`minimumLedgerSlot`) stays below them, as agave's blockstore after a
   * restart from a snapshot past its last replayed slot.
   */
  | { kind: "historyHole"; fromSlot: number; toSlot: number; share?: number }
  /** each call of a JSON-RPC batch is answered by a node of its own, as a gateway (eRPC) fans a batch out */
  | { kind: "batchFanOut" }
  /** reads answer the launch program's accounts in another layout (pump's v3: fees kept in the curve) */
  | { kind: "programLayout"; layout: "v3" }
  | { kind: "clear" };

/** What a read is answered as: the current node, or one `lagSlots` behind. */
export interface ReadView {
  lagSlots: bigint;
}

/**
 * The pool node answering one HTTP request, drawn once for the whole request so every call of a
 * batch sees the same node (a client ties a batch's answers together, e.g. a history search to
 * the history floor of the node that ran it).
 */
export interface PoolNode {
  /** how far behind this node is for `method` (0n: current; non-reads are never behind) */
  lagFor(method: string): bigint;
  /** the first slot this node keeps history from; null when it keeps everything */
  historyFloorSlot: bigint | null;
  /** slots missing from this node's ledger above its floor (historyHole); null when none */
  historyHole: HistoryHole | null;
}

/** Slots [fromSlot, toSlot] a node's ledger lacks (it restarted from a snapshot past them). */
export interface HistoryHole {
  fromSlot: bigint;
  toSlot: bigint;
}

export interface RpcErrorDecision {
  as: "429" | "503" | "timeout";
  retryAfterSec: number;
  holdMs: number;
}

const MAX_COUNT = 1_000_000;
const MAX_LAG_SLOTS = 10_000;
const MAX_RULES = 1_000;
const MAX_METHODS = 50;
const DEFAULT_GHOST_SLOTS = 3;
const DEFAULT_HOLD_MS = 30_000;
const MAX_HOLD_MS = 120_000;
const MAX_PRICE_MICRO_LAMPORTS = 10_000_000;

/** Methods whose answer depends on the ledger history the answering node kept. */
const HISTORY_METHODS: ReadonlySet<string> = new Set([
  "minimumLedgerSlot",
  "getFirstAvailableBlock",
  "getSignatureStatuses",
  "getTransaction",
  "getSignaturesForAddress",
  "getBlock",
  "getBlocks",
  "getBlocksWithLimit",
  "getBlockTime",
]);

/** Methods a `lag` rule never touches: they are not reads of chain state. */
const NOT_READS = new Set([
  "sendTransaction",
  "requestAirdrop",
  "simulateTransaction",
  "getHealth",
  "getVersion",
  "getGenesisHash",
  "localnet_fault",
  "localnet_faults",
]);

interface LagRule {
  slots: number;
  share: number;
  methods: string[] | null;
  remaining: number | null;
}
interface ErrorRule {
  method: string;
  as: "429" | "503" | "timeout";
  remaining: number;
  retryAfterSec: number;
  holdMs: number;
}

interface CongestionRule {
  priceMicroLamports: bigint;
  dropShare: number;
  /** the rule as given, for `localnet_faults` */
  given: Extract<FaultRule, { kind: "congestion" }>;
}
interface PrunedRule {
  firstSlot: bigint;
  share: number;
}
interface HoleRule extends HistoryHole {
  share: number;
}

export { seededRandom };

export class ChainFaults {
  private readonly lags: LagRule[] = [];
  private readonly errors: ErrorRule[] = [];
  private congestion: CongestionRule | null = null;
  private pruned: PrunedRule | null = null;
  private hole: HoleRule | null = null;
  /** a batch's calls are each answered by a node of their own (batchFanOut) */
  fanOut = false;
  private random: () => number;
  /** faults actually injected, by kind (a rule that never fired injected nothing) */
  readonly injected: Record<string, number> = {};

  /**
   * `readsOnly`: a second RPC server over the same node (an archive endpoint in tests) answers
   * reads under its own rules and leaves the node's send hooks to the first server's rules.
   */
  constructor(
    private readonly node: LocalNode,
    seed = 1,
    options: { readsOnly?: boolean } = {},
  ) {
    this.random = seededRandom(seed);
    if (options.readsOnly) return;
    node.onSendFault = (kind) => this.count(kind);
    node.congestionDrops = (priceMicroLamports) => this.congestionDrops(priceMicroLamports);
  }

  reseed(seed: number): void {
    this.random = seededRandom(seed);
  }

  /** Validates and applies one rule; throws the node's RpcError -32602 on a malformed one. */
  apply(raw: unknown): FaultRule {
    const rule = parseFaultRule(raw);
    switch (rule.kind) {
      case "clear":
        this.clear();
        break;
      case "dropSends":
        this.node.addSendFault({ kind: "drop", remaining: rule.count });
        break;
      case "delaySends":
        this.node.addSendFault({ kind: "delay", remaining: rule.count, delaySlots: rule.slots });
        break;
      case "failSends":
        this.node.addSendFault({ kind: "fail", remaining: rule.count });
        break;
      case "ghostSends":
        this.node.addSendFault({ kind: "ghost", remaining: rule.count, delaySlots: rule.slots ?? DEFAULT_GHOST_SLOTS });
        break;
      case "rpcError":
        if (this.errors.length >= MAX_RULES) throw rpcError(-32602, "Invalid params: too many fault rules");
        this.errors.push({
          method: rule.method,
          as: rule.as,
          remaining: rule.count,
          retryAfterSec: rule.retryAfterSec ?? 1,
          holdMs: rule.holdMs ?? DEFAULT_HOLD_MS,
        });
        break;
      case "lag":
        if (this.lags.length >= MAX_RULES) throw rpcError(-32602, "Invalid params: too many fault rules");
        this.node.keepAccountHistory();
        this.lags.push({
          slots: rule.slots,
          share: rule.share ?? 1,
          methods: rule.methods ?? null,
          remaining: rule.count ?? null,
        });
        break;
      case "congestion":
        // One fee market at a time: a new level replaces the old rather than stacking.
        this.congestion = {
          priceMicroLamports: BigInt(rule.priceMicroLamports),
          dropShare: rule.dropShare,
          given: rule,
        };
        break;
      case "prunedHistory":
        this.pruned = { firstSlot: BigInt(rule.firstSlot), share: rule.share ?? 1 };
        break;
      case "historyHole":
        this.hole = { fromSlot: BigInt(rule.fromSlot), toSlot: BigInt(rule.toSlot), share: rule.share ?? 1 };
        break;
      case "batchFanOut":
        this.fanOut = true;
        break;
      case "programLayout":
        this.node.programLayout = rule.layout;
        this.count("programLayout");
        break;
    }
    return rule;
  }

  clear(): void {
    this.lags.length = 0;
    this.errors.length = 0;
    this.congestion = null;
    this.pruned = null;
    this.hole = null;
    this.fanOut = false;
    this.node.programLayout = "current";
    this.node.clearSendFaults();
  }

  /**
   * Whether a fee market is on. Its blocks also hold the market's other transactions, some paying
   * nothing, so a congested block's lowest price (what agave's getRecentPrioritizationFees reports
   * for a slot) is 0, and an account only the caller writes shows only the caller's own prices:
   * the market's price P shows in no minimum, yet sends under it are lost.
   */
  congested(): boolean {
    return this.congestion !== null;
  }

  /** The active rules, as `localnet_faults` lists them. */
  list(): FaultRule[] {
    return [
      ...this.node.activeSendFaults().map((r): FaultRule => {
        if (r.kind === "drop") return { kind: "dropSends", count: r.remaining };
        if (r.kind === "fail") return { kind: "failSends", count: r.remaining };
        if (r.kind === "ghost")
          return { kind: "ghostSends", count: r.remaining, slots: r.delaySlots ?? DEFAULT_GHOST_SLOTS };
        return { kind: "delaySends", count: r.remaining, slots: r.delaySlots ?? 1 };
      }),
      ...this.errors.map(
        (r): FaultRule => ({
          kind: "rpcError",
          method: r.method,
          count: r.remaining,
          as: r.as,
          retryAfterSec: r.retryAfterSec,
        }),
      ),
      ...this.lags.map(
        (r): FaultRule => ({
          kind: "lag",
          slots: r.slots,
          share: r.share,
          ...(r.methods ? { methods: [...r.methods] } : {}),
          ...(r.remaining !== null ? { count: r.remaining } : {}),
        }),
      ),
      ...(this.congestion ? [{ ...this.congestion.given }] : []),
      ...(this.pruned
        ? [
            {
              kind: "prunedHistory",
              firstSlot: Number(this.pruned.firstSlot),
              share: this.pruned.share,
            } satisfies FaultRule,
          ]
        : []),
      ...(this.node.programLayout === "current"
        ? []
        : [{ kind: "programLayout", layout: this.node.programLayout } satisfies FaultRule]),
      ...(this.hole
        ? [
            {
              kind: "historyHole",
              fromSlot: Number(this.hole.fromSlot),
              toSlot: Number(this.hole.toSlot),
              share: this.hole.share,
            } satisfies FaultRule,
          ]
        : []),
      ...(this.fanOut ? [{ kind: "batchFanOut" } satisfies FaultRule] : []),
    ];
  }

  /** An injected HTTP-level failure for this call, if a rule takes it. */
  takeError(method: string): RpcErrorDecision | null {
    const i = this.errors.findIndex((r) => r.method === method || r.method === "*");
    if (i < 0) return null;
    const rule = this.errors[i]!;
    rule.remaining -= 1;
    if (rule.remaining <= 0) this.errors.splice(i, 1);
    this.count(`rpcError:${rule.as}`);
    return { as: rule.as, retryAfterSec: rule.retryAfterSec, holdMs: Math.min(rule.holdMs, MAX_HOLD_MS) };
  }

  /** How far behind the node answering this read is (0n: the current node). */
  viewFor(method: string): ReadView {
    return { lagSlots: this.nodeFor([method]).lagFor(method) };
  }

  /**
   * Draws the node of the pool that answers one HTTP request carrying `methods` (one for a single
   * call, every call's for a batch; under `batchFanOut`, each call of a batch alone). Draws, in
   * order: one per `lag` rule naming any read among the methods, then one for `prunedHistory` and
   * one for `historyHole` when a method reads history (each only while its rule is on). A single
   * call therefore draws as it did before batches were tied to one node.
   */
  nodeFor(methods: readonly string[]): PoolNode {
    const reads = methods.filter((m) => !NOT_READS.has(m));
    const hit: LagRule[] = [];
    for (let i = 0; i < this.lags.length && reads.length > 0; i++) {
      const rule = this.lags[i]!;
      if (rule.methods && !reads.some((m) => rule.methods!.includes(m))) continue;
      // One draw per matching rule keeps the sequence independent of which rules hit.
      if (this.random() >= rule.share) continue;
      hit.push(rule);
      if (rule.remaining !== null && --rule.remaining <= 0) this.lags.splice(i--, 1);
    }
    const pruned = this.pruned;
    const readsHistory = methods.some((m) => HISTORY_METHODS.has(m));
    const historyFloorSlot = pruned && readsHistory && this.random() < pruned.share ? pruned.firstSlot : null;
    const hole = this.hole;
    const historyHole =
      hole && readsHistory && this.random() < hole.share ? { fromSlot: hole.fromSlot, toSlot: hole.toSlot } : null;
    return {
      lagFor: (method) => {
        if (NOT_READS.has(method)) return 0n;
        let lag = 0;
        // The request reached the node behind because one of its methods is named: that node
        // answers every read of the request (a batch is one request to one node).
        for (const rule of hit) lag = Math.max(lag, rule.slots);
        if (lag > 0) this.count("lag");
        return BigInt(lag);
      },
      historyFloorSlot,
      historyHole,
    };
  }

  /** A pruned node's answer that hid history or reported its floor. */
  countPrunedAnswer(): void {
    this.count("prunedHistory");
  }

  /** An answer of a node with a history hole that hid something of the hole. */
  countHoleAnswer(): void {
    this.count("historyHole");
  }

  /** A batch answered call by call by different nodes. */
  countFanOut(): void {
    this.count("batchFanOut");
  }

  /** Whether a send paying `priceMicroLamports` a unit is lost to congestion this time. */
  private congestionDrops(priceMicroLamports: bigint): boolean {
    const rule = this.congestion;
    if (!rule || priceMicroLamports >= rule.priceMicroLamports) return false;
    // Drawn per send, so a rebroadcast of the same bytes gets another chance.
    if (this.random() >= rule.dropShare) return false;
    this.count("congestion");
    return true;
  }

  /** A read refused because the answering node is behind the asked minContextSlot. */
  countMinContextRefusal(): void {
    this.count("minContextSlot");
  }

  private count(kind: string): void {
    this.injected[kind] = (this.injected[kind] ?? 0) + 1;
  }
}

function invalid(message: string): RpcError {
  return rpcError(-32602, `Invalid params: ${message}`);
}

function countOf(v: unknown, name = "count"): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > MAX_COUNT)
    throw invalid(`${name} must be an integer in [1, ${MAX_COUNT}]`);
  return v;
}

function shareOf(v: unknown, name = "share"): number {
  if (typeof v !== "number" || !(v >= 0 && v <= 1)) throw invalid(`${name} must be a number in [0, 1]`);
  return v;
}

function slotsOf(v: unknown): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > MAX_LAG_SLOTS)
    throw invalid(`slots must be an integer in [1, ${MAX_LAG_SLOTS}]`);
  return v;
}

function parseRpcErrorRule(r: Record<string, unknown>): FaultRule {
  if (typeof r.method !== "string" || r.method.length < 1 || r.method.length > 64)
    throw invalid('method must be a method name or "*"');
  if (r.as !== "429" && r.as !== "503" && r.as !== "timeout") throw invalid('as must be "429", "503" or "timeout"');
  const rule: FaultRule = { kind: "rpcError", method: r.method, count: countOf(r.count), as: r.as };
  if (r.retryAfterSec !== undefined) {
    if (
      typeof r.retryAfterSec !== "number" ||
      !Number.isInteger(r.retryAfterSec) ||
      r.retryAfterSec < 0 ||
      r.retryAfterSec > 3_600
    )
      throw invalid("retryAfterSec must be an integer in [0, 3600]");
    rule.retryAfterSec = r.retryAfterSec;
  }
  if (r.holdMs !== undefined) {
    if (typeof r.holdMs !== "number" || !Number.isInteger(r.holdMs) || r.holdMs < 0 || r.holdMs > MAX_HOLD_MS)
      throw invalid(`holdMs must be an integer in [0, ${MAX_HOLD_MS}]`);
    rule.holdMs = r.holdMs;
  }
  return rule;
}

function parseLagRule(r: Record<string, unknown>): FaultRule {
  const rule: FaultRule = { kind: "lag", slots: slotsOf(r.slots) };
  if (r.share !== undefined) rule.share = shareOf(r.share);
  if (r.methods !== undefined) {
    if (
      !Array.isArray(r.methods) ||
      r.methods.length > MAX_METHODS ||
      !r.methods.every((m) => typeof m === "string" && m.length > 0 && m.length <= 64)
    ) {
      throw invalid(`methods must be an array of at most ${MAX_METHODS} method names`);
    }
    rule.methods = [...(r.methods as string[])];
  }
  if (r.count !== undefined) rule.count = countOf(r.count);
  return rule;
}

function parseHistoryHoleRule(r: Record<string, unknown>): FaultRule {
  const from = r.fromSlot;
  const to = r.toSlot;
  if (typeof from !== "number" || !Number.isSafeInteger(from) || from < 0)
    throw invalid("fromSlot must be an integer >= 0");
  if (typeof to !== "number" || !Number.isSafeInteger(to) || to < from)
    throw invalid("toSlot must be an integer >= fromSlot");
  return {
    kind: "historyHole",
    fromSlot: from,
    toSlot: to,
    share: r.share === undefined ? 1 : shareOf(r.share),
  };
}

/** The one validator of rules, for JSON-RPC and in-process callers alike. */
export function parseFaultRule(raw: unknown): FaultRule {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw invalid("a fault rule must be an object");
  const r = raw as Record<string, unknown>;
  switch (r.kind) {
    case "clear":
      return { kind: "clear" };
    case "dropSends":
      return { kind: "dropSends", count: countOf(r.count) };
    case "failSends":
      return { kind: "failSends", count: countOf(r.count) };
    case "delaySends":
      return { kind: "delaySends", count: countOf(r.count), slots: slotsOf(r.slots) };
    case "ghostSends":
      return {
        kind: "ghostSends",
        count: countOf(r.count),
        ...(r.slots === undefined ? {} : { slots: slotsOf(r.slots) }),
      };
    case "rpcError":
      return parseRpcErrorRule(r);
    case "lag":
      return parseLagRule(r);
    case "congestion": {
      const price = r.priceMicroLamports;
      if (typeof price !== "number" || !Number.isInteger(price) || price < 1 || price > MAX_PRICE_MICRO_LAMPORTS)
        throw invalid(`priceMicroLamports must be an integer in [1, ${MAX_PRICE_MICRO_LAMPORTS}]`);
      return { kind: "congestion", priceMicroLamports: price, dropShare: shareOf(r.dropShare, "dropShare") };
    }
    case "prunedHistory": {
      const first = r.firstSlot;
      if (typeof first !== "number" || !Number.isSafeInteger(first) || first < 0)
        throw invalid("firstSlot must be an integer >= 0");
      return { kind: "prunedHistory", firstSlot: first, share: r.share === undefined ? 1 : shareOf(r.share) };
    }
    case "historyHole":
      return parseHistoryHoleRule(r);
    case "batchFanOut":
      return { kind: "batchFanOut" };
    case "programLayout":
      if (r.layout !== "v3") throw invalid('layout must be "v3"');
      return { kind: "programLayout", layout: "v3" };
    default:
      throw invalid(
        "kind must be one of dropSends, delaySends, failSends, ghostSends, rpcError, lag, congestion, prunedHistory, historyHole, batchFanOut, programLayout, clear",
      );
  }
}
