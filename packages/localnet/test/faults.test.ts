import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Connection, Keypair, PublicKey, SYSVAR_CLOCK_PUBKEY, SystemProgram } from "@solana/web3.js";
import type { LocalChain } from "../src/index";
import { startLocalChain } from "../src/index";
import { parseFaultRule } from "../src/faults";
import { signedTx, startTestChain, waitFor } from "./helpers";

let chain: LocalChain;
let connection: Connection;

beforeEach(async () => {
  ({ chain, connection } = await startTestChain());
});
afterEach(async () => {
  await chain.stop();
});

async function transferTx(lamports = 1_000_000n) {
  const to = Keypair.generate().publicKey;
  const t = await signedTx(
    connection,
    [SystemProgram.transfer({ fromPubkey: chain.treasury.publicKey, toPubkey: to, lamports })],
    chain.treasury,
  );
  return { ...t, to };
}

async function status(signature: string) {
  return (await connection.getSignatureStatuses([signature], { searchTransactionHistory: true })).value[0];
}

describe("fault injection", () => {
  test("a dropped send answers with its signature and never lands; resending the same bytes lands it", async () => {
    const { tx, signature, to, lastValidBlockHeight } = await transferTx();
    chain.faults.dropNextSends(1);
    expect(await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true })).toBe(signature);
    chain.node.advanceSlots(1);
    expect(await status(signature)).toBeNull();
    expect(await connection.getBalance(to)).toBe(0);
    // still within its blockhash's life: a resend lands
    expect(await connection.getBlockHeight()).toBeLessThanOrEqual(lastValidBlockHeight);
    await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    chain.node.advanceSlots(1);
    expect((await status(signature))?.confirmationStatus).toBe("confirmed");
    expect(await connection.getBalance(to)).toBe(1_000_000);
  }, 60_000);

  test("a delayed send lands only after the given number of slots", async () => {
    const { tx, signature } = await transferTx();
    chain.faults.delayNextSends(1, 3);
    await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    chain.node.advanceSlots(2);
    expect(await status(signature)).toBeNull();
    chain.node.advanceSlots(1);
    expect((await status(signature))?.confirmationStatus).toBe("processed");
    chain.node.advanceSlots(1);
    expect((await status(signature))?.confirmationStatus).toBe("confirmed");
  }, 60_000);

  test("a delayed send whose blockhash expires meanwhile never lands", async () => {
    const { tx, signature } = await transferTx();
    chain.faults.delayNextSends(1, 200);
    await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    chain.node.advanceSlots(205);
    expect(await status(signature)).toBeNull();
  }, 60_000);

  test("a send made to fail lands as failed, with the fee charged and nothing else moved", async () => {
    const { tx, signature, to } = await transferTx();
    const before = BigInt(await connection.getBalance(chain.treasury.publicKey));
    chain.faults.failNextSends(1, (sig) => sig === signature);
    await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    chain.node.advanceSlots(1);
    expect((await status(signature))?.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(await connection.getBalance(to)).toBe(0);
    expect(BigInt(await connection.getBalance(chain.treasury.publicKey))).toBe(before - 5000n);
    const read = await connection.getTransaction(signature, {
      maxSupportedTransactionVersion: 0,
      commitment: "confirmed",
    });
    expect(read?.meta?.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
  }, 60_000);

  test("RPC calls fail or time out by method, then recover", async () => {
    chain.faults.failRpc("getBalance", 1, "error");
    await expect(connection.getBalance(chain.treasury.publicKey)).rejects.toThrow("503");
    expect(await connection.getBalance(chain.treasury.publicKey)).toBeGreaterThan(0);
    // other methods are untouched by a rule for getBalance
    chain.faults.failRpc("getBalance", 1, "error");
    expect(await connection.getSlot()).toBeGreaterThan(0);
    chain.faults.clear();

    // a client with its own timeout gives up; the node answers nothing in time
    chain.faults.failRpc("getSlot", 1, "timeout", 10_000);
    const patient = new Connection(chain.rpcUrl, {
      commitment: "confirmed",
      fetch: ((url: string, init?: RequestInit) => fetch(url, { ...init, signal: AbortSignal.timeout(300) })) as never,
    });
    await expect(patient.getSlot()).rejects.toThrow();
    expect(await connection.getSlot()).toBeGreaterThan(0);
    // a client without one gets a 504 once the hold ends
    chain.faults.failRpc("getBlockHeight", 1, "timeout", 200);
    await expect(connection.getBlockHeight()).rejects.toThrow("504");
  }, 60_000);
});

describe("clock", () => {
  test("with slotMs set, slots and block height advance on their own and blockhashes rotate", async () => {
    const timed = await startLocalChain({ rpcPort: 0, grpcPort: 0, slotMs: 20 });
    try {
      // Processed: the reads are the node's own now. The slot and the height are read in two
      // requests a slot may close between, so each is waited for on its own (a CI run read the
      // height one block short after waiting for the slot alone).
      const c = new Connection(timed.rpcUrl, "processed");
      const slot0 = await c.getSlot();
      const height0 = await c.getBlockHeight();
      const hash0 = (await c.getLatestBlockhash()).blockhash;
      await waitFor(
        "three slots and three blocks",
        () => timed.node.getSlot() >= BigInt(slot0) + 3n && timed.node.getBlockHeight() >= BigInt(height0) + 3n,
        30_000,
      );
      expect(await c.getSlot()).toBeGreaterThanOrEqual(slot0 + 3);
      expect(await c.getBlockHeight()).toBeGreaterThanOrEqual(height0 + 3);
      expect((await c.getLatestBlockhash()).blockhash).not.toBe(hash0);
      expect((await c.isBlockhashValid(hash0)).value).toBe(true);
    } finally {
      await timed.stop();
    }
  }, 60_000);

  test("the Clock sysvar read over JSON-RPC shows the slot it is read in, after slots with nothing run", async () => {
    const clockOf = async () => {
      const data = (await connection.getAccountInfo(SYSVAR_CLOCK_PUBKEY))!.data;
      return { slot: data.readBigUInt64LE(0), unixSec: data.readBigInt64LE(32) };
    };
    const before = await clockOf();
    expect(before.slot).toBe(chain.node.getSlot());
    chain.node.advanceSlots(7);
    const after = await clockOf();
    expect(after.slot).toBe(before.slot + 7n);
    expect(after.slot).toBe(chain.node.getSlot());
    expect(Number(after.unixSec)).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) - 5);
  });

  test("stop releases the ports", async () => {
    const a = await startLocalChain({ rpcPort: 0, grpcPort: 0, slotMs: 0 });
    const { rpcPort, grpcPort } = a;
    await a.stop();
    const b = await startLocalChain({ rpcPort, grpcPort, slotMs: 0 });
    expect(b.rpcPort).toBe(rpcPort);
    expect(b.grpcPort).toBe(grpcPort);
    await b.stop();
  }, 60_000);
});

describe("programLayout", () => {
  test("v3 answers the bonding curves in another layout over JSON-RPC until cleared; listed, counted, validated", async () => {
    const creator = Keypair.generate().publicKey;
    const { mint } = chain.launch.createToken({
      name: "Lay",
      symbol: "LAY",
      uri: "https://example.test/l.json",
      creator,
    });
    const curve = chain.node.programKeys.bondingCurveAddress(mint);
    const dataOf = async () => (await connection.getAccountInfo(new PublicKey(curve)))!.data.length;
    expect(await dataOf()).toBe(0);
    chain.faults.apply({ kind: "programLayout", layout: "v3" });
    expect(chain.faults.list()).toEqual([{ kind: "programLayout", layout: "v3" }]);
    expect(chain.faults.injected.programLayout).toBe(1);
    expect(await dataOf()).toBe(16);
    // only reads change: the mint and the vaults read as before
    expect((await connection.getAccountInfo(new PublicKey(mint)))!.data.length).toBe(82);
    chain.faults.apply({ kind: "clear" });
    expect(chain.faults.list()).toEqual([]);
    expect(await dataOf()).toBe(0);
    expect(() => parseFaultRule({ kind: "programLayout", layout: "v4" })).toThrow(/layout must be "v3"/);
    expect(() => parseFaultRule({ kind: "programLayout" })).toThrow(/layout must be "v3"/);
  });
});
