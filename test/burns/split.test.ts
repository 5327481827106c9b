/**
 * A burn buy that would move the price more than BURN_MAX_PRICE_IMPACT_BPS is bought in parts
 * (issue 41): each run buys the oldest orders up to a part that stays under the bound, cutting the
 * order that crosses it; the rest waits for the next run. Every order is still bought and burned
 * exactly once, and the books burn what the buys spent.
 */
import { afterEach, expect, test } from "bun:test";
import { buyPriceImpactBps } from "../../src/chain/impact";
import { partOfGroup } from "../../src/burns/service";
import { ledgerTotals, verifyLedger } from "../../src/ledger";
import { moneyWorld, type World } from "../jobs/world";

let w: World | null = null;
afterEach(async () => {
  await w?.close();
  w = null;
});

test("price impact is the quote's shortfall against the marginal price, in basis points", () => {
  // A constant-product pool with 30 SOL and 1e15 tokens: a buy of x gets 1e15 * x / (30e9 + x).
  const pool = (x: bigint) => (1_000_000_000_000_000n * x) / (30_000_000_000n + x);
  // 0.3 SOL moves it 0.99% and 3 SOL 9.09% (the probe of a thousandth has its own small impact,
  // which leaves each a basis point under);
  // a buy no larger than the probe does not count.
  expect(buyPriceImpactBps(300_000_000n, pool)).toBe(98);
  expect(buyPriceImpactBps(3_000_000_000n, pool)).toBe(908);
  expect(buyPriceImpactBps(100_000n, pool)).toBe(0);
});

test("a part of a mint's orders takes the oldest first and cuts the one that crosses the budget", () => {
  const group = {
    mint: "M",
    orderIds: [1, 2, 3],
    recipientLamports: 700n,
    platformLamports: 300n,
    orders: [
      { id: 1, source: "recipient" as const, lamports: 400n },
      { id: 2, source: "platform" as const, lamports: 300n },
      { id: 3, source: "recipient" as const, lamports: 300n },
    ],
  };
  expect(partOfGroup(group, 1_000n)).toBe(group);
  expect(partOfGroup(group, 550n)).toEqual({
    mint: "M",
    orderIds: [1, 2],
    recipientLamports: 400n,
    platformLamports: 150n,
    cut: { orderId: 2, lamports: 150n },
  });
  expect(partOfGroup(group, 700n)).toEqual({
    mint: "M",
    orderIds: [1, 2],
    recipientLamports: 400n,
    platformLamports: 300n,
  });
});

test("orders over the impact bound are bought in parts across runs, each under the bound, all burned once", async () => {
  w = await moneyWorld();
  w.signIn("u-burn", "burner", { routing: "burn" });
  w.signIn("u-burn2", "burner2", { routing: "burn" });
  const t = w.launch(
    [
      { handle: "burner", bps: 5_000 },
      { handle: "burner2", bps: 5_000 },
    ],
    1000,
  );
  w.trade(t.mint, 40_000_000_000n);
  expect(await w.run("sweep")).toMatchObject({ ran: true, ok: true });
  const ordered = w.db.$client
    .query("SELECT COALESCE(SUM(lamports), 0) AS s, COUNT(*) AS n FROM burn_orders WHERE mint = ?")
    .get(t.mint) as { s: bigint; n: bigint };
  expect(BigInt(ordered.s)).toBeGreaterThan(0n);
  const env = { BURN_MAX_PRICE_IMPACT_BPS: "10" };
  const program = w.chain.launchProgram;
  const build = program.buildBurnBuy.bind(program);
  const impacts: number[] = [];
  program.buildBurnBuy = async (token, buyer, lamports, slippageBps) => {
    const plan = await build(token, buyer, lamports, slippageBps);
    impacts.push(plan.priceImpactBps);
    return plan;
  };
  const sentImpacts: number[] = [];
  for (let run = 0; run < 30; run++) {
    const pending = w.db.$client
      .query("SELECT COUNT(*) AS n FROM burn_orders WHERE mint = ? AND status <> 'done'")
      .get(t.mint) as { n: bigint };
    if (pending.n === 0n) break;
    impacts.length = 0;
    expect(await w.run("burns", env)).toMatchObject({ ran: true, ok: true });
    // The plan that was sent is the last one quoted in the run.
    if (impacts.length > 0) sentImpacts.push(impacts[impacts.length - 1]!);
  }
  const buys = w.db.$client
    .query("SELECT status, lamports, spent_lamports AS spent FROM burn_buys WHERE mint = ? ORDER BY id")
    .all(t.mint) as { status: string; lamports: bigint; spent: bigint }[];
  // Bought in several parts, every one under the bound, none failed.
  expect(buys.length).toBeGreaterThan(1);
  for (const b of buys) expect(b.status).toBe("confirmed");
  for (const impact of sentImpacts) expect(impact).toBeLessThanOrEqual(10);
  // Every order (cut parts included) is done, and they add up to what was ordered, to the lamport.
  const after = w.db.$client
    .query(
      "SELECT COALESCE(SUM(lamports), 0) AS s, COUNT(*) AS n, SUM(status <> 'done') AS open FROM burn_orders WHERE mint = ?",
    )
    .get(t.mint) as { s: bigint; n: bigint; open: bigint };
  expect(BigInt(after.s)).toBe(BigInt(ordered.s));
  expect(BigInt(after.open)).toBe(0n);
  expect(BigInt(after.n)).toBeGreaterThan(BigInt(ordered.n));
  expect(buys.reduce((n, b) => n + BigInt(b.lamports), 0n)).toBe(BigInt(ordered.s));
  // The books burned exactly what the buys spent.
  expect(ledgerTotals(w.db).burnedLamports).toBe(buys.reduce((n, b) => n + BigInt(b.spent), 0n));
  verifyLedger(w.db);
  w.checkRelations();
}, 120_000);
