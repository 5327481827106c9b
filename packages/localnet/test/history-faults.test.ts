/**
 * The `historyHole` and `batchFanOut` rules (README "Hostile-chain rules"): a node restarted from a
 * recent snapshot, whose ledger lacks slots above its floor, answered as agave answers; and a
 * gateway that answers each call of a JSON-RPC batch from a node of its own.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { type Connection, Keypair, SystemProgram } from "@solana/web3.js";
import type { LocalChain } from "../src/index";
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

async function post(body: unknown): Promise<Json> {
  const res = await fetch(chain.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return res.json();
}
const rpc = (method: string, params: unknown[] = []) => post({ jsonrpc: "2.0", id: 1, method, params });
const fault = (rule: unknown) => rpc("localnet_fault", [rule]);

/** A transfer from the treasury, landed in the slot it returns. */
async function landTransfer(): Promise<{ signature: string; slot: number }> {
  const to = Keypair.generate().publicKey;
  const t = await signedTx(
    connection,
    [SystemProgram.transfer({ fromPubkey: chain.treasury.publicKey, toPubkey: to, lamports: 1_000_000 })],
    chain.treasury,
  );
  await rpc("sendTransaction", [Buffer.from(t.tx.serialize()).toString("base64"), { encoding: "base64" }]);
  const slot = Number(chain.node.getSlot());
  chain.node.advanceSlots(1);
  return { signature: t.signature, slot };
}

const historyStatus = async (signature: string) =>
  (await rpc("getSignatureStatuses", [[signature], { searchTransactionHistory: true }])).result.value[0];

describe("historyHole", () => {
  test("slots in the hole are gone from the ledger while the floor stays below them, as agave after a jump to a snapshot", async () => {
    chain.node.advanceSlots(5);
    const before = await landTransfer();
    const inside = await landTransfer();
    const after = await landTransfer();
    const floor = Number(chain.node.firstBlockSlot());
    expect((await fault({ kind: "historyHole", fromSlot: inside.slot, toSlot: inside.slot })).result.ok).toBe(true);
    expect((await rpc("localnet_faults")).result.rules).toEqual([
      { kind: "historyHole", fromSlot: inside.slot, toSlot: inside.slot, share: 1 },
    ]);

    // Within the status cache (which came with the snapshot) the status is still found.
    expect((await historyStatus(inside.signature)).slot).toBe(inside.slot);
    chain.node.advanceSlots(310);

    // The floor says nothing of the hole.
    expect((await rpc("minimumLedgerSlot")).result).toBe(floor);
    expect((await rpc("getFirstAvailableBlock")).result).toBe(floor);
    expect(floor).toBeLessThan(inside.slot);
    // The history search and getTransaction find nothing in it (agave: not in the blockstore).
    expect(await historyStatus(inside.signature)).toBeNull();
    expect((await historyStatus(before.signature)).slot).toBe(before.slot);
    expect((await historyStatus(after.signature)).slot).toBe(after.slot);
    expect((await rpc("getTransaction", [inside.signature, { maxSupportedTransactionVersion: 0 }])).result).toBeNull();
    expect((await rpc("getTransaction", [after.signature, { maxSupportedTransactionVersion: 0 }])).result.slot).toBe(
      after.slot,
    );
    // The block answers agave's -32007; getBlocks leaves the slot out, as not a root of its ledger.
    for (const method of ["getBlock", "getBlockTime"]) {
      const answer = await rpc(method, [inside.slot]);
      expect(answer.error).toEqual({
        code: -32007,
        message: `Slot ${inside.slot} was skipped, or missing due to ledger jump to recent snapshot`,
      });
    }
    expect((await rpc("getBlock", [after.slot, { transactionDetails: "signatures" }])).result.signatures).toEqual([
      after.signature,
    ]);
    expect((await rpc("getBlocks", [before.slot, after.slot])).result).toEqual([before.slot, after.slot]);
    expect((await rpc("getBlocksWithLimit", [before.slot, 2])).result).toEqual([before.slot, after.slot]);
    const listed = (await connection.getSignaturesForAddress(chain.treasury.publicKey)).map((s) => s.signature);
    expect(listed).toContain(after.signature);
    expect(listed).not.toContain(inside.signature);
    expect(chain.faults.injected.historyHole).toBeGreaterThan(0);

    await fault({ kind: "clear" });
    expect((await historyStatus(inside.signature)).slot).toBe(inside.slot);
    expect((await rpc("getBlocks", [before.slot, after.slot])).result).toEqual([before.slot, inside.slot, after.slot]);
  });

  test("a share of the pool has the hole, drawn per request", async () => {
    chain.node.advanceSlots(5);
    const inside = await landTransfer();
    chain.node.advanceSlots(310);
    await fault({ kind: "historyHole", fromSlot: inside.slot - 1, toSlot: inside.slot + 1, share: 0.5 });
    let missing = 0;
    for (let i = 0; i < 40; i++) if ((await historyStatus(inside.signature)) === null) missing++;
    expect(missing).toBeGreaterThan(5);
    expect(missing).toBeLessThan(35);
  });

  test("rule params are validated", async () => {
    for (const bad of [
      { kind: "historyHole" },
      { kind: "historyHole", fromSlot: 10 },
      { kind: "historyHole", fromSlot: -1, toSlot: 5 },
      { kind: "historyHole", fromSlot: 10, toSlot: 9 },
      { kind: "historyHole", fromSlot: 1.5, toSlot: 9 },
      { kind: "historyHole", fromSlot: 1, toSlot: 9, share: 2 },
    ]) {
      expect((await fault(bad)).error?.code).toBe(-32602);
    }
    expect((await rpc("localnet_faults")).result.rules).toEqual([]);
  });
});

describe("batchFanOut", () => {
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

  test("each call of a batch is answered by a node of its own: a pruned node's search beside a full node's floor", async () => {
    chain.node.advanceSlots(5);
    const old = await landTransfer();
    chain.node.advanceSlots(10);
    const firstSlot = Number(chain.node.getSlot());
    const fullFloor = Number(chain.node.firstBlockSlot());
    chain.faults.apply({ kind: "prunedHistory", firstSlot, share: 0.5 });
    expect((await fault({ kind: "batchFanOut" })).result.ok).toBe(true);
    expect((await rpc("localnet_faults")).result.rules).toContainEqual({ kind: "batchFanOut" });

    let mixedFloors = 0;
    let hiddenBesideFullFloor = 0;
    for (let i = 0; i < 40; i++) {
      const answers = await post(batchOf(old.signature));
      expect(answers.map((a: Json) => a.id)).toEqual([1, 2, 3, 4]);
      const [, statuses, minimum, first] = answers.map((a: Json) => a.result);
      if (minimum !== first) mixedFloors++;
      // What one node never answers: a status missing below a floor that covers it.
      if (statuses.value[0] === null && minimum === fullFloor && first === fullFloor) hiddenBesideFullFloor++;
    }
    expect(mixedFloors).toBeGreaterThan(0);
    expect(hiddenBesideFullFloor).toBeGreaterThan(0);
    expect(chain.faults.injected.batchFanOut).toBe(40);

    // Without the rule the batch is one node again: floors agree in every answer.
    await fault({ kind: "clear" });
    chain.faults.apply({ kind: "prunedHistory", firstSlot, share: 0.5 });
    for (let i = 0; i < 20; i++) {
      const [, statuses, minimum, first] = (await post(batchOf(old.signature))).map((a: Json) => a.result);
      expect(minimum).toBe(first);
      expect(statuses.value[0] === null).toBe(first === firstSlot);
    }
  });
});
