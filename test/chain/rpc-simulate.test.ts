/** The reader's simulateReturnData (pump's fee-sharing view): one simulateTransaction, any failure as null. */
import { afterEach, describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import { getMinimumDistributableFeeInstruction, PUMP_PROGRAM_ID } from "../../src/chain/pump/layout";
import { createRpcChain } from "../../src/chain/rpc";
import { context, type FakeRpc, startFakeRpc } from "./support/fake-rpc";

let fake: FakeRpc | null = null;
afterEach(async () => {
  await fake?.stop();
  fake = null;
});

const reader = () =>
  createRpcChain({ rpcUrl: fake!.url, timeoutMs: 2_000, retries: 1, backoffBaseMs: 1, sleep: async () => {} }).reader;

describe("simulateReturnData", () => {
  const ix = getMinimumDistributableFeeInstruction(Keypair.generate().publicKey, [Keypair.generate().publicKey]);
  const payer = Keypair.generate().publicKey.toBase58();

  test("sends the transaction unsigned with the node's blockhash and returns the return data", async () => {
    fake = startFakeRpc();
    const data = Buffer.alloc(17, 1);
    fake.handle("simulateTransaction", () =>
      context({
        err: null,
        logs: [],
        returnData: { programId: PUMP_PROGRAM_ID.toBase58(), data: [data.toString("base64"), "base64"] },
      }),
    );
    expect(await reader().simulateReturnData!([ix], payer)).toEqual({
      programId: PUMP_PROGRAM_ID.toBase58(),
      data: new Uint8Array(data),
    });
    const sent = fake.requests.find((r) => r.method === "simulateTransaction")!;
    expect(sent.params[1]).toMatchObject({ sigVerify: false, replaceRecentBlockhash: true, encoding: "base64" });
  });

  test("a failed simulation, no return data, an HTTP error or a refusal: null", async () => {
    const replies = [
      () => context({ err: { InstructionError: [0, "Custom(6051)"] }, returnData: null }),
      () => context({ err: null, returnData: null }),
      () => ({ status: 429 }),
      () => ({ error: { code: -32602, message: "invalid transaction" } }),
    ];
    for (const reply of replies) {
      fake = startFakeRpc();
      fake.handle("simulateTransaction", reply);
      expect(await reader().simulateReturnData!([ix], payer)).toBeNull();
      await fake.stop();
      fake = null;
    }
  });
});
