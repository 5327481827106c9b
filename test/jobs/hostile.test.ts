/**
 * The money jobs against a pool of nodes, one of them far behind (the local chain's `lag` rule):
 * the status of a landed transaction read through the node behind must never turn into "expired"
 * (a payout replaced and paid twice; a sweep failed and its money never credited).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { PublicKey } from "@solana/web3.js";
import { checkPaidExactlyOnce, checkSweptExactlyOnce, setupPayouts, setupSweep } from "./scenarios";
import { moneyWorld, type World } from "./world";

let w: World | null = null;
afterEach(async () => {
  await w?.close();
  w = null;
});

const ok = { ran: true, ok: true };
const count = (world: World, sql: string) => Number((world.db.$client.query(sql).get() as { n: bigint }).n);

/** Waits (on the chain's own clock) until the chain is `blocks` past a height. */
async function pastHeight(world: World, height: bigint, blocks: bigint): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (world.local.node.getBlockHeight() <= height + blocks && Date.now() < deadline) await Bun.sleep(20);
}

describe("status reads answered by a node 400 slots behind", () => {
  test("a landed payout batch is never replaced: each wallet is paid exactly once", async () => {
    w = await moneyWorld();
    const setup = await setupPayouts(w, 3, 0);
    w.local.faults.apply({ kind: "lag", slots: 400, share: 1, methods: ["getSignatureStatuses"] });
    expect(await w.run("payouts", {}, { settleTimeoutMs: 500 })).toMatchObject(ok);
    const sent = w.db.$client
      .query("SELECT signature, last_valid_block_height AS lvbh FROM payouts WHERE status = 'sent' LIMIT 1")
      .get() as { signature: string; lvbh: bigint };
    expect(w.landed(sent.signature)?.ok).toBe(true);
    // Well past the batch's expiry height, still read through the node behind.
    await pastHeight(w, BigInt(sent.lvbh), 40n);
    expect(await w.run("payouts", {}, { settleTimeoutMs: 500 })).toMatchObject(ok);
    expect(count(w, "SELECT COUNT(*) AS n FROM payouts WHERE status = 'replaced'")).toBe(0);
    expect(await w.run("payouts", {}, { settleTimeoutMs: 500 })).toMatchObject(ok);
    for (const [id, amount] of setup.amounts)
      expect(w.local.node.getBalance(new PublicKey(setup.wallets.get(id)!))).toBe(amount);
    // The pool recovers: the batch is confirmed, once.
    w.local.faults.clear();
    expect(await w.run("payouts")).toMatchObject(ok);
    checkPaidExactlyOnce(w, setup);
  }, 60_000);

  test("a landed sweep is never failed: what reached the treasury is credited exactly once", async () => {
    w = await moneyWorld();
    const setup = await setupSweep(w, 2);
    w.local.faults.apply({ kind: "lag", slots: 400, share: 1, methods: ["getSignatureStatuses"] });
    expect(await w.run("sweep", {}, { settleTimeoutMs: 500 })).toMatchObject(ok);
    const sent = w.db.$client
      .query("SELECT last_valid_block_height AS lvbh FROM sweeps WHERE status = 'sent' LIMIT 1")
      .get() as { lvbh: bigint };
    await pastHeight(w, BigInt(sent.lvbh), 40n);
    expect(await w.run("sweep", {}, { settleTimeoutMs: 500 })).toMatchObject(ok);
    expect(count(w, "SELECT COUNT(*) AS n FROM sweeps WHERE status = 'failed'")).toBe(0);
    w.local.faults.clear();
    expect(await w.run("sweep")).toMatchObject(ok);
    await checkSweptExactlyOnce(w, setup);
  }, 60_000);
});
