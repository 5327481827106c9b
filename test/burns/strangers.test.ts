/**
 * Strangers' lamports never stop the burns (issue 61, item 2). Anyone can send lamports to any
 * address: to the treasury's token account of a mint before a buy creates it, to its WSOL account
 * (or create that account for it). The spend of a buy and the rent it books are measured per
 * account from the transaction's balances: an account that already held lamports is topped up,
 * not created; lamports that come back from accounts the treasury did not fund are surplus. A
 * transaction the measure still cannot explain sets its mint aside with an incident, and every
 * other mint burns on: the process never stops for one transaction on chain.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Keypair, PublicKey, SystemProgram, Transaction } from "@solana/web3.js";
import { getAssociatedTokenAddressSync } from "@solana/spl-token";
import { openDatabase } from "../../db/client";
import { immediate } from "../../db/transaction";
import { buySpendAnomaly, buySpendOf, rentClosedIn } from "../../src/burns/service";
import { createPumpLaunchProgram } from "../../src/chain/pump";
import { accounts, balanceOf, ledgerTotals, payRent, returnRent, verifyLedger } from "../../src/ledger";
import { post } from "../../src/ledger/ledger";
import { listIncidents } from "../../src/custody/incidents";
import { clearSetAside, listSetAside, setAsideStates } from "../../src/jobs/set-aside";
import { checkBurnedExactlyOnce, setupBurns } from "../jobs/scenarios";
import { moneyWorld, signaturesOf, type World } from "../jobs/world";
import { mapReader } from "../chain/support/fixtures";

const TOKEN_ACCOUNT_RENT = 2_039_280n;
/** rent of pump's 137-byte UserVolumeAccumulator */
const ACCUMULATOR_RENT = 1_844_400n;
/** what the audit sent: below a token account's rent, so the ATA program tops it up */
const STRANGER_LAMPORTS = 890_880n;
const FEE = 5_000n + 42_000n;

const treasury = Keypair.generate().publicKey.toBase58();
const mint = Keypair.generate().publicKey.toBase58();
// The accounts the pump adapter names as the treasury's for this mint, as the job passes them.
const rentAccounts = createPumpLaunchProgram(mapReader(new Map())).buyRentAccounts(mint, treasury);
const [, ata2022, wsolAta, curveAccumulator, ammAccumulator] = rentAccounts as [string, string, string, string, string];
const other = () => Keypair.generate().publicKey.toBase58();

/** A landed transaction's balances, from per-account (pre, post) pairs. */
function shape(balances: [address: string, pre: bigint, post: bigint][]) {
  return {
    accountKeys: balances.map((b) => b[0]),
    preBalances: balances.map((b) => b[1]),
    postBalances: balances.map((b) => b[2]),
    feeLamports: FEE,
  };
}

describe("the spend of a buy, per account", () => {
  const T = 100_000_000_000n;
  const budget = 3_880_792n;
  const curve = other();
  const creatorVault = other();
  const feeRecipient = other();
  // buy_exact_sol_in spends the whole budget: the curve takes the net, the fees go out of it.
  const trade = (spent: bigint): [string, bigint, bigint][] => [
    [curve, 50_000_000n, 50_000_000n + spent - 40_000n],
    [creatorVault, 1_000_000n, 1_000_000n + 30_000n],
    [feeRecipient, 5_000_000n, 5_000_000n + 10_000n],
  ];

  test("a token account a stranger pre-funded below rent is topped up: the rent booked is the top-up", () => {
    const topUp = TOKEN_ACCOUNT_RENT - STRANGER_LAMPORTS;
    const tx = shape([
      [treasury, T, T - FEE - budget - topUp - ACCUMULATOR_RENT],
      [ata2022, STRANGER_LAMPORTS, TOKEN_ACCOUNT_RENT],
      [curveAccumulator, 0n, ACCUMULATOR_RENT],
      ...trade(budget),
    ]);
    const spend = buySpendOf(tx, treasury, rentAccounts)!;
    // Before: 5,029,192 "spent" of a budget of 3,880,792, and the process stopped.
    expect(spend).toEqual({
      spentLamports: budget,
      rentLamports: topUp + ACCUMULATOR_RENT,
      rentAccounts: [
        { address: ata2022, lamports: topUp },
        { address: curveAccumulator, lamports: ACCUMULATOR_RENT },
      ],
      surplusLamports: 0n,
    });
    expect(buySpendAnomaly(spend, budget)).toBeNull();
  });

  test("a pre-funded account at or above rent costs the treasury nothing: no rent is booked for it", () => {
    const tx = shape([
      [treasury, T, T - FEE - budget],
      [ata2022, 3_000_000n, 3_000_000n],
      [curveAccumulator, ACCUMULATOR_RENT, ACCUMULATOR_RENT],
      ...trade(budget),
    ]);
    expect(buySpendOf(tx, treasury, rentAccounts)).toEqual({
      spentLamports: budget,
      rentLamports: 0n,
      rentAccounts: [],
      surplusLamports: 0n,
    });
  });

  test("a token account that exists already (a stranger's lamports in it or not) is not rent", () => {
    const tx = shape([
      [treasury, T, T - FEE - budget],
      [ata2022, TOKEN_ACCOUNT_RENT + STRANGER_LAMPORTS, TOKEN_ACCOUNT_RENT + STRANGER_LAMPORTS],
      [curveAccumulator, ACCUMULATOR_RENT, ACCUMULATOR_RENT],
      ...trade(budget),
    ]);
    expect(buySpendOf(tx, treasury, rentAccounts)).toMatchObject({ spentLamports: budget, rentLamports: 0n });
  });

  test("a pool buy through a WSOL account a stranger created: its rent comes back as surplus, the spend is the budget", () => {
    // The SDK wraps the budget into the treasury's WSOL account, buys, and closes the account:
    // the close hands the treasury what the stranger paid for it too.
    const small = 1_000_000n;
    const poolQuote = other();
    const tx = shape([
      [treasury, T, T - FEE - TOKEN_ACCOUNT_RENT - small + (TOKEN_ACCOUNT_RENT + 0n)],
      [ata2022, 0n, TOKEN_ACCOUNT_RENT],
      [wsolAta, TOKEN_ACCOUNT_RENT, 0n],
      [ammAccumulator, ACCUMULATOR_RENT, ACCUMULATOR_RENT],
      [poolQuote, 9_000_000_000n, 9_000_000_000n + small],
    ]);
    const spend = buySpendOf(tx, treasury, rentAccounts)!;
    // Before: -1,039,280 spent, and the process stopped.
    expect(spend).toEqual({
      spentLamports: small,
      rentLamports: TOKEN_ACCOUNT_RENT,
      rentAccounts: [{ address: ata2022, lamports: TOKEN_ACCOUNT_RENT }],
      surplusLamports: TOKEN_ACCOUNT_RENT,
    });
    expect(buySpendAnomaly(spend, small)).toBeNull();
    // The same buy when the stranger also wrapped lamports in it: all of it comes back, unspent.
    const wrapped = shape([
      [treasury, T, T - FEE - TOKEN_ACCOUNT_RENT - small + (TOKEN_ACCOUNT_RENT + 700n)],
      [ata2022, 0n, TOKEN_ACCOUNT_RENT],
      [wsolAta, TOKEN_ACCOUNT_RENT + 700n, 0n],
      [poolQuote, 9_000_000_000n, 9_000_000_000n + small],
    ]);
    expect(buySpendOf(wrapped, treasury, rentAccounts)).toMatchObject({
      spentLamports: small,
      surplusLamports: TOKEN_ACCOUNT_RENT + 700n,
    });
  });

  test("what the measure cannot explain is an anomaly of the transaction, never a booked spend", () => {
    // An account the adapter does not know of took rent in the buy: counted as spend, over budget.
    const unexpected = other();
    const tx = shape([[treasury, T, T - FEE - budget - 1_500_000n], [unexpected, 0n, 1_500_000n], ...trade(budget)]);
    const spend = buySpendOf(tx, treasury, rentAccounts)!;
    expect(spend.spentLamports).toBe(budget + 1_500_000n);
    expect(buySpendAnomaly(spend, budget)).toContain(`spent of a budget of ${budget}`);
    expect(buySpendAnomaly({ ...spend, spentLamports: 0n }, budget)).not.toBeNull();
    expect(buySpendAnomaly({ ...spend, spentLamports: -1n }, budget)).not.toBeNull();
  });

  test("the burn's close of a pre-funded account: the books take back the rent they booked, the stranger's part is surplus", () => {
    const topUp = TOKEN_ACCOUNT_RENT - STRANGER_LAMPORTS;
    const buy = buySpendOf(
      shape([
        [treasury, T, T - FEE - budget - topUp],
        [ata2022, STRANGER_LAMPORTS, TOKEN_ACCOUNT_RENT],
        ...trade(budget),
      ]),
      treasury,
      rentAccounts,
    )!;
    // The burn (BurnChecked, then CloseAccount to the treasury) empties and closes the account.
    const burn = shape([
      [treasury, T, T - FEE + TOKEN_ACCOUNT_RENT],
      [ata2022, TOKEN_ACCOUNT_RENT, 0n],
      [mint, 1_461_600n, 1_461_600n],
    ]);
    const closed = rentClosedIn(burn, rentAccounts);
    expect(closed).toEqual([{ address: ata2022, lamports: TOKEN_ACCOUNT_RENT }]);
    const db = openDatabase(":memory:");
    immediate(db, () =>
      post(db, "seed", "sweep", 1, [
        { account: accounts.sweepSource(mint), amount: -10_000_000n },
        { account: accounts.platform(), amount: 10_000_000n },
      ]),
    );
    immediate(db, () => payRent(db, { key: "burn_buy:1", accounts: buy.rentAccounts, atMs: 2 }));
    expect(balanceOf(db, accounts.rent(ata2022))).toBe(topUp);
    immediate(db, () => returnRent(db, { key: "burn:1", accounts: closed, atMs: 3 }));
    // The platform paid the top-up and has exactly that back; the 890,880 lamports stay out of the books.
    expect(balanceOf(db, accounts.platform())).toBe(10_000_000n);
    expect(balanceOf(db, accounts.rent(ata2022))).toBe(0n);
    expect(ledgerTotals(db)).toMatchObject({ rentLamports: 0n, floatFrontedLamports: 0n });
    verifyLedger(db);
  });
});

let w: World | null = null;
afterEach(async () => {
  await w?.close();
  w = null;
});

const ok = { ran: true, ok: true };

/** A stranger's own transfer to `to`, sent through the node's JSON-RPC; resolves once it landed. */
async function strangerSends(world: World, to: PublicKey, lamports: bigint): Promise<void> {
  const stranger = Keypair.generate();
  world.local.node.fund(stranger.publicKey, 1_000_000_000n);
  const before = world.local.node.getBalance(to);
  const { blockhash } = world.local.node.getLatestBlockhash();
  const tx = new Transaction({ feePayer: stranger.publicKey, recentBlockhash: blockhash }).add(
    SystemProgram.transfer({ fromPubkey: stranger.publicKey, toPubkey: to, lamports }),
  );
  tx.sign(stranger);
  const answer = await fetch(world.local.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "sendTransaction",
      params: [tx.serialize().toString("base64"), { encoding: "base64" }],
    }),
  });
  expect(((await answer.json()) as { error?: unknown }).error ?? null).toBeNull();
  // The node executes a send as it takes it; a block on top puts it in the chain's history.
  world.local.node.advanceSlots(1);
  expect(world.local.node.getBalance(to)).toBe(before + lamports);
}

const treasuryAta = (world: World, m: string) =>
  getAssociatedTokenAddressSync(new PublicKey(m), world.treasury.publicKey, true);

describe("on the local chain", () => {
  test("a stranger pre-funds the treasury's token account of a mint routed to burn: the run goes on, every mint burns, the books balance", async () => {
    w = await moneyWorld();
    const setup = await setupBurns(w);
    const [target] = setup.mints as [string];
    const ata = treasuryAta(w, target);
    expect(w.local.node.getAccount(ata)).toBeNull();
    await strangerSends(w, ata, STRANGER_LAMPORTS);

    expect(await w.run("burns")).toMatchObject(ok);
    const buys = w.db.$client
      .query(
        "SELECT id, mint, status, signature, lamports, spent_lamports AS spent, rent_lamports AS rent FROM burn_buys ORDER BY id",
      )
      .all() as {
      id: bigint;
      mint: string;
      status: string;
      signature: string;
      lamports: bigint;
      spent: bigint;
      rent: bigint;
    }[];
    // Every mint bought and burned, the pre-funded one too.
    expect(new Set(buys.filter((b) => b.status === "confirmed").map((b) => b.mint))).toEqual(new Set(setup.mints));
    expect(listSetAside(w.db)).toEqual([]);
    expect(listIncidents(w.db, 100).filter((i) => i.resolvedAtMs === null)).toEqual([]);
    const buy = buys.find((b) => b.mint === target && b.status === "confirmed")!;
    // Measured here from the node's record: the ATA program topped the stranger's lamports up to
    // the rent (as agave's does), and only that top-up left the treasury as rent.
    const record = w.local.node.getTransaction(buy.signature)!;
    const at = (key: PublicKey) => record.accountKeys.findIndex((k) => k.equals(key));
    const ai = at(ata);
    expect(record.preBalances[ai]).toBe(STRANGER_LAMPORTS);
    const rent = w.local.node.minimumBalanceForRentExemption(165);
    expect(record.postBalances[ai]).toBe(rent);
    expect(BigInt(buy.rent)).toBe(rent - STRANGER_LAMPORTS);
    const ti = at(w.treasury.publicKey);
    const spent = record.preBalances[ti]! - record.postBalances[ti]! - record.feeLamports - (rent - STRANGER_LAMPORTS);
    expect(BigInt(buy.spent)).toBe(spent);
    expect(spent).toBeLessThanOrEqual(BigInt(buy.lamports));
    expect(BigInt(buy.lamports) - spent).toBeLessThan(3n);
    // The burn closed the account: the books have back the top-up they paid, nothing more.
    expect(w.local.node.getAccount(ata)).toBeNull();
    const totals = w.checkRelations();
    expect(totals).toMatchObject({ rentLamports: 0n, floatFrontedLamports: 0n, buybackPendingLamports: 0n });
    const burned = buys.filter((b) => b.status === "confirmed").reduce((n, b) => n + BigInt(b.spent), 0n);
    expect(totals.burnedLamports).toBe(burned);
    // What left the treasury is what was burned and the fees; the stranger's lamports stayed in it.
    expect(setup.treasuryBefore - w.treasuryLamports()).toBe(
      burned + w.feesOf(signaturesOf(w.db, "burn_buys")) - STRANGER_LAMPORTS,
    );
    verifyLedger(w.db);
  }, 90_000);

  test("a buy the measure cannot explain sets its mint aside with an incident; the other mints burn; cleared, it is booked", async () => {
    w = await moneyWorld();
    const setup = await setupBurns(w);
    const [odd] = setup.mints as [string];
    const program = w.chain.launchProgram;
    const rentAccountsOf = program.buyRentAccounts.bind(program);
    // The adapter does not know an account the buy funded: its rent shows as spend, over budget.
    program.buyRentAccounts = (m, buyer) => (m === odd ? [] : rentAccountsOf(m, buyer));
    expect(await w.run("burns")).toMatchObject(ok);
    const statusOf = (m: string) =>
      (
        w!.db.$client.query("SELECT status FROM burn_buys WHERE mint = ? ORDER BY id").all(m) as { status: string }[]
      ).map((r) => r.status);
    for (const m of setup.mints.slice(1)) expect(statusOf(m)).toEqual(["confirmed"]);
    // Nothing booked for the odd one: its buy waits `sent`, its mint stopped for burns, the operator told.
    expect(statusOf(odd)).toEqual(["sent"]);
    expect(setAsideStates(w.db, odd, "burns")).toEqual([{ job: "burns", stopped: true, failures: 1 }]);
    expect(listSetAside(w.db)[0]!.reason).toContain("spent of a budget of");
    const open = listIncidents(w.db, 100).filter((i) => i.resolvedAtMs === null);
    expect(open.map((i) => [i.kind, i.halts])).toEqual([["token-anomaly", false]]);
    expect(open[0]!.detail).toContain(odd);
    verifyLedger(w.db);
    // Later runs leave it as it is (one incident, no second buy of the mint) and go on.
    expect(await w.run("burns", {}, { settleTimeoutMs: 1_000 })).toMatchObject(ok);
    expect(statusOf(odd)).toEqual(["sent"]);
    expect(listIncidents(w.db, 100).length).toBe(1);

    // The adapter learns the account; the operator clears the mint: the buy is booked and burned.
    program.buyRentAccounts = rentAccountsOf;
    expect(clearSetAside(w.db, odd, setAsideStates(w.db, odd, "burns"), () => {})).toBe(true);
    expect(await w.run("burns")).toMatchObject(ok);
    checkBurnedExactlyOnce(w, setup);
    const [incident] = listIncidents(w.db, 100);
    expect(incident).toMatchObject({ kind: "token-anomaly", resolvedBy: "system" });
  }, 90_000);
});
