/**
 * Simulation of a program's view instructions (pump's `get_minimum_distributable_fee`) for readers
 * that do not simulate themselves: one JSON-RPC `simulateTransaction` to the same node, signatures
 * not checked and the node's blockhash, reading the transaction's return data. Any failure answers
 * null: what depends on a view waits for a run that can read it, it is never guessed.
 */
import { PublicKey, type TransactionInstruction } from "@solana/web3.js";
import { compileTransaction } from "./packing";
import type { ChainReader } from "./ports";

export interface SimulationOptions {
  rpcUrl: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** `reader` with `simulateReturnData` over `rpcUrl` (kept when the reader has its own). */
export function withSimulation(reader: ChainReader, options: SimulationOptions): ChainReader {
  if (reader.simulateReturnData) return reader;
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;
  return {
    getBalances: (a) => reader.getBalances(a),
    getAccounts: (a) => reader.getAccounts(a),
    getTransaction: (s) => reader.getTransaction(s),
    getSignatureStatuses: (s, h) => reader.getSignatureStatuses(s, h),
    getBlockHeight: () => reader.getBlockHeight(),
    getLatestBlockhash: () => reader.getLatestBlockhash(),
    async simulateReturnData(instructions: readonly TransactionInstruction[], payer: string) {
      try {
        const tx = compileTransaction({
          instructions: [...instructions],
          payer: new PublicKey(payer),
          // replaced by the node (replaceRecentBlockhash)
          recentBlockhash: PublicKey.default.toBase58(),
        });
        const res = await doFetch(options.rpcUrl, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "simulateTransaction",
            params: [
              Buffer.from(tx.serialize()).toString("base64"),
              { encoding: "base64", sigVerify: false, replaceRecentBlockhash: true, commitment: "confirmed" },
            ],
          }),
          signal: AbortSignal.timeout(timeoutMs),
        });
        if (!res.ok) return null;
        const body = (await res.json()) as {
          result?: { value?: { err?: unknown; returnData?: { programId?: unknown; data?: unknown } | null } };
        };
        const value = body.result?.value;
        const returned = value?.returnData;
        if (!value || (value.err !== null && value.err !== undefined) || !returned) return null;
        const [data, encoding] = Array.isArray(returned.data) ? returned.data : [];
        if (typeof returned.programId !== "string" || typeof data !== "string" || encoding !== "base64") return null;
        return { programId: returned.programId, data: new Uint8Array(Buffer.from(data, "base64")) };
      } catch {
        return null;
      }
    },
  };
}
