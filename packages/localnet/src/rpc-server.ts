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
import { type Commitment, FINALIZATION_SLOTS, type LocalNode, isRpcError, rpcError, rpcErrorBody } from "./node";
import { ChainFaults, type PoolNode } from "./faults";
import { type BrowserAccessOptions, BrowserGuard, type GuardVerdict } from "./browser-guard";
import { stringifyJson } from "./json";
import { configOf, type Handler, type View } from "./rpc/context";
import { accountMethods } from "./rpc/accounts";
import { blockMethods } from "./rpc/blocks";
import { clusterMethods } from "./rpc/cluster";
import { transactionMethods } from "./rpc/transactions";

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
/** localnet_advanceSlots moves the clock at most this far a call */
const MAX_ADVANCE_SLOTS = 1_000;
const MAX_RPC_RULES = 1_000;
const DEFAULT_HOLD_MS = 30_000;

export interface RpcServerOptions {
  /**
   * Confirmed reads answer the last closed slot, as agave's do (the open slot is only processed).
   * Off, they see the open slot too: a caller stepping the clock by hand reads what it just sent.
   */
  strictConfirmed?: boolean;
  /** host names and browser origins answered besides loopback ones (browser-guard.ts) */
  browser?: BrowserAccessOptions;
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
  private readonly guard: BrowserGuard;
  port = 0;

  constructor(
    private readonly node: LocalNode,
    private readonly log: (m: string) => void = () => {},
    readonly faults: ChainFaults = new ChainFaults(node),
    private readonly options: RpcServerOptions = {},
  ) {
    this.guard = new BrowserGuard(options.browser);
  }

  /**
   * The browser check (browser-guard.ts) of one HTTP request: a refusal or a preflight's answer
   * ends it here; else the CORS headers its answer carries.
   */
  private admit(
    method: string,
    header: (name: string) => string | null,
  ): { done: RpcAnswer } | { cors: Record<string, string> } {
    const host = header("host");
    const origin = header("origin");
    if (method === "OPTIONS") {
      const verdict = this.guard.preflight(host, origin, header("access-control-request-headers"));
      if (!verdict.ok) return { done: refusal(verdict) };
      return { done: { status: 204, headers: { ...verdict.cors, allow: "POST, GET, OPTIONS" }, body: "" } };
    }
    const verdict = this.guard.check(host, origin);
    return verdict.ok ? { cors: verdict.cors } : { done: refusal(verdict) };
  }

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
        const admitted = this.admit(req.method, (name) => req.headers.get(name));
        if ("done" in admitted) {
          const { status, headers, body } = admitted.done;
          return new Response(status === 204 ? null : body, { status, headers });
        }
        const { cors } = admitted;
        if (req.method === "GET" && new URL(req.url).pathname === "/health")
          return new Response("ok", { headers: { "content-type": "text/plain", ...cors } });
        if (req.method !== "POST") return new Response(null, { status: 405, headers: cors });
        // A held call whose client went away rejects; its answer goes nowhere.
        const answer = await this.respond(await req.text(), req.signal);
        return new Response(answer.body, { status: answer.status, headers: { ...answer.headers, ...cors } });
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
    const admitted = this.admit(req.method ?? "", (name) => {
      const value = req.headers[name];
      return typeof value === "string" ? value : null;
    });
    if ("done" in admitted) {
      res.writeHead(admitted.done.status, admitted.done.headers).end(admitted.done.body);
      return;
    }
    const { cors } = admitted;
    if (req.method === "GET" && req.url === "/health") {
      res.writeHead(200, { "content-type": "text/plain", ...cors }).end("ok");
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405, cors).end();
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
    res.writeHead(answer.status, { ...answer.headers, ...cors }).end(answer.body);
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
      body = parseRequest(text);
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
    const methodOf = (c: unknown) => (c as { method?: unknown } | null)?.method;
    if (Array.isArray(body) && this.faults.fanOut && calls.length > 1) {
      // A gateway that splits a batch: each call reaches a node of its own, drawn in call order.
      this.faults.countFanOut();
      const answers = calls.map((c) => {
        const method = methodOf(c);
        return this.call(c, this.faults.nodeFor(typeof method === "string" ? [method] : []));
      });
      return this.json(answers);
    }
    // One node of the pool answers the whole HTTP request, so a batch's answers agree with each other.
    const methods = calls.map(methodOf).filter((m) => typeof m === "string");
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
   * commitment, finalized when none is asked, as agave (confirmed is the last closed slot,
   * finalized FINALIZATION_SLOTS + 1 behind the open one). A `minContextSlot` above it is refused with -32016, as agave refuses it.
   */
  private viewOf(method: string, params: unknown[], node: PoolNode): View {
    const lag = node.lagFor(method);
    const now = this.node.getSlot();
    const at = lag >= now ? 0n : now - lag;
    const last = params[params.length - 1];
    const cfg = configOf(last);
    const commitment = COMMITMENT_FREE.has(method) ? "processed" : commitmentOf(cfg.commitment);
    // The open slot is processed; the last closed one is confirmed (its one validator voted on it),
    // unless confirmed reads were asked to see the open slot (RpcServerOptions).
    const confirmedBehind = this.options.strictConfirmed ? 1n : 0n;
    const behind =
      commitment === "finalized" ? FINALIZATION_SLOTS + 1n : commitment === "confirmed" ? confirmedBehind : 0n;
    const slot = at > behind ? at - behind : 0n;
    const min = cfg.minContextSlot;
    if (typeof min === "number" && Number.isFinite(min) && BigInt(Math.floor(min)) > slot) {
      this.faults.countMinContextRefusal();
      throw rpcError(-32016, "Minimum context slot has not been reached", { contextSlot: slot });
    }
    return { at, slot, commitment, historyFloorSlot: node.historyFloorSlot, historyHole: node.historyHole };
  }

  private methodTable: Record<string, Handler> | null = null;

  /** Built on first use: the handlers close over the node, set by the constructor. */
  private get methods(): Record<string, Handler> {
    this.methodTable ??= this.buildMethods();
    return this.methodTable;
  }

  private buildMethods(): Record<string, Handler> {
    const c = { node: this.node, faults: this.faults, rpcPort: () => this.port };
    const accounts = accountMethods(c);
    return {
      ...clusterMethods(c),
      ...accounts.methods,
      ...blockMethods(c),
      ...transactionMethods(c, accounts.accountJson, accounts.encode),
      localnet_fault: (p) => ({ ok: true, rule: this.faults.apply(p[0]) }),
      localnet_faults: () => ({ rules: this.faults.list(), injected: { ...this.faults.injected } }),
      // The clock from outside the process (a chain started with --slot-ms 0 stands still otherwise).
      localnet_advanceSlots: (p) => {
        const count = p[0] ?? 1;
        if (typeof count !== "number" || !Number.isInteger(count) || count < 1 || count > MAX_ADVANCE_SLOTS)
          throw rpcError(-32602, `Invalid params: slots must be a whole number from 1 to ${MAX_ADVANCE_SLOTS}`);
        this.node.advanceSlots(count);
        return this.node.getSlot();
      },
    };
  }
}

function refusal(verdict: GuardVerdict & { ok: false }): RpcAnswer {
  return { status: verdict.status, headers: { "content-type": "text/plain" }, body: verdict.body };
}

/**
 * Methods agave answers from the newest bank whatever the config says (statuses, sends,
 * simulations, airdrops): their context is the processed slot.
 */
const COMMITMENT_FREE = new Set([
  "getSignatureStatuses",
  "sendTransaction",
  "simulateTransaction",
  "requestAirdrop",
  "getBlockCommitment",
]);

function commitmentOf(v: unknown): Commitment {
  if (v === undefined || v === null) return "finalized";
  if (v === "processed" || v === "confirmed" || v === "finalized") return v;
  throw rpcError(
    -32602,
    `Invalid params: unknown variant \`${String(v)}\`, expected one of \`processed\`, \`confirmed\`, \`finalized\`.`,
  );
}

/**
 * A request body. requestAirdrop's amount is a u64 JSON number, which a double cannot hold exactly
 * above 2^53: where the runtime hands the reviver the number's source text (Bun), such a number is
 * read as a bigint. Only bodies naming the method pay for the reviver.
 */
function parseRequest(text: string): unknown {
  if (!text.includes("requestAirdrop")) return JSON.parse(text);
  return JSON.parse(text, (_key, value: unknown, context?: { source?: string }) =>
    typeof value === "number" && !Number.isSafeInteger(value) && context?.source && /^\d+$/.test(context.source)
      ? BigInt(context.source)
      : value,
  );
}
