/**
 * Custody breakers (issue 43): the treasury short of what is owed, broken books and an outflow cap
 * each halt payouts and burn buys on their own; a payout above the review amount waits as `held`;
 * only an operator's resume (with a reason) lets money move again, and then each payout is paid
 * exactly once. Against the embedded local chain, the jobs as they run in production.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { PublicKey, SystemProgram } from "@solana/web3.js";
import { immediate } from "../../db/transaction";
import { jobHealth } from "../../src/jobs";
import { listIncidents, moneyHalt, resumeMoney, waitingOutflow } from "../../src/custody";
import { approveHeldPayout, queuePayout } from "../../src/payouts";
import { verifyLedger } from "../../src/ledger";
import { owedForReserves } from "../../src/proof";
import { accountFigures } from "../../src/ledger/figures";
import { setupBurns, setupPayouts } from "../jobs/scenarios";
import { moneyWorld, type World } from "../jobs/world";

let w: World | null = null;
afterEach(async () => {
  await w?.close();
  w = null;
});

const statuses = (world: World) =>
  world.db.$client
    .query<{ status: string }, []>("SELECT status FROM payouts ORDER BY id")
    .all()
    .map((r) => r.status);

/** An operator's resume releasing what waits now; returns the incidents it resolved. */
function resume(world: World, reason = "checked by the operator") {
  return immediate(
    world.db,
    () =>
      resumeMoney(world.db, {
        actor: "test",
        reason,
        atMs: Date.now(),
        release: waitingOutflow(world.db),
      }).resolved,
  );
}

/** Wallets hold exactly what their payouts said, once. */
function expectPaidOnce(world: World, wallets: Map<string, string>, amounts: Map<string, bigint>): void {
  for (const [id, wallet] of wallets) {
    if (!amounts.has(id)) continue;
    expect({ id, onChain: world.local.node.getBalance(new PublicKey(wallet)) }).toEqual({
      id,
      onChain: amounts.get(id)!,
    });
  }
}

/** A transfer out of the treasury made by hand with its key, as a thief or a mistake would. */
async function drainTreasury(world: World, lamports: bigint): Promise<void> {
  const ix = SystemProgram.transfer({
    fromPubkey: world.treasury.publicKey,
    toPubkey: PublicKey.unique(),
    lamports,
  });
  const before = world.treasuryLamports();
  // The service's sender always names a command; this one names no withdrawal the database holds.
  const prepared = await world.chain.sender.prepare([ix], world.treasury, [], {
    commandKey: { kind: "withdrawal", withdrawalId: 999_999 },
  });
  await world.chain.sender.send(prepared);
  for (let i = 0; i < 200 && world.treasuryLamports() > before - lamports; i++) await Bun.sleep(10);
  expect(world.treasuryLamports()).toBeLessThanOrEqual(before - lamports);
}

describe("breakers halt money on their own", () => {
  test("a staged shortfall halts payouts and burn buys; a resume with a reason lets them go, each paid once", async () => {
    w = await moneyWorld();
    const setup = await setupPayouts(w, 2, 0);
    const owed = owedForReserves(w.db);
    expect(owed).toBeGreaterThan(0n);
    // Leave the treasury holding half of what it owes.
    await drainTreasury(w, w.treasuryLamports() - owed / 2n);
    expect(await w.run("sweep")).toMatchObject({ ran: true, ok: true });
    const halt = moneyHalt(w.db);
    expect(halt?.kind).toBe("shortfall");
    expect(halt?.detail).toContain("short");
    expect(jobHealth(w.db, Date.now()).halted?.kind).toBe("shortfall");
    expect(jobHealth(w.db, Date.now()).ok).toBe(false);
    // Payouts stay queued, nothing is sent.
    expect(await w.run("payouts")).toMatchObject({ ran: true, ok: true });
    expect(statuses(w)).toEqual(["queued", "queued"]);
    // A second reconciliation does not open a second incident of the same kind.
    expect(await w.run("sweep")).toMatchObject({ ran: true, ok: true });
    expect(listIncidents(w.db, 10).filter((i) => i.kind === "shortfall").length).toBe(1);

    // The operator refills the treasury and resumes.
    w.local.node.fund(w.treasury.publicKey, owed);
    expect(resume(w)).toBe(1);
    expect(moneyHalt(w.db)).toBeNull();
    expect(listIncidents(w.db, 10)[0]).toMatchObject({ resolvedBy: "test", resolveReason: "checked by the operator" });
    expect(await w.run("payouts")).toMatchObject({ ran: true, ok: true });
    expect(statuses(w)).toEqual(["confirmed", "confirmed"]);
    expectPaidOnce(w, setup.wallets, setup.amounts);
    verifyLedger(w.db);
  }, 60_000);

  test("burn buys stop while halted and go once resumed", async () => {
    w = await moneyWorld();
    await setupBurns(w);
    await drainTreasury(w, w.treasuryLamports() - owedForReserves(w.db) / 2n);
    expect(await w.run("sweep")).toMatchObject({ ran: true, ok: true });
    expect(moneyHalt(w.db)?.kind).toBe("shortfall");
    expect(await w.run("burns")).toMatchObject({ ran: true, ok: true });
    expect(w.db.$client.query("SELECT COUNT(*) AS n FROM burn_buys").get()).toEqual({ n: 0n });
    w.local.node.fund(w.treasury.publicKey, 10_000_000_000n);
    resume(w);
    expect(await w.run("burns")).toMatchObject({ ran: true, ok: true });
    expect(w.db.$client.query("SELECT COUNT(*) AS n FROM burn_orders WHERE status <> 'done'").get()).toEqual({ n: 0n });
  }, 60_000);

  test("a failed books audit halts money and says so", async () => {
    w = await moneyWorld();
    await setupPayouts(w, 1, 0);
    // Break the books: a cached balance that no longer matches its entries.
    w.db.$client.query("UPDATE ledger_accounts SET balance = balance + 1 WHERE kind = 'platform'").run();
    const run = await w.run("sweep");
    expect(run).toMatchObject({ ran: true, ok: false });
    const halt = moneyHalt(w.db);
    expect(halt?.kind).toBe("audit");
    expect(halt?.detail).toContain("audit");
    expect(await w.run("payouts")).toMatchObject({ ran: true });
    expect(statuses(w)).toEqual(["queued"]);
  }, 60_000);

  test("outflow over the hourly cap halts before sending; resume lets what waited through once, then the cap holds again", async () => {
    w = await moneyWorld();
    const setup = await setupPayouts(w, 2, 0);
    const total = [...setup.amounts.values()].reduce((a, b) => a + b, 0n);
    const env = { OUTFLOW_MAX_LAMPORTS_PER_HOUR: String(total - 1n) };
    expect(await w.run("payouts", env)).toMatchObject({ ran: true, ok: true });
    expect(moneyHalt(w.db)?.kind).toBe("outflow-hour");
    expect(statuses(w)).toEqual(["queued", "queued"]);
    resume(w);
    expect(await w.run("payouts", env)).toMatchObject({ ran: true, ok: true });
    expect(statuses(w)).toEqual(["confirmed", "confirmed"]);
    expectPaidOnce(w, setup.wallets, setup.amounts);
    // Within the hour, one more lamport out is past the cap again (the allowance was spent).
    const id = [...setup.wallets.keys()][0]!;
    w.trade(w.db.$client.query<{ mint: string }, []>("SELECT mint FROM tokens LIMIT 1").get()!.mint, 3_000_000_000n);
    expect(await w.run("sweep")).toMatchObject({ ran: true, ok: true });
    queuePayout(w.db, {
      idpUserId: id,
      lamports: null,
      wallet: setup.wallets.get(id)!,
      kind: "claim",
      minLamports: 1n,
      atMs: Date.now(),
    });
    expect(await w.run("payouts", { OUTFLOW_MAX_LAMPORTS_PER_HOUR: "1" })).toMatchObject({ ran: true, ok: true });
    expect(moneyHalt(w.db)?.kind).toBe("outflow-hour");
    expect(statuses(w)).toEqual(["confirmed", "confirmed", "queued"]);
  }, 60_000);

  test("a payout above the review amount waits as held until approved, then is paid once", async () => {
    w = await moneyWorld();
    w.signIn("u-big", "big");
    const t = w.launch([{ handle: "big", bps: 10_000 }], 0);
    w.trade(t.mint, 5_000_000_000n);
    expect(await w.run("sweep")).toMatchObject({ ran: true, ok: true });
    const balance = accountFigures(w.db, "user", "u-big").balanceLamports;
    const wallet = PublicKey.unique().toBase58();
    const queued = queuePayout(w.db, {
      idpUserId: "u-big",
      lamports: null,
      wallet,
      kind: "claim",
      minLamports: 1n,
      atMs: Date.now(),
      reviewLamports: balance - 1n,
    });
    expect(queued.status).toBe("held");
    // Held money has left the balance (it is owed on the payout) and is not sent.
    expect(accountFigures(w.db, "user", "u-big").balanceLamports).toBe(0n);
    expect(await w.run("payouts")).toMatchObject({ ran: true, ok: true });
    expect(statuses(w)).toEqual(["held"]);
    verifyLedger(w.db);
    expect(immediate(w.db, () => approveHeldPayout(w!.db, queued.payoutId, Date.now()))).toBe(true);
    expect(immediate(w.db, () => approveHeldPayout(w!.db, queued.payoutId, Date.now()))).toBe(false);
    expect(await w.run("payouts")).toMatchObject({ ran: true, ok: true });
    expect(statuses(w)).toEqual(["confirmed"]);
    expect(w.local.node.getBalance(new PublicKey(wallet))).toBe(balance);
    verifyLedger(w.db);
  }, 60_000);
});
