/**
 * ChainReader and ChainSender over a web3.js `Connection`: one implementation for mainnet/devnet
 * providers and for the local node, which speaks the same JSON-RPC.
 *
 *   const { reader, sender } = createRpcChain({ rpcUrl, timeoutMs: 10_000, retries: 3 });
 *
 * - Every call has a timeout (`timeoutMs`, body included) and up to `retries` further attempts on
 *   transient failures (timeouts, 429, 5xx, refused connections, malformed answers, node-behind
 *   errors), with exponential backoff and full jitter. Failures surface as the typed errors of
 *   errors.ts with the provider URL and any key scrubbed out; web3.js's own 429 loop (which logs)
 *   is disabled.
 * - `getAccounts`/`getBalances` batch `getMultipleAccounts` at 100 keys a call and deduplicate.
 * - `prepare` signs without sending, so the signature (the fee payer's, always first) is saved
 *   first; `send` only ever sends those exact bytes; `outcome` reports `expired` only when the finalized block height is past
 *   `lastValidBlockHeight` and a history search still finds nothing.
 */
import {
  type AddressLookupTableAccount,
  type Commitment,
  Connection,
  type Keypair,
  PublicKey,
  SendTransactionError,
  SolanaJSONRPCError,
  type TransactionInstruction,
  type VersionedTransactionResponse,
} from "@solana/web3.js";
import bs58 from "bs58";
import {
  ChainBadResponseError,
  ChainProviderError,
  ChainRateLimitedError,
  ChainRejectedError,
  ChainTimeoutError,
  ChainUnavailableError,
  createScrubber,
} from "./errors";
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

/** Thrown inside our fetch so the classification survives web3.js's wrapping. */
class HttpStatusFailure extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}
class RequestTimeout extends Error {}

// Node-side conditions that clear by themselves (node behind, slot skipped, context slot not reached).
const TRANSIENT_RPC_CODES = new Set([-32004, -32005, -32007, -32009, -32014, -32016, -32603]);

export function createRpcChain(options: RpcChainOptions): RpcChain {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const retries = Math.max(0, Math.min(options.retries ?? 3, 10));
  const backoffBaseMs = options.backoffBaseMs ?? 250;
  const backoffMaxMs = options.backoffMaxMs ?? 5_000;
  const commitment = options.commitment ?? "confirmed";
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const scrub = createScrubber(options.rpcUrl);

  const timedFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      const res = await fetch(input, { ...init, signal: controller.signal });
      // Read the body under the same timer: a provider that sends headers then stalls is a timeout too.
      const body = await res.text();
      if (!res.ok) throw new HttpStatusFailure(res.status);
      return new Response(body, { status: res.status, headers: res.headers });
    } catch (error) {
      if (controller.signal.aborted) throw new RequestTimeout();
      throw error;
    } finally {
      clearTimeout(timer);
    }
  };

  const connection = new Connection(options.rpcUrl, {
    commitment,
    fetch: timedFetch as typeof fetch,
    disableRetryOnRateLimit: true,
    httpHeaders: options.httpHeaders,
    httpAgent: false,
  });

  const classify = (method: string, error: unknown): { error: Error; transient: boolean } => {
    if (error instanceof ChainUnavailableError || error instanceof ChainRejectedError) {
      return { error, transient: error instanceof ChainUnavailableError };
    }
    const found = findCause(error);
    if (found instanceof RequestTimeout) {
      return { error: new ChainTimeoutError(`${method}: no answer within ${timeoutMs} ms`), transient: true };
    }
    if (found instanceof HttpStatusFailure) {
      if (found.status === 429) return { error: new ChainRateLimitedError(`${method}: rate limited (HTTP 429)`), transient: true };
      if (found.status >= 500) return { error: new ChainProviderError(`${method}: provider error (HTTP ${found.status})`), transient: true };
      // 401/403/404/413 and the like: configuration or request problems a retry cannot fix
      return { error: new ChainRejectedError(`${method}: refused (HTTP ${found.status})`), transient: false };
    }
    const detail = scrub(error instanceof Error ? error.message : String(error)).slice(0, 300);
    if (error instanceof SolanaJSONRPCError) {
      const code = typeof error.code === "number" ? error.code : null;
      if (code !== null && TRANSIENT_RPC_CODES.has(code)) {
        return { error: new ChainProviderError(`${method}: node error ${code}: ${detail}`), transient: true };
      }
      return { error: new ChainRejectedError(`${method}: ${detail}`, code), transient: false };
    }
    if (error instanceof SendTransactionError) {
      // The node looked at the transaction and said no; the code is lost in web3.js's wrapping,
      // so only an unhealthy/behind node (retry) is told apart by its message.
      if (/behind|unhealthy|-32005/i.test(detail)) {
        return { error: new ChainProviderError(`${method}: ${detail}`), transient: true };
      }
      return { error: new ChainRejectedError(`${method}: ${detail}`), transient: false };
    }
    if (/Expected|StructError|JSON|Unexpected token|invalid json|Server responded|parse/i.test(detail) && !/fetch failed|ECONN|connect/i.test(detail)) {
      return { error: new ChainBadResponseError(`${method}: malformed answer: ${detail}`), transient: true };
    }
    return { error: new ChainProviderError(`${method}: ${detail}`), transient: true };
  };

  /** Runs one RPC call with bounded retries; the loop ends after 1 + retries attempts. */
  const call = async <T>(method: string, fn: () => Promise<T>): Promise<T> => {
    let last: Error = new ChainProviderError(`${method}: not attempted`);
    for (let attempt = 0; attempt <= retries; attempt++) {
      try {
        return await fn();
      } catch (raw) {
        const { error, transient } = classify(method, raw);
        last = error;
        if (!transient || attempt === retries) break;
        const ceiling = Math.min(backoffMaxMs, backoffBaseMs * 2 ** attempt);
        await sleep(Math.floor(ceiling * random()));
      }
    }
    throw last;
  };

  const toSnapshot = (method: string, info: { lamports: number; owner: PublicKey; executable: boolean; data: Buffer }): AccountSnapshot => ({
    lamports: exactLamports(method, info.lamports),
    owner: info.owner.toBase58(),
    executable: info.executable,
    data: new Uint8Array(info.data),
  });

  const reader: ChainReader = {
    async getAccounts(addresses) {
      const unique = [...new Set(addresses)];
      const out = new Map<string, AccountSnapshot | null>();
      for (let i = 0; i < unique.length; i += GET_MULTIPLE_ACCOUNTS_MAX_KEYS) {
        const chunk = unique.slice(i, i + GET_MULTIPLE_ACCOUNTS_MAX_KEYS);
        const keys = chunk.map(toPublicKey);
        const infos = await call("getMultipleAccounts", () => connection.getMultipleAccountsInfo(keys, { commitment }));
        if (!Array.isArray(infos) || infos.length !== chunk.length) {
          throw new ChainBadResponseError("getMultipleAccounts: answer does not match the keys asked");
        }
        chunk.forEach((address, j) => {
          const info = infos[j];
          out.set(address, info ? toSnapshot("getMultipleAccounts", info) : null);
        });
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
          connection.getSignatureStatuses([...chunk], { searchTransactionHistory: searchHistory }),
        );
        const values = res?.value;
        if (!Array.isArray(values) || values.length !== chunk.length) {
          throw new ChainBadResponseError("getSignatureStatuses: answer does not match the signatures asked");
        }
        chunk.forEach((sig, j) => {
          const s = values[j];
          out.set(
            sig,
            s
              ? {
                  slot: BigInt(s.slot),
                  err: s.err === null || s.err === undefined ? null : describeError(s.err),
                  confirmationStatus: s.confirmationStatus ?? null,
                }
              : null,
          );
        });
      }
      return out;
    },

    async getBlockHeight() {
      return BigInt(await call("getBlockHeight", () => connection.getBlockHeight(commitment)));
    },

    async getLatestBlockhash() {
      const r = await call("getLatestBlockhash", () => connection.getLatestBlockhash(commitment));
      return { blockhash: r.blockhash, lastValidBlockHeight: BigInt(r.lastValidBlockHeight) };
    },
  };

  const sender: ChainSender = {
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
        throw new ChainRejectedError("prepare: a required signer is missing");
      }
      const wire = tx.serialize();
      if (wire.length > MAX_TRANSACTION_BYTES) {
        throw new ChainRejectedError(`prepare: transaction is ${wire.length} bytes, over ${MAX_TRANSACTION_BYTES}`);
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
        if (error instanceof ChainRejectedError && /already (been )?processed/i.test(error.message)) return;
        throw error;
      }
    },

    async outcome(signature: string, lastValidBlockHeight: bigint): Promise<TransactionOutcome> {
      // Height first, then status: if the status search after it finds nothing while the finalized
      // chain is already past lastValidBlockHeight, no block that could hold the transaction remains.
      const finalizedHeight = BigInt(await call("getBlockHeight", () => connection.getBlockHeight("finalized")));
      const statuses = await reader.getSignatureStatuses([signature], true);
      const status = statuses.get(signature) ?? null;
      if (status) {
        if (status.confirmationStatus === "confirmed" || status.confirmationStatus === "finalized") {
          if (status.err !== null) return { kind: "failed", slot: status.slot, error: status.err };
          let blockTime: Date | null = null;
          try {
            const t = await call("getBlockTime", () => connection.getBlockTime(Number(status.slot)));
            blockTime = t === null ? null : new Date(t * 1000);
          } catch {
            // the time is informative only; the confirmation stands without it
          }
          return { kind: "confirmed", slot: status.slot, blockTime };
        }
        return { kind: "pending" };
      }
      return finalizedHeight > lastValidBlockHeight ? { kind: "expired" } : { kind: "pending" };
    },
  };

  return { reader, sender };
}

function findCause(error: unknown): unknown {
  let current: unknown = error;
  // causes nest at most a few levels; the bound keeps a cyclic chain from looping
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof RequestTimeout || current instanceof HttpStatusFailure) return current;
    current = (current as Error & { cause?: unknown }).cause;
  }
  return error;
}

function toPublicKey(address: string): PublicKey {
  try {
    return new PublicKey(address);
  } catch {
    throw new ChainRejectedError(`not a valid address: ${address.slice(0, 64)}`);
  }
}

/**
 * web3.js parses lamports as JSON numbers. Above 2^53 they would be silently rounded, so refuse
 * rather than report a wrong amount (no account the service touches holds 9M SOL).
 */
function exactLamports(method: string, lamports: number): bigint {
  if (!Number.isSafeInteger(lamports) || lamports < 0) {
    throw new ChainBadResponseError(`${method}: lamports not representable exactly`);
  }
  return BigInt(lamports);
}

function describeError(err: unknown): string {
  return typeof err === "string" ? err : JSON.stringify(err);
}

function toConfirmedTransaction(signature: string, tx: VersionedTransactionResponse): ConfirmedTransaction {
  const meta = tx.meta;
  if (!meta) throw new ChainBadResponseError("getTransaction: transaction without status meta");
  const message = tx.transaction.message;
  const accountKeys = [
    ...message.staticAccountKeys.map((k) => k.toBase58()),
    ...(meta.loadedAddresses?.writable ?? []).map((k) => k.toBase58()),
    ...(meta.loadedAddresses?.readonly ?? []).map((k) => k.toBase58()),
  ];
  const keyAt = (i: number): string => {
    const k = accountKeys[i];
    if (k === undefined) throw new ChainBadResponseError("getTransaction: account index out of range");
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
