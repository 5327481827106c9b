/** Chain JSON-RPC through the service's `/api/rpc` proxy (the provider's key never reaches the page). */
import { apiRaw } from "./api";

let nextId = 1;

/** The node answered with a JSON-RPC error: what was asked was not done (a sent transaction was not accepted). */
export class ChainRefused extends Error {}

export async function rpc<T>(method: string, params: unknown[] = []): Promise<T> {
  const { body } = await apiRaw<{ result?: T; error?: { message?: string } }>("/api/rpc", {
    body: { jsonrpc: "2.0", id: nextId++, method, params },
  });
  if (body?.error) throw new ChainRefused(`The chain refused: ${body.error.message ?? "unknown error"}`);
  return body.result as T;
}

/** Genesis hash the embedded local chain reports (packages/localnet/src/rpc/cluster.ts). */
export const LOCAL_CHAIN_GENESIS = "LocaLChain1111111111111111111111111111111111";
