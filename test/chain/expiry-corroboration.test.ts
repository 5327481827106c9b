/**
 * Issue 61, item 5: an expiry proof that a history hole or a fanned-out batch cannot fake. Through
 * the real client (createRpcChain) against the local chain's JSON-RPC server with its
 * `historyHole` and `batchFanOut` rules: a payout that landed is never reported `expired` (it would
 * be signed again: paid twice), and one that truly never landed is still proven expired once the
 * evidence holds (the finalized blocks themselves, or an archive given as HISTORY_RPC_URL), so
 * payouts do not stall for good.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Keypair, SystemProgram } from "@solana/web3.js";
import { ChainFaults, type LocalChain, RpcServer, startLocalChain } from "@fee-ledger/localnet";
import { createRpcChain } from "../../src/chain/rpc";
import type { PreparedTransaction, TransactionOutcome } from "../../src/chain/ports";

let chain: LocalChain;
let archive: RpcServer | null = null;

beforeEach(async () => {
  chain = await startLocalChain({ rpcPort: 0, grpcPort: 0, slotMs: 0, faultSeed: 7 });
});
afterEach(async () => {
  await archive?.close();
  archive = null;
  await chain.stop();
});

/** Past the transaction's last valid block height, past finality and past the status cache (300 slots). */
const PAST_EXPIRY_SLOTS = 400;

function client(historyUrl: string | null = null) {
  return createRpcChain({
    rpcUrl: chain.rpcUrl,
    timeoutMs: 5_000,
    retries: 2,
    backoffBaseMs: 1,
    backoffMaxMs: 2,
    sleep: async () => {},
    allowNodeCosigners: true,
    landing: { historyUrl },
  });
}

let payoutId = 0;

/** A payout of 0.01 SOL to a fresh wallet, prepared and sent by the service's own sender. */
async function sendPayout(
  sender: ReturnType<typeof client>["sender"],
): Promise<{ prepared: PreparedTransaction; wallet: string }> {
  const wallet = Keypair.generate().publicKey;
  payoutId += 1;
  const prepared = await sender.prepare(
    [SystemProgram.transfer({ fromPubkey: chain.treasury.publicKey, toPubkey: wallet, lamports: 10_000_000 })],
    chain.treasury,
    [],
    {
      commandKey: {
        kind: "payouts",
        items: [{ payoutId, kind: "claim", idpUserId: `user${payoutId}`, firstPayoutId: null }],
      },
    },
  );
  await sender.send(prepared);
  return { prepared, wallet: wallet.toBase58() };
}

const outcomeOf = (sender: ReturnType<typeof client>["sender"], p: PreparedTransaction) =>
  sender.outcome(p.signature, p.lastValidBlockHeight, p.sentFromSlot, { blockTime: false });

/** An archive endpoint: a second JSON-RPC server over the same node, without the pool's faults. */
async function startArchive(): Promise<string> {
  archive = new RpcServer(chain.node, () => {}, new ChainFaults(chain.node, 1, { readsOnly: true }));
  return `http://127.0.0.1:${await archive.listen(0)}`;
}

describe("historyHole: a node restarted from a recent snapshot", () => {
  test("a payout that landed inside the hole is never reported expired; once a node with the slots answers, it is confirmed", async () => {
    const { sender } = client();
    const { prepared, wallet } = await sendPayout(sender);
    chain.node.advanceSlots(1);
    const landedSlot = Number(chain.node.getTransaction(prepared.signature)!.slot);
    expect(chain.node.getBalance(wallet)).toBe(10_000_000n);
    chain.faults.apply({ kind: "historyHole", fromSlot: landedSlot - 2, toSlot: landedSlot + 2 });
    chain.node.advanceSlots(PAST_EXPIRY_SLOTS);

    // The node's floor is below the hole and its history search finds nothing: the old proof's
    // two conditions hold, yet the money reached the wallet.
    for (let i = 0; i < 3; i++) {
      const outcome = await outcomeOf(sender, prepared);
      expect(outcome.kind).toBe("unknown");
    }
    expect(chain.faults.injected.historyHole).toBeGreaterThan(0);

    chain.faults.apply({ kind: "clear" });
    expect(await outcomeOf(sender, prepared)).toMatchObject({ kind: "confirmed", slot: BigInt(landedSlot) });
  });

  test("a payout that never landed is proven expired from the blocks when the hole is elsewhere, and inside the hole by an archive", async () => {
    const { sender } = client();
    chain.node.advanceSlots(5);
    const holeFrom = Number(chain.node.getSlot());
    chain.node.advanceSlots(5);
    chain.faults.apply({ kind: "dropSends", count: 1 });
    const elsewhere = await sendPayout(sender);
    // A second one sent inside the hole.
    chain.faults.apply({ kind: "dropSends", count: 1 });
    const inside = await sendPayout(sender);
    chain.faults.apply({ kind: "historyHole", fromSlot: holeFrom, toSlot: holeFrom + 4 });
    chain.node.advanceSlots(PAST_EXPIRY_SLOTS);
    expect(await outcomeOf(sender, elsewhere.prepared)).toEqual({ kind: "expired" });
    expect(chain.node.getBalance(elsewhere.wallet)).toBe(0n);

    // Blocks the transaction could have landed in are missing from this node: nothing proven yet.
    chain.faults.apply({ kind: "clear" });
    chain.faults.apply({ kind: "historyHole", fromSlot: Number(inside.prepared.sentFromSlot), toSlot: holeFrom + 200 });
    expect((await outcomeOf(sender, inside.prepared)).kind).toBe("unknown");
    // An archive (HISTORY_RPC_URL) proves it, while the pool still has the hole.
    const withArchive = client(await startArchive()).sender;
    expect(await outcomeOf(withArchive, inside.prepared)).toEqual({ kind: "expired" });
    // And the pool itself, once its nodes serve those blocks again.
    chain.faults.apply({ kind: "clear" });
    expect(await outcomeOf(sender, inside.prepared)).toEqual({ kind: "expired" });
    expect(chain.node.getBalance(inside.wallet)).toBe(0n);
  });

  test("with an archive, a payout that landed inside the pool's hole is confirmed from the archive", async () => {
    const { sender } = client(await startArchive());
    const { prepared } = await sendPayout(sender);
    chain.node.advanceSlots(1);
    const landedSlot = Number(chain.node.getTransaction(prepared.signature)!.slot);
    chain.faults.apply({ kind: "historyHole", fromSlot: landedSlot, toSlot: landedSlot });
    chain.node.advanceSlots(PAST_EXPIRY_SLOTS);
    expect(await outcomeOf(sender, prepared)).toMatchObject({ kind: "confirmed", slot: BigInt(landedSlot) });
  });
});

describe("batchFanOut: a gateway that answers each call of a batch from another node", () => {
  /** Half the pool pruned above `firstSlot`; every batch split across nodes. */
  function fannedOutPool(firstSlot: number) {
    chain.faults.apply({ kind: "prunedHistory", firstSlot, share: 0.5 });
    chain.faults.apply({ kind: "batchFanOut" });
  }

  test("a payout that landed is never reported expired, whichever nodes answer; it is confirmed", async () => {
    const { sender } = client();
    const { prepared, wallet } = await sendPayout(sender);
    chain.node.advanceSlots(1);
    const landedSlot = Number(chain.node.getTransaction(prepared.signature)!.slot);
    chain.node.advanceSlots(10);
    fannedOutPool(landedSlot + 5);
    chain.node.advanceSlots(PAST_EXPIRY_SLOTS);

    const seen: TransactionOutcome["kind"][] = [];
    for (let i = 0; i < 40; i++) seen.push((await outcomeOf(sender, prepared)).kind);
    expect(seen).not.toContain("expired");
    expect(seen).toContain("confirmed");
    expect(chain.faults.injected.batchFanOut).toBeGreaterThan(0);
    expect(chain.node.getBalance(wallet)).toBe(10_000_000n);
  });

  test("a payout that never landed is still proven expired: the blocks are read from whichever node serves them", async () => {
    const { sender } = client();
    chain.node.advanceSlots(5);
    chain.faults.apply({ kind: "dropSends", count: 1 });
    const { prepared, wallet } = await sendPayout(sender);
    chain.node.advanceSlots(10);
    fannedOutPool(Number(prepared.sentFromSlot) + 5);
    chain.node.advanceSlots(PAST_EXPIRY_SLOTS);

    let outcome: TransactionOutcome = { kind: "pending" };
    let asked = 0;
    // Each outcome resumes the proof where the pruned nodes cut it short (blocks read are kept).
    for (; asked < 40 && outcome.kind !== "expired"; asked++) {
      outcome = await outcomeOf(sender, prepared);
      expect(["unknown", "expired"]).toContain(outcome.kind);
    }
    expect(outcome).toEqual({ kind: "expired" });
    expect(chain.node.getBalance(wallet)).toBe(0n);
  });
});
