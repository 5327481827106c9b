/** withSimulation: pump's fee-sharing view read through one simulateTransaction, any failure as null. */
import { describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import { getMinimumDistributableFeeInstruction, PUMP_PROGRAM_ID } from "../../src/chain/pump/layout";
import { withSimulation } from "../../src/chain/simulate";
import { mapReader } from "./support/fixtures";

const answer = (value: unknown) =>
  (async () =>
    new Response(
      JSON.stringify({ jsonrpc: "2.0", id: 1, result: { context: { slot: 1 }, value } }),
    )) as unknown as typeof fetch;

describe("withSimulation", () => {
  const ix = getMinimumDistributableFeeInstruction(Keypair.generate().publicKey, [Keypair.generate().publicKey]);
  const payer = Keypair.generate().publicKey.toBase58();

  test("sends the transaction unsigned with the node's blockhash and returns the return data", async () => {
    let sent: { method: string; params: [string, Record<string, unknown>] } | null = null;
    const data = Buffer.alloc(17, 1);
    const reader = withSimulation(mapReader(new Map()), {
      rpcUrl: "http://node.test",
      fetch: (async (_url: string, init: RequestInit) => {
        sent = JSON.parse(String(init.body));
        return new Response(
          JSON.stringify({
            result: {
              value: {
                err: null,
                returnData: { programId: PUMP_PROGRAM_ID.toBase58(), data: [data.toString("base64"), "base64"] },
              },
            },
          }),
        );
      }) as unknown as typeof fetch,
    });
    expect(await reader.simulateReturnData!([ix], payer)).toEqual({
      programId: PUMP_PROGRAM_ID.toBase58(),
      data: new Uint8Array(data),
    });
    expect(sent!.method).toBe("simulateTransaction");
    expect(sent!.params[1]).toMatchObject({ sigVerify: false, replaceRecentBlockhash: true, encoding: "base64" });
  });

  test("a failed simulation, no return data, an HTTP error or an unreachable node: null", async () => {
    for (const f of [
      answer({ err: { InstructionError: [0, "Custom(6051)"] }, returnData: null }),
      answer({ err: null, returnData: null }),
      (async () => new Response("busy", { status: 429 })) as unknown as typeof fetch,
      (async () => {
        throw new TypeError("fetch failed");
      }) as unknown as typeof fetch,
    ]) {
      const reader = withSimulation(mapReader(new Map()), { rpcUrl: "http://node.test", fetch: f });
      expect(await reader.simulateReturnData!([ix], payer)).toBeNull();
    }
  });
});
