/**
 * The rebroadcaster (src/landing/rebroadcast.ts): a payout whose first send was lost lands from its
 * saved bytes, sent again by a rebroadcaster that never saw it signed (a restart), and is paid
 * once; a transaction whose blockhash passed is not sent again; nothing is ever signed anew.
 */
import { afterEach, expect, test } from "bun:test";
import { createRpcChain } from "../../src/chain/rpc";
import { rebroadcastPass } from "../../src/landing";
import { checkPaidExactlyOnce, setupPayouts } from "../jobs/scenarios";
import { moneyWorld, type World } from "../jobs/world";

let w: World | null = null;
afterEach(async () => {
  await w?.close();
  w = null;
});

const ok = { ran: true, ok: true };

function freshChain(world: World) {
  const rpc = createRpcChain({ rpcUrl: world.local.rpcUrl, timeoutMs: 5_000, retries: 2, backoffBaseMs: 20 });
  return { reader: rpc.reader, sender: rpc.sender };
}

const journal = (world: World) =>
  world.db.$client
    .query(
      "SELECT signature, state, send_count AS sends, wire IS NOT NULL AS hasWire FROM chain_transactions WHERE job = 'payouts'",
    )
    .all() as { signature: string; state: string; sends: bigint; hasWire: bigint }[];

test("a lost first send lands from its saved bytes, sent again after a restart; paid once, never re-signed", async () => {
  w = await moneyWorld();
  const setup = await setupPayouts(w, 2, 0);
  w.local.faults.apply({ kind: "dropSends", count: 1 });
  expect(await w.run("payouts", {}, { settleTimeoutMs: 100 })).toMatchObject(ok);
  const [row] = journal(w);
  expect(row!.state).toBe("live");
  expect(Number(row!.hasWire)).toBe(1);
  expect(w.landed(row!.signature)).toBeNull();
  // A rebroadcaster of a new process: it knows only the database.
  const report = await rebroadcastPass({ db: w.db, chain: freshChain(w), now: Date.now }, { intervalMs: 0 });
  expect(report.sent).toBe(1);
  expect(w.landed(row!.signature)?.ok).toBe(true);
  expect(await w.run("payouts")).toMatchObject(ok);
  const after = journal(w);
  expect(after.length).toBe(1);
  expect(after[0]!.signature).toBe(row!.signature);
  expect(after[0]!.state).toBe("landed");
  expect(Number(after[0]!.sends)).toBe(2);
  expect(Number(after[0]!.hasWire)).toBe(0);
  checkPaidExactlyOnce(w, setup);
}, 60_000);

test("past its blockhash a transaction is not sent again; the job proves it expired and replaces it", async () => {
  w = await moneyWorld();
  const setup = await setupPayouts(w, 1, 0);
  w.local.faults.apply({ kind: "dropSends", count: 1 });
  expect(await w.run("payouts", {}, { settleTimeoutMs: 100 })).toMatchObject(ok);
  const [row] = journal(w);
  const lvbh = (
    w.db.$client.query("SELECT last_valid_block_height AS h FROM chain_transactions WHERE job = 'payouts'").get() as {
      h: bigint;
    }
  ).h;
  const deadline = Date.now() + 20_000;
  while (w.local.node.getBlockHeight() <= BigInt(lvbh) + 40n && Date.now() < deadline) await Bun.sleep(20);
  const report = await rebroadcastPass({ db: w.db, chain: freshChain(w), now: Date.now }, { intervalMs: 0 });
  expect(report).toEqual({ sent: 0, landed: 0, lapsed: 1 });
  expect(w.landed(row!.signature)).toBeNull();
  expect(await w.run("payouts")).toMatchObject(ok);
  const states = journal(w).map((r) => r.state);
  expect(states.sort()).toEqual(["expired", "landed"]);
  checkPaidExactlyOnce(w, setup);
}, 60_000);
