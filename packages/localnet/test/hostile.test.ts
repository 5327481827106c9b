/**
 * The hostile local chain (packages/localnet/README.md "Fault rules"): `localnet_fault` / `localnet_faults`
 * over JSON-RPC and the same rules in-process. Every rule is checked against what a client sees.
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

async function rpc(method: string, params: unknown[] = []): Promise<{ status: number; headers: Headers; json: any }> {
  const res = await fetch(chain.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, headers: res.headers, json };
}
const fault = (rule: unknown) => rpc("localnet_fault", [rule]);

async function transfer(lamports = 1_000_000n) {
  const to = Keypair.generate().publicKey;
  const t = await signedTx(
    connection,
    [SystemProgram.transfer({ fromPubkey: chain.treasury.publicKey, toPubkey: to, lamports })],
    chain.treasury,
  );
  await connection.sendRawTransaction(t.tx.serialize(), { skipPreflight: true });
  return { ...t, to };
}
const statusOf = async (signature: string) =>
  (await rpc("getSignatureStatuses", [[signature], { searchTransactionHistory: true }])).json.result;

describe("localnet_fault over JSON-RPC", () => {
  test("rules are validated, listed with localnet_faults, and cleared", async () => {
    for (const bad of [
      null,
      { kind: "nope" },
      { kind: "dropSends", count: 0 },
      { kind: "lag", slots: 5, share: 2 },
      { kind: "rpcError", method: "getSlot", count: 1, as: "418" },
    ]) {
      const r = await fault(bad);
      expect(r.json.error.code).toBe(-32602);
    }
    expect((await fault({ kind: "dropSends", count: 2 })).json.result.ok).toBe(true);
    await fault({ kind: "rpcError", method: "getSlot", count: 3, as: "429" });
    await fault({ kind: "lag", slots: 10, share: 0.5, methods: ["getBalance"] });
    const listed = (await rpc("localnet_faults")).json.result.rules;
    expect(listed).toEqual([
      { kind: "dropSends", count: 2 },
      { kind: "rpcError", method: "getSlot", count: 3, as: "429", retryAfterSec: 1 },
      { kind: "lag", slots: 10, share: 0.5, methods: ["getBalance"] },
    ]);
    await fault({ kind: "clear" });
    expect((await rpc("localnet_faults")).json.result.rules).toEqual([]);
  });

  test("ghostSends: processed for a few slots, then gone, never landed", async () => {
    await fault({ kind: "ghostSends", count: 1, slots: 3 });
    const { signature, to } = await transfer();
    chain.node.advanceSlots(1);
    expect((await statusOf(signature)).value[0]?.confirmationStatus).toBe("processed");
    chain.node.advanceSlots(3);
    expect((await statusOf(signature)).value[0]).toBeNull();
    expect(await connection.getBalance(to)).toBe(0);
    chain.node.advanceSlots(40);
    expect((await statusOf(signature)).value[0]).toBeNull();
    expect((await rpc("localnet_faults")).json.result.injected.ghostSends).toBe(1);
  });

  test("dropSends, delaySends and failSends as the in-process faults", async () => {
    await fault({ kind: "dropSends", count: 1 });
    const dropped = await transfer();
    await fault({ kind: "failSends", count: 1 });
    const failed = await transfer();
    await fault({ kind: "delaySends", count: 1, slots: 2 });
    const delayed = await transfer();
    chain.node.advanceSlots(1);
    expect((await statusOf(dropped.signature)).value[0]).toBeNull();
    expect((await statusOf(failed.signature)).value[0].err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect((await statusOf(delayed.signature)).value[0]).toBeNull();
    chain.node.advanceSlots(2);
    expect((await statusOf(delayed.signature)).value[0]).not.toBeNull();
  });

  test("rpcError: 429 with retry-after, 503, and a timeout that holds then answers 504", async () => {
    await fault({ kind: "rpcError", method: "getSlot", count: 1, as: "429", retryAfterSec: 2 });
    const limited = await rpc("getSlot");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("2");
    expect((await rpc("getSlot")).status).toBe(200);
    await fault({ kind: "rpcError", method: "*", count: 1, as: "503" });
    expect((await rpc("getBalance", [chain.treasury.publicKey.toBase58()])).status).toBe(503);
    await fault({ kind: "rpcError", method: "getBlockHeight", count: 1, as: "timeout", holdMs: 200 });
    const started = Date.now();
    expect((await rpc("getBlockHeight")).status).toBe(504);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
  });

  test("lag: a node k slots behind has its own slot and height, lacks newer transactions and balances, refuses minContextSlot above it", async () => {
    chain.node.advanceSlots(50);
    await fault({
      kind: "lag",
      slots: 20,
      share: 1,
      methods: ["getSignatureStatuses", "getBalance", "getSlot", "getEpochInfo", "getTransaction"],
    });
    const { signature, to } = await transfer();
    chain.node.advanceSlots(5);
    const slot = Number(chain.node.getSlot());
    const behind = await statusOf(signature);
    expect(behind.context.slot).toBe(slot - 20);
    expect(behind.value[0]).toBeNull();
    expect((await rpc("getBalance", [to.toBase58(), { commitment: "processed" }])).json.result.value).toBe(0);
    expect((await rpc("getSlot", [{ commitment: "processed" }])).json.result).toBe(slot - 20);
    const epoch = (await rpc("getEpochInfo", [{ commitment: "finalized" }])).json.result;
    expect(epoch.absoluteSlot).toBe(slot - 20 - 33);
    expect(epoch.blockHeight).toBe(Number(chain.node.getBlockHeight()) - 20 - 33);
    expect(
      (await rpc("getTransaction", [signature, { maxSupportedTransactionVersion: 0, commitment: "confirmed" }])).json
        .result,
    ).toBeNull();
    const refused = await rpc("getSignatureStatuses", [
      [signature],
      { searchTransactionHistory: true, minContextSlot: slot },
    ]);
    expect(refused.json.error.code).toBe(-32016);
    // methods not named are answered by the current node
    expect(
      (await rpc("getMultipleAccounts", [[to.toBase58()], { encoding: "base64", commitment: "confirmed" }])).json.result
        .value[0].lamports,
    ).toBe(1_000_000);
    await fault({ kind: "clear" });
    expect((await statusOf(signature)).value[0].confirmationStatus).toBe("confirmed");
    expect((await rpc("getBalance", [to.toBase58(), { commitment: "processed" }])).json.result.value).toBe(1_000_000);
    const injected = (await rpc("localnet_faults")).json.result.injected;
    expect(injected.lag).toBeGreaterThanOrEqual(6);
    expect(injected.minContextSlot).toBe(1);
  });

  test("lag share: about that share of reads is answered from behind, the same draws for the same seed", async () => {
    const draws = async (c: LocalChain) => {
      c.faults.apply({ kind: "lag", slots: 5, share: 0.3, methods: ["getSlot"] });
      const out: boolean[] = [];
      for (let i = 0; i < 200; i++) {
        const r = await c.fetch(c.rpcUrl, {
          method: "POST",
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getSlot", params: [{ commitment: "processed" }] }),
        });
        out.push(((await r.json()) as { result: number }).result !== Number(c.node.getSlot()));
      }
      return out;
    };
    chain.node.advanceSlots(10);
    const first = await draws(chain);
    const share = first.filter(Boolean).length / first.length;
    expect(share).toBeGreaterThan(0.15);
    expect(share).toBeLessThan(0.45);
    const again = await startTestChain();
    try {
      again.chain.node.advanceSlots(10);
      expect(await draws(again.chain)).toEqual(first);
    } finally {
      await again.chain.stop();
    }
  });
});

describe("in-process", () => {
  test("the same rules through chain.faults, and the in-process fetch sees them", async () => {
    chain.faults.apply({ kind: "rpcError", method: "getSlot", count: 1, as: "503" });
    const direct = await chain.fetch(chain.rpcUrl, {
      method: "POST",
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getSlot", params: [] }),
    });
    expect(direct.status).toBe(503);
    expect(chain.faults.injected["rpcError:503"]).toBe(1);
    // a timeout rule holds until the caller gives up
    chain.faults.apply({ kind: "rpcError", method: "getSlot", count: 1, as: "timeout", holdMs: 60_000 });
    const started = Date.now();
    await expect(
      chain.fetch(chain.rpcUrl, {
        method: "POST",
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getSlot", params: [] }),
        signal: AbortSignal.timeout(100),
      }),
    ).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(chain.faults.list()).toEqual([]);
  });
});
