/**
 * A burn sent again after its burns provably expired pays one more fee step per expiry in a row,
 * as payouts and sweeps do (issue 61, item 6): before, every re-send of a burn was attempt 1, so a
 * burn priced out of a congested market stayed priced out.
 */
import { afterEach, expect, test } from "bun:test";
import { PublicKey } from "@solana/web3.js";
import { getAssociatedTokenAddressSync } from "@solana/spl-token";
import { ledgerTotals, verifyLedger } from "../../src/ledger";
import { burnExpiriesInARow } from "../../src/burns/job";
import { moneyWorld, type World } from "../jobs/world";

let w: World | null = null;
afterEach(async () => {
  await w?.close();
  w = null;
});

const ok = { ran: true, ok: true };

/** Moves the chain `blocks` past a height itself, rather than waiting for its slot timer. */
async function pastHeight(world: World, height: bigint, blocks: bigint): Promise<void> {
  const short = height + blocks + 1n - world.local.node.getBlockHeight();
  if (short > 0n) world.local.node.advanceSlots(Number(short));
  expect(world.local.node.getBlockHeight()).toBeGreaterThan(height + blocks);
}

/** The burn transactions the service signed, in order: their attempt number and unit price. */
function burnsSigned(world: World): { signature: string; attempt: number; price: bigint }[] {
  return (
    world.db.$client
      .query(
        `SELECT signature, attempt, compute_unit_price_micro_lamports AS price FROM chain_transactions
          WHERE job = 'burn' ORDER BY prepared_at_ms, rowid`,
      )
      .all() as { signature: string; attempt: bigint; price: bigint }[]
  ).map((r) => ({ signature: r.signature, attempt: Number(r.attempt), price: BigInt(r.price) }));
}

test("the buy's expiries in a row are read back from what each expiry left", () => {
  expect(burnExpiriesInARow(null)).toBe(0);
  expect(burnExpiriesInARow("custom program error: 0x1")).toBe(0);
  expect(burnExpiriesInARow("expired without landing")).toBe(1);
  expect(burnExpiriesInARow("expired without landing (3 in a row)")).toBe(3);
  expect(burnExpiriesInARow("expired without landing (x in a row)")).toBe(0);
});

test("a burn that expires twice is sent the third time at a higher price than the second, and burns once", async () => {
  w = await moneyWorld();
  w.signIn("u-burn", "burner", { routing: "burn" });
  const t = w.launch([{ handle: "burner", bps: 10_000 }], 0);
  w.trade(t.mint, 2_000_000_000n);
  expect(await w.run("sweep")).toMatchObject(ok);
  // The buy lands and waits `bought`: its burn cannot be built in this run.
  const program = w.chain.launchProgram;
  const buildBurn = program.buildBurn.bind(program);
  program.buildBurn = () => Promise.reject(new Error("burn held back by the test"));
  expect(await w.run("burns", {}, { settleTimeoutMs: 3_000 })).toMatchObject(ok);
  program.buildBurn = buildBurn;
  expect(w.db.$client.query("SELECT status FROM burn_buys").all()).toEqual([{ status: "bought" }]);

  // Every send is lost (a node that drops what it is given): each burn expires without landing.
  w.local.faults.apply({ kind: "dropSends", count: 1_000_000 });
  for (let expiries = 0; expiries < 3; expiries++) {
    // Sends the burn (after its last one's provable expiry, once there is one) and leaves it in flight.
    expect(await w.run("burns", {}, { settleTimeoutMs: 300 })).toMatchObject(ok);
    const row = w.db.$client.query("SELECT status, burn_last_valid_block_height AS lvbh FROM burn_buys").get() as {
      status: string;
      lvbh: bigint;
    };
    expect(row.status).toBe("burning");
    await pastHeight(w, BigInt(row.lvbh), 40n);
  }
  const lost = burnsSigned(w);
  expect(lost.map((b) => b.attempt)).toEqual([0, 1, 2]);
  for (const b of lost) expect(w.landed(b.signature)).toBeNull();
  // Each re-send pays more than the one before: the second expiry stepped the price again.
  expect(lost[2]!.price).toBeGreaterThan(lost[1]!.price);
  expect(lost[1]!.price).toBeGreaterThan(lost[0]!.price);

  // Sends reach the chain again: the fourth burn lands, at the next step, and burns once.
  w.local.faults.clear();
  expect(await w.run("burns")).toMatchObject(ok);
  const all = burnsSigned(w);
  expect(all.map((b) => b.attempt)).toEqual([0, 1, 2, 3]);
  expect(all[3]!.price).toBeGreaterThan(all[2]!.price);
  expect(w.landed(all[3]!.signature)?.ok).toBe(true);
  expect(w.db.$client.query("SELECT status, burn_signature AS s FROM burn_buys").all()).toEqual([
    { status: "confirmed", s: all[3]!.signature },
  ]);
  // A re-send after expiries closes the emptied token account too: its rent is back in the books.
  const ata = getAssociatedTokenAddressSync(new PublicKey(t.mint), w.treasury.publicKey, true);
  expect(w.local.node.getAccount(ata)).toBeNull();
  expect(ledgerTotals(w.db)).toMatchObject({ rentLamports: 0n, floatFrontedLamports: 0n });
  verifyLedger(w.db);
}, 120_000);
