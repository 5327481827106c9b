/**
 * `POST /api/rpc`: the launch page's window onto the chain. It forwards a short list of JSON-RPC
 * methods to the configured provider so the provider's URL and key never reach a browser, answers
 * only this site's pages, and sends or simulates only the create or first buy of a launch prepared
 * here (rpc-guard.ts), so the key cannot be borrowed to relay anything else.
 */
import { VersionedTransaction } from "@solana/web3.js";
import bs58 from "bs58";
import type { AppContext } from "../context";
import { isOwnOrigin } from "../http/own-origin";
import { AppError } from "../lib/errors";
import { log } from "../lib/log";
import { checkedParams, checkLaunchTransaction } from "./rpc-guard";

/** What the launch page uses: which chain it is on, the wallet's balance, send/simulate, and polling the signature. */
export const ALLOWED_METHODS: ReadonlySet<string> = new Set([
  "getBalance",
  "getSignatureStatuses",
  "getGenesisHash",
  "sendTransaction",
  "simulateTransaction",
]);

/** The page funds a test wallet this way on the embedded local chain; nowhere else. */
export const LOCAL_CHAIN_ONLY_METHODS: ReadonlySet<string> = new Set(["requestAirdrop"]);

const TRANSACTION_METHODS = new Set(["sendTransaction", "simulateTransaction"]);
const MEMO_PROGRAM_ID = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr";
const RPC_PROXY_TIMEOUT_MS = 15_000;
/** A launch transaction is at most 1232 bytes; its base58 text is well under this. */
const MAX_ENCODED_TX_CHARS = 4096;

interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: string | number | null;
  method: string;
  params?: unknown[];
}

/** The provider the proxy forwards to: RPC_URL, else the embedded local chain's port. */
function upstreamUrl(ctx: AppContext): string {
  return ctx.chain?.rpcUrl ?? ctx.config.rpcUrl ?? `http://127.0.0.1:${ctx.config.localChain.rpcPort}`;
}

/**
 * This site's pages send their own origin. A request without Origin is not a browser page of this
 * site (browsers always send it on a cross-origin or POST fetch), so it is refused too.
 */
function checkOrigin(ctx: AppContext, request: Request): void {
  const origin = request.headers.get("origin");
  if (origin === null || !isOwnOrigin(origin, ctx.config)) throw new AppError("CROSS_SITE_REFUSED");
}

const providerFailed = () => new AppError("RPC_PROVIDER_FAILED");

function parseRequest(body: unknown): JsonRpcRequest {
  if (Array.isArray(body)) throw new AppError("RPC_BATCH_REFUSED");
  if (typeof body !== "object" || body === null) throw new AppError("RPC_BODY_NOT_OBJECT");
  const b = body as Record<string, unknown>;
  if (b.jsonrpc !== "2.0" || typeof b.method !== "string") throw new AppError("RPC_NOT_2_0");
  const id = b.id ?? null;
  if (id !== null && typeof id !== "string" && typeof id !== "number") throw new AppError("RPC_ID_INVALID");
  if (b.params !== undefined && !Array.isArray(b.params)) throw new AppError("RPC_PARAMS_NOT_ARRAY");
  return { jsonrpc: "2.0", id, method: b.method, params: b.params as unknown[] | undefined };
}

function decodeTransaction(params: unknown[] | undefined): VersionedTransaction {
  const encoded = params?.[0];
  const options = (params?.[1] ?? {}) as { encoding?: unknown };
  if (typeof encoded !== "string" || encoded.length > MAX_ENCODED_TX_CHARS)
    throw new AppError("RPC_TRANSACTION_MISSING");
  const encoding = options && typeof options === "object" ? (options.encoding ?? "base58") : "base58";
  let bytes: Uint8Array;
  try {
    if (encoding === "base64") bytes = new Uint8Array(Buffer.from(encoded, "base64"));
    else if (encoding === "base58") bytes = bs58.decode(encoded);
    else throw new AppError("RPC_TRANSACTION_UNDECODABLE");
    return VersionedTransaction.deserialize(bytes);
  } catch {
    throw new AppError("RPC_TRANSACTION_UNDECODABLE");
  }
}

/**
 * A launch transaction has a top-level instruction of the launch program. The local program's
 * instructions are memos signed by its event authority, which is what its `programId` names.
 * Program ids cannot come from lookup tables, so the static keys are enough.
 */
function callsLaunchProgram(tx: VersionedTransaction, programId: string, kind: "pump" | "local"): boolean {
  const keys = tx.message.staticAccountKeys.map((k) => k.toBase58());
  return tx.message.compiledInstructions.some((ix) => {
    const program = keys[ix.programIdIndex];
    if (program === programId) return true;
    return kind === "local" && program === MEMO_PROGRAM_ID && keys[ix.accountKeyIndexes[0] ?? -1] === programId;
  });
}

export async function proxyRpc(ctx: AppContext, request: Request, body: unknown): Promise<unknown> {
  checkOrigin(ctx, request);
  const rpc = parseRequest(body);
  // The embedded chain's own services name its RPC URL; a chain given from outside does not.
  const localOnly =
    LOCAL_CHAIN_ONLY_METHODS.has(rpc.method) && ctx.config.chain === "local" && ctx.chain?.rpcUrl !== undefined;
  if (!ALLOWED_METHODS.has(rpc.method) && !localOnly) throw new AppError("RPC_METHOD_UNAVAILABLE");
  rpc.params = checkedParams(rpc.method, rpc.params);
  if (TRANSACTION_METHODS.has(rpc.method)) {
    if (!ctx.chain) throw new AppError("LAUNCHES_DISABLED");
    const tx = decodeTransaction(rpc.params);
    const program = ctx.chain.launchProgram;
    if (!callsLaunchProgram(tx, program.programId, program.kind)) {
      throw new AppError("RPC_NOT_LAUNCH");
    }
    checkLaunchTransaction(ctx, tx, program);
  }

  let response: Response;
  try {
    response = await fetch(upstreamUrl(ctx), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(rpc),
      signal: AbortSignal.timeout(RPC_PROXY_TIMEOUT_MS),
    });
  } catch (error) {
    // Never the URL: it may carry the provider's key.
    log.warn("rpc proxy: provider unreachable", { method: rpc.method, reason: (error as Error)?.name ?? "error" });
    throw providerFailed();
  }
  if (!response.ok) {
    log.warn("rpc proxy: provider error", { method: rpc.method, status: response.status });
    throw providerFailed();
  }
  let answer: unknown;
  try {
    answer = await response.json();
  } catch {
    throw providerFailed();
  }
  if (typeof answer !== "object" || answer === null || Array.isArray(answer)) throw providerFailed();
  // Only the JSON-RPC fields go back: a provider may add fields naming itself.
  const a = answer as Record<string, unknown>;
  return "error" in a
    ? { jsonrpc: "2.0", id: rpc.id, error: a.error }
    : { jsonrpc: "2.0", id: rpc.id, result: a.result ?? null };
}
