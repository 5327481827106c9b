/**
 * `slotsUpdatesSubscribe` and `blockSubscribe` as agave's PubSub answers them: web3.js's
 * `onSlotUpdate` hears each slot complete, freeze (with its transaction counts), get confirmed and
 * rooted, and the next bank created; a raw blockSubscribe gets each block at its commitment in the
 * asked encoding and detail, only the blocks naming an address under `mentionsAccountOrProgram`,
 * and agave's refusals.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  type SlotUpdate,
  SystemProgram,
  Transaction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import type { LocalChain } from "../src/index";
import { FINALIZATION_SLOTS } from "../src/node";
import { sendAndConfirm, startTestChain, waitFor } from "./helpers";

let chain: LocalChain;
let connection: Connection;
let payer: Keypair;
const sockets: WebSocket[] = [];

beforeEach(async () => {
  ({ chain } = await startTestChain());
  connection = new Connection(chain.rpcUrl, { commitment: "confirmed", wsEndpoint: chain.wsUrl });
  payer = Keypair.generate();
  chain.node.fund(payer.publicKey, 10n * BigInt(LAMPORTS_PER_SOL));
});
afterEach(async () => {
  for (const ws of sockets.splice(0)) ws.close();
  try {
    (connection as unknown as { _rpcWebSocket: { close(): void } })._rpcWebSocket.close();
  } catch {}
  await chain.stop();
});

interface Message {
  id?: number;
  result?: any;
  error?: { code: number; message: string };
  method?: string;
  params?: { result: any; subscription: number };
}

/** A raw PubSub connection: what any WebSocket client sends and reads. */
async function openSocket(): Promise<{
  messages: Message[];
  call(method: string, params: unknown[]): Promise<Message>;
}> {
  const ws = new WebSocket(chain.wsUrl);
  sockets.push(ws);
  const messages: Message[] = [];
  ws.onmessage = (e) => messages.push(JSON.parse(String(e.data)));
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error("websocket failed"));
  });
  let nextId = 0;
  return {
    messages,
    call: async (method, params) => {
      const id = ++nextId;
      ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      const answer = await waitFor(`the answer to ${method}`, () => messages.find((m) => m.id === id));
      messages.splice(messages.indexOf(answer), 1);
      return answer;
    },
  };
}

const ofSubscription = (messages: Message[], id: number) =>
  messages.filter((m) => m.params?.subscription === id).map((m) => m.params!.result);

async function transfer(to = Keypair.generate().publicKey, lamports = 1_000_000): Promise<string> {
  return sendAndConfirm(
    chain,
    connection,
    [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports })],
    payer,
  );
}

describe("slotsUpdatesSubscribe", () => {
  test("web3.js onSlotUpdate hears a slot complete, freeze with its counts, confirm, the next bank, and roots", async () => {
    const updates: SlotUpdate[] = [];
    const id = connection.onSlotUpdate((u) => updates.push(u));
    // web3.js subscribes once its socket opens: the clock moves until the first update is heard.
    await waitFor("the subscription", () => {
      if (updates.length > 0) return true;
      chain.node.advanceSlots(1);
      return false;
    });
    const signature = await transfer();
    const slot = (await connection.getSignatureStatus(signature)).value!.slot;

    const frozen = await waitFor("the frozen update", () =>
      updates.find((u) => u.type === "frozen" && u.slot === slot),
    );
    expect(frozen).toMatchObject({
      type: "frozen",
      slot,
      stats: {
        numSuccessfulTransactions: 1,
        numFailedTransactions: 0,
        numTransactionEntries: 1,
        maxTransactionsPerEntry: 1,
      },
    });
    expect(frozen.timestamp).toBeGreaterThan(Date.now() - 60_000);
    const forSlot = updates.filter((u) => u.slot === slot).map((u) => u.type);
    expect(forSlot).toEqual(["createdBank", "completed", "frozen", "optimisticConfirmation"]);
    expect(updates.find((u) => u.type === "createdBank" && u.slot === slot + 1)).toMatchObject({ parent: slot });

    chain.node.advanceSlots(Number(FINALIZATION_SLOTS));
    await waitFor("the root", () => updates.find((u) => u.type === "root" && u.slot === slot));
    await connection.removeSlotUpdateListener(id);
  });

  test("on the wire: slotsUpdatesNotification, then slotsUpdatesUnsubscribe", async () => {
    const ws = await openSocket();
    const sub = await ws.call("slotsUpdatesSubscribe", []);
    expect(typeof sub.result).toBe("number");
    const opened = chain.node.getSlot();
    chain.node.advanceSlots(1);
    await waitFor("the created bank", () =>
      ofSubscription(ws.messages, sub.result).find((u) => u.type === "createdBank"),
    );
    const notification = ws.messages.find((m) => m.method === "slotsUpdatesNotification");
    expect(notification?.params?.result).toMatchObject({ type: "completed", slot: Number(opened) });
    expect((await ws.call("slotsUpdatesUnsubscribe", [sub.result])).result).toBe(true);
    expect((await ws.call("slotsUpdatesUnsubscribe", [sub.result])).error).toEqual({
      code: -32602,
      message: "Invalid subscription id.",
    });
  });
});

describe("blockSubscribe", () => {
  test("all blocks at confirmed, jsonParsed and full: the transfer's block with its parsed instruction", async () => {
    const ws = await openSocket();
    const sub = await ws.call("blockSubscribe", [
      "all",
      {
        commitment: "confirmed",
        encoding: "jsonParsed",
        transactionDetails: "full",
        maxSupportedTransactionVersion: 0,
      },
    ]);
    expect(typeof sub.result).toBe("number");
    const to = Keypair.generate().publicKey;
    const signature = await transfer(to, 2_500_000);
    const slot = (await connection.getSignatureStatus(signature)).value!.slot;
    const update = await waitFor("the block", () =>
      ofSubscription(ws.messages, sub.result).find((r) => r.value.slot === slot),
    );
    expect(update.context).toEqual({ slot });
    expect(update.value.err).toBeNull();
    const block = update.value.block;
    const expected = await connection.getParsedBlock(slot, { maxSupportedTransactionVersion: 0, rewards: false });
    expect(block.blockhash).toBe(expected.blockhash);
    expect(block.parentSlot).toBe(expected.parentSlot);
    expect(block.rewards).toBeUndefined(); // showRewards defaults to false here
    expect(block.transactions).toHaveLength(1);
    expect(block.transactions[0].transaction.signatures).toEqual([signature]);
    expect(block.transactions[0].transaction.message.instructions[0]).toMatchObject({
      program: "system",
      parsed: {
        type: "transfer",
        info: { source: payer.publicKey.toBase58(), destination: to.toBase58(), lamports: 2_500_000 },
      },
    });
    // an empty block is a block too, with the "all" filter
    chain.node.advanceSlots(1);
    const empty = await waitFor("the empty block", () =>
      ofSubscription(ws.messages, sub.result).find((r) => r.value.slot === slot + 1),
    );
    expect(empty.value.block.transactions).toEqual([]);
    expect((await ws.call("blockUnsubscribe", [sub.result])).result).toBe(true);
  });

  test("mentionsAccountOrProgram: only blocks naming the address, with only those transactions; base64 by default", async () => {
    const ws = await openSocket();
    const watched = Keypair.generate().publicKey;
    const sub = await ws.call("blockSubscribe", [
      { mentionsAccountOrProgram: watched.toBase58() },
      { commitment: "confirmed", showRewards: true, transactionDetails: "full" },
    ]);
    await transfer(); // a block without it
    const other = Keypair.generate().publicKey;
    // two transactions in one slot, one naming the address
    const mine = new Transaction().add(
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: watched, lamports: 1_000_000 }),
    );
    const theirs = new Transaction().add(
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: other, lamports: 1_000_000 }),
    );
    const { blockhash } = await connection.getLatestBlockhash();
    for (const tx of [mine, theirs]) {
      tx.recentBlockhash = blockhash;
      tx.feePayer = payer.publicKey;
      tx.sign(payer);
      await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    }
    const slot = chain.node.getSlot();
    chain.node.advanceSlots(1);
    const update = await waitFor("the block", () => ofSubscription(ws.messages, sub.result)[0]);
    expect(ofSubscription(ws.messages, sub.result)).toHaveLength(1);
    expect(update.value.slot).toBe(Number(slot));
    const txs = update.value.block.transactions;
    expect(txs).toHaveLength(1);
    expect(txs[0].transaction[1]).toBe("base64");
    const decoded = VersionedTransaction.deserialize(Buffer.from(txs[0].transaction[0], "base64"));
    expect(decoded.message.staticAccountKeys.map((k) => k.toBase58())).toContain(watched.toBase58());
    // without maxSupportedTransactionVersion agave writes no version
    expect(txs[0].version).toBeUndefined();
    expect(update.value.block.rewards).toEqual([expect.objectContaining({ rewardType: "Fee" })]);
  });

  test("finalized blocks come 32 slots later; signatures and none details", async () => {
    const ws = await openSocket();
    const signatures = await ws.call("blockSubscribe", ["all", { transactionDetails: "signatures" }]);
    const none = await ws.call("blockSubscribe", ["all", { commitment: "finalized", transactionDetails: "none" }]);
    const marker = await ws.call("blockSubscribe", ["all", { commitment: "confirmed", transactionDetails: "none" }]);
    const signature = await transfer();
    const slot = (await connection.getSignatureStatus(signature)).value!.slot;
    chain.node.advanceSlots(Number(FINALIZATION_SLOTS) - 1);
    // Notifications arrive in order: once the newest confirmed block is heard, a finalized one sent
    // before it would have been heard too.
    const newest = Number(chain.node.getSlot()) - 1;
    await waitFor("the newest confirmed block", () =>
      ofSubscription(ws.messages, marker.result).find((r) => r.value.slot === newest),
    );
    expect(ofSubscription(ws.messages, signatures.result).some((r) => r.value.slot === slot)).toBe(false);
    chain.node.advanceSlots(1);
    const update = await waitFor("the finalized block", () =>
      ofSubscription(ws.messages, signatures.result).find((r) => r.value.slot === slot),
    );
    expect(update.value.block.signatures).toEqual([signature]);
    expect(update.value.block.transactions).toBeUndefined();
    const bare = await waitFor("the finalized block without details", () =>
      ofSubscription(ws.messages, none.result).find((r) => r.value.slot === slot),
    );
    expect(Object.keys(bare.value.block).sort()).toEqual(
      ["blockHeight", "blockTime", "blockhash", "parentSlot", "previousBlockhash"].sort(),
    );
  });

  test("refusals: processed commitment, a bad filter; a v0 transaction without maxSupportedTransactionVersion is an error notification", async () => {
    const ws = await openSocket();
    expect((await ws.call("blockSubscribe", ["all", { commitment: "processed" }])).error).toEqual({
      code: -32602,
      message: "Method does not support commitment below `confirmed`",
    });
    expect((await ws.call("blockSubscribe", [{ mentionsAccountOrProgram: "not-a-key" }])).error).toEqual({
      code: -32602,
      message: "Invalid Request: Invalid mentions_account_or_program provided",
    });
    const sub = await ws.call("blockSubscribe", ["all", { commitment: "confirmed" }]);
    const { blockhash } = await connection.getLatestBlockhash();
    const v0 = new VersionedTransaction(
      new TransactionMessage({
        payerKey: payer.publicKey,
        recentBlockhash: blockhash,
        instructions: [
          SystemProgram.transfer({
            fromPubkey: payer.publicKey,
            toPubkey: Keypair.generate().publicKey,
            lamports: 1_000_000,
          }),
        ],
      }).compileToV0Message(),
    );
    v0.sign([payer]);
    await connection.sendRawTransaction(v0.serialize(), { skipPreflight: true });
    const slot = chain.node.getSlot();
    chain.node.advanceSlots(1);
    const update = await waitFor("the refused block", () =>
      ofSubscription(ws.messages, sub.result).find((r) => r.value.slot === Number(slot)),
    );
    expect(update).toEqual({
      context: { slot: Number(slot) },
      value: { slot: Number(slot), block: null, err: { UnsupportedTransactionVersion: 0 } },
    });
  });
});
