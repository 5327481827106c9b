/**
 * Issue 61, item 4: fees that land when the fee reports are what agave reports. The local chain's
 * `congestion` rule answers getRecentPrioritizationFees with per-slot minimums (0 for a treasury
 * and fresh wallets) while sends priced under the market are lost; the service lands anyway through
 * its documented floor, or through a provider's estimator where one is configured.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { ComputeBudgetProgram, Keypair, SystemProgram, VersionedTransaction } from "@solana/web3.js";
import { type LocalChain, startLocalChain } from "@fee-ledger/localnet";
import { DOCUMENTED_FEE_FLOOR_MICRO_LAMPORTS, type LandingSettings } from "../../src/chain/landing";
import { createRpcChain } from "../../src/chain/rpc";
import { testConfig } from "../../src/config";
import { type FakeRpc, context, startFakeRpc } from "./support/fake-rpc";

let chain: LocalChain | null = null;
let fake: FakeRpc | null = null;
afterEach(async () => {
  await chain?.stop();
  chain = null;
  await fake?.stop();
  fake = null;
});

function priceOf(wire: Uint8Array): bigint {
  const tx = VersionedTransaction.deserialize(wire);
  for (const ix of tx.message.compiledInstructions) {
    if (!tx.message.staticAccountKeys[ix.programIdIndex]!.equals(ComputeBudgetProgram.programId)) continue;
    if (ix.data[0] === 3) return Buffer.from(ix.data).readBigUInt64LE(1);
  }
  return -1n;
}

const KEY = { commandKey: { kind: "withdrawal", withdrawalId: 1 } } as const;

describe("a market the minimums do not show", () => {
  /** P = 10,000 µlamports a unit; every send under it is lost. */
  async function congestedChain(): Promise<LocalChain> {
    chain = await startLocalChain({ rpcPort: 0, grpcPort: 0, slotMs: 0 });
    chain.node.advanceSlots(5);
    chain.faults.apply({ kind: "congestion", priceMicroLamports: 10_000, dropShare: 1 });
    return chain;
  }

  async function payOnce(landing: Partial<LandingSettings>) {
    const c = chain!;
    const { sender } = createRpcChain({ rpcUrl: c.rpcUrl, timeoutMs: 5_000, retries: 0, landing });
    const wallet = Keypair.generate().publicKey;
    const prepared = await sender.prepare(
      [SystemProgram.transfer({ fromPubkey: c.treasury.publicKey, toPubkey: wallet, lamports: 5_000_000 })],
      c.treasury,
      [],
      KEY,
    );
    // Sent and rebroadcast a few times, as the service does while the blockhash is valid.
    for (let i = 0; i < 5; i++) {
      await sender.send(prepared);
      c.node.advanceSlots(1);
    }
    return { price: priceOf(prepared.wire), landed: c.node.getBalance(wallet) === 5_000_000n };
  }

  test("the service's configured price (the documented floor) lands where the estimate reads 0", async () => {
    await congestedChain();
    const landing = testConfig().landing;
    expect(landing.feeMinMicroLamports).toBe(DOCUMENTED_FEE_FLOOR_MICRO_LAMPORTS);
    expect(landing.feeEstimator).toBe("recent");
    const paid = await payOnce(landing);
    expect(paid.price).toBe(DOCUMENTED_FEE_FLOOR_MICRO_LAMPORTS);
    expect(paid.landed).toBe(true);
  });

  test("without a floor the estimate alone pays 0 and never lands", async () => {
    await congestedChain();
    const paid = await payOnce({ ...testConfig().landing, feeMinMicroLamports: 0n });
    expect(paid.price).toBe(0n);
    expect(paid.landed).toBe(false);
    expect(chain!.faults.injected.congestion).toBeGreaterThanOrEqual(5);
  });
});

describe("a provider's estimator", () => {
  function marketFake(): FakeRpc {
    fake = startFakeRpc();
    fake.handle("getLatestBlockhash", () => ({
      result: {
        context: { slot: 900 },
        value: { blockhash: Keypair.generate().publicKey.toBase58(), lastValidBlockHeight: 1_150 },
      },
    }));
    fake.handle("simulateTransaction", () =>
      context({ err: null, logs: [], accounts: null, unitsConsumed: 450, returnData: null }),
    );
    return fake;
  }
  const payer = Keypair.generate();
  const transfer = SystemProgram.transfer({
    fromPubkey: payer.publicKey,
    toPubkey: Keypair.generate().publicKey,
    lamports: 1n,
  });
  const prepareWith = (url: string, landing: Partial<LandingSettings>) =>
    createRpcChain({ rpcUrl: url, timeoutMs: 2_000, retries: 0, landing }).sender.prepare([transfer], payer, [], KEY);

  test("helius: getPriorityFeeEstimate for the written accounts at the percentile's level", async () => {
    const f = marketFake();
    f.handle("getPriorityFeeEstimate", () => ({ result: { priorityFeeEstimate: 31_250.4 } }));
    const prepared = await prepareWith(f.url, { feeEstimator: "helius", feePercentile: 75 });
    expect(priceOf(prepared.wire)).toBe(31_251n);
    const ask = f.requests.find((r) => r.method === "getPriorityFeeEstimate")!;
    const params = ask.params[0] as { accountKeys: string[]; options: { priorityLevel: string } };
    expect(params.options.priorityLevel).toBe("High");
    expect(params.accountKeys).toContain(payer.publicKey.toBase58());
    expect(f.requests.some((r) => r.method === "getRecentPrioritizationFees")).toBe(false);
    // Under the floor, the floor.
    f.handle("getPriorityFeeEstimate", () => ({ result: { priorityFeeEstimate: 5 } }));
    const floored = await prepareWith(f.url, { feeEstimator: "helius", feeMinMicroLamports: 10_000n });
    expect(priceOf(floored.wire)).toBe(10_000n);
  });

  test("triton: getRecentPrioritizationFees with the percentile option, in basis points", async () => {
    const f = marketFake();
    f.handle("getRecentPrioritizationFees", (p) => ({
      result:
        (p[1] as { percentile?: number } | undefined)?.percentile === 5_000
          ? [20_000, 30_000, 40_000].map((prioritizationFee, i) => ({ slot: 800 + i, prioritizationFee }))
          : [],
    }));
    const prepared = await prepareWith(f.url, { feeEstimator: "triton", feePercentile: 50 });
    expect(priceOf(prepared.wire)).toBe(30_000n);
  });

  test("settings: PRIORITY_FEE_ESTIMATOR and HISTORY_RPC_URL are validated", () => {
    expect(testConfig({ PRIORITY_FEE_ESTIMATOR: "helius" }).landing.feeEstimator).toBe("helius");
    expect(() => testConfig({ PRIORITY_FEE_ESTIMATOR: "cheapest" })).toThrow("PRIORITY_FEE_ESTIMATOR");
    expect(testConfig({ HISTORY_RPC_URL: "https://archive.example/key" }).landing.historyUrl).toBe(
      "https://archive.example/key",
    );
    expect(testConfig().landing.historyUrl).toBeNull();
    expect(() => testConfig({ HISTORY_RPC_URL: "not a url" })).toThrow("HISTORY_RPC_URL");
  });
});
