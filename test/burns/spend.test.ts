/**
 * Burns are booked at what the buy spent (issue 41): buy_exact_sol_in / buy_exact_quote_in spend
 * at most their budget, and the buy that completes a curve may spend less. What left the treasury
 * for the buy (its balances, less its fee and the rent of accounts it created) is burned; the rest
 * of the orders goes back where it came from, to the lamport.
 */
import { afterEach, expect, test } from "bun:test";
import { PublicKey } from "@solana/web3.js";
import { getAssociatedTokenAddressSync } from "@solana/spl-token";
import { buySpendOf } from "../../src/burns/service";
import { accountFigures, ledgerTotals } from "../../src/ledger/figures";
import { balanceOf, accounts } from "../../src/ledger";
import { checkBurnedExactlyOnce, setupBurns } from "../jobs/scenarios";
import { moneyWorld, type World } from "../jobs/world";

let w: World | null = null;
afterEach(async () => {
  await w?.close();
  w = null;
});

test("what a buy spent is read from its balances: the treasury's decrease less its fee and the rent it created", () => {
  const tx = {
    accountKeys: ["treasury", "curve", "ata", "vault"],
    preBalances: [10_000_000n, 50n, 0n, 0n],
    postBalances: [10_000_000n - 1_000_000n - 5_000n - 2_039_280n, 50n + 990_000n, 2_039_280n, 10_000n],
    feeLamports: 5_000n,
  };
  // The creator vault received its first fee (it did not exist before): spend, not rent.
  expect(buySpendOf(tx, "treasury", ["ata", "accumulator"])).toEqual({
    spentLamports: 1_000_000n,
    rentLamports: 2_039_280n,
    rentAccounts: [{ address: "ata", lamports: 2_039_280n }],
    surplusLamports: 0n,
  });
  // A token account that already existed (its balance unchanged by the buy) is not rent.
  const existing = {
    ...tx,
    preBalances: [10_000_000n, 50n, 2_039_280n, 0n],
    postBalances: [10_000_000n - 1_000_000n - 5_000n, 50n + 990_000n, 2_039_280n, 10_000n],
  };
  expect(buySpendOf(existing, "treasury", ["ata"])).toMatchObject({ spentLamports: 1_000_000n, rentLamports: 0n });
  expect(buySpendOf({ ...tx, feeLamports: undefined }, "treasury", ["ata"])).toBeNull();
  expect(buySpendOf(tx, "someone else", ["ata"])).toBeNull();
});

test("a buy that spent less than its budget: burned is what it spent, the rest is back in the recipients' balances and the platform's", async () => {
  w = await moneyWorld();
  const setup = await setupBurns(w);
  const unspentLamports = 123_457n;
  const program = w.chain.launchProgram;
  const original = program.buildBurnBuy.bind(program);
  // A program that takes less than it was offered (the curve-completing buy does).
  program.buildBurnBuy = (token, buyer, lamports, slippageBps) =>
    original(token, buyer, lamports - unspentLamports, slippageBps);
  const before = {
    burner: accountFigures(w.db, "user", "u-burn"),
    decliner: accountFigures(w.db, "user", "u-decl"),
    platform: balanceOf(w.db, accounts.platform()),
  };
  expect(await w.run("burns")).toMatchObject({ ran: true, ok: true });
  checkBurnedExactlyOnce(w, setup, { unspentLamports });

  const buys = w.db.$client
    .query("SELECT id, mint, lamports, spent_lamports AS spent, signature FROM burn_buys WHERE status = 'confirmed'")
    .all() as { id: bigint; mint: string; lamports: bigint; spent: bigint; signature: string }[];
  expect(buys.length).toBe(3);
  let recipientRefunds = 0n;
  let platformRefunds = 0n;
  for (const buy of buys) {
    // Measured here from the node's record, independently of the code under test.
    const record = w.local.node.getTransaction(buy.signature)!;
    const ti = record.accountKeys.findIndex((k) => k.equals(w!.treasury.publicKey));
    const ata = getAssociatedTokenAddressSync(new PublicKey(buy.mint), w.treasury.publicKey, true);
    const ai = record.accountKeys.findIndex((k) => k.equals(ata));
    const rent = ai >= 0 && record.preBalances[ai] === 0n ? record.postBalances[ai]! : 0n;
    const left = record.preBalances[ti]! - record.postBalances[ti]! - record.feeLamports - rent;
    expect(BigInt(buy.spent)).toBe(left);
    expect(BigInt(buy.lamports) - left).toBeGreaterThanOrEqual(unspentLamports);
    const orders = w.db.$client
      .query("SELECT source, idp_user_id AS id, lamports FROM burn_orders WHERE buy_id = ?")
      .all(buy.id) as { source: string; id: string | null; lamports: bigint }[];
    const total = BigInt(buy.lamports);
    const recipientBudget = orders.filter((o) => o.source === "recipient").reduce((n, o) => n + BigInt(o.lamports), 0n);
    const recipientBurned = (left * recipientBudget) / total;
    recipientRefunds += recipientBudget - recipientBurned;
    platformRefunds += total - recipientBudget - (left - recipientBurned);
  }
  expect(recipientRefunds + platformRefunds).toBe(buys.reduce((n, b) => n + BigInt(b.lamports) - BigInt(b.spent), 0n));
  // Every recipient's refund is in its balance, and its burned figure fell by as much.
  const after = { burner: accountFigures(w.db, "user", "u-burn"), decliner: accountFigures(w.db, "user", "u-decl") };
  const refunded =
    after.burner.balanceLamports -
    before.burner.balanceLamports +
    (after.decliner.balanceLamports - before.decliner.balanceLamports);
  expect(refunded).toBe(recipientRefunds);
  expect(after.burner.burnedLamports).toBe(
    before.burner.burnedLamports - (after.burner.balanceLamports - before.burner.balanceLamports),
  );
  expect(balanceOf(w.db, accounts.platform()) - before.platform).toBe(platformRefunds);
  // The books burned exactly what left the treasury, and they balance.
  expect(ledgerTotals(w.db).burnedLamports).toBe(buys.reduce((n, b) => n + BigInt(b.spent), 0n));
  expect(recipientRefunds).toBeGreaterThan(0n);
  w.checkRelations();
}, 60_000);
