/**
 * Rent a burn buy pays (the treasury's token account; on pump also the volume accumulator) is
 * booked to the platform as rent held in those accounts, not lost to the treasury's surplus
 * (issue 41). What the platform's balance cannot cover, the operator's float fronts, and it has
 * that back first when the burn closes the token account.
 */
import { afterEach, expect, test } from "bun:test";
import { PublicKey } from "@solana/web3.js";
import { getAssociatedTokenAddressSync } from "@solana/spl-token";
import { openDatabase } from "../../db/client";
import { immediate } from "../../db/transaction";
import { accounts, balanceOf, ledgerTotals, payRent, returnRent, verifyLedger } from "../../src/ledger";
import { post } from "../../src/ledger/ledger";
import { moneyWorld, type World } from "../jobs/world";
import { setupBurns } from "../jobs/scenarios";

let w: World | null = null;
afterEach(async () => {
  await w?.close();
  w = null;
});

test("rent is taken from the platform's balance, the float fronts the rest and is repaid first", () => {
  const db = openDatabase(":memory:");
  // The platform holds 500 lamports (as if from a sweep's share).
  immediate(db, () =>
    post(db, "seed", "sweep", 1, [
      { account: accounts.sweepSource("M"), amount: -500n },
      { account: accounts.platform(), amount: 500n },
    ]),
  );
  immediate(db, () =>
    payRent(db, {
      key: "b1",
      accounts: [
        { address: "ata", lamports: 2_000n },
        { address: "acc", lamports: 1_000n },
      ],
      atMs: 2,
    }),
  );
  expect(balanceOf(db, accounts.platform())).toBe(0n);
  expect(balanceOf(db, accounts.operatorFloat())).toBe(-2_500n);
  expect(ledgerTotals(db)).toMatchObject({ rentLamports: 3_000n, floatFrontedLamports: 2_500n, platformLamports: 0n });
  // A replay of the same command changes nothing.
  expect(
    immediate(db, () => payRent(db, { key: "b1", accounts: [{ address: "ata", lamports: 2_000n }], atMs: 3 }))?.applied,
  ).toBe(false);
  // The token account closes: its rent repays the float first; more than was booked for it
  // (rent paid before the books carried it) stays out of the books.
  immediate(db, () => returnRent(db, { key: "c1", accounts: [{ address: "ata", lamports: 2_100n }], atMs: 4 }));
  expect(balanceOf(db, accounts.rent("ata"))).toBe(0n);
  expect(balanceOf(db, accounts.operatorFloat())).toBe(-500n);
  expect(balanceOf(db, accounts.platform())).toBe(0n);
  // An account the books never paid rent for returns nothing to anyone.
  expect(
    immediate(db, () => returnRent(db, { key: "c2", accounts: [{ address: "x", lamports: 9n }], atMs: 5 })),
  ).toBeNull();
  // The accumulator's rent stays held; the books add up and audit clean.
  expect(ledgerTotals(db)).toMatchObject({ rentLamports: 1_000n, floatFrontedLamports: 500n });
  verifyLedger(db);
});

test("a burn buy's token-account rent is booked when the buy lands and back when its burn closes the account", async () => {
  w = await moneyWorld();
  const setup = await setupBurns(w);
  const program = w.chain.launchProgram;
  const buildBurn = program.buildBurn.bind(program);
  // The burns cannot be built in the first run: the buys land and wait as `bought`.
  program.buildBurn = () => Promise.reject(new Error("burn held back by the test"));
  const platformBefore = balanceOf(w.db, accounts.platform());
  await w.run("burns", {}, { settleTimeoutMs: 3_000 });
  const bought = w.db.$client
    .query("SELECT id, mint, signature FROM burn_buys WHERE status = 'bought' ORDER BY id")
    .all() as { id: bigint; mint: string; signature: string }[];
  expect(bought.length).toBe(setup.mints.length);
  let rentTotal = 0n;
  for (const buy of bought) {
    const ata = getAssociatedTokenAddressSync(new PublicKey(buy.mint), w.treasury.publicKey, true);
    // Measured from the node: the token account the buy created holds exactly the rent booked for it.
    const onChain = w.local.node.getBalance(ata);
    expect(onChain).toBeGreaterThan(0n);
    expect(balanceOf(w.db, accounts.rent(ata.toBase58()))).toBe(onChain);
    rentTotal += onChain;
  }
  const mid = ledgerTotals(w.db);
  expect(mid.rentLamports).toBe(rentTotal);
  // The platform paid what it could, the float the rest: nothing left the treasury unbooked.
  expect(platformBefore - balanceOf(w.db, accounts.platform()) + mid.floatFrontedLamports).toBe(rentTotal);
  verifyLedger(w.db);

  program.buildBurn = buildBurn;
  expect(await w.run("burns")).toMatchObject({ ran: true, ok: true });
  expect(w.db.$client.query("SELECT COUNT(*) AS n FROM burn_buys WHERE status = 'confirmed'").get()).toEqual({
    n: BigInt(setup.mints.length),
  });
  for (const buy of bought) {
    const ata = getAssociatedTokenAddressSync(new PublicKey(buy.mint), w.treasury.publicKey, true);
    expect(w.local.node.getAccount(ata)).toBeNull();
    expect(balanceOf(w.db, accounts.rent(ata.toBase58()))).toBe(0n);
  }
  const after = ledgerTotals(w.db);
  expect(after).toMatchObject({ rentLamports: 0n, floatFrontedLamports: 0n });
  verifyLedger(w.db);
  w.checkRelations();
}, 60_000);

test("with no platform share the float fronts the whole rent and is repaid when the account closes", async () => {
  w = await moneyWorld();
  w.signIn("u-burn", "burner", { routing: "burn" });
  const t = w.launch([{ handle: "burner", bps: 10_000 }], 0);
  w.trade(t.mint, 2_000_000_000n);
  expect(await w.run("sweep")).toMatchObject({ ran: true, ok: true });
  const platform = balanceOf(w.db, accounts.platform());
  const program = w.chain.launchProgram;
  const buildBurn = program.buildBurn.bind(program);
  program.buildBurn = () => Promise.reject(new Error("burn held back by the test"));
  await w.run("burns", {}, { settleTimeoutMs: 3_000 });
  const ata = getAssociatedTokenAddressSync(new PublicKey(t.mint), w.treasury.publicKey, true);
  const rent = w.local.node.getBalance(ata);
  expect(rent).toBeGreaterThan(platform);
  expect(balanceOf(w.db, accounts.platform())).toBe(0n);
  expect(ledgerTotals(w.db).floatFrontedLamports).toBe(rent - platform);
  verifyLedger(w.db);
  program.buildBurn = buildBurn;
  expect(await w.run("burns")).toMatchObject({ ran: true, ok: true });
  expect(ledgerTotals(w.db)).toMatchObject({ rentLamports: 0n, floatFrontedLamports: 0n });
  expect(balanceOf(w.db, accounts.platform())).toBeGreaterThanOrEqual(platform);
  verifyLedger(w.db);
}, 60_000);
