/**
 * Mainnet's landing conditions on the local chain (packages/localnet/README.md "Hostile-chain rules"):
 * `congestion` (underpriced sends lost, getRecentPrioritizationFees), `prunedHistory` (nodes that
 * forgot old slots), one pool node per HTTP request (batches), and the compute-unit limit. Checked
 * over JSON-RPC HTTP, and through the in-process fetch where the transport matters.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import {
  ComputeBudgetProgram,
  type Connection,
  Keypair,
  SystemProgram,
  type TransactionInstruction,
} from "@solana/web3.js";
import bs58 from "bs58";
import type { LocalChain } from "../src/index";
import { seededRandom } from "../src/index";
import { signedTx, startTestChain } from "./helpers";

let chain: LocalChain;
let connection: Connection;

beforeEach(async () => {
  ({ chain, connection } = await startTestChain());
});
afterEach(async () => {
  await chain.stop();
});

type Json = any;

async function post(body: unknown, via: "http" | "fetch" = "http"): Promise<{ status: number; json: Json }> {
  const init = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  const res = via === "http" ? await fetch(chain.rpcUrl, init) : await chain.fetch(chain.rpcUrl, init);
  const text = await res.text();
  let json: Json = text;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, json };
}
const rpc = async (method: string, params: unknown[] = []) =>
  (await post({ jsonrpc: "2.0", id: 1, method, params })).json;
const fault = (rule: unknown) => rpc("localnet_fault", [rule]);
const injected = async () => (await rpc("localnet_faults")).result.injected;

/** A signed transfer from the treasury with optional ComputeBudget instructions in front. */
async function transferTx(budget: { priceMicroLamports?: number; unitLimit?: number } = {}) {
  const to = Keypair.generate().publicKey;
  const ixs: TransactionInstruction[] = [];
  if (budget.unitLimit !== undefined) ixs.push(ComputeBudgetProgram.setComputeUnitLimit({ units: budget.unitLimit }));
  if (budget.priceMicroLamports !== undefined)
    ixs.push(ComputeBudgetProgram.setComputeUnitPrice({ microLamports: budget.priceMicroLamports }));
  ixs.push(SystemProgram.transfer({ fromPubkey: chain.treasury.publicKey, toPubkey: to, lamports: 1_000_000 }));
  const t = await signedTx(connection, ixs, chain.treasury);
  return { ...t, to, wire: Buffer.from(t.tx.serialize()).toString("base64") };
}
const send = (wire: string, skipPreflight = true) =>
  rpc("sendTransaction", [wire, { encoding: "base64", skipPreflight }]);
const historyStatus = async (signature: string) =>
  (await rpc("getSignatureStatuses", [[signature], { searchTransactionHistory: true }])).result.value[0];

describe("congestion", () => {
  test("dropShare 1: an underpriced send is answered but never lands, even rebroadcast; one paying the price lands", async () => {
    expect((await fault({ kind: "congestion", priceMicroLamports: 10_000, dropShare: 1 })).result.ok).toBe(true);
    const cheap = await transferTx({ priceMicroLamports: 9_999 });
    const none = await transferTx();
    for (let i = 0; i < 3; i++) {
      expect((await send(cheap.wire)).result).toBe(cheap.signature);
      expect((await send(none.wire, false)).result).toBe(none.signature);
      chain.node.advanceSlots(1);
    }
    expect(await historyStatus(cheap.signature)).toBeNull();
    expect(await historyStatus(none.signature)).toBeNull();
    expect(await connection.getBalance(cheap.to)).toBe(0);

    const paying = await transferTx({ priceMicroLamports: 10_000 });
    expect((await send(paying.wire)).result).toBe(paying.signature);
    chain.node.advanceSlots(1);
    expect((await historyStatus(paying.signature)).confirmationStatus).toBe("confirmed");
    expect((await injected()).congestion).toBe(6);

    // once the market calms down, the same bytes land
    await fault({ kind: "clear" });
    await send(cheap.wire);
    chain.node.advanceSlots(1);
    expect((await historyStatus(cheap.signature)).err).toBeNull();
  });

  test("a share of underpriced sends is dropped, drawn from the fault seed; rebroadcasting draws again", async () => {
    chain.faults.apply({ kind: "congestion", priceMicroLamports: 1_000, dropShare: 0.5 });
    // Nothing else draws here, so the drops follow the seeded generator of faultSeed 1 exactly.
    const draws = seededRandom(1);
    const txs = [];
    for (let i = 0; i < 30; i++) txs.push(await transferTx({ priceMicroLamports: 1 }));
    const expectedDropped: boolean[] = [];
    for (const t of txs) {
      await send(t.wire);
      expectedDropped.push(draws() < 0.5);
    }
    chain.node.advanceSlots(1);
    const dropped: boolean[] = [];
    for (const t of txs) dropped.push((await historyStatus(t.signature)) === null);
    expect(dropped).toEqual(expectedDropped);
    const count = dropped.filter(Boolean).length;
    expect(count).toBeGreaterThan(5);
    expect(count).toBeLessThan(25);
    expect(chain.faults.injected.congestion).toBe(count);

    // Rebroadcasting the lost ones until they land: each attempt is a fresh draw.
    const lost = txs.filter((_, i) => dropped[i]);
    for (let round = 0; round < 20; round++) {
      for (const t of lost) await send(t.wire);
      chain.node.advanceSlots(1);
    }
    for (const t of lost) expect(await historyStatus(t.signature)).not.toBeNull();
  });

  test("getRecentPrioritizationFees: 150 closed slots, oldest first; per-slot minimums, so 0 under congestion for accounts nobody else writes", async () => {
    chain.node.advanceSlots(10);
    const slot = Number(chain.node.getSlot());
    const quiet = await rpc("getRecentPrioritizationFees", []);
    expect(quiet.result).toHaveLength(150);
    expect(quiet.result[0].slot).toBe(slot - 150);
    expect(quiet.result[149].slot).toBe(slot - 1);
    expect(quiet.result.every((e: Json) => e.prioritizationFee === 0)).toBe(true);

    await fault({ kind: "congestion", priceMicroLamports: 1_001, dropShare: 0 });
    // a second rule replaces the first
    await fault({ kind: "congestion", priceMicroLamports: 20_001, dropShare: 0.25 });
    expect((await rpc("localnet_faults")).result.rules).toEqual([
      { kind: "congestion", priceMicroLamports: 20_001, dropShare: 0.25 },
    ]);
    // The market pays P, yet no minimum shows it: every block also holds transactions paying
    // nothing, and nobody else writes the treasury (agave reports minimums: issue 61, item 4).
    const fees = await connection.getRecentPrioritizationFees({
      lockedWritableAccounts: [chain.treasury.publicKey],
    });
    expect(fees).toHaveLength(150);
    expect(fees.every((f) => f.prioritizationFee === 0)).toBe(true);

    // The treasury's own landed transaction is the one writer of it in its slot: its price shows
    // there for the treasury, not in the block's minimum.
    const paying = await transferTx({ priceMicroLamports: 25_000 });
    await send(paying.wire);
    const landedSlot = Number(chain.node.getSlot());
    chain.node.advanceSlots(1);
    const forTreasury = await rpc("getRecentPrioritizationFees", [[chain.treasury.publicKey.toBase58()]]);
    const forNobody = await rpc("getRecentPrioritizationFees", []);
    const at = (list: Json[]) => list.find((e: Json) => e.slot === landedSlot).prioritizationFee;
    expect(at(forTreasury.result)).toBe(25_000);
    expect(at(forNobody.result)).toBe(0);
    expect(forTreasury.result.filter((e: Json) => e.prioritizationFee > 0)).toHaveLength(1);
    // Without congestion the same block's minimum is that transaction's price.
    await fault({ kind: "clear" });
    expect(at((await rpc("getRecentPrioritizationFees", [])).result)).toBe(25_000);

    const tooMany = Array.from({ length: 129 }, () => Keypair.generate().publicKey.toBase58());
    const refused = await rpc("getRecentPrioritizationFees", [tooMany]);
    expect(refused.error).toEqual({ code: -32602, message: "Too many inputs provided; max 128" });
    expect((await rpc("getRecentPrioritizationFees", [["not-an-address"]])).error.code).toBe(-32602);
    expect((await rpc("getRecentPrioritizationFees", [tooMany.slice(0, 128)])).result).toHaveLength(150);
    expect((await rpc("localnet_faults")).result.rules).toEqual([]);
  });
});

describe("prunedHistory", () => {
  test("share 1: an old transaction is gone from history searches, the floor is F; newer ones are kept", async () => {
    // the chain's first block: its history starts there, as a validator started from a snapshot
    const chainStart = Number(chain.node.firstBlockSlot());
    expect(await connection.getMinimumLedgerSlot()).toBe(chainStart);
    expect(await connection.getFirstAvailableBlock()).toBe(chainStart);
    const old = await transferTx();
    await send(old.wire);
    chain.node.advanceSlots(40);
    const firstSlot = Number(chain.node.getSlot());
    const recent = await transferTx();
    await send(recent.wire);
    chain.node.advanceSlots(40);
    expect((await historyStatus(old.signature)).confirmationStatus).toBe("finalized");

    await fault({ kind: "prunedHistory", firstSlot });
    expect((await rpc("localnet_faults")).result.rules).toEqual([{ kind: "prunedHistory", firstSlot, share: 1 }]);
    expect(await connection.getMinimumLedgerSlot()).toBe(firstSlot);
    expect(await connection.getFirstAvailableBlock()).toBe(firstSlot);
    const both = await connection.getSignatureStatuses([old.signature, recent.signature], {
      searchTransactionHistory: true,
    });
    expect(both.value[0]).toBeNull();
    expect(both.value[1]?.confirmationStatus).toBe("finalized");
    // the status cache of a pruned node lacks it too
    expect((await connection.getSignatureStatuses([old.signature])).value[0]).toBeNull();
    expect(await connection.getTransaction(old.signature, { maxSupportedTransactionVersion: 0 })).toBeNull();
    expect(await connection.getTransaction(recent.signature, { maxSupportedTransactionVersion: 0 })).not.toBeNull();
    const sigs = await connection.getSignaturesForAddress(chain.treasury.publicKey);
    expect(sigs.map((s) => s.signature)).toContain(recent.signature);
    expect(sigs.map((s) => s.signature)).not.toContain(old.signature);
    // 2 floors + 2 statuses + getTransaction + getSignaturesForAddress
    expect((await injected()).prunedHistory).toBe(6);

    await fault({ kind: "clear" });
    expect(await connection.getMinimumLedgerSlot()).toBe(chainStart);
    expect((await historyStatus(old.signature)).confirmationStatus).toBe("finalized");
  });

  test("rule params are validated", async () => {
    for (const bad of [
      { kind: "prunedHistory" },
      { kind: "prunedHistory", firstSlot: -1 },
      { kind: "prunedHistory", firstSlot: 1.5 },
      { kind: "prunedHistory", firstSlot: 10, share: 1.5 },
      { kind: "prunedHistory", firstSlot: 10, share: "1" },
      { kind: "congestion", priceMicroLamports: 0, dropShare: 0.5 },
      { kind: "congestion", priceMicroLamports: 10_000_001, dropShare: 0.5 },
      { kind: "congestion", priceMicroLamports: 1.5, dropShare: 0.5 },
      { kind: "congestion", priceMicroLamports: 100 },
      { kind: "congestion", priceMicroLamports: 100, dropShare: -0.1 },
      { kind: "congestion", priceMicroLamports: 100, dropShare: 2 },
    ]) {
      const r = await fault(bad);
      expect(r.error?.code).toBe(-32602);
    }
    expect((await rpc("localnet_faults")).result.rules).toEqual([]);
    expect(() => chain.faults.apply({ kind: "congestion", priceMicroLamports: 0, dropShare: 1 })).toThrow(
      "priceMicroLamports",
    );
    expect((await rpc("minimumLedgerSlot")).result).toBe(Number(chain.node.firstBlockSlot()));
    expect((await rpc("getFirstAvailableBlock")).result).toBe(Number(chain.node.firstBlockSlot()));
  });
});

describe("one node per HTTP request", () => {
  const batchOf = (signature: string) => [
    { jsonrpc: "2.0", id: 1, method: "getEpochInfo", params: [{ commitment: "processed" }] },
    {
      jsonrpc: "2.0",
      id: 2,
      method: "getSignatureStatuses",
      params: [[signature], { searchTransactionHistory: true }],
    },
    { jsonrpc: "2.0", id: 3, method: "minimumLedgerSlot", params: [] },
    { jsonrpc: "2.0", id: 4, method: "getFirstAvailableBlock", params: [] },
  ];

  for (const via of ["http", "fetch"] as const) {
    test(`a batch is answered by one node (${via}): its history floor and its history search agree`, async () => {
      const old = await transferTx();
      await send(old.wire);
      chain.node.advanceSlots(10);
      const firstSlot = Number(chain.node.getSlot());
      chain.faults.apply({ kind: "prunedHistory", firstSlot, share: 0.5 });
      let prunedAnswers = 0;
      for (let i = 0; i < 40; i++) {
        const { status, json } = await post(batchOf(old.signature), via);
        expect(status).toBe(200);
        expect(json.map((a: Json) => a.id)).toEqual([1, 2, 3, 4]);
        const [epoch, statuses, minimum, first] = json.map((a: Json) => a.result);
        expect(epoch.absoluteSlot).toBe(firstSlot);
        expect(minimum).toBe(first);
        if (first === firstSlot) {
          prunedAnswers++;
          expect(statuses.value[0]).toBeNull();
        } else {
          expect(first).toBe(Number(chain.node.firstBlockSlot()));
          expect(statuses.value[0].slot).toBeLessThan(firstSlot);
        }
      }
      expect(prunedAnswers).toBeGreaterThan(5);
      expect(prunedAnswers).toBeLessThan(35);
    });
  }

  test("a lag rule lags every call of a batch or none; single calls draw as before batches, one draw per call", async () => {
    chain.node.advanceSlots(20);
    chain.faults.apply({ kind: "lag", slots: 7, share: 0.5, methods: ["getSlot", "getBlockHeight"] });
    const draws = seededRandom(1);
    for (let i = 0; i < 30; i++) {
      const slot = Number(chain.node.getSlot());
      const single = (await rpc("getSlot", [{ commitment: "processed" }])).result;
      expect(single).toBe(draws() < 0.5 ? slot - 7 : slot);
      const { json } = await post([
        { jsonrpc: "2.0", id: 1, method: "getSlot", params: [{ commitment: "processed" }] },
        { jsonrpc: "2.0", id: 2, method: "getBlockHeight", params: [{ commitment: "processed" }] },
        {
          jsonrpc: "2.0",
          id: 3,
          method: "getBalance",
          params: [chain.treasury.publicKey.toBase58(), { commitment: "processed" }],
        },
      ]);
      const lagged = draws() < 0.5;
      expect(json[0].result).toBe(lagged ? slot - 7 : slot);
      expect(json[1].result).toBe(Number(chain.node.getBlockHeight()) - (lagged ? 7 : 0));
      // a method the rule does not name is answered by the same node, behind with the rest
      expect(json[2].result.context.slot).toBe(lagged ? slot - 7 : slot);
    }
  });

  test("an rpcError rule takes a batch by its first call's method", async () => {
    chain.faults.apply({ kind: "rpcError", method: "getSlot", count: 1, as: "503" });
    const later = await post([
      { jsonrpc: "2.0", id: 1, method: "getEpochInfo", params: [] },
      { jsonrpc: "2.0", id: 2, method: "getSlot", params: [] },
    ]);
    expect(later.status).toBe(200);
    const first = await post([
      { jsonrpc: "2.0", id: 1, method: "getSlot", params: [] },
      { jsonrpc: "2.0", id: 2, method: "getEpochInfo", params: [] },
    ]);
    expect(first.status).toBe(503);
  });
});

describe("compute units", () => {
  test("a limit below what the transaction consumes fails on chain with ComputationalBudgetExceeded, fee charged", async () => {
    const before = BigInt(await connection.getBalance(chain.treasury.publicKey));
    const t = await transferTx({ unitLimit: 200 });
    expect((await send(t.wire)).result).toBe(t.signature);
    chain.node.advanceSlots(1);
    const expectedErr = { InstructionError: [1, "ComputationalBudgetExceeded"] };
    const st = await historyStatus(t.signature);
    expect(st.err).toEqual(expectedErr);
    expect(JSON.stringify(st.err)).toContain("ComputationalBudgetExceeded");
    const read = await connection.getTransaction(t.signature, {
      maxSupportedTransactionVersion: 0,
      commitment: "confirmed",
    });
    expect(read?.meta?.err).toEqual(expectedErr);
    expect(read?.meta?.computeUnitsConsumed).toBe(200);
    expect(read?.meta?.fee).toBe(5000);
    expect(await connection.getBalance(t.to)).toBe(0);
    expect(BigInt(await connection.getBalance(chain.treasury.publicKey))).toBe(before - 5000n);

    // with preflight, the same transaction is refused as a simulation failure
    const refused = await send((await transferTx({ unitLimit: 200 })).wire, false);
    expect(refused.error.code).toBe(-32002);
    expect(refused.error.data.err).toEqual(expectedErr);
  });

  test("a limit above 1,400,000 units is refused with preflight and never lands without", async () => {
    const t = await transferTx({ unitLimit: 1_400_001 });
    const refused = await send(t.wire, false);
    expect(refused.error).toEqual({ code: -32602, message: "invalid transaction: compute unit limit above 1400000" });
    expect((await send(t.wire, true)).result).toBe(t.signature);
    chain.node.advanceSlots(1);
    expect(await historyStatus(t.signature)).toBeNull();
    expect(await connection.getBalance(t.to)).toBe(0);
    // exactly the maximum is fine
    const max = await transferTx({ unitLimit: 1_400_000 });
    expect((await send(max.wire, false)).result).toBe(max.signature);
    chain.node.advanceSlots(1);
    expect((await historyStatus(max.signature)).err).toBeNull();
  });

  test("simulateTransaction answers unitsConsumed with and without compute budget instructions", async () => {
    const simulate = async (t: Awaited<ReturnType<typeof transferTx>>) =>
      (
        await rpc("simulateTransaction", [
          t.wire,
          { encoding: "base64", sigVerify: false, replaceRecentBlockhash: true, commitment: "confirmed" },
        ])
      ).result.value;
    const plain = await simulate(await transferTx());
    expect(plain.err).toBeNull();
    expect(plain.unitsConsumed).toBeGreaterThan(0);
    const budgeted = await simulate(await transferTx({ unitLimit: 10_000, priceMicroLamports: 5 }));
    expect(budgeted.err).toBeNull();
    // each ComputeBudget instruction costs what a builtin costs
    expect(budgeted.unitsConsumed).toBeGreaterThan(plain.unitsConsumed);
    const starved = await simulate(await transferTx({ unitLimit: 200 }));
    expect(starved.err).toEqual({ InstructionError: [1, "ComputationalBudgetExceeded"] });
    expect(starved.unitsConsumed).toBe(200);
    // web3.js reads the same figure
    const viaWeb3 = await connection.simulateTransaction((await transferTx()).tx, {
      sigVerify: false,
      replaceRecentBlockhash: true,
    });
    expect(viaWeb3.value.unitsConsumed).toBe(plain.unitsConsumed);
    expect(bs58.decode(plain.replacementBlockhash.blockhash)).toHaveLength(32);
  });
});
