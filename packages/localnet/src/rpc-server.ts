/**
 * Solana JSON-RPC 2.0 over HTTP on loopback, the subset `@solana/web3.js` `Connection` and a
 * wallet-facing launch page use. Result and error shapes follow agave's RPC so web3.js parses
 * them (and raises the same errors) as it would against a real node.
 *
 * Under Bun it is served by Bun.serve, elsewhere by node:http (the node is plain TS and also runs
 * under Node). Measured at 100k tokens with random token details (each batch of a detail's vault
 * refreshes is one getMultipleAccounts call of ~50 addresses): node:http's request and response
 * objects, and a PublicKey built and spelled again per address, were most of the chain thread's
 * work, ~165 µs a detail; with Bun.serve and addresses kept as checked strings, ~70 µs, and the
 * details served went from ~2,000-2,450 to ~2,530-2,800 a second in A/B runs.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { PublicKey, VersionedTransaction, VersionedMessage } from "@solana/web3.js";
import bs58 from "bs58";
import {
  FINALIZATION_SLOTS,
  type LocalNode,
  computeFee,
  isRpcError,
  rpcError,
  rpcErrorBody,
  type TxRecord,
  type TokenBalance,
} from "./node";
import { ChainFaults, type PoolNode } from "./faults";
import { stringifyJson } from "./json";
import { isAddress } from "./address";
import { readU64LE } from "./program";
import { parsedAccountData } from "./parsed";

export interface RpcFaultRule {
  method: string;
  mode: "error" | "timeout";
  /** calls the rule applies to; removed after */
  remaining: number;
  /** how long a "timeout" holds the request before answering 504 */
  holdMs?: number;
}

const MAX_BODY_BYTES = 5 * 1024 * 1024;
const MAX_BATCH = 100;
const MAX_MULTIPLE_ACCOUNTS = 100;
const MAX_SIGNATURE_STATUSES = 256;
const MAX_PRIORITIZATION_FEE_ADDRESSES = 128;
/** Slots getRecentPrioritizationFees reports, as agave's prioritization fee cache keeps. */
const PRIORITIZATION_FEE_SLOTS = 150n;
const MAX_RPC_RULES = 1_000;
const DEFAULT_HOLD_MS = 30_000;

/** The node a call is answered by: `at` is its slot (behind the real one under a lag rule). */
interface View {
  at: bigint;
  /** context slot at the asked commitment */
  slot: bigint;
  /** the first slot of history the node kept (prunedHistory); null when it kept everything */
  historyFloorSlot: bigint | null;
}

/** An HTTP answer, whichever transport carries it (node:http, or the in-process fetch). */
export interface RpcAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export class RpcServer {
  private server: Server | null = null;
  private bunServer: ReturnType<typeof Bun.serve> | null = null;
  private readonly rules: RpcFaultRule[] = [];
  private readonly held = new Set<ReturnType<typeof setTimeout>>();
  port = 0;

  constructor(
    private readonly node: LocalNode,
    private readonly log: (m: string) => void = () => {},
    readonly faults: ChainFaults = new ChainFaults(node),
  ) {}

  async listen(port: number): Promise<number> {
    if (typeof Bun !== "undefined") return this.listenOnBun(port);
    const server = createServer((req, res) => void this.handle(req, res));
    server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
    this.server = server;
    const address = server.address();
    this.port = typeof address === "object" && address ? address.port : port;
    return this.port;
  }

  private listenOnBun(port: number): number {
    const server = Bun.serve({
      port,
      hostname: "127.0.0.1",
      // Bun answers 413 itself past this, as the node:http path does.
      maxRequestBodySize: MAX_BODY_BYTES,
      idleTimeout: 30,
      fetch: async (req) => {
        if (req.method === "GET" && new URL(req.url).pathname === "/health")
          return new Response("ok", { headers: { "content-type": "text/plain" } });
        if (req.method !== "POST") return new Response(null, { status: 405 });
        // A held call whose client went away rejects; its answer goes nowhere.
        const answer = await this.respond(await req.text(), req.signal);
        return new Response(answer.body, { status: answer.status, headers: answer.headers });
      },
      error: () => new Response(null, { status: 500 }),
    });
    this.bunServer = server;
    this.port = server.port ?? port;
    return this.port;
  }

  async close(): Promise<void> {
    for (const t of this.held) clearTimeout(t);
    this.held.clear();
    const bunServer = this.bunServer;
    this.bunServer = null;
    // Held calls never answer; closing their connections ends them.
    if (bunServer) await bunServer.stop(true);
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections?.();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  addFault(rule: RpcFaultRule): void {
    if (this.rules.length >= MAX_RPC_RULES) throw new Error("too many RPC fault rules");
    this.rules.push(rule);
  }
  clearFaults(): void {
    this.rules.length = 0;
  }

  private takeFault(method: string): RpcFaultRule | null {
    const i = this.rules.findIndex((r) => r.method === method || r.method === "*");
    if (i < 0) return null;
    const rule = this.rules[i]!;
    rule.remaining -= 1;
    if (rule.remaining <= 0) this.rules.splice(i, 1);
    return rule;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === "GET" && req.url === "/health") {
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) {
        res.writeHead(413).end();
        return;
      }
      chunks.push(chunk as Buffer);
    }
    let answer: RpcAnswer;
    try {
      answer = await this.respond(Buffer.concat(chunks).toString("utf8"));
    } catch {
      // held by a timeout rule until the server closed
      return;
    }
    if (!res.writable || res.headersSent) return;
    res.writeHead(answer.status, answer.headers).end(answer.body);
  }

  /**
   * What this server answered, per JSON-RPC method (each call of a batch counts) and the answers'
   * bytes in all: what a provider would bill, for tests of the client's own counts.
   */
  readonly served = { requests: new Map<string, number>(), responseBytes: 0 };

  /**
   * One HTTP request's answer, faults applied: the node:http server and the in-process transport
   * (`fetch`, the simulation's) both come here, so both see the same hostile chain.
   */
  async respond(text: string, signal?: AbortSignal): Promise<RpcAnswer> {
    try {
      const calls: unknown = JSON.parse(text);
      for (const c of Array.isArray(calls) ? calls : [calls]) {
        const method = typeof c?.method === "string" ? c.method : "unknown";
        this.served.requests.set(method, (this.served.requests.get(method) ?? 0) + 1);
      }
    } catch {
      this.served.requests.set("unknown", (this.served.requests.get("unknown") ?? 0) + 1);
    }
    const answer = await this.answer(text, signal);
    this.served.responseBytes += Buffer.byteLength(answer.body);
    return answer;
  }

  private async answer(text: string, signal?: AbortSignal): Promise<RpcAnswer> {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return this.json({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null });
    }
    const calls = Array.isArray(body) ? body.slice(0, MAX_BATCH) : [body];
    // Faults apply to the first call's method; batches are rare in web3.js.
    const first = calls[0] as { method?: unknown } | undefined;
    const method = typeof first?.method === "string" ? first.method : "";
    const fault = method ? this.takeFault(method) : null;
    const injected = method && !fault ? this.faults.takeError(method) : null;
    if (fault?.mode === "error" || injected?.as === "503") {
      return { status: 503, headers: { "content-type": "text/plain" }, body: "Service Unavailable (injected)" };
    }
    if (injected?.as === "429") {
      // As providers send it: the status, a retry-after in seconds, and a JSON-RPC error body.
      return {
        status: 429,
        headers: { "content-type": "application/json", "retry-after": String(injected.retryAfterSec) },
        body: stringifyJson({
          jsonrpc: "2.0",
          error: { code: 429, message: "Too many requests (injected)" },
          id: null,
        }),
      };
    }
    if (fault?.mode === "timeout" || injected?.as === "timeout") {
      // The client's own timeout should fire first; if it has none, a gateway-style 504 ends it
      // (a reset socket would invite a silent retry by some HTTP clients).
      await this.hold(fault?.holdMs ?? injected?.holdMs ?? DEFAULT_HOLD_MS, signal);
      return { status: 504, headers: { "content-type": "text/plain" }, body: "Gateway Timeout (injected)" };
    }
    // One node of the pool answers the whole HTTP request, so a batch's answers agree with each other.
    const methods = calls.map((c) => (c as { method?: unknown } | null)?.method).filter((m) => typeof m === "string");
    const node = this.faults.nodeFor(methods);
    const answers = calls.map((c) => this.call(c, node));
    return this.json(Array.isArray(body) ? answers : answers[0]);
  }

  /** A fetch over `respond`, in-process: no socket, the same answers and faults. */
  readonly fetch = (async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const text = typeof init?.body === "string" ? init.body : input instanceof Request ? await input.text() : "";
    const signal = init?.signal ?? undefined;
    const answer = await this.respond(text, signal);
    if (signal?.aborted) throw new DOMException("The operation was aborted.", "AbortError");
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  }) as typeof fetch;

  private hold(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(new DOMException("The operation was aborted.", "AbortError"));
      const t = setTimeout(() => {
        this.held.delete(t);
        resolve();
      }, ms);
      this.held.add(t);
      signal?.addEventListener(
        "abort",
        () => {
          clearTimeout(t);
          this.held.delete(t);
          reject(new DOMException("The operation was aborted.", "AbortError"));
        },
        { once: true },
      );
    });
  }

  private json(payload: unknown): RpcAnswer {
    return { status: 200, headers: { "content-type": "application/json" }, body: stringifyJson(payload) };
  }

  private call(c: unknown, node: PoolNode): unknown {
    const { id = null, method, params = [] } = (c ?? {}) as { id?: unknown; method?: unknown; params?: unknown };
    if (typeof method !== "string") return { jsonrpc: "2.0", error: { code: -32600, message: "Invalid request" }, id };
    try {
      const handler = this.methods[method];
      if (!handler) throw rpcError(-32601, "Method not found");
      const list = Array.isArray(params) ? params : [];
      const result = handler(list, this.viewOf(method, list, node));
      return { jsonrpc: "2.0", result, id };
    } catch (e) {
      if (isRpcError(e)) return { jsonrpc: "2.0", error: rpcErrorBody(e), id };
      this.log(`rpc ${method} failed: ${(e as Error).stack ?? e}`);
      return { jsonrpc: "2.0", error: { code: -32603, message: `Internal error: ${(e as Error).message}` }, id };
    }
  }

  /**
   * The node answering this call: the current one, or one behind under a `lag` rule; at the asked
   * commitment (finalized is FINALIZATION_SLOTS + 1 behind). A `minContextSlot` above it is
   * refused with -32016, as agave refuses it.
   */
  private viewOf(method: string, params: unknown[], node: PoolNode): View {
    const lag = node.lagFor(method);
    const now = this.node.getSlot();
    const at = lag >= now ? 0n : now - lag;
    const last = params[params.length - 1];
    const cfg = last && typeof last === "object" && !Array.isArray(last) ? (last as Config) : {};
    const finalizedBehind = FINALIZATION_SLOTS + 1n;
    const slot =
      cfg.commitment === "finalized" && method !== "getTransaction"
        ? at > finalizedBehind
          ? at - finalizedBehind
          : 0n
        : at;
    const min = cfg.minContextSlot;
    if (typeof min === "number" && Number.isFinite(min) && BigInt(Math.floor(min)) > slot) {
      this.faults.countMinContextRefusal();
      throw rpcError(-32016, "Minimum context slot has not been reached", { contextSlot: slot });
    }
    return { at, slot, historyFloorSlot: node.historyFloorSlot };
  }

  /** Whether the answering node pruned the history of `slot`. */
  private pruned(v: View, slot: bigint): boolean {
    return v.historyFloorSlot !== null && slot < v.historyFloorSlot;
  }

  /** minimumLedgerSlot / getFirstAvailableBlock: 0 on a node that kept everything. */
  private historyFloor(v: View): bigint {
    if (v.historyFloorSlot === null) return 0n;
    this.faults.countPrunedAnswer();
    return v.historyFloorSlot;
  }

  private ctx(v: View): { slot: bigint; apiVersion: string } {
    return { slot: v.slot, apiVersion: "2.2.0" };
  }

  private readonly methods: Record<string, (p: unknown[], v: View) => unknown> = {
    getHealth: () => "ok",
    getVersion: () => ({ "solana-core": "2.2.0", "feature-set": 3294202862 }),
    getSlot: (_p, v) => v.slot,
    getBlockHeight: (_p, v) => this.node.blockHeightAt(v.slot),
    getGenesisHash: () => "LocaLChain1111111111111111111111111111111111",
    minimumLedgerSlot: (_p, v) => this.historyFloor(v),
    getFirstAvailableBlock: (_p, v) => this.historyFloor(v),
    getRecentPrioritizationFees: (p, v) => {
      const list = p[0] ?? [];
      if (!Array.isArray(list)) throw rpcError(-32602, "Invalid params: expected an array of addresses");
      if (list.length > MAX_PRIORITIZATION_FEE_ADDRESSES)
        throw rpcError(-32602, `Too many inputs provided; max ${MAX_PRIORITIZATION_FEE_ADDRESSES}`);
      for (const a of list) addressParam(a);
      // The slots before the open one (closed blocks only), oldest first as agave lists them.
      const from = v.at > PRIORITIZATION_FEE_SLOTS ? v.at - PRIORITIZATION_FEE_SLOTS : 0n;
      const out: { slot: bigint; prioritizationFee: bigint }[] = [];
      for (let slot = from; slot < v.at; slot++)
        out.push({ slot, prioritizationFee: this.faults.prioritizationFeeAt(slot) });
      return out;
    },
    localnet_fault: (p) => ({ ok: true, rule: this.faults.apply(p[0]) }),
    localnet_faults: () => ({ rules: this.faults.list(), injected: { ...this.faults.injected } }),
    getEpochInfo: (_p, v) => ({
      absoluteSlot: v.slot,
      blockHeight: this.node.blockHeightAt(v.slot),
      epoch: 0,
      slotIndex: v.slot,
      slotsInEpoch: 432_000,
      // web3.js wants a number here (null fails its schema)
      transactionCount: this.node.stats.processed + this.node.stats.failed,
    }),
    getLatestBlockhash: (_p, v) => {
      const { blockhash, lastValidBlockHeight } =
        v.at < this.node.getSlot() ? this.node.blockhashAt(v.at) : this.node.getLatestBlockhash();
      return { context: this.ctx(v), value: { blockhash, lastValidBlockHeight } };
    },
    isBlockhashValid: (p, v) => ({
      context: this.ctx(v),
      value: this.node.isBlockhashValid(stringParam(p[0], "blockhash")),
    }),
    getMinimumBalanceForRentExemption: (p) => {
      const len = Number(p[0] ?? 0);
      if (!Number.isInteger(len) || len < 0 || len > 10 * 1024 * 1024)
        throw rpcError(-32602, "Invalid params: data length");
      return this.node.minimumBalanceForRentExemption(len);
    },
    getBalance: (p, v) => ({
      context: this.ctx(v),
      value: this.node.getAccountAt(addressParam(p[0]), v.at)?.lamports ?? 0n,
    }),
    getAccountInfo: (p, v) => ({
      context: this.ctx(v),
      value: this.accountJson(addressParam(p[0]), configOf(p[1]), v),
    }),
    getMultipleAccounts: (p, v) => {
      const list = p[0];
      if (!Array.isArray(list)) throw rpcError(-32602, "Invalid params: expected an array of addresses");
      if (list.length > MAX_MULTIPLE_ACCOUNTS)
        throw rpcError(-32602, `Too many inputs provided; max ${MAX_MULTIPLE_ACCOUNTS}`);
      const cfg = configOf(p[1]);
      return { context: this.ctx(v), value: list.map((a) => this.accountJson(addressParam(a), cfg, v)) };
    },
    getTokenAccountBalance: (p, v) => {
      const address = pubkeyParam(p[0]);
      const acc = this.node.getAccountAt(address, v.at);
      if (!acc || acc.data.length < 165) throw rpcError(-32602, "Invalid param: could not find account");
      const mint = new PublicKey(acc.data.subarray(0, 32));
      const mintAcc = this.node.getAccount(mint);
      if (!mintAcc) throw rpcError(-32602, "Invalid param: could not find mint");
      return { context: this.ctx(v), value: uiAmount(readU64LE(acc.data, 64), mintAcc.data[44] ?? 0) };
    },
    getFeeForMessage: (p, v) => {
      let message: VersionedMessage;
      try {
        message = VersionedMessage.deserialize(Buffer.from(stringParam(p[0], "message"), "base64"));
      } catch {
        throw rpcError(-32602, "Invalid params: invalid message");
      }
      if (!this.node.isBlockhashValid(message.recentBlockhash)) return { context: this.ctx(v), value: null };
      const fake = new VersionedTransaction(message);
      return { context: this.ctx(v), value: computeFee(fake) };
    },
    requestAirdrop: (p) => {
      const lamports = bigintParam(p[1], "lamports");
      if (lamports <= 0n || lamports > 1_000_000_000_000_000n) throw rpcError(-32602, "Invalid params: lamports");
      return this.node.airdrop(pubkeyParam(p[0]), lamports);
    },
    sendTransaction: (p) => {
      const cfg = configOf(p[1]);
      const encoding = cfg.encoding ?? "base58";
      const raw = stringParam(p[0], "transaction");
      const wire = encoding === "base64" ? Buffer.from(raw, "base64") : bs58.decode(raw);
      return this.node.sendWire(wire, { skipPreflight: cfg.skipPreflight === true });
    },
    simulateTransaction: (p, v) => {
      const cfg = configOf(p[1]);
      const raw = stringParam(p[0], "transaction");
      const wire = cfg.encoding === "base64" ? Buffer.from(raw, "base64") : bs58.decode(raw);
      let tx: VersionedTransaction;
      try {
        tx = VersionedTransaction.deserialize(wire);
      } catch {
        throw rpcError(-32602, "invalid transaction: failed to deserialize");
      }
      if (cfg.sigVerify && cfg.replaceRecentBlockhash)
        throw rpcError(-32602, "sigVerify may not be used with replaceRecentBlockhash");
      const sim = this.node.simulate(tx, {
        sigVerify: cfg.sigVerify === true,
        replaceRecentBlockhash: cfg.replaceRecentBlockhash === true,
        coSign: true,
      });
      const latest = this.node.getLatestBlockhash();
      return {
        context: this.ctx(v),
        value: {
          err: sim.err,
          logs: sim.logs,
          accounts: null,
          unitsConsumed: sim.unitsConsumed,
          returnData: null,
          innerInstructions: cfg.innerInstructions
            ? sim.innerInstructions.map((i) => ({ index: i.index, instructions: i.instructions.map(ixJson) }))
            : null,
          replacementBlockhash: cfg.replaceRecentBlockhash ? latest : null,
        },
      };
    },
    getSignatureStatuses: (p, v) => {
      const sigs = p[0];
      if (!Array.isArray(sigs)) throw rpcError(-32602, "Invalid params: expected an array of signatures");
      if (sigs.length > MAX_SIGNATURE_STATUSES)
        throw rpcError(-32602, `Too many inputs provided; max ${MAX_SIGNATURE_STATUSES}`);
      const history = configOf(p[1]).searchTransactionHistory === true;
      let hid = false;
      const value = sigs.map((s) => {
        const st = this.node.getSignatureStatus(stringParam(s, "signature"), history, v.at);
        if (!st || !this.pruned(v, st.record.slot)) return st;
        hid = true;
        return null;
      });
      if (hid) this.faults.countPrunedAnswer();
      return {
        context: this.ctx(v),
        value: value.map((st) => {
          if (!st) return null;
          return {
            slot: st.record.slot,
            confirmations: st.confirmations,
            err: st.record.err,
            status: st.record.err ? { Err: st.record.err } : { Ok: null },
            confirmationStatus: st.commitment,
          };
        }),
      };
    },
    getSignaturesForAddress: (p, v) => {
      const address = pubkeyParam(p[0]).toBase58();
      const cfg = configOf(p[1]) as Config & { limit?: number; before?: string; until?: string };
      const limit = cfg.limit ?? 1000;
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw rpcError(-32602, "Invalid limit; max 1000");
      const known = this.node
        .signaturesForAddress(address, { limit, before: cfg.before, until: cfg.until })
        .filter((r) => r.slot <= v.at);
      const kept = known.filter((r) => !this.pruned(v, r.slot));
      if (kept.length < known.length) this.faults.countPrunedAnswer();
      return kept.map((r) => ({
        signature: r.signature,
        slot: r.slot,
        err: r.err,
        memo: null,
        blockTime: r.blockTimeSec,
        confirmationStatus: this.node.commitmentOf(r.slot, v.at),
      }));
    },
    getTransaction: (p, v) => {
      const signature = stringParam(p[0], "signature");
      const cfg = typeof p[1] === "string" ? { encoding: p[1] } : configOf(p[1]);
      const record = this.node.getTransactionAt(signature, v.at);
      if (!record) return null;
      if (this.pruned(v, record.slot)) {
        this.faults.countPrunedAnswer();
        return null;
      }
      const version = record.tx.version === "legacy" ? "legacy" : record.tx.version;
      if (version !== "legacy" && cfg.maxSupportedTransactionVersion === undefined) {
        throw rpcError(
          -32015,
          'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
        );
      }
      // As agave: "processed" is refused, the default is "finalized", and a transaction is only
      // returned once its slot has reached the asked commitment.
      const asked = cfg.commitment ?? "finalized";
      if (asked === "processed") throw rpcError(-32602, "Method does not support commitment below `confirmed`");
      const reached = this.node.commitmentOf(record.slot, v.at);
      if (reached === "processed" || (asked === "finalized" && reached !== "finalized")) return null;
      const encoding = cfg.encoding ?? "json";
      if (encoding !== "json" && encoding !== "base64" && encoding !== "base58")
        throw rpcError(-32602, `Invalid params: unsupported encoding ${encoding}`);
      const wire = record.tx.serialize();
      return {
        slot: record.slot,
        blockTime: record.blockTimeSec,
        version: cfg.maxSupportedTransactionVersion === undefined ? undefined : version,
        transaction:
          encoding === "json"
            ? txJson(record)
            : encoding === "base64"
              ? [Buffer.from(wire).toString("base64"), "base64"]
              : [bs58.encode(wire), "base58"],
        meta: metaJson(record),
      };
    },
  };

  private accountJson(address: string, cfg: Config, v: View): unknown {
    const acc = this.node.laidOut(address, this.node.getAccountAt(address, v.at));
    if (!acc) return null;
    const encoding = cfg.encoding ?? "base58";
    let data = acc.data;
    if (cfg.dataSlice) data = data.subarray(cfg.dataSlice.offset, cfg.dataSlice.offset + cfg.dataSlice.length);
    const parsed = encoding === "jsonParsed" && !cfg.dataSlice ? parsedAccountData(acc.owner, data) : null;
    return {
      data:
        parsed ??
        (encoding === "base58" ? [bs58.encode(data), "base58"] : [Buffer.from(data).toString("base64"), "base64"]),
      executable: acc.executable,
      lamports: acc.lamports,
      owner: acc.owner.toBase58(),
      rentEpoch: 18446744073709551615n,
      space: acc.data.length,
    };
  }
}

interface Config {
  encoding?: string;
  skipPreflight?: boolean;
  sigVerify?: boolean;
  replaceRecentBlockhash?: boolean;
  searchTransactionHistory?: boolean;
  maxSupportedTransactionVersion?: number;
  commitment?: string;
  minContextSlot?: number;
  innerInstructions?: boolean;
  dataSlice?: { offset: number; length: number };
}

function configOf(v: unknown): Config {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Config) : {};
}

function stringParam(v: unknown, name: string): string {
  if (typeof v !== "string") throw rpcError(-32602, `Invalid params: ${name} must be a string`);
  return v;
}

/**
 * An address parameter as its base58 spelling, refused as `new PublicKey` refuses it (anything
 * that does not spell 32 bytes): the account reads look accounts up by string, where a PublicKey
 * per address, spelled again for the lookup, cost more than the lookup.
 */
function addressParam(v: unknown): string {
  if (!isAddress(v)) throw rpcError(-32602, "Invalid param: Invalid");
  return v;
}

/** The same check, for the methods that need the key's bytes. */
function pubkeyParam(v: unknown): PublicKey {
  return new PublicKey(addressParam(v));
}

function bigintParam(v: unknown, name: string): bigint {
  if (typeof v === "number" && Number.isSafeInteger(v)) return BigInt(v);
  if (typeof v === "string" && /^\d+$/.test(v)) return BigInt(v);
  throw rpcError(-32602, `Invalid params: ${name}`);
}

function uiAmount(amount: bigint, decimals: number) {
  const s = amount.toString().padStart(decimals + 1, "0");
  const whole = s.slice(0, s.length - decimals);
  const frac = decimals ? s.slice(s.length - decimals).replace(/0+$/, "") : "";
  const uiAmountString = frac ? `${whole}.${frac}` : whole;
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}

function ixJson(ix: { programIdIndex: number; accounts: number[]; data: Uint8Array; stackHeight: number | null }) {
  return {
    programIdIndex: ix.programIdIndex,
    accounts: ix.accounts,
    data: bs58.encode(ix.data),
    stackHeight: ix.stackHeight,
  };
}

function tokenBalanceJson(b: TokenBalance) {
  return {
    accountIndex: b.accountIndex,
    mint: b.mint,
    owner: b.owner,
    programId: b.programId,
    uiTokenAmount: uiAmount(b.amount, b.decimals),
  };
}

function txJson(record: TxRecord) {
  const m = record.tx.message;
  return {
    signatures: record.tx.signatures.map((s) => bs58.encode(s)),
    message: {
      accountKeys: m.staticAccountKeys.map((k) => k.toBase58()),
      header: m.header,
      recentBlockhash: m.recentBlockhash,
      instructions: record.instructions.map(ixJson),
      ...(record.tx.version === 0
        ? {
            addressTableLookups: m.addressTableLookups.map((l) => ({
              accountKey: l.accountKey.toBase58(),
              writableIndexes: l.writableIndexes,
              readonlyIndexes: l.readonlyIndexes,
            })),
          }
        : {}),
    },
  };
}

function metaJson(record: TxRecord) {
  return {
    err: record.err,
    status: record.err ? { Err: record.err } : { Ok: null },
    fee: record.feeLamports,
    preBalances: record.preBalances,
    postBalances: record.postBalances,
    innerInstructions: record.innerInstructions.map((i) => ({
      index: i.index,
      instructions: i.instructions.map(ixJson),
    })),
    logMessages: record.logs,
    preTokenBalances: record.preTokenBalances.map(tokenBalanceJson),
    postTokenBalances: record.postTokenBalances.map(tokenBalanceJson),
    rewards: [],
    loadedAddresses: {
      writable: record.loadedAddresses.writable.map((k) => k.toBase58()),
      readonly: record.loadedAddresses.readonly.map((k) => k.toBase58()),
    },
    computeUnitsConsumed: record.computeUnits,
  };
}
