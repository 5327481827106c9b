/**
 * ChainReader and ChainSender over a web3.js `Connection`: one implementation for mainnet/devnet
 * providers and for the local node, which speaks the same JSON-RPC.
 *
 *   const { reader, sender } = createRpcChain({ rpcUrl, timeoutMs: 10_000, retries: 3 });
 *
 * - Every call has a timeout (`timeoutMs`, body included) and up to `retries` further attempts on
 *   transient failures (timeouts, 429, 5xx, refused connections, malformed answers, node-behind
 *   errors), with exponential backoff and full jitter. Failures surface as the chain codes of
 *   errors.ts with the provider URL and any key scrubbed out; web3.js's own 429 loop (which logs)
 *   is disabled.
 * - `getAccounts`/`getBalances` batch `getMultipleAccounts` at 100 keys a call and deduplicate.
 * - A 429 (or 503) with `retry-after` is waited out (bounded by `retryAfterMaxMs`) before the retry.
 * - Reads are monotonic: every answer's `context.slot` is remembered per commitment and sent back
 *   as `minContextSlot`, so a node behind the pool (a load balancer reaching a lagging node) answers
 *   -32016 (retried) rather than an older state that would undo what was already seen.
 * - `prepare` signs without sending, so the signature (the fee payer's, always first) is saved
 *   first; `send` only ever sends those exact bytes.
 * - `outcome` decides money only from answers provably at least as new as what they are compared
 *   with: the finalized slot and block height come from one answer (getEpochInfo), and the status
 *   search must come from a node at or past that slot (`minContextSlot`, and `context.slot`
 *   checked). `confirmed`/`failed` only at `finalized`; `expired` only when the finalized height is
 *   past `lastValidBlockHeight`, such a search finds nothing, and the finalized blocks the
 *   transaction could have landed in (absence-proof.ts), or the archive of HISTORY_RPC_URL, agree;
 *   a node that cannot answer (429, timeout, behind) is `unknown`, never an outcome.
 */
import {
  type AddressLookupTableAccount,
  type Commitment,
  Connection,
  type Keypair,
  PublicKey,
  SendTransactionError,
  type SignatureStatus,
  SolanaJSONRPCError,
  type TransactionInstruction,
  type VersionedTransaction,
  type VersionedTransactionResponse,
} from "@solana/web3.js";
import bs58 from "bs58";
import { AppError, isAppError } from "../lib/errors";
import { isAddress } from "@fee-ledger/localnet/address";
import { chainRejected, chainUnavailable, createScrubber, isChainRejected, isChainUnavailable } from "./errors";
import {
  DEFAULT_LANDING_SETTINGS,
  type LandingSettings,
  MAX_COMPUTE_UNIT_LIMIT,
  computeBudgetInstructions,
  computeUnitLimitFor,
  heliusPriorityLevel,
  instructionShape,
  PRICE_GROUP_MAX_ACCOUNTS,
  percentileFee,
  priorityPrice,
  ShapeUnits,
  tableComputeUnits,
  withoutComputeBudget,
} from "./landing";
import type { CommandKey } from "./command-key";
import { type BlockSummary, proveAbsence, ScannedBlocks, summarizeBlock } from "./absence-proof";
import { commandKeyMemo, memoComputeUnits } from "./memo";
import { signTransaction } from "@fee-ledger/localnet/fast-keypair";
import { MAX_TRANSACTION_BYTES, compileTransaction } from "./packing";
import type {
  AccountSnapshot,
  ChainReader,
  ChainSender,
  CompiledInstructionView,
  ConfirmedTransaction,
  PrepareOptions,
  PrepareShare,
  SignatureState,
  TokenBalanceView,
  TransactionOutcome,
  PreparedTransaction,
} from "./ports";

export interface RpcChainOptions {
  rpcUrl: string;
  /** per HTTP request, response body included */
  timeoutMs?: number;
  /** further attempts after the first, for transient failures only */
  retries?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** commitment for reads; outcomes use finalized block height for expiry regardless */
  commitment?: Extract<Commitment, "confirmed" | "finalized">;
  /** when set, prepared transactions are v0 messages using these tables */
  lookupTables?: readonly AddressLookupTableAccount[];
  /**
   * The local chain's launch program co-signs its own instructions when the node receives them,
   * so prepared transactions legitimately leave those signature slots empty. Mainnet providers
   * never do that: there a missing signature is a bug, refused at prepare (the default).
   */
  allowNodeCosigners?: boolean;
  /** extra headers some providers want for their key (never logged) */
  httpHeaders?: Record<string, string>;
  /** longest `retry-after` honoured before a retry (a provider asking for more is retried then) */
  retryAfterMaxMs?: number;
  /** the HTTP transport (default: global fetch); the simulation passes the local chain's in-process one */
  fetch?: typeof fetch;
  /** priority fees and send endpoints (landing.ts); defaults: DEFAULT_LANDING_SETTINGS */
  landing?: Partial<LandingSettings>;
  /** injectable for tests */
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface RpcChain {
  reader: ChainReader;
  sender: ChainSender;
}

const GET_MULTIPLE_ACCOUNTS_MAX_KEYS = 100;
const GET_SIGNATURE_STATUSES_MAX = 256;

/**
 * What our fetch throws so the classification survives web3.js's wrapping (found again through
 * `cause`): an HTTP status with the provider's `retry-after`, or the request's own timeout.
 */
type TransportFailure = AppError<"CHAIN_HTTP_STATUS" | "CHAIN_REQUEST_TIMEOUT">;

function httpStatusFailure(status: number, retryAfterMs: number | null): TransportFailure {
  return new AppError("CHAIN_HTTP_STATUS", { status, retryAfterMs });
}

/** `retry-after` as seconds or an HTTP date, in ms from `nowMs`; null when absent or unreadable. */
export function retryAfterMs(header: string | null, nowMs: number): number | null {
  if (!header) return null;
  const text = header.trim();
  if (/^\d{1,7}$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, at - nowMs) : null;
}

// Node-side conditions that clear by themselves (node behind, slot skipped, context slot not
// reached: -32016, the node is behind what we already saw).
const TRANSIENT_RPC_CODES = new Set([-32004, -32005, -32007, -32009, -32014, -32016, -32603]);

interface RetrySettings {
  timeoutMs: number;
  retries: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  retryAfterMaxMs: number;
  random: () => number;
  sleep: (ms: number) => Promise<void>;
}

function retrySettings(options: RpcChainOptions): RetrySettings {
  return {
    timeoutMs: options.timeoutMs ?? 10_000,
    retries: Math.max(0, Math.min(options.retries ?? 3, 10)),
    backoffBaseMs: options.backoffBaseMs ?? 250,
    backoffMaxMs: options.backoffMaxMs ?? 5_000,
    retryAfterMaxMs: options.retryAfterMaxMs ?? 10_000,
    random: options.random ?? Math.random,
    sleep: options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms))),
  };
}

type Level = "processed" | "confirmed" | "finalized";

/**
 * The newest context slot seen per commitment: later reads ask for at least it. Levels are kept
 * apart: a status answer's context is the node's processed slot, which its confirmed slot trails
 * by a slot or two, so feeding it to confirmed reads would refuse every one of them meanwhile.
 */
class ContextSlots {
  private readonly seen: Record<Level, number> = { processed: 0, confirmed: 0, finalized: 0 };

  observe(level: Level, slot: number): void {
    if (Number.isSafeInteger(slot) && slot > this.seen[level]) this.seen[level] = slot;
  }

  minSlot(level: Level): { minContextSlot?: number } {
    const seen = this.seen;
    // A read is at least as new as anything seen at its level or a more final one.
    const floor =
      level === "processed"
        ? Math.max(seen.processed, seen.confirmed, seen.finalized)
        : level === "confirmed"
          ? Math.max(seen.confirmed, seen.finalized)
          : seen.finalized;
    return floor > 0 ? { minContextSlot: floor } : {};
  }
}

/**
 * What this thread asked the provider since the counts were last taken, per JSON-RPC method: the
 * provider's bill (requests and response bytes). A batch counts each call in it as a request of
 * its method, and its response bytes are shared out by each answer's own size. Every request of
 * every client made here passes through `timedFetch`, so nothing is missed; failed requests
 * (429s, timeouts) count too, as providers bill them.
 */
export interface ProviderUsageCounts {
  requests: Map<string, number>;
  responseBytes: Map<string, number>;
}

let providerUsage: ProviderUsageCounts = { requests: new Map(), responseBytes: new Map() };

/** The counts since the last call, and a fresh start (each thread flushes its own: src/chain/provider-usage.ts). */
export function takeProviderUsage(): ProviderUsageCounts {
  const taken = providerUsage;
  providerUsage = { requests: new Map(), responseBytes: new Map() };
  return taken;
}

/** Counts taken but not stored (the database was busy) go back, for the next flush to carry. */
export function returnProviderUsage(counts: ProviderUsageCounts): void {
  for (const [m, n] of counts.requests) addUsage(providerUsage.requests, m, n);
  for (const [m, n] of counts.responseBytes) addUsage(providerUsage.responseBytes, m, n);
}

function addUsage(map: Map<string, number>, method: string, n: number): void {
  map.set(method, (map.get(method) ?? 0) + n);
}

const METHOD_FIELD = /"method"\s*:\s*"([A-Za-z0-9_]{1,64})"/;

/** The JSON-RPC methods a request body asks for (one, or each of a batch's). */
function methodsOf(body: unknown): string[] {
  if (typeof body !== "string") return ["unknown"];
  if (body.trimStart().startsWith("[")) {
    try {
      const calls: unknown = JSON.parse(body);
      if (Array.isArray(calls))
        return calls.map((c) => (isRecord(c) && typeof c.method === "string" ? c.method.slice(0, 64) : "unknown"));
    } catch {
      // counted as one unknown request below
    }
    return ["unknown"];
  }
  return [METHOD_FIELD.exec(body)?.[1] ?? "unknown"];
}

/** For the few requests made without this client (the indexer's slot poll): counted alike. */
export function countProviderRequest(method: string, responseBody: string | null): void {
  countRequest([method], responseBody);
}

function countRequest(methods: readonly string[], responseBody: string | null): void {
  for (const m of methods) addUsage(providerUsage.requests, m, 1);
  if (responseBody === null) return;
  const bytes = Buffer.byteLength(responseBody);
  if (methods.length === 1) {
    addUsage(providerUsage.responseBytes, methods[0]!, bytes);
    return;
  }
  // A batch: each answer's share by its own size (the batch's brackets and commas to the first).
  let answers: unknown = null;
  try {
    answers = JSON.parse(responseBody);
  } catch {
    // not a batch answer: all to the first method
  }
  if (!Array.isArray(answers) || answers.length !== methods.length) {
    addUsage(providerUsage.responseBytes, methods[0]!, bytes);
    return;
  }
  let shared = 0;
  for (const [i, answer] of answers.entries()) {
    const n = i === 0 ? 0 : Buffer.byteLength(JSON.stringify(answer));
    shared += n;
    if (i > 0) addUsage(providerUsage.responseBytes, methods[i]!, n);
  }
  addUsage(providerUsage.responseBytes, methods[0]!, Math.max(0, bytes - shared));
}

/** fetch with the timeout covering the body too, and failures web3.js cannot blur. */
function timedFetch(transport: typeof fetch, timeoutMs: number) {
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const methods = methodsOf(init?.body);
    let counted = false;
    try {
      const res = await transport(input, { ...init, signal: controller.signal });
      // Read the body under the same timer: a provider that sends headers then stalls is a timeout too.
      const body = await res.text();
      countRequest(methods, body);
      counted = true;
      if (!res.ok) throw httpStatusFailure(res.status, retryAfterMs(res.headers.get("retry-after"), Date.now()));
      return new Response(body, { status: res.status, headers: res.headers });
    } catch (error) {
      if (!counted) countRequest(methods, null);
      if (controller.signal.aborted) throw new AppError("CHAIN_REQUEST_TIMEOUT");
      throw error;
    } finally {
      clearTimeout(timer);
    }
  };
}

/** A failure as one of the chain codes, and whether asking again may help. */
function classify(
  method: string,
  error: unknown,
  timeoutMs: number,
  scrub: (text: string) => string,
): { error: Error; transient: boolean } {
  if (isChainUnavailable(error) || isChainRejected(error)) {
    return { error, transient: isChainUnavailable(error) };
  }
  const found = findCause(error);
  if (isAppError(found, "CHAIN_REQUEST_TIMEOUT")) {
    return { error: chainUnavailable("CHAIN_TIMEOUT", { method, timeoutMs }), transient: true };
  }
  if (isAppError(found, "CHAIN_HTTP_STATUS")) return classifyHttpStatus(method, Number(found.context.status));
  // The raw error is not kept as `cause`: its text carries the provider URL and key unscrubbed.
  const detail = scrub(error instanceof Error ? error.message : String(error)).slice(0, 300);
  if (error instanceof SolanaJSONRPCError) {
    const code = typeof error.code === "number" ? error.code : null;
    if (code !== null && TRANSIENT_RPC_CODES.has(code)) {
      return {
        error: chainUnavailable("CHAIN_PROVIDER_FAILED", { method, detail: `node error ${code}: ${detail}` }),
        transient: true,
      };
    }
    return { error: chainRejected(method, detail, code), transient: false };
  }
  if (error instanceof SendTransactionError) {
    // The node looked at the transaction and said no; the code is lost in web3.js's wrapping,
    // so only an unhealthy/behind node (retry) is told apart by its message.
    if (/behind|unhealthy|-32005/i.test(detail)) {
      return { error: chainUnavailable("CHAIN_PROVIDER_FAILED", { method, detail }), transient: true };
    }
    return { error: chainRejected(method, detail), transient: false };
  }
  if (
    /Expected|StructError|JSON|Unexpected token|invalid json|Server responded|parse/i.test(detail) &&
    !/fetch failed|ECONN|connect/i.test(detail)
  ) {
    return {
      error: chainUnavailable("CHAIN_BAD_RESPONSE", { method, detail: `malformed answer: ${detail}` }),
      transient: true,
    };
  }
  return { error: chainUnavailable("CHAIN_PROVIDER_FAILED", { method, detail }), transient: true };
}

function classifyHttpStatus(method: string, status: number): { error: Error; transient: boolean } {
  if (status === 429) return { error: chainUnavailable("CHAIN_RATE_LIMITED", { method }), transient: true };
  if (status >= 500)
    return {
      error: chainUnavailable("CHAIN_PROVIDER_FAILED", { method, detail: `provider error (HTTP ${status})` }),
      transient: true,
    };
  // 401/403/404/413 and the like: configuration or request problems a retry cannot fix
  return { error: chainRejected(method, `refused (HTTP ${status})`), transient: false };
}

type Call = <T>(method: string, fn: () => Promise<T>) => Promise<T>;

/** Runs one RPC call with bounded retries; the loop ends after 1 + retries attempts. */
function retryingCall(settings: RetrySettings, scrub: (text: string) => string): Call {
  const { retries, backoffBaseMs, backoffMaxMs, retryAfterMaxMs, random, sleep } = settings;
  return async <T>(method: string, fn: () => Promise<T>): Promise<T> => {
    // Made only on failure: an error captures a stack, and every read of every job passes here.
    let last: Error | null = null;
    for (let attempt = 0; attempt <= retries; attempt++) {
      try {
        return await fn();
      } catch (raw) {
        const { error, transient } = classify(method, raw, settings.timeoutMs, scrub);
        last = error;
        if (!transient || attempt === retries) break;
        const ceiling = Math.min(backoffMaxMs, backoffBaseMs * 2 ** attempt);
        // A provider that says when to come back is believed (within bounds): retrying sooner
        // only spends the quota it is refusing.
        const asked = findCause(raw);
        const askedMs = isAppError(asked, "CHAIN_HTTP_STATUS") ? asked.context.retryAfterMs : null;
        const wait = typeof askedMs === "number" ? Math.min(askedMs, retryAfterMaxMs) : 0;
        await sleep(Math.max(wait, Math.floor(ceiling * random())));
      }
    }
    throw last ?? chainUnavailable("CHAIN_PROVIDER_FAILED", { method, detail: "not attempted" });
  };
}

export function createRpcChain(options: RpcChainOptions): RpcChain {
  const settings = retrySettings(options);
  const commitment = options.commitment ?? "confirmed";
  const transport = timedFetch(options.fetch ?? fetch, settings.timeoutMs);
  const connection = new Connection(options.rpcUrl, {
    commitment,
    fetch: transport as typeof fetch,
    disableRetryOnRateLimit: true,
    httpHeaders: options.httpHeaders,
    httpAgent: false,
  });
  const landing: LandingSettings = { ...DEFAULT_LANDING_SETTINGS, ...options.landing };
  const post = jsonRpcPoster(options.rpcUrl, transport, options.httpHeaders);
  const call = retryingCall(settings, createScrubber(options.rpcUrl));
  // Extra send endpoints get one quick retry: the primary send and the rebroadcasts cover the rest.
  const sendSettings = { ...settings, retries: Math.min(settings.retries, 1) };
  const rpc: RpcContext = {
    connection,
    post,
    batch: jsonRpcBatchPoster(options.rpcUrl, transport, options.httpHeaders),
    call,
    slots: new ContextSlots(),
    commitment,
    settings,
    landing,
    market: { lastPriceMicroLamports: 0n },
    prefetched: new Map(),
    heightReference: null,
    shapeUnits: new ShapeUnits(),
    sendTargets: [
      { post, call },
      ...landing.sendUrls.map((url) => ({
        post: jsonRpcPoster(url, transport),
        call: retryingCall(sendSettings, createScrubber(url)),
      })),
    ],
    history: landing.historyUrl
      ? {
          post: jsonRpcPoster(landing.historyUrl, transport),
          call: retryingCall(settings, createScrubber(landing.historyUrl)),
        }
      : null,
    scannedBlocks: new ScannedBlocks(),
  };
  const reader = rpcReader(rpc);
  return { reader, sender: rpcSender(rpc, reader, options) };
}

interface RpcContext {
  connection: Connection;
  /** one JSON-RPC call without web3.js, for the hot reads that check their answers themselves */
  post: JsonRpcPost;
  /** several calls in one HTTP request: one node of a provider's pool answers them all */
  batch: JsonRpcBatchPost;
  call: Call;
  slots: ContextSlots;
  commitment: Extract<Commitment, "confirmed" | "finalized">;
  settings: RetrySettings;
  landing: LandingSettings;
  /** the last market price read: what a send pays when the node cannot say */
  market: { lastPriceMicroLamports: bigint };
  /** statuses asked for several transactions at once (`prefetchOutcomes`), each taken once by `outcome` */
  prefetched: Map<string, { atMs: number; read: StatusRead }>;
  /**
   * The latest finalized slot and its block height a node reported (getEpochInfo). A block takes a
   * slot, so the height at any later slot is at most this height plus the slots since: a bound
   * that proves a transaction unexpired without asking the height again (`heightBoundAt`).
   */
  heightReference: { slot: number; blockHeight: number } | null;
  /** what each instruction shape consumed when simulated (landing.ts `ShapeUnits`) */
  shapeUnits: ShapeUnits;
  /** RPC_URL first, then every SEND_RPC_URLS endpoint: each send goes to all of them */
  sendTargets: { post: JsonRpcPost; call: Call }[];
  /** HISTORY_RPC_URL: an archive whose history search alone proves an absence */
  history: { post: JsonRpcPost; call: Call } | null;
  /** finalized blocks read for absence proofs (absence-proof.ts) */
  scannedBlocks: ScannedBlocks;
}

type JsonRpcPost = (method: string, params: unknown[]) => Promise<unknown>;
/** Each call's result, or the node's error for that call (thrown when read, as `post` throws it). */
type JsonRpcBatchPost = (calls: { method: string; params: unknown[] }[]) => Promise<(() => unknown)[]>;

/**
 * A JSON-RPC batch: one HTTP request, so one node of a load-balanced pool answers every call in it.
 * That ties figures together that separate requests could take from nodes hundreds of slots apart
 * (a history floor and the search it bounds). An answer that is not a batch of the same ids (a
 * provider that refuses batches) is malformed: nothing can be tied, nothing decided.
 */
function jsonRpcBatchPoster(
  url: string,
  transport: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>,
  headers?: Record<string, string>,
): JsonRpcBatchPost {
  let id = 0;
  return async (calls) => {
    const ids = calls.map(() => ++id);
    const res = await transport(url, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify(calls.map((c, i) => ({ jsonrpc: "2.0", id: ids[i], method: c.method, params: c.params }))),
    });
    const answer: unknown = JSON.parse(await res.text());
    if (!Array.isArray(answer))
      throw chainUnavailable("CHAIN_BAD_RESPONSE", { method: "batch", detail: "the node did not answer a batch" });
    const byId = new Map<unknown, unknown>();
    for (const item of answer) if (isRecord(item)) byId.set(item.id, item);
    return calls.map((c, i) => {
      const item = byId.get(ids[i]);
      return () => {
        if (!isRecord(item))
          throw chainUnavailable("CHAIN_BAD_RESPONSE", { method: c.method, detail: "no answer in the batch" });
        if (isRecord(item.error)) {
          const { code, message, data } = item.error;
          throw new SolanaJSONRPCError({ code, message: String(message ?? ""), data }, `${c.method} failed`);
        }
        if (!("result" in item))
          throw chainUnavailable("CHAIN_BAD_RESPONSE", { method: c.method, detail: "malformed answer" });
        return item.result;
      };
    });
  };
}

/**
 * A JSON-RPC request over the same transport as web3.js's (timeout, HTTP status), answering the
 * `result` or throwing the node's error as web3.js does, so the retry rules classify it alike.
 * web3.js validates every answer with superstruct and builds a PublicKey per key and owner: for a
 * detail's refresh or a sweep's read of 100k tokens that cost more than the node's work.
 */
function jsonRpcPoster(
  url: string,
  transport: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>,
  headers?: Record<string, string>,
): JsonRpcPost {
  let id = 0;
  return async (method, params) => {
    const res = await transport(url, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
    });
    const answer: unknown = JSON.parse(await res.text());
    if (!isRecord(answer)) throw chainUnavailable("CHAIN_BAD_RESPONSE", { method, detail: "malformed answer" });
    if (isRecord(answer.error)) {
      const { code, message, data } = answer.error;
      throw new SolanaJSONRPCError({ code, message: String(message ?? ""), data }, `${method} failed`);
    }
    if (!("result" in answer)) throw chainUnavailable("CHAIN_BAD_RESPONSE", { method, detail: "malformed answer" });
    return answer.result;
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One account of a base64 `getMultipleAccounts` answer, checked field by field. */
function accountOfAnswer(value: unknown): AccountSnapshot | null {
  if (value === null) return null;
  const malformed = () =>
    chainUnavailable("CHAIN_BAD_RESPONSE", { method: "getMultipleAccounts", detail: "malformed account" });
  if (!isRecord(value)) throw malformed();
  const { lamports, owner, executable, data } = value;
  if (typeof lamports !== "number" || typeof owner !== "string" || typeof executable !== "boolean") throw malformed();
  if (!Array.isArray(data) || data[1] !== "base64" || typeof data[0] !== "string") throw malformed();
  // The owner is kept as the node spelled it only if it is an address.
  if (!isAddress(owner)) throw malformed();
  return {
    lamports: exactLamports("getMultipleAccounts", lamports),
    owner,
    executable,
    data: new Uint8Array(Buffer.from(data[0], "base64")),
  };
}

/** `getMultipleAccounts` in chunks of the RPC's maximum, each at least as new as the last answer seen. */
async function readAccounts(
  rpc: RpcContext,
  addresses: readonly string[],
): Promise<Map<string, AccountSnapshot | null>> {
  const { post, call, slots, commitment } = rpc;
  const unique = [...new Set(addresses)];
  const out = new Map<string, AccountSnapshot | null>();
  for (let i = 0; i < unique.length; i += GET_MULTIPLE_ACCOUNTS_MAX_KEYS) {
    const chunk = unique.slice(i, i + GET_MULTIPLE_ACCOUNTS_MAX_KEYS);
    // Addresses are checked before asking, as web3.js's PublicKey did.
    for (const address of chunk) assertAddress(address);
    const answer = await call("getMultipleAccounts", () =>
      post("getMultipleAccounts", [chunk, { encoding: "base64", commitment, ...slots.minSlot(commitment) }]),
    );
    const context = isRecord(answer) && isRecord(answer.context) ? answer.context : null;
    if (typeof context?.slot === "number") slots.observe(commitment, context.slot);
    const infos = isRecord(answer) ? answer.value : null;
    if (!Array.isArray(infos) || infos.length !== chunk.length) {
      throw chainUnavailable("CHAIN_BAD_RESPONSE", {
        method: "getMultipleAccounts",
        detail: "answer does not match the keys asked",
      });
    }
    for (const [j, address] of chunk.entries()) out.set(address, accountOfAnswer(infos[j]));
  }
  return out;
}

/** One `getMultipleAccounts` of at most 100 addresses, answered at `minContextSlot` or later, with its context slot. */
async function readBalancesAt(
  rpc: RpcContext,
  addresses: readonly string[],
  minContextSlot: bigint,
): Promise<{ slot: bigint; balances: Map<string, bigint> }> {
  const { post, call, slots, commitment } = rpc;
  const unique = [...new Set(addresses)];
  if (unique.length > GET_MULTIPLE_ACCOUNTS_MAX_KEYS)
    throw new AppError("INTERNAL", "balances at a slot are read for at most 100 addresses");
  for (const address of unique) assertAddress(address);
  const seen = slots.minSlot(commitment).minContextSlot ?? 0;
  const floor = Math.max(seen, Number(minContextSlot));
  const answer = await call("getMultipleAccounts", () =>
    post("getMultipleAccounts", [unique, { encoding: "base64", commitment, minContextSlot: floor }]),
  );
  const context = isRecord(answer) && isRecord(answer.context) ? answer.context : null;
  const infos = isRecord(answer) ? answer.value : null;
  if (
    typeof context?.slot !== "number" ||
    context.slot < floor ||
    !Array.isArray(infos) ||
    infos.length !== unique.length
  )
    throw chainUnavailable("CHAIN_BAD_RESPONSE", {
      method: "getMultipleAccounts",
      detail: "answer does not match the keys and slot asked",
    });
  slots.observe(commitment, context.slot);
  const balances = new Map<string, bigint>();
  for (const [j, address] of unique.entries()) balances.set(address, accountOfAnswer(infos[j])?.lamports ?? 0n);
  return { slot: BigInt(context.slot), balances };
}

/** `getSignatureStatuses` in chunks of the RPC's maximum, each at least as new as the last answer seen. */
async function readSignatureStatuses(
  rpc: RpcContext,
  signatures: readonly string[],
  searchHistory: boolean,
): Promise<Map<string, SignatureState | null>> {
  const { connection, call, slots } = rpc;
  const out = new Map<string, SignatureState | null>();
  for (let i = 0; i < signatures.length; i += GET_SIGNATURE_STATUSES_MAX) {
    const chunk = signatures.slice(i, i + GET_SIGNATURE_STATUSES_MAX);
    const res = await call("getSignatureStatuses", () =>
      connection.getSignatureStatuses([...chunk], {
        searchTransactionHistory: searchHistory,
        ...slots.minSlot("processed"),
      } as { searchTransactionHistory: boolean }),
    );
    slots.observe("processed", res?.context?.slot);
    const values = res?.value;
    if (!Array.isArray(values) || values.length !== chunk.length) {
      throw chainUnavailable("CHAIN_BAD_RESPONSE", {
        method: "getSignatureStatuses",
        detail: "answer does not match the signatures asked",
      });
    }
    chunk.forEach((sig, j) => {
      out.set(sig, toSignatureState(values[j]));
    });
  }
  return out;
}

function rpcReader(rpc: RpcContext): ChainReader {
  const { connection, call, slots, commitment } = rpc;
  const reader: ChainReader = {
    getAccounts: (addresses) => readAccounts(rpc, addresses),
    getBalancesAt: (addresses, minContextSlot) => readBalancesAt(rpc, addresses, minContextSlot),

    async getBalances(addresses) {
      const accounts = await reader.getAccounts(addresses);
      const out = new Map<string, bigint>();
      for (const address of addresses) out.set(address, accounts.get(address)?.lamports ?? 0n);
      return out;
    },

    async getTransaction(signature) {
      const tx = await call("getTransaction", () =>
        connection.getTransaction(signature, { commitment, maxSupportedTransactionVersion: 0 }),
      );
      return tx ? toConfirmedTransaction(signature, tx) : null;
    },

    async signaturesForAddress(address, options) {
      const limit = Math.max(1, Math.min(1_000, Math.trunc(options.limit)));
      const list = await call("getSignaturesForAddress", () =>
        connection.getSignaturesForAddress(
          new PublicKey(address),
          // A node behind the others lists the history up to its own slot only: the reconciliation
          // would take that for the whole and miss the newest transactions (and pay them again).
          { limit, ...(options.before ? { before: options.before } : {}), ...slots.minSlot("confirmed") },
          "confirmed",
        ),
      );
      if (!Array.isArray(list))
        throw chainUnavailable("CHAIN_BAD_RESPONSE", { method: "getSignaturesForAddress", detail: "not a list" });
      return list.map((entry) => ({
        signature: entry.signature,
        slot: BigInt(entry.slot),
        err: entry.err ? JSON.stringify(entry.err) : null,
      }));
    },

    getSignatureStatuses: (signatures, searchHistory) => readSignatureStatuses(rpc, signatures, searchHistory),

    async getBlockHeight() {
      return BigInt(await call("getBlockHeight", () => connection.getBlockHeight(commitment)));
    },

    simulateReturnData: (instructions, payer) => simulatedReturnData(rpc, instructions, payer),

    async getLatestBlockhash() {
      const r = await call("getLatestBlockhash", () =>
        connection.getLatestBlockhashAndContext({ commitment, ...slots.minSlot(commitment) }),
      );
      slots.observe(commitment, r.context.slot);
      return {
        blockhash: r.value.blockhash,
        lastValidBlockHeight: BigInt(r.value.lastValidBlockHeight),
        slot: BigInt(r.context.slot),
      };
    },
  };
  return reader;
}

function toSignatureState(s: SignatureStatus | null | undefined): SignatureState | null {
  if (!s) return null;
  return {
    slot: BigInt(s.slot),
    err: s.err === null || s.err === undefined ? null : describeError(s.err),
    confirmationStatus: s.confirmationStatus ?? null,
    confirmations: s.confirmations ?? null,
  };
}

/** A transaction compiled against the options' lookup tables and signed by the payer and the extra signers. */
function signedTransaction(
  options: RpcChainOptions,
  instructions: readonly TransactionInstruction[],
  blockhash: string,
  payer: Keypair,
  extraSigners: readonly Keypair[],
) {
  const tx = compileTransaction({
    instructions,
    payer: payer.publicKey,
    recentBlockhash: blockhash,
    lookupTables: options.lookupTables,
  });
  const signers = new Map<string, Keypair>([[payer.publicKey.toBase58(), payer]]);
  for (const s of extraSigners) signers.set(s.publicKey.toBase58(), s);
  signTransaction(tx, [...signers.values()]);
  return tx;
}

/**
 * The instructions with the command key's memo last, a compute unit limit from a simulation (or
 * the tables), the market's priority price for the attempt, signed on the latest blockhash.
 */
async function prepareTransaction(
  rpc: RpcContext,
  reader: ChainReader,
  options: RpcChainOptions,
  given: readonly TransactionInstruction[],
  signers: { payer: Keypair; extraSigners: readonly Keypair[] },
  prepareOptions: PrepareOptions,
): Promise<PreparedTransaction> {
  const { payer, extraSigners } = signers;
  const sign = (instructions: readonly TransactionInstruction[], blockhash: string) =>
    signedTransaction(options, instructions, blockhash, payer, extraSigners);
  const { instructions: own, givenLimit } = withoutComputeBudget(given);
  // Last, so the job's own instructions keep their indexes; signed by the payer (the treasury).
  const memo = commandKeyInstruction(prepareOptions.commandKey, payer);
  const instructions = [...own, memo];
  const share = prepareOptions.share;
  const latest = await (share
    ? sharedAsk(asksOf(share).latest, share.maxAgeMs, () => reader.getLatestBlockhash())
    : reader.getLatestBlockhash());
  const { blockhash, lastValidBlockHeight } = latest;
  const floor = prepareOptions.computeUnitFloor ?? 0;
  // Simulated with the most a transaction may ask for, so what it consumes is never cut short.
  const probe = sign([...computeBudgetInstructions(MAX_COMPUTE_UNIT_LIMIT, 0n), ...instructions], blockhash);
  // The probe has the final size (a price takes the same bytes whatever it is): an oversize
  // transaction is refused before a simulation is spent on it.
  const probeWire = wireWithinLimit(probe);
  const shape = instructionShape(instructions);
  let consumed = rpc.shapeUnits.take(shape);
  if (consumed === null) {
    consumed = await simulatedUnits(rpc, probeWire);
    if (consumed !== null) rpc.shapeUnits.simulated(shape, consumed);
  }
  const computeUnitLimit =
    consumed !== null
      ? computeUnitLimitFor(consumed, floor)
      : Math.min(
          MAX_COMPUTE_UNIT_LIMIT,
          // A limit given, or the table, sizes the job's own instructions; the command key's
          // memo (whose units grow with its length) is added to either.
          Math.max(floor, (givenLimit ?? tableComputeUnits(own)) + memoComputeUnits(memo.data.length)),
        );
  const writable = writableAccountsOf(probe);
  const group = share ? groupCovering(share, writable) : null;
  const market = await (share && group !== null
    ? sharedAsk(asksOf(share).prices[group]!, share.maxAgeMs, () => marketPrice(rpc, share.groups[group]!))
    : marketPrice(rpc, writable));
  const computeUnitPriceMicroLamports = priorityPrice({
    marketMicroLamports: market,
    attempt: prepareOptions.attempt ?? 0,
    computeUnitLimit,
    settings: rpc.landing,
  });
  const tx = sign(
    [...computeBudgetInstructions(computeUnitLimit, computeUnitPriceMicroLamports), ...instructions],
    blockhash,
  );
  const unsigned = (sig: Uint8Array) => sig.every((b) => b === 0);
  if (unsigned(tx.signatures[0]!) || (!options.allowNodeCosigners && tx.signatures.some(unsigned))) {
    throw chainRejected("prepare", "a required signer is missing");
  }
  const wire = wireWithinLimit(tx);
  return {
    signature: bs58.encode(tx.signatures[0]!),
    lastValidBlockHeight,
    wire,
    sentFromSlot: latest.slot ?? 0n,
    computeUnitLimit,
    computeUnitPriceMicroLamports,
  };
}

function rpcSender(rpc: RpcContext, reader: ChainReader, options: RpcChainOptions): ChainSender {
  const { commitment } = rpc;
  return {
    prepare: (given, payer, extraSigners, prepareOptions) =>
      prepareTransaction(rpc, reader, options, given, { payer, extraSigners }, prepareOptions),

    async send(tx) {
      // The node must not retry on its own (maxRetries 0): the service rebroadcasts these exact
      // bytes itself while the blockhash is valid, to every send endpoint at once.
      const encoded = Buffer.from(tx.wire).toString("base64");
      const params = [
        encoded,
        { encoding: "base64", skipPreflight: true, maxRetries: 0, preflightCommitment: commitment },
      ];
      const results = await Promise.allSettled(
        rpc.sendTargets.map((target) => target.call("sendTransaction", () => target.post("sendTransaction", params))),
      );
      if (results.some((r) => r.status === "fulfilled")) return;
      const error = (results[0] as PromiseRejectedResult).reason;
      // The same bytes already landed or are in flight: that is the success we wanted.
      if (isChainRejected(error) && /already (been )?processed/i.test(error.context.detail)) return;
      throw error;
    },

    prefetchOutcomes: (signatures) => prefetchOutcomes(rpc, signatures),

    async outcome(signature, lastValidBlockHeight, sentFromSlot = 0n, options = {}): Promise<TransactionOutcome> {
      try {
        return await decideOutcome(rpc, signature, lastValidBlockHeight, sentFromSlot, options.blockTime ?? true);
      } catch (error) {
        // Rate limited, timed out, behind, down: nothing is known, and nothing may be decided.
        if (isChainUnavailable(error)) return { kind: "unknown", reason: error.message };
        throw error;
      }
    },
  };
}

function wireWithinLimit(tx: VersionedTransaction): Uint8Array {
  let wire: Uint8Array;
  try {
    wire = tx.serialize();
  } catch {
    // web3.js throws when the bytes overrun its buffer: certainly too large
    throw chainRejected("prepare", `transaction is over ${MAX_TRANSACTION_BYTES} bytes`);
  }
  if (wire.length > MAX_TRANSACTION_BYTES) {
    throw chainRejected("prepare", `transaction is ${wire.length} bytes, over ${MAX_TRANSACTION_BYTES}`);
  }
  return wire;
}

/** The command key's memo; a key whose text alone is over the memo bound is refused like an oversize transaction. */
function commandKeyInstruction(key: CommandKey, payer: Keypair): TransactionInstruction {
  try {
    return commandKeyMemo(key, payer.publicKey);
  } catch (error) {
    if (isAppError(error, "MEMO_SIZE_INVALID")) {
      throw chainRejected("prepare", `the command key is too long (${error.message})`);
    }
    throw error;
  }
}

/**
 * The value of a successful simulation (signatures not checked, the node's blockhash), or null
 * when it could not be simulated: the node unreachable or refusing, or the simulation failed.
 */
async function simulated(rpc: RpcContext, wire: Uint8Array): Promise<Record<string, unknown> | null> {
  try {
    const answer = await rpc.call("simulateTransaction", () =>
      rpc.post("simulateTransaction", [
        Buffer.from(wire).toString("base64"),
        { encoding: "base64", sigVerify: false, replaceRecentBlockhash: true, commitment: rpc.commitment },
      ]),
    );
    const value = isRecord(answer) && isRecord(answer.value) ? answer.value : null;
    return value && (value.err === null || value.err === undefined) ? value : null;
  } catch (error) {
    if (isChainUnavailable(error) || isChainRejected(error)) return null;
    throw error;
  }
}

/**
 * Units the transaction consumed in a simulation, or null when it could not be simulated (the
 * chain then decides, with the fallback limit).
 */
async function simulatedUnits(rpc: RpcContext, wire: Uint8Array): Promise<number | null> {
  const value = await simulated(rpc, wire);
  const units = Number(value?.unitsConsumed);
  return Number.isSafeInteger(units) && units > 0 ? units : null;
}

/** A simulation's return data (a program's view instruction), or null when there is none. */
async function simulatedReturnData(
  rpc: RpcContext,
  instructions: readonly TransactionInstruction[],
  payer: string,
): Promise<{ programId: string; data: Uint8Array } | null> {
  let wire: Uint8Array;
  try {
    // Unsigned, with any blockhash: the node replaces it (replaceRecentBlockhash).
    wire = compileTransaction({
      instructions,
      payer: new PublicKey(payer),
      recentBlockhash: PublicKey.default.toBase58(),
    }).serialize();
  } catch {
    return null;
  }
  const returned = (await simulated(rpc, wire))?.returnData;
  if (!isRecord(returned) || typeof returned.programId !== "string" || !Array.isArray(returned.data)) return null;
  const [data, encoding] = returned.data;
  if (typeof data !== "string" || encoding !== "base64") return null;
  return { programId: returned.programId, data: new Uint8Array(Buffer.from(data, "base64")) };
}

interface SharedAnswer<T> {
  atMs: number;
  answer: Promise<T>;
}

interface SharedAsks {
  /** each group's accounts (the share's `groups`, at most PRICE_GROUP_MAX_ACCOUNTS each) */
  groups: Set<string>[];
  /** the groups an account is in, for finding a transaction's */
  groupsOf: Map<string, number[]>;
  latest: { entry?: SharedAnswer<Awaited<ReturnType<ChainReader["getLatestBlockhash"]>>> };
  prices: { entry?: SharedAnswer<bigint> }[];
}
const sharedAsks = new WeakMap<PrepareShare, SharedAsks>();

function asksOf(share: PrepareShare): SharedAsks {
  let asks = sharedAsks.get(share);
  if (!asks) {
    const groups = share.groups.map((group) => new Set(group.slice(0, PRICE_GROUP_MAX_ACCOUNTS)));
    const groupsOf = new Map<string, number[]>();
    for (const [i, group] of groups.entries())
      for (const account of group) {
        const list = groupsOf.get(account) ?? [];
        list.push(i);
        groupsOf.set(account, list);
      }
    asks = { groups, groupsOf, latest: {}, prices: groups.map(() => ({})) };
    sharedAsks.set(share, asks);
  }
  return asks;
}

/** The group whose price was asked for every account this transaction writes, or null. */
function groupCovering(share: PrepareShare, writable: readonly string[]): number | null {
  const asks = asksOf(share);
  // Any account's groups will do as candidates (the payer's are all of them): the rarest first.
  let candidates: number[] | undefined;
  for (const account of writable) {
    const of = asks.groupsOf.get(account);
    if (!of) return null;
    if (!candidates || of.length < candidates.length) candidates = of;
  }
  for (const i of candidates ?? []) if (writable.every((account) => asks.groups[i]!.has(account))) return i;
  return null;
}

/**
 * One answer for the slot while it is younger than `maxAgeMs` (the first asker's; those asking
 * meanwhile wait for it). A failed ask is forgotten, so the next transaction asks again.
 */
function sharedAsk<T>(slot: { entry?: SharedAnswer<T> }, maxAgeMs: number, ask: () => Promise<T>): Promise<T> {
  const nowMs = performance.now();
  const found = slot.entry;
  if (found && nowMs - found.atMs <= maxAgeMs) return found.answer;
  const answer = ask();
  slot.entry = { atMs: nowMs, answer };
  answer.catch(() => {
    if (slot.entry?.answer === answer) delete slot.entry;
  });
  return answer;
}

/**
 * The recent market price for the accounts a transaction locks for writing, from the configured
 * estimator (landing.ts `FeeEstimator`); the floor and bounds are applied by `priorityPrice`. An
 * unreachable node gives the last price seen (or the floor): the send must not wait on an estimate.
 */
async function marketPrice(rpc: RpcContext, writable: readonly string[]): Promise<bigint> {
  if (rpc.landing.feeMaxMicroLamports <= 0n) return 0n;
  const accounts = writable.slice(0, PRICE_GROUP_MAX_ACCOUNTS);
  try {
    const price =
      rpc.landing.feeEstimator === "helius" ? await heliusEstimate(rpc, accounts) : await recentFees(rpc, accounts);
    rpc.market.lastPriceMicroLamports = price;
    return price;
  } catch (error) {
    if (isChainUnavailable(error) || isChainRejected(error)) return rpc.market.lastPriceMicroLamports;
    throw error;
  }
}

/**
 * The configured percentile over recent slots of getRecentPrioritizationFees: agave's per-slot
 * minimums, or with `triton` each slot's fee at that percentile (Triton's `percentile` option, in
 * basis points).
 */
async function recentFees(rpc: RpcContext, accounts: readonly string[]): Promise<bigint> {
  const { feeEstimator, feePercentile } = rpc.landing;
  const params: unknown[] = feeEstimator === "triton" ? [accounts, { percentile: feePercentile * 100 }] : [accounts];
  const answer = await rpc.call("getRecentPrioritizationFees", () => rpc.post("getRecentPrioritizationFees", params));
  if (!Array.isArray(answer))
    throw chainUnavailable("CHAIN_BAD_RESPONSE", { method: "getRecentPrioritizationFees", detail: "malformed answer" });
  const fees: bigint[] = [];
  for (const entry of answer) {
    const fee = isRecord(entry) ? entry.prioritizationFee : null;
    if (typeof fee === "number" && Number.isSafeInteger(fee) && fee >= 0) fees.push(BigInt(fee));
  }
  return percentileFee(fees, feePercentile);
}

/** Helius-style `getPriorityFeeEstimate` for the accounts, at the level of the configured percentile. */
async function heliusEstimate(rpc: RpcContext, accounts: readonly string[]): Promise<bigint> {
  const answer = await rpc.call("getPriorityFeeEstimate", () =>
    rpc.post("getPriorityFeeEstimate", [
      { accountKeys: accounts, options: { priorityLevel: heliusPriorityLevel(rpc.landing.feePercentile) } },
    ]),
  );
  const estimate = isRecord(answer) ? answer.priorityFeeEstimate : null;
  if (typeof estimate !== "number" || !Number.isFinite(estimate) || estimate < 0)
    throw chainUnavailable("CHAIN_BAD_RESPONSE", { method: "getPriorityFeeEstimate", detail: "malformed answer" });
  return BigInt(Math.ceil(Math.min(estimate, Number.MAX_SAFE_INTEGER)));
}

/** The accounts a compiled transaction locks for writing (its static keys; tables are not resolved). */
function writableAccountsOf(tx: ReturnType<typeof compileTransaction>): string[] {
  const keys = tx.message.staticAccountKeys;
  const out: string[] = [];
  for (let i = 0; i < keys.length; i++) if (tx.message.isAccountWritable(i)) out.push(keys[i]!.toBase58());
  return out;
}

interface StatusRead {
  statuses: { context: { slot: number }; value: unknown[] };
  /** null: the statuses were asked alone (`readStatuses`) */
  epoch: { absoluteSlot: number; blockHeight: number } | null;
  /** `minimumLedgerSlot` and `getFirstAvailableBlock` of the same node, when asked */
  floorAnswers: [() => unknown, () => unknown] | null;
}

/**
 * The signature's status and the finalized epoch (and, `withFloor`, the history floor) from one
 * node in one batch; retried while that node's status search is behind its own finalized slot.
 * Null when every attempt was.
 */
async function readStatusAndEpoch(
  rpc: RpcContext,
  signatures: readonly string[],
  withFloor: boolean,
): Promise<StatusRead | null> {
  const { call, slots, settings } = rpc;
  const { retries, backoffBaseMs, backoffMaxMs, random, sleep } = settings;
  for (let attempt = 0; attempt <= retries; attempt++) {
    const answers = await call("getSignatureStatuses", async () => {
      // The search first: a pool's rules (and the local chain's fault rules) see a status read.
      const got = await rpc.batch([
        { method: "getSignatureStatuses", params: [signatures, { searchTransactionHistory: true }] },
        { method: "getEpochInfo", params: [{ commitment: "finalized", ...slots.minSlot("finalized") }] },
        ...(withFloor
          ? [
              { method: "minimumLedgerSlot", params: [] },
              { method: "getFirstAvailableBlock", params: [] },
            ]
          : []),
      ]);
      // The epoch and the status decide; an error in either is the node's, retried as one.
      got[0]!();
      got[1]!();
      return got;
    });
    const statuses = statusesOf(answers[0]!(), signatures.length);
    const epoch = epochOf(answers[1]!());
    slots.observe("finalized", epoch.absoluteSlot);
    if (!rpc.heightReference || epoch.absoluteSlot > rpc.heightReference.slot)
      rpc.heightReference = { slot: epoch.absoluteSlot, blockHeight: epoch.blockHeight };
    // The status search must come from at least the finalized slot of the same answer.
    if (statuses.context.slot >= epoch.absoluteSlot)
      return { statuses, epoch, floorAnswers: withFloor ? [answers[2]!, answers[3]!] : null };
    if (attempt < retries) await sleep(Math.floor(Math.min(backoffMaxMs, backoffBaseMs * 2 ** attempt) * random()));
  }
  return null;
}

/**
 * The statuses alone, without the finalized epoch, once a height reference is known: the epoch
 * only decides an absent signature's expiry, and most reads are of signatures sent seconds ago,
 * which the reference proves unexpired (`heightBoundAt`). Without a reference, the whole batch.
 * A provider bills the epoch as a request of its own.
 */
async function readStatuses(rpc: RpcContext, signatures: readonly string[]): Promise<StatusRead | null> {
  if (!rpc.heightReference) return readStatusAndEpoch(rpc, signatures, false);
  const answer = await rpc.call("getSignatureStatuses", () =>
    rpc.post("getSignatureStatuses", [signatures, { searchTransactionHistory: true }]),
  );
  return { statuses: statusesOf(answer, signatures.length), epoch: null, floorAnswers: null };
}

/**
 * The most the finalized block height can be on a node whose processed slot is `slot`: the
 * reference's height plus the slots since (a block takes a slot; skipped slots only lower it).
 * At or under a transaction's lastValidBlockHeight, that node's epoch would say pending too.
 */
function heightBoundAt(rpc: RpcContext, slot: number): bigint | null {
  const reference = rpc.heightReference;
  if (!reference) return null;
  return BigInt(reference.blockHeight) + BigInt(Math.max(0, slot - reference.slot));
}

/**
 * How long a status asked ahead (`prefetchOutcomes`) may stand in for asking. It can only be older
 * than the chain, never ahead of it: a transaction it shows still landing is asked again later, and
 * an absence past expiry is asked again with the history floor, so age delays a decision and never
 * changes one.
 */
const PREFETCHED_MAX_AGE_MS = 5_000;
const PREFETCHED_MAX = 4 * GET_SIGNATURE_STATUSES_MAX;

/**
 * Several transactions' statuses from one node (with the finalized epoch in the same batch until a
 * height reference is known: `readStatuses`), kept for `outcome` to take, once each, instead of
 * asking per transaction. Nothing is kept when the node could not be asked, or when a batch with
 * the epoch answered from behind its finalized slot: `outcome` then asks itself. Statuses asked
 * alone are kept whatever the node's slot: a found status is a fact of the chain, and an absent one
 * is decided only by `outcome`'s height bound or its own read of the epoch.
 */
async function prefetchOutcomes(rpc: RpcContext, signatures: readonly string[]): Promise<void> {
  const asked = [...new Set(signatures)].slice(0, GET_SIGNATURE_STATUSES_MAX);
  if (asked.length < 2) return;
  let read: StatusRead | null;
  try {
    read = await readStatuses(rpc, asked);
  } catch (error) {
    if (isChainUnavailable(error)) return;
    throw error;
  }
  if (!read) return;
  const atMs = performance.now();
  for (const [signature, kept] of rpc.prefetched)
    if (atMs - kept.atMs > PREFETCHED_MAX_AGE_MS || rpc.prefetched.size > PREFETCHED_MAX)
      rpc.prefetched.delete(signature);
  for (const [i, signature] of asked.entries()) {
    const statuses = { context: read.statuses.context, value: [read.statuses.value[i]] };
    rpc.prefetched.set(signature, { atMs, read: { statuses, epoch: read.epoch, floorAnswers: null } });
  }
}

function takePrefetched(rpc: RpcContext, signature: string): StatusRead | null {
  const kept = rpc.prefetched.get(signature);
  if (!kept) return null;
  rpc.prefetched.delete(signature);
  return performance.now() - kept.atMs <= PREFETCHED_MAX_AGE_MS ? kept.read : null;
}

/**
 * The finalized slot and block height, the signature's status and the node's history floor, all
 * from ONE batch: one HTTP request, answered by one node of a provider's pool unless a gateway
 * fans it out. Separate answers from two nodes (one ahead, one behind; one keeping history, one
 * pruned) would otherwise read a landed transaction as absent past its expiry: replaced, paid twice.
 *
 * Absence is only a candidate for expiry when that node's history reaches back to `sentFromSlot`
 * (the slot of the blockhash the transaction was built on: it cannot have landed earlier). The
 * floor is the higher of `minimumLedgerSlot` (the node's own ledger) and `getFirstAvailableBlock`
 * (which counts a long-term store behind it): the conservative reading. A floor is no proof,
 * though: a gateway may answer the search and the floor from different nodes, and a node restarted
 * from a recent snapshot has a hole above its floor. So an absence past expiry becomes `expired`
 * only once corroborated (`corroboratedAbsence`): by the finalized blocks themselves, or by the
 * operator's archive (HISTORY_RPC_URL), which then replaces the floor check.
 */
async function decideOutcome(
  rpc: RpcContext,
  signature: string,
  lastValidBlockHeight: bigint,
  sentFromSlot: bigint,
  withBlockTime: boolean,
): Promise<TransactionOutcome> {
  const { slots } = rpc;
  let read = takePrefetched(rpc, signature) ?? (await readStatuses(rpc, [signature]));
  if (read && !read.statuses.value[0] && !read.epoch) {
    // Absent, asked without the epoch: pending while the height bound proves it unexpired (the
    // epoch could only have said the same); otherwise the epoch is asked with the status.
    slots.observe("processed", read.statuses.context.slot);
    const bound = heightBoundAt(rpc, read.statuses.context.slot);
    if (bound !== null && bound <= lastValidBlockHeight) return { kind: "pending" };
    read = await readStatusAndEpoch(rpc, [signature], false);
  }
  if (read?.epoch && !read.statuses.value[0] && BigInt(read.epoch.blockHeight) > lastValidBlockHeight) {
    if (rpc.history) return archiveOutcome(rpc, rpc.history, signature, read.epoch.absoluteSlot, withBlockTime);
    // An absence past expiry is a candidate only with the same node's history floor: asked again,
    // all four in one batch. The floor is billed only then.
    read = await readStatusAndEpoch(rpc, [signature], true);
  }
  if (!read) return { kind: "unknown", reason: "status answered by a node behind the finalized slot" };
  const { statuses, epoch, floorAnswers } = read;
  slots.observe("processed", statuses.context.slot);
  const s = statuses.value[0] as SignatureStatus | null | undefined;
  if (s) return outcomeOfStatus(rpc, signature, s, withBlockTime);
  // Absent reads without the epoch were decided or asked again above.
  if (!epoch) return { kind: "unknown", reason: "the finalized block height was not read" };
  if (BigInt(epoch.blockHeight) <= lastValidBlockHeight) return { kind: "pending" };
  const floor = floorAnswers ? historyFloor(floorAnswers[0], floorAnswers[1]) : null;
  if (floor === null) return { kind: "unknown", reason: "the node's history floor could not be read" };
  if (floor > sentFromSlot) {
    return {
      kind: "unknown",
      reason: `the node's history starts at slot ${floor}, after the transaction's blockhash (slot ${sentFromSlot}): its absence proves nothing`,
    };
  }
  return corroboratedAbsence(rpc, {
    signature,
    lastValidBlockHeight,
    sentFromSlot,
    finalizedSlot: BigInt(epoch.absoluteSlot),
  });
}

/** A status found: money moves only at finalized (Solana's exchange guide). */
async function outcomeOfStatus(
  rpc: RpcContext,
  signature: string,
  s: SignatureStatus,
  withBlockTime: boolean,
): Promise<TransactionOutcome> {
  // A confirmed block can still be dropped with its fork; until finalized the transaction is
  // landing, not landed.
  if (s.confirmationStatus !== "finalized") return { kind: "pending" };
  const slot = BigInt(s.slot);
  if (s.err !== null && s.err !== undefined) {
    return { kind: "failed", slot, error: await withBudgetExhaustion(rpc, signature, describeError(s.err)) };
  }
  let blockTime: Date | null = null;
  if (!withBlockTime) return { kind: "confirmed", slot, blockTime };
  try {
    const t = await rpc.call("getBlockTime", () => rpc.connection.getBlockTime(s.slot));
    blockTime = t === null ? null : new Date(t * 1000);
  } catch {
    // the time is informative only; the confirmation stands without it
  }
  return { kind: "confirmed", slot, blockTime };
}

/**
 * The operator's archive (HISTORY_RPC_URL) searched alone: a service with the whole ledger, whose
 * "not found" the operator vouches for. Its answer must come from at or past the finalized slot
 * that showed the expiry; a status it finds decides as any found status.
 */
async function archiveOutcome(
  rpc: RpcContext,
  archive: { post: JsonRpcPost; call: Call },
  signature: string,
  finalizedSlot: number,
  withBlockTime: boolean,
): Promise<TransactionOutcome> {
  const answer = await archive.call("getSignatureStatuses", () =>
    archive.post("getSignatureStatuses", [[signature], { searchTransactionHistory: true }]),
  );
  const statuses = statusesOf(answer, 1);
  const s = statuses.value[0] as SignatureStatus | null | undefined;
  if (s) return outcomeOfStatus(rpc, signature, s, withBlockTime);
  if (statuses.context.slot < finalizedSlot)
    return { kind: "unknown", reason: `the archive is at slot ${statuses.context.slot}, behind ${finalizedSlot}` };
  return { kind: "expired" };
}

/**
 * An absence past expiry, corroborated by the finalized blocks the transaction could have landed
 * in (absence-proof.ts): `expired` only when every one of them was read and none holds it. A
 * block that holds it means the search missed a landed transaction (a hole, a fanned-out batch):
 * unknown, and a later search finds it.
 */
async function corroboratedAbsence(
  rpc: RpcContext,
  question: Parameters<typeof proveAbsence>[0],
): Promise<TransactionOutcome> {
  const proof = await proveAbsence(question, {
    cache: rpc.scannedBlocks,
    listBlocks: (from, to) => listFinalizedBlocks(rpc, from, to),
    readBlock: (slot) => readBlockSummary(rpc, slot),
  });
  if (proof.kind === "absent") return { kind: "expired" };
  if (proof.kind === "found")
    return {
      kind: "unknown",
      reason: `block ${proof.slot} holds the transaction, which the history search did not find`,
    };
  return { kind: "unknown", reason: `its absence is not corroborated yet: ${proof.reason}` };
}

/** `getBlocks` at finalized, one request; null when the node could not answer. */
async function listFinalizedBlocks(rpc: RpcContext, from: bigint, to: bigint): Promise<bigint[] | null> {
  try {
    const answer = await rpc.call("getBlocks", () =>
      rpc.post("getBlocks", [Number(from), Number(to), { commitment: "finalized" }]),
    );
    if (!Array.isArray(answer) || !answer.every((slot) => Number.isSafeInteger(slot) && slot >= 0)) return null;
    return answer.map((slot: number) => BigInt(slot));
  } catch (error) {
    if (isChainUnavailable(error) || isChainRejected(error)) return null;
    throw error;
  }
}

/**
 * One finalized block's parent, height and signatures (no transactions, no rewards); null when the
 * node answering could not serve it (skipped or missing -32007, cleaned up -32001, not yet -32004).
 */
async function readBlockSummary(rpc: RpcContext, slot: bigint): Promise<BlockSummary | null> {
  let answer: unknown;
  try {
    answer = await rpc.call("getBlock", () =>
      rpc.post("getBlock", [
        Number(slot),
        {
          commitment: "finalized",
          encoding: "json",
          transactionDetails: "signatures",
          rewards: false,
          maxSupportedTransactionVersion: 0,
        },
      ]),
    );
  } catch (error) {
    if (isChainUnavailable(error) || isChainRejected(error)) return null;
    throw error;
  }
  if (!isRecord(answer)) return null;
  const { parentSlot, blockHeight, signatures } = answer;
  if (
    !Number.isSafeInteger(parentSlot) ||
    !Number.isSafeInteger(blockHeight) ||
    !Array.isArray(signatures) ||
    !signatures.every((sig) => typeof sig === "string")
  )
    return null;
  return summarizeBlock(slot, BigInt(parentSlot as number), BigInt(blockHeight as number), signatures);
}

/**
 * A program that runs out of compute units fails as `ProgramFailedToComplete`; only its log says
 * why ("exceeded CUs meter"). Every transaction now ends in the command key's memo, whose units
 * grow with its length, so that is where a too-low limit usually runs out: the log's words are
 * added to the error, which the journal reads to raise the job's next limit (landing.ts,
 * `exceededComputeBudget`). Unknown when the logs cannot be read now: the outcome waits.
 */
async function withBudgetExhaustion(rpc: RpcContext, signature: string, error: string): Promise<string> {
  if (!error.includes("ProgramFailedToComplete")) return error;
  const tx = await rpc.call("getTransaction", () =>
    rpc.connection.getTransaction(signature, { commitment: "finalized", maxSupportedTransactionVersion: 0 }),
  );
  const exhausted = tx?.meta?.logMessages?.find((line) => /exceeded CUs meter/i.test(line));
  return exhausted ? `${error}: ${exhausted.replace(/^Program \S+ failed: /, "")}` : error;
}

function epochOf(result: unknown): { absoluteSlot: number; blockHeight: number } {
  if (!isRecord(result))
    throw chainUnavailable("CHAIN_BAD_RESPONSE", { method: "getEpochInfo", detail: "malformed answer" });
  const { absoluteSlot, blockHeight } = result;
  if (typeof absoluteSlot !== "number" || typeof blockHeight !== "number" || !Number.isSafeInteger(blockHeight)) {
    throw chainUnavailable("CHAIN_BAD_RESPONSE", { method: "getEpochInfo", detail: "malformed answer" });
  }
  return { absoluteSlot, blockHeight };
}

function statusesOf(result: unknown, asked: number): { context: { slot: number }; value: unknown[] } {
  const context = isRecord(result) && isRecord(result.context) ? result.context : null;
  const value = isRecord(result) ? result.value : null;
  if (typeof context?.slot !== "number" || !Array.isArray(value) || value.length !== asked) {
    throw chainUnavailable("CHAIN_BAD_RESPONSE", {
      method: "getSignatureStatuses",
      detail: "answer does not match the signatures asked",
    });
  }
  return { context: { slot: context.slot }, value };
}

/** The higher of the two floors the node gave, or null when either is missing or malformed. */
function historyFloor(minimumLedgerSlot: () => unknown, firstAvailableBlock: () => unknown): bigint | null {
  try {
    const a = minimumLedgerSlot();
    const b = firstAvailableBlock();
    if (typeof a !== "number" || typeof b !== "number" || !Number.isSafeInteger(a) || !Number.isSafeInteger(b))
      return null;
    return BigInt(Math.max(a, b, 0));
  } catch {
    return null;
  }
}

function findCause(error: unknown): unknown {
  let current: unknown = error;
  // causes nest at most a few levels; the bound keeps a cyclic chain from looping
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (isAppError(current, "CHAIN_HTTP_STATUS", "CHAIN_REQUEST_TIMEOUT")) return current;
    current = current.cause;
  }
  return error;
}

function assertAddress(address: string): void {
  if (isAddress(address)) return;
  throw chainRejected("address", `not a valid address: ${String(address).slice(0, 64)}`);
}

/**
 * web3.js parses lamports as JSON numbers. Above 2^53 they would be silently rounded, so refuse
 * rather than report a wrong amount (no account the service touches holds 9M SOL).
 */
function exactLamports(method: string, lamports: number): bigint {
  if (!Number.isSafeInteger(lamports) || lamports < 0) {
    throw chainUnavailable("CHAIN_BAD_RESPONSE", { method, detail: "lamports not representable exactly" });
  }
  return BigInt(lamports);
}

function describeError(err: unknown): string {
  return typeof err === "string" ? err : JSON.stringify(err);
}

function toConfirmedTransaction(signature: string, tx: VersionedTransactionResponse): ConfirmedTransaction {
  const meta = tx.meta;
  if (!meta)
    throw chainUnavailable("CHAIN_BAD_RESPONSE", {
      method: "getTransaction",
      detail: "transaction without status meta",
    });
  const message = tx.transaction.message;
  const accountKeys = [
    ...message.staticAccountKeys.map((k) => k.toBase58()),
    ...(meta.loadedAddresses?.writable ?? []).map((k) => k.toBase58()),
    ...(meta.loadedAddresses?.readonly ?? []).map((k) => k.toBase58()),
  ];
  const keyAt = (i: number): string => {
    const k = accountKeys[i];
    if (k === undefined)
      throw chainUnavailable("CHAIN_BAD_RESPONSE", { method: "getTransaction", detail: "account index out of range" });
    return k;
  };
  const instructions: CompiledInstructionView[] = message.compiledInstructions.map((ix) => ({
    programId: keyAt(ix.programIdIndex),
    accounts: ix.accountKeyIndexes.map(keyAt),
    data: new Uint8Array(ix.data),
  }));
  const innerInstructions = (meta.innerInstructions ?? []).flatMap((group) =>
    group.instructions.map((ix) => ({
      programId: keyAt(ix.programIdIndex),
      accounts: ix.accounts.map(keyAt),
      data: bs58.decode(ix.data),
      outerIndex: group.index,
    })),
  );
  const tokenBalances = (list: typeof meta.preTokenBalances): TokenBalanceView[] | undefined =>
    list?.map((b) => ({
      accountIndex: b.accountIndex,
      mint: b.mint,
      owner: b.owner ?? null,
      amount: BigInt(b.uiTokenAmount.amount),
    }));
  return {
    signature,
    slot: BigInt(tx.slot),
    blockTime: tx.blockTime ? new Date(tx.blockTime * 1000) : null,
    err: meta.err === null || meta.err === undefined ? null : describeError(meta.err),
    feeLamports: exactLamports("getTransaction", meta.fee),
    accountKeys,
    preBalances: meta.preBalances.map((l) => exactLamports("getTransaction", l)),
    postBalances: meta.postBalances.map((l) => exactLamports("getTransaction", l)),
    instructions,
    innerInstructions,
    logMessages: meta.logMessages ?? [],
    preTokenBalances: tokenBalances(meta.preTokenBalances),
    postTokenBalances: tokenBalances(meta.postTokenBalances),
  };
}
