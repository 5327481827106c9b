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
 *   past `lastValidBlockHeight` and such a search finds nothing; a node that cannot answer (429,
 *   timeout, behind) is `unknown`, never an outcome.
 */
import {
  type AddressLookupTableAccount,
  type Commitment,
  Connection,
  type Keypair,
  type RpcResponseAndContext,
  SendTransactionError,
  type SignatureStatus,
  SolanaJSONRPCError,
  type TransactionInstruction,
  type VersionedTransactionResponse,
} from "@solana/web3.js";
import bs58 from "bs58";
import { AppError, isAppError } from "../lib/errors";
import { isAddress } from "./address";
import { chainRejected, chainUnavailable, createScrubber, isChainRejected, isChainUnavailable } from "./errors";
import { MAX_TRANSACTION_BYTES, compileTransaction } from "./packing";
import type {
  AccountSnapshot,
  ChainReader,
  ChainSender,
  CompiledInstructionView,
  ConfirmedTransaction,
  PreparedTransaction,
  SignatureState,
  TokenBalanceView,
  TransactionOutcome,
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
  /** injectable for tests */
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface RpcChain {
  reader: ChainReader;
  sender: ChainSender;
}

export const GET_MULTIPLE_ACCOUNTS_MAX_KEYS = 100;
export const GET_SIGNATURE_STATUSES_MAX = 256;

/**
 * What our fetch throws so the classification survives web3.js's wrapping (found again through
 * `cause`): an HTTP status with the provider's `retry-after`, or the request's own timeout.
 */
type TransportFailure = AppError<"CHAIN_HTTP_STATUS" | "CHAIN_REQUEST_TIMEOUT">;

function httpStatusFailure(status: number, retryAfterMs: number | null): TransportFailure {
  return new AppError("CHAIN_HTTP_STATUS", `HTTP ${status}`, { status, retryAfterMs });
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

/** fetch with the timeout covering the body too, and failures web3.js cannot blur. */
function timedFetch(transport: typeof fetch, timeoutMs: number) {
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      const res = await transport(input, { ...init, signal: controller.signal });
      // Read the body under the same timer: a provider that sends headers then stalls is a timeout too.
      const body = await res.text();
      if (!res.ok) throw httpStatusFailure(res.status, retryAfterMs(res.headers.get("retry-after"), Date.now()));
      return new Response(body, { status: res.status, headers: res.headers });
    } catch (error) {
      if (controller.signal.aborted) throw new AppError("CHAIN_REQUEST_TIMEOUT", "request timed out");
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
    return { error: chainUnavailable("CHAIN_TIMEOUT", `${method}: no answer within ${timeoutMs} ms`), transient: true };
  }
  if (isAppError(found, "CHAIN_HTTP_STATUS")) return classifyHttpStatus(method, Number(found.context.status));
  // The raw error is not kept as `cause`: its text carries the provider URL and key unscrubbed.
  const detail = scrub(error instanceof Error ? error.message : String(error)).slice(0, 300);
  if (error instanceof SolanaJSONRPCError) {
    const code = typeof error.code === "number" ? error.code : null;
    if (code !== null && TRANSIENT_RPC_CODES.has(code)) {
      return {
        error: chainUnavailable("CHAIN_PROVIDER_FAILED", `${method}: node error ${code}: ${detail}`),
        transient: true,
      };
    }
    return { error: chainRejected(`${method}: ${detail}`, code), transient: false };
  }
  if (error instanceof SendTransactionError) {
    // The node looked at the transaction and said no; the code is lost in web3.js's wrapping,
    // so only an unhealthy/behind node (retry) is told apart by its message.
    if (/behind|unhealthy|-32005/i.test(detail)) {
      return { error: chainUnavailable("CHAIN_PROVIDER_FAILED", `${method}: ${detail}`), transient: true };
    }
    return { error: chainRejected(`${method}: ${detail}`), transient: false };
  }
  if (
    /Expected|StructError|JSON|Unexpected token|invalid json|Server responded|parse/i.test(detail) &&
    !/fetch failed|ECONN|connect/i.test(detail)
  ) {
    return {
      error: chainUnavailable("CHAIN_BAD_RESPONSE", `${method}: malformed answer: ${detail}`),
      transient: true,
    };
  }
  return { error: chainUnavailable("CHAIN_PROVIDER_FAILED", `${method}: ${detail}`), transient: true };
}

function classifyHttpStatus(method: string, status: number): { error: Error; transient: boolean } {
  if (status === 429)
    return { error: chainUnavailable("CHAIN_RATE_LIMITED", `${method}: rate limited (HTTP 429)`), transient: true };
  if (status >= 500)
    return {
      error: chainUnavailable("CHAIN_PROVIDER_FAILED", `${method}: provider error (HTTP ${status})`),
      transient: true,
    };
  // 401/403/404/413 and the like: configuration or request problems a retry cannot fix
  return { error: chainRejected(`${method}: refused (HTTP ${status})`), transient: false };
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
    throw last ?? chainUnavailable("CHAIN_PROVIDER_FAILED", `${method}: not attempted`);
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
  const rpc: RpcContext = {
    connection,
    post: jsonRpcPoster(options.rpcUrl, transport, options.httpHeaders),
    call: retryingCall(settings, createScrubber(options.rpcUrl)),
    slots: new ContextSlots(),
    commitment,
    settings,
  };
  const reader = rpcReader(rpc);
  return { reader, sender: rpcSender(rpc, reader, options) };
}

interface RpcContext {
  connection: Connection;
  /** one JSON-RPC call without web3.js, for the hot reads that check their answers themselves */
  post: JsonRpcPost;
  call: Call;
  slots: ContextSlots;
  commitment: Extract<Commitment, "confirmed" | "finalized">;
  settings: RetrySettings;
}

type JsonRpcPost = (method: string, params: unknown[]) => Promise<unknown>;

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
    if (!isRecord(answer)) throw chainUnavailable("CHAIN_BAD_RESPONSE", `${method}: malformed answer`);
    if (isRecord(answer.error)) {
      const { code, message, data } = answer.error;
      throw new SolanaJSONRPCError({ code, message: String(message ?? ""), data }, `${method} failed`);
    }
    if (!("result" in answer)) throw chainUnavailable("CHAIN_BAD_RESPONSE", `${method}: malformed answer`);
    return answer.result;
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One account of a base64 `getMultipleAccounts` answer, checked field by field. */
function accountOfAnswer(value: unknown): AccountSnapshot | null {
  if (value === null) return null;
  const malformed = () => chainUnavailable("CHAIN_BAD_RESPONSE", "getMultipleAccounts: malformed account");
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

function rpcReader({ connection, post, call, slots, commitment }: RpcContext): ChainReader {
  const reader: ChainReader = {
    async getAccounts(addresses) {
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
          throw chainUnavailable("CHAIN_BAD_RESPONSE", "getMultipleAccounts: answer does not match the keys asked");
        }
        for (const [j, address] of chunk.entries()) out.set(address, accountOfAnswer(infos[j]));
      }
      return out;
    },

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

    async getSignatureStatuses(signatures, searchHistory) {
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
          throw chainUnavailable(
            "CHAIN_BAD_RESPONSE",
            "getSignatureStatuses: answer does not match the signatures asked",
          );
        }
        chunk.forEach((sig, j) => {
          out.set(sig, toSignatureState(values[j]));
        });
      }
      return out;
    },

    async getBlockHeight() {
      return BigInt(await call("getBlockHeight", () => connection.getBlockHeight(commitment)));
    },

    async getLatestBlockhash() {
      const r = await call("getLatestBlockhash", () =>
        connection.getLatestBlockhashAndContext({ commitment, ...slots.minSlot(commitment) }),
      );
      slots.observe(commitment, r.context.slot);
      return { blockhash: r.value.blockhash, lastValidBlockHeight: BigInt(r.value.lastValidBlockHeight) };
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
  };
}

function rpcSender(rpc: RpcContext, reader: ChainReader, options: RpcChainOptions): ChainSender {
  const { connection, call, commitment } = rpc;
  return {
    async prepare(instructions: readonly TransactionInstruction[], payer: Keypair, extraSigners: readonly Keypair[]) {
      const { blockhash, lastValidBlockHeight } = await reader.getLatestBlockhash();
      const tx = compileTransaction({
        instructions,
        payer: payer.publicKey,
        recentBlockhash: blockhash,
        lookupTables: options.lookupTables,
      });
      const signers = new Map<string, Keypair>([[payer.publicKey.toBase58(), payer]]);
      for (const s of extraSigners) signers.set(s.publicKey.toBase58(), s);
      tx.sign([...signers.values()]);
      const unsigned = (sig: Uint8Array) => sig.every((b) => b === 0);
      if (unsigned(tx.signatures[0]!) || (!options.allowNodeCosigners && tx.signatures.some(unsigned))) {
        throw chainRejected("prepare: a required signer is missing");
      }
      const wire = tx.serialize();
      if (wire.length > MAX_TRANSACTION_BYTES) {
        throw chainRejected(`prepare: transaction is ${wire.length} bytes, over ${MAX_TRANSACTION_BYTES}`);
      }
      return { signature: bs58.encode(tx.signatures[0]!), lastValidBlockHeight, wire };
    },

    async send(tx: PreparedTransaction) {
      try {
        await call("sendTransaction", () =>
          connection.sendRawTransaction(tx.wire, { skipPreflight: true, preflightCommitment: commitment }),
        );
      } catch (error) {
        // The same bytes already landed or are in flight: that is the success we wanted.
        if (isChainRejected(error) && /already (been )?processed/i.test(error.message)) return;
        throw error;
      }
    },

    async outcome(signature: string, lastValidBlockHeight: bigint): Promise<TransactionOutcome> {
      try {
        return await decideOutcome(rpc, signature, lastValidBlockHeight);
      } catch (error) {
        // Rate limited, timed out, behind, down: nothing is known, and nothing may be decided.
        if (isChainUnavailable(error)) return { kind: "unknown", reason: error.message };
        throw error;
      }
    },
  };
}

/**
 * The finalized slot and block height from ONE answer, then the status search from a node at or
 * past that slot. Two separate answers from two nodes of a pool (one ahead, one behind) would
 * otherwise read a landed transaction as absent past its expiry: replaced, paid twice.
 */
async function decideOutcome(
  rpc: RpcContext,
  signature: string,
  lastValidBlockHeight: bigint,
): Promise<TransactionOutcome> {
  const { connection, call, slots } = rpc;
  const epoch = await call("getEpochInfo", () =>
    connection.getEpochInfo({ commitment: "finalized", ...slots.minSlot("finalized") }),
  );
  const finalizedSlot = epoch.absoluteSlot;
  slots.observe("finalized", finalizedSlot);
  const finalizedHeight = BigInt(epoch.blockHeight ?? 0);
  const res = await statusAtOrPast(rpc, signature, finalizedSlot);
  if (!res) return { kind: "unknown", reason: "status answered by a node behind the finalized slot" };
  slots.observe("processed", res.context.slot);
  const values = res.value;
  if (!Array.isArray(values) || values.length !== 1)
    throw chainUnavailable("CHAIN_BAD_RESPONSE", "getSignatureStatuses: answer does not match the signature asked");
  const s = values[0];
  if (!s) return finalizedHeight > lastValidBlockHeight ? { kind: "expired" } : { kind: "pending" };
  // Money moves only at finalized (Solana's exchange guide): a confirmed block can still be
  // dropped with its fork; until then the transaction is landing, not landed.
  if (s.confirmationStatus !== "finalized") return { kind: "pending" };
  const slot = BigInt(s.slot);
  if (s.err !== null && s.err !== undefined) return { kind: "failed", slot, error: describeError(s.err) };
  let blockTime: Date | null = null;
  try {
    const t = await call("getBlockTime", () => connection.getBlockTime(s.slot));
    blockTime = t === null ? null : new Date(t * 1000);
  } catch {
    // the time is informative only; the confirmation stands without it
  }
  return { kind: "confirmed", slot, blockTime };
}

/**
 * The signature's status from a node at or past `finalizedSlot`, or null. agave ignores
 * minContextSlot on getSignatureStatuses (its config has searchTransactionHistory only), so the
 * answer's own context.slot is the proof; the field is still sent for nodes and providers that
 * honour it. An answer from behind proves nothing: asked again, then null (unknown).
 */
async function statusAtOrPast(
  { connection, call, settings }: RpcContext,
  signature: string,
  finalizedSlot: number,
): Promise<RpcResponseAndContext<(SignatureStatus | null)[]> | null> {
  const { retries, backoffBaseMs, backoffMaxMs, random, sleep } = settings;
  for (let attempt = 0; attempt <= retries; attempt++) {
    const answer = await call("getSignatureStatuses", () =>
      connection.getSignatureStatuses([signature], {
        searchTransactionHistory: true,
        minContextSlot: finalizedSlot,
      } as { searchTransactionHistory: boolean }),
    );
    if (typeof answer?.context?.slot === "number" && answer.context.slot >= finalizedSlot) return answer;
    if (attempt < retries) await sleep(Math.floor(Math.min(backoffMaxMs, backoffBaseMs * 2 ** attempt) * random()));
  }
  return null;
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
  throw chainRejected(`not a valid address: ${String(address).slice(0, 64)}`);
}

/**
 * web3.js parses lamports as JSON numbers. Above 2^53 they would be silently rounded, so refuse
 * rather than report a wrong amount (no account the service touches holds 9M SOL).
 */
function exactLamports(method: string, lamports: number): bigint {
  if (!Number.isSafeInteger(lamports) || lamports < 0) {
    throw chainUnavailable("CHAIN_BAD_RESPONSE", `${method}: lamports not representable exactly`);
  }
  return BigInt(lamports);
}

function describeError(err: unknown): string {
  return typeof err === "string" ? err : JSON.stringify(err);
}

function toConfirmedTransaction(signature: string, tx: VersionedTransactionResponse): ConfirmedTransaction {
  const meta = tx.meta;
  if (!meta) throw chainUnavailable("CHAIN_BAD_RESPONSE", "getTransaction: transaction without status meta");
  const message = tx.transaction.message;
  const accountKeys = [
    ...message.staticAccountKeys.map((k) => k.toBase58()),
    ...(meta.loadedAddresses?.writable ?? []).map((k) => k.toBase58()),
    ...(meta.loadedAddresses?.readonly ?? []).map((k) => k.toBase58()),
  ];
  const keyAt = (i: number): string => {
    const k = accountKeys[i];
    if (k === undefined) throw chainUnavailable("CHAIN_BAD_RESPONSE", "getTransaction: account index out of range");
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
