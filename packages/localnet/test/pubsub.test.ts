/**
 * The PubSub WebSocket as a client speaks it on the wire: JSON-RPC subscribe calls, notifications
 * in agave's shapes, commitment honoured (processed at execution, confirmed when the slot closes,
 * finalized 32 slots deeper), unsubscribes, and the port next to the RPC port.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Keypair, SystemProgram } from "@solana/web3.js";
import bs58 from "bs58";
import type { LocalChain } from "../src/index";
import { FINALIZATION_SLOTS } from "../src/node";
import { startTestChain } from "./helpers";

let chain: LocalChain;
const sockets: WsClient[] = [];

beforeEach(async () => {
  ({ chain } = await startTestChain());
});
afterEach(async () => {
  for (const s of sockets.splice(0)) s.ws.close();
  await chain.stop();
});

interface Message {
  id?: number;
  result?: unknown;
  error?: { code: number; message: string };
  method?: string;
  params?: { result: any; subscription: number };
}

class WsClient {
  readonly messages: Message[] = [];
  private waiters: (() => void)[] = [];
  private nextId = 0;
  constructor(readonly ws: WebSocket) {
    ws.onmessage = (e) => {
      this.messages.push(JSON.parse(String(e.data)));
      for (const w of this.waiters.splice(0)) w();
    };
  }
  static async open(url: string): Promise<WsClient> {
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.onopen = () => resolve();
      ws.onerror = () => reject(new Error("websocket failed"));
    });
    const c = new WsClient(ws);
    sockets.push(c);
    return c;
  }
  async call(method: string, params: unknown[]): Promise<Message> {
    const id = ++this.nextId;
    this.ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return this.take((m) => m.id === id);
  }
  async subscribe(method: string, params: unknown[]): Promise<number> {
    const answer = await this.call(method, params);
    if (typeof answer.result !== "number") throw new Error(`subscribe failed: ${JSON.stringify(answer)}`);
    return answer.result;
  }
  async take(match: (m: Message) => boolean, timeoutMs = 2_000): Promise<Message> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.messages.findIndex(match);
      if (i >= 0) return this.messages.splice(i, 1)[0]!;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error("no such message");
      await Promise.race([new Promise<void>((r) => this.waiters.push(r)), Bun.sleep(left)]);
    }
  }
  notifications(subscription: number): Message[] {
    return this.messages.filter((m) => m.params?.subscription === subscription);
  }
  /**
   * A round trip on this socket: whatever the node sent before it (notifications go out as the
   * chain changes, in this process) has arrived once its answer has, so an absence is then real.
   */
  async settle(): Promise<void> {
    const answer = await this.call("fenceForTests", []);
    if (answer.error?.code !== -32601) throw new Error(`unexpected fence answer: ${JSON.stringify(answer)}`);
  }
}

function transfer(to: Keypair["publicKey"], lamports: bigint): string {
  const r = chain.node.submitInstructions(
    [SystemProgram.transfer({ fromPubkey: chain.treasury.publicKey, toPubkey: to, lamports })],
    chain.treasury,
  );
  if (r.err) throw new Error(JSON.stringify(r.err));
  return r.signature;
}

describe("PubSub WebSocket", () => {
  test("listens on the RPC port + 1 and answers an unknown method and bad params with JSON-RPC errors", async () => {
    expect(chain.wsUrl).not.toBeNull();
    // With a free RPC port the next one is taken when free (it almost always is).
    if (chain.wsPort !== chain.rpcPort + 1) console.warn("rpc port + 1 was taken; PubSub on", chain.wsPort);
    const ws = await WsClient.open(chain.wsUrl);
    expect((await ws.call("nopeSubscribe", [])).error?.code).toBe(-32601);
    expect((await ws.call("accountSubscribe", ["not-an-address"])).error?.code).toBe(-32602);
    expect((await ws.call("accountUnsubscribe", [12345])).error?.message).toBe("Invalid subscription id.");
    expect(
      (
        await ws.call("logsSubscribe", [
          { mentions: [Keypair.generate().publicKey.toBase58(), Keypair.generate().publicKey.toBase58()] },
        ])
      ).error?.code,
    ).toBe(-32602);
  });

  test("signatureSubscribe notifies at the asked commitment, once, with receivedSignature first when asked", async () => {
    const ws = await WsClient.open(chain.wsUrl);
    const to = Keypair.generate().publicKey;
    // Sign first, subscribe, then send: the subscription exists before the transaction lands.
    const { blockhash } = chain.node.getLatestBlockhash();
    const { Transaction } = await import("@solana/web3.js");
    const tx = new Transaction({ feePayer: chain.treasury.publicKey, recentBlockhash: blockhash }).add(
      SystemProgram.transfer({ fromPubkey: chain.treasury.publicKey, toPubkey: to, lamports: 1_000_000n }),
    );
    tx.sign(chain.treasury);
    const signature = bs58.encode(tx.signature!);
    const processed = await ws.subscribe("signatureSubscribe", [signature, { commitment: "processed" }]);
    const confirmed = await ws.subscribe("signatureSubscribe", [
      signature,
      { commitment: "confirmed", enableReceivedNotification: true },
    ]);
    const finalized = await ws.subscribe("signatureSubscribe", [signature, { commitment: "finalized" }]);
    chain.node.sendWire(tx.serialize(), { skipPreflight: false });
    const slot = Number(chain.node.getSlot());

    const p = await ws.take((m) => m.params?.subscription === processed);
    expect(p.method).toBe("signatureNotification");
    expect(p.params!.result).toEqual({ context: { slot }, value: { err: null } });
    expect((await ws.take((m) => m.params?.subscription === confirmed)).params!.result.value).toBe("receivedSignature");
    await ws.settle();
    expect(ws.notifications(confirmed)).toHaveLength(0);

    chain.node.advanceSlots(1);
    expect((await ws.take((m) => m.params?.subscription === confirmed)).params!.result).toEqual({
      context: { slot },
      value: { err: null },
    });
    await ws.settle();
    expect(ws.notifications(finalized)).toHaveLength(0);

    chain.node.advanceSlots(Number(FINALIZATION_SLOTS));
    expect((await ws.take((m) => m.params?.subscription === finalized)).params!.result.value).toEqual({ err: null });
    // spent: no second notification, and unsubscribing a spent subscription is refused
    chain.node.advanceSlots(2);
    await ws.settle();
    expect(
      ws.notifications(processed).length + ws.notifications(confirmed).length + ws.notifications(finalized).length,
    ).toBe(0);
    expect((await ws.call("signatureUnsubscribe", [confirmed])).error).toBeDefined();

    // A signature already confirmed is notified right after the subscribe answer.
    const late = await ws.subscribe("signatureSubscribe", [signature, { commitment: "confirmed" }]);
    expect((await ws.take((m) => m.params?.subscription === late)).params!.result.value).toEqual({ err: null });
  });

  test("accountSubscribe sends the account's new state per commitment, in the asked encoding, until unsubscribed", async () => {
    const ws = await WsClient.open(chain.wsUrl);
    const who = Keypair.generate().publicKey;
    const processed = await ws.subscribe("accountSubscribe", [
      who.toBase58(),
      { commitment: "processed", encoding: "base64" },
    ]);
    const confirmed = await ws.subscribe("accountSubscribe", [
      who.toBase58(),
      { commitment: "confirmed", encoding: "jsonParsed" },
    ]);
    transfer(who, 1_000_000n);
    transfer(who, 2_000_000n);
    const slot = Number(chain.node.getSlot());
    await ws.take((m) => m.params?.subscription === processed && m.params.result.value.lamports === 1_000_000);
    const second = await ws.take((m) => m.params?.subscription === processed);
    expect(second.method).toBe("accountNotification");
    expect(second.params!.result).toEqual({
      context: { slot },
      value: {
        data: ["", "base64"],
        executable: false,
        lamports: 3_000_000,
        owner: SystemProgram.programId.toBase58(),
        // u64::MAX as JSON.parse reads it: the nearest double, 2^64
        rentEpoch: 2 ** 64,
        space: 0,
      },
    });
    await ws.settle();
    expect(ws.notifications(confirmed)).toHaveLength(0);
    chain.node.advanceSlots(1);
    // confirmed: once per slot, the slot's end state
    const c = await ws.take((m) => m.params?.subscription === confirmed);
    expect(c.params!.result.value.lamports).toBe(3_000_000);
    await ws.settle();
    expect(ws.notifications(confirmed)).toHaveLength(0);

    expect((await ws.call("accountUnsubscribe", [processed])).result).toBe(true);
    transfer(who, 5_000_000n);
    await ws.settle();
    expect(ws.notifications(processed)).toHaveLength(0);
  });

  test("a change made before the subscription arrives is heard when its slot reaches the subscription's commitment, as agave's last_notified_slot gives", async () => {
    const ws = await WsClient.open(chain.wsUrl);
    const to = Keypair.generate().publicKey;
    // web3.js subscribes once its socket opens, often after the change it waits for has executed.
    transfer(to, 5_000_000n);
    const params = (commitment: string) => [to.toBase58(), { commitment, encoding: "base64" }];
    const processed = await ws.subscribe("accountSubscribe", params("processed"));
    const confirmed = await ws.subscribe("accountSubscribe", params("confirmed"));
    const finalized = await ws.subscribe("accountSubscribe", params("finalized"));
    chain.node.advanceSlots(1);
    for (const subscription of [processed, confirmed]) {
      const heard = await ws.take((m) => m.params?.subscription === subscription);
      expect(heard.params!.result.value.lamports).toBe(5_000_000);
    }
    // Made once the slot confirmed, a subscription already has that state: nothing to tell it.
    const afterwards = await ws.subscribe("accountSubscribe", params("confirmed"));
    chain.node.advanceSlots(Number(FINALIZATION_SLOTS));
    const heardFinal = await ws.take((m) => m.params?.subscription === finalized);
    expect(heardFinal.params!.result.value.lamports).toBe(5_000_000);
    // The socket keeps order: whatever was sent for these subscriptions precedes this answer.
    await ws.call("accountUnsubscribe", [afterwards]);
    expect(ws.notifications(afterwards)).toHaveLength(0);
    expect([processed, confirmed, finalized].flatMap((id) => ws.notifications(id))).toHaveLength(0);
  });

  test("programSubscribe applies filters; logsSubscribe takes all and mentions; slot and root notify per slot", async () => {
    const ws = await WsClient.open(chain.wsUrl);
    const a = Keypair.generate().publicKey;
    const b = Keypair.generate().publicKey;
    const system = SystemProgram.programId.toBase58();
    const program = await ws.subscribe("programSubscribe", [
      system,
      { commitment: "processed", encoding: "base64", filters: [{ dataSize: 0 }] },
    ]);
    const none = await ws.subscribe("programSubscribe", [
      system,
      { commitment: "processed", filters: [{ dataSize: 165 }] },
    ]);
    const all = await ws.subscribe("logsSubscribe", ["all", { commitment: "confirmed" }]);
    const mentions = await ws.subscribe("logsSubscribe", [{ mentions: [b.toBase58()] }, { commitment: "processed" }]);
    const slots = await ws.subscribe("slotSubscribe", []);
    const roots = await ws.subscribe("rootSubscribe", []);

    const sigA = transfer(a, 7_000_000n);
    const sigB = transfer(b, 8_000_000n);
    const pa = await ws.take(
      (m) => m.params?.subscription === program && m.params.result.value.pubkey === a.toBase58(),
    );
    expect(pa.method).toBe("programNotification");
    expect(pa.params!.result.value.account.lamports).toBe(7_000_000);
    const mb = await ws.take((m) => m.params?.subscription === mentions);
    expect(mb.method).toBe("logsNotification");
    expect(mb.params!.result.value.signature).toBe(sigB);
    expect(mb.params!.result.value.err).toBeNull();
    expect(mb.params!.result.value.logs.some((l: string) => l.includes(system))).toBe(true);
    await ws.settle();
    expect(ws.notifications(mentions)).toHaveLength(0); // the transfer to a did not mention b
    expect(ws.notifications(none)).toHaveLength(0);
    expect(ws.notifications(all)).toHaveLength(0); // confirmed: not before the slot closes

    const closed = Number(chain.node.getSlot());
    chain.node.advanceSlots(1);
    const s = await ws.take((m) => m.params?.subscription === slots);
    expect(s.method).toBe("slotNotification");
    expect(s.params!.result).toEqual({ parent: closed, root: closed - Number(FINALIZATION_SLOTS), slot: closed + 1 });
    expect((await ws.take((m) => m.params?.subscription === roots)).params!.result).toBe(
      closed - Number(FINALIZATION_SLOTS),
    );
    const logged = [
      await ws.take((m) => m.params?.subscription === all),
      await ws.take((m) => m.params?.subscription === all),
    ].map((m) => m.params!.result.value.signature);
    expect(logged.sort()).toEqual([sigA, sigB].sort());

    expect((await ws.call("slotUnsubscribe", [slots])).result).toBe(true);
    expect((await ws.call("rootUnsubscribe", [roots])).result).toBe(true);
    chain.node.advanceSlots(1);
    await ws.settle();
    expect(ws.notifications(slots).length + ws.notifications(roots).length).toBe(0);
  });

  test("a closed connection's subscriptions are dropped", async () => {
    const ws = await WsClient.open(chain.wsUrl);
    await ws.subscribe("slotSubscribe", []);
    ws.ws.close();
    await Bun.sleep(100);
    chain.node.advanceSlots(1); // nothing to send to, nothing thrown
    const again = await WsClient.open(chain.wsUrl);
    const id = await again.subscribe("slotSubscribe", []);
    chain.node.advanceSlots(1);
    await again.take((m) => m.params?.subscription === id);
  });
});
