/**
 * rpc.ts against a provider that is a pool of nodes (a JSON-RPC fake on loopback): one node
 * ahead, one behind, rate limits. A money decision (expired, confirmed, failed) is taken only
 * from answers at least as new as what they are compared with.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import { createRpcChain, retryAfterMs } from "../../src/chain/rpc";
import { type FakeRpc, startFakeRpc } from "./support/fake-rpc";

let fake: FakeRpc;
afterEach(async () => {
  await fake?.stop();
});

function chain() {
  const sleeps: number[] = [];
  const c = createRpcChain({
    rpcUrl: fake.url,
    timeoutMs: 2_000,
    retries: 2,
    backoffBaseMs: 100,
    backoffMaxMs: 1_000,
    random: () => 0.5,
    sleep: async (ms) => void sleeps.push(ms),
  });
  return { ...c, sleeps };
}

const FINALIZED_SLOT = 5_000;
const landed = { slot: 4_990, confirmations: null, err: null, confirmationStatus: "finalized", status: { Ok: null } };

/**
 * A pool: the node ahead has finalized slot 5,000 at height 200 and knows the transaction; the node
 * behind is at slot 4,900 and does not. `behindShare` decides which node a call reaches: a node
 * asked for a context slot it has not reached answers -32016, as agave does.
 */
function pool(route: (method: string, attempt: number) => "ahead" | "behind") {
  const height = (node: "ahead" | "behind") => (node === "ahead" ? 200 : 100);
  const slot = (node: "ahead" | "behind") => (node === "ahead" ? FINALIZED_SLOT : 4_900);
  const behindMin = (params: unknown[], i: number) => {
    const min = (params[i] as { minContextSlot?: number } | undefined)?.minContextSlot;
    return typeof min === "number" && min > slot("behind");
  };
  const minNotReached = { error: { code: -32016, message: "Minimum context slot has not been reached" } };
  fake.handle("getBlockHeight", (_p, a) => ({ result: height(route("getBlockHeight", a)) }));
  fake.handle("getEpochInfo", (p, a) => {
    const node = route("getEpochInfo", a);
    if (node === "behind" && behindMin(p, 0)) return minNotReached;
    return {
      result: {
        absoluteSlot: slot(node),
        blockHeight: height(node),
        epoch: 0,
        slotIndex: 0,
        slotsInEpoch: 432_000,
        transactionCount: 0,
      },
    };
  });
  fake.handle("getSignatureStatuses", (p, a) => {
    const node = route("getSignatureStatuses", a);
    if (node === "behind" && behindMin(p, 1)) return minNotReached;
    return { result: { context: { slot: slot(node) }, value: [node === "ahead" ? landed : null] } };
  });
  fake.handle("getBlockTime", () => ({ result: 1_760_000_000 }));
}

describe("outcome against a pool of nodes", () => {
  test("a landed transaction read through a node behind is not expired (the double payout)", async () => {
    fake = startFakeRpc();
    // Heights reach the node ahead (past lastValidBlockHeight 150); statuses reach the node
    // behind first, which has not seen the block the transaction landed in.
    pool((method, attempt) => (method === "getSignatureStatuses" && attempt === 0 ? "behind" : "ahead"));
    const outcome = await chain().sender.outcome("sig", 150n);
    expect(outcome.kind).not.toBe("expired");
    expect(outcome).toEqual({ kind: "confirmed", slot: 4_990n, blockTime: new Date(1_760_000_000_000) });
    // The answer from behind was asked again: its context slot was under the finalized slot the
    // height came with (agave ignores minContextSlot on status searches, so the context decides).
    const asked = fake.requests.filter((r) => r.method === "getSignatureStatuses").map((r) => r.params[1]);
    expect(asked.length).toBe(2);
    expect(asked[0]).toEqual({ searchTransactionHistory: true });
  });

  test("every status answer from behind: unknown, never expired", async () => {
    fake = startFakeRpc();
    pool((method) => (method === "getSignatureStatuses" ? "behind" : "ahead"));
    const { sender } = chain();
    expect((await sender.outcome("sig", 150n)).kind).toBe("unknown");
  });

  test("a provider that ignores minContextSlot and answers from behind proves nothing", async () => {
    fake = startFakeRpc();
    fake.handle("getEpochInfo", () => ({
      result: {
        absoluteSlot: FINALIZED_SLOT,
        blockHeight: 200,
        epoch: 0,
        slotIndex: 0,
        slotsInEpoch: 1,
        transactionCount: 0,
      },
    }));
    fake.handle("getBlockHeight", () => ({ result: 200 }));
    fake.handle("getSignatureStatuses", () => ({ result: { context: { slot: 4_900 }, value: [null] } }));
    expect((await chain().sender.outcome("sig", 150n)).kind).not.toBe("expired");
  });

  test("a provider that ignores minContextSlot (as agave does for statuses): an answer from behind is asked again", async () => {
    fake = startFakeRpc();
    fake.handle("getEpochInfo", () => ({
      result: {
        absoluteSlot: FINALIZED_SLOT,
        blockHeight: 200,
        epoch: 0,
        slotIndex: 0,
        slotsInEpoch: 1,
        transactionCount: 0,
      },
    }));
    fake.handle("getSignatureStatuses", (_p, attempt) => ({
      result:
        attempt === 0
          ? { context: { slot: 4_900 }, value: [null] }
          : { context: { slot: FINALIZED_SLOT + 2 }, value: [landed] },
    }));
    fake.handle("getBlockTime", () => ({ result: null }));
    expect(await chain().sender.outcome("sig", 150n)).toEqual({ kind: "confirmed", slot: 4_990n, blockTime: null });
  });

  test("confirmed is still landing: money moves only at finalized", async () => {
    fake = startFakeRpc();
    const confirmed = { ...landed, confirmations: 3, confirmationStatus: "confirmed" };
    const failedConfirmed = { ...confirmed, err: { InstructionError: [0, { Custom: 1 }] }, status: { Err: {} } };
    let status: unknown = confirmed;
    fake.handle("getEpochInfo", () => ({
      result: {
        absoluteSlot: FINALIZED_SLOT,
        blockHeight: 100,
        epoch: 0,
        slotIndex: 0,
        slotsInEpoch: 1,
        transactionCount: 0,
      },
    }));
    fake.handle("getBlockHeight", () => ({ result: 100 }));
    fake.handle("getSignatureStatuses", () => ({
      result: { context: { slot: FINALIZED_SLOT + 40 }, value: [status] },
    }));
    fake.handle("getBlockTime", () => ({ result: null }));
    const { sender } = chain();
    expect(await sender.outcome("sig", 150n)).toEqual({ kind: "pending" });
    status = failedConfirmed;
    expect(await sender.outcome("sig", 150n)).toEqual({ kind: "pending" });
    status = { ...failedConfirmed, confirmationStatus: "finalized" };
    expect((await sender.outcome("sig", 150n)).kind).toBe("failed");
  });

  test("rate limited to the end: unknown, never an outcome", async () => {
    fake = startFakeRpc();
    fake.handle("getEpochInfo", () => ({ status: 429, body: "slow down" }));
    fake.handle("getBlockHeight", () => ({ status: 429, body: "slow down" }));
    fake.handle("getSignatureStatuses", () => ({ result: { context: { slot: FINALIZED_SLOT }, value: [null] } }));
    expect((await chain().sender.outcome("sig", 1n)).kind).toBe("unknown");
  });
});

describe("429 with retry-after", () => {
  test("the client waits what the provider asked before retrying", async () => {
    fake = startFakeRpc();
    fake.handle("getLatestBlockhash", (_p, attempt) =>
      attempt === 0
        ? { status: 429, body: "slow down", headers: { "retry-after": "2" } }
        : {
            result: {
              context: { slot: 10 },
              value: { blockhash: Keypair.generate().publicKey.toBase58(), lastValidBlockHeight: 160 },
            },
          },
    );
    const { reader, sleeps } = chain();
    expect((await reader.getLatestBlockhash()).lastValidBlockHeight).toBe(160n);
    // 2 s asked; the jittered backoff alone would have waited 50 ms.
    expect(sleeps).toEqual([2_000]);
  });

  test("retry-after as seconds or an HTTP date", () => {
    expect(retryAfterMs("3", 0)).toBe(3_000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(retryAfterMs("soon", 0)).toBeNull();
    expect(retryAfterMs(null, 0)).toBeNull();
  });
});

describe("monotonic reads", () => {
  test("after seeing slot N, reads ask for at least N; a node behind (-32016) is retried, not believed", async () => {
    fake = startFakeRpc();
    const key = Keypair.generate().publicKey.toBase58();
    const acc = (lamports: number) => ({
      lamports,
      owner: "11111111111111111111111111111111",
      executable: false,
      rentEpoch: 0,
      space: 0,
      data: ["", "base64"],
    });
    fake.handle("getMultipleAccounts", (params, attempt) => {
      const min = (params[1] as { minContextSlot?: number }).minContextSlot;
      if (attempt === 0) return { result: { context: { slot: 900 }, value: [acc(5_000)] } };
      // the second read reaches a node at slot 800 first: it must refuse, not answer its old state
      if (attempt === 1)
        return min !== undefined && min > 800
          ? { error: { code: -32016, message: "Minimum context slot has not been reached" } }
          : { result: { context: { slot: 800 }, value: [acc(1_000)] } };
      return { result: { context: { slot: 901 }, value: [acc(5_000)] } };
    });
    const { reader } = chain();
    expect((await reader.getBalances([key])).get(key)).toBe(5_000n);
    expect((await reader.getBalances([key])).get(key)).toBe(5_000n);
    expect((fake.requests[1]!.params[1] as { minContextSlot: number }).minContextSlot).toBe(900);
  });

  test("a status answer (processed level) does not raise the floor of confirmed reads", async () => {
    fake = startFakeRpc();
    const key = Keypair.generate().publicKey.toBase58();
    fake.handle("getSignatureStatuses", () => ({ result: { context: { slot: 1_000 }, value: [null] } }));
    fake.handle("getMultipleAccounts", () => ({ result: { context: { slot: 999 }, value: [null] } }));
    const { reader } = chain();
    await reader.getSignatureStatuses(["s"], false);
    await reader.getBalances([key]);
    expect((fake.requests[1]!.params[1] as { minContextSlot?: number }).minContextSlot).toBeUndefined();
    // ...but a later status read does not go back behind it.
    await reader.getSignatureStatuses(["s"], false);
    expect((fake.requests[2]!.params[1] as { minContextSlot?: number }).minContextSlot).toBe(1_000);
  });
});
