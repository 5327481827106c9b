/**
 * Fees in, credits, money out, on the embedded local chain through its JSON-RPC: a sweep credits
 * exactly what it collected, split to the lamport; a claim is queued, sent and confirmed; the
 * treasury's movements equal the ledger's; SPEC's stats relations hold after every step.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Connection, Keypair } from "@solana/web3.js";
import { recordSignIn, setRouting } from "../../src/identity/identity";
import { accountFigures, ledgerTotals, recipientCredits } from "../../src/ledger/figures";
import { queuePayout } from "../../src/payouts/service";
import { splitSweep } from "../../src/ledger/split";
import { moneyHarness, type MoneyHarness } from "./harness";
import { CREATOR_RESERVE_LAMPORTS } from "../../src/chain/pump";

let h: MoneyHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

const profile = (id: string, handle: string) => ({
  idpUserId: id,
  displayHandle: handle,
  name: handle,
  avatarUrl: "",
  followers: 0,
});

async function treasuryBalance(h: MoneyHarness): Promise<bigint> {
  const key = h.chain.services.treasury.publicKey.toBase58();
  return (await h.chain.services.reader.getBalances([key])).get(key)!;
}

/** Network fees the treasury paid for the service's transactions, read with web3.js from the node. */
async function feesPaidBy(h: MoneyHarness, table: "sweeps" | "payouts" | "liability_snapshots"): Promise<bigint> {
  const connection = new Connection(h.local.rpcUrl, "confirmed");
  // The liability snapshots' anchor memos are paid by the treasury too (docs/proof-of-liabilities.md).
  const column = table === "liability_snapshots" ? "anchor_signature" : "signature";
  const sigs = h.service.ctx.db.$client
    .query(`SELECT DISTINCT ${column} AS signature FROM ${table} WHERE ${column} IS NOT NULL`)
    .all() as { signature: string }[];
  let fees = 0n;
  for (const { signature } of sigs) {
    const tx = await connection.getTransaction(signature, {
      maxSupportedTransactionVersion: 0,
      commitment: "confirmed",
    });
    if (tx?.meta) fees += BigInt(tx.meta.fee);
  }
  return fees;
}

describe("money jobs on the local chain", () => {
  test("sweep credits exactly the collected fees; a claim is paid once; treasury moves match the ledger", async () => {
    h = await moneyHarness();
    const a = await h.launch(
      [
        { handle: "alice", bps: 7000 },
        { handle: "bob", bps: 3000 },
      ],
      1000,
    );
    const b = await h.launch([{ handle: "carol", bps: 10_000 }], 250);
    for (let i = 0; i < 5; i++) await h.trade(a.mint, 2_000_000_000n + BigInt(i) * 7n);
    await h.trade(b.mint, 3_333_333_333n);
    const readings = await h.chain.services.launchProgram.readVaults([a, b]);
    const unswept = new Map(readings.map((r) => [r.mint, r.curveLamports + r.poolLamports + r.creatorLamports]));
    expect(unswept.get(a.mint)!).toBeGreaterThan(0n);
    // pump's adapter leaves the rent-exempt minimum in each creator address, empty before this first
    // sweep (src/chain/pump/adapter.ts): what reaches the treasury, and is credited, is the rest.
    const moved = (mint: string) => unswept.get(mint)! - CREATOR_RESERVE_LAMPORTS;

    const treasuryBefore = await treasuryBalance(h);
    await h.run("sweep");
    h.checkRelations();
    const db = h.service.ctx.db;
    const sweeps = db.$client
      .query<{ token_id: bigint; status: string; total_lamports: bigint }, []>(
        "SELECT token_id, status, total_lamports FROM sweeps ORDER BY token_id",
      )
      .all();
    expect(sweeps.map((s) => s.status)).toEqual(["confirmed", "confirmed"]);
    expect(BigInt(sweeps[0]!.total_lamports)).toBe(moved(a.mint));
    expect(BigInt(sweeps[1]!.total_lamports)).toBe(moved(b.mint));
    // Split to the lamport (DESIGN §2).
    const splitA = splitSweep(moved(a.mint), 1000, [
      { key: "alice", bps: 7000 },
      { key: "bob", bps: 3000 },
    ]);
    const creditsA = recipientCredits(db, a.tokenId);
    expect(creditsA.get("alice")).toBe(splitA.recipients[0]!.lamports);
    expect(creditsA.get("bob")).toBe(splitA.recipients[1]!.lamports);
    // The vaults are empty after the sweep but for the creators' reserves; what arrived in the
    // treasury is what was credited, less fees paid.
    const after = await h.chain.services.launchProgram.readVaults([a, b]);
    for (const r of after) expect(r.curveLamports + r.poolLamports + r.creatorLamports).toBe(CREATOR_RESERVE_LAMPORTS);
    const swept = ledgerTotals(db).sweptLamports;
    expect(swept).toBe(moved(a.mint) + moved(b.mint));
    expect((await treasuryBalance(h)) - treasuryBefore).toBe(
      swept - (await feesPaidBy(h, "sweeps")) - (await feesPaidBy(h, "liability_snapshots")),
    );

    // A second sweep with nothing new collects nothing and credits nothing.
    await h.run("sweep");
    expect(ledgerTotals(db).sweptLamports).toBe(swept);

    // Alice signs in and claims; the payouts job sends and confirms it.
    recordSignIn(db, profile("u-alice", "alice"), Date.now());
    const wallet = Keypair.generate().publicKey.toBase58();
    const balance = accountFigures(db, "user", "u-alice").balanceLamports;
    const queued = queuePayout(db, {
      idpUserId: "u-alice",
      lamports: null,
      wallet,
      kind: "claim",
      minLamports: 1n,
      atMs: Date.now(),
    });
    expect(queued.lamports).toBe(balance);
    h.checkRelations();
    expect(ledgerTotals(db).owedLamports - ledgerTotals(db).unclaimedLamports).toBe(balance);
    const beforePayout = await treasuryBalance(h);
    const anchorFeesBefore = await feesPaidBy(h, "liability_snapshots");
    await h.run("payouts");
    const payout = db.$client
      .query<{ status: string; signature: string | null }, [number]>(
        "SELECT status, signature FROM payouts WHERE id = ?",
      )
      .get(queued.payoutId);
    expect(payout?.status).toBe("confirmed");
    expect((await h.chain.services.reader.getBalances([wallet])).get(wallet)).toBe(balance);
    expect(ledgerTotals(db).paidLamports).toBe(balance);
    const payoutFee = await feesPaidBy(h, "payouts");
    const anchorFees = (await feesPaidBy(h, "liability_snapshots")) - anchorFeesBefore;
    expect(beforePayout - (await treasuryBalance(h))).toBe(balance + payoutFee + anchorFees);
    h.checkRelations();
    // Paying again does nothing: the payout is confirmed once.
    await h.run("payouts");
    expect((await h.chain.services.reader.getBalances([wallet])).get(wallet)).toBe(balance);
  }, 30_000);

  test("autopay pays a whole balance above the threshold; burn routing buys and burns on chain", async () => {
    h = await moneyHarness({ AUTOPAY_MIN_LAMPORTS: "1000" });
    const t = await h.launch(
      [
        { handle: "dan", bps: 5000 },
        { handle: "erin", bps: 5000 },
      ],
      0,
    );
    const db = h.service.ctx.db;
    recordSignIn(db, profile("u-dan", "dan"), Date.now());
    recordSignIn(db, profile("u-erin", "erin"), Date.now());
    const wallet = Keypair.generate().publicKey.toBase58();
    setRouting(db, "u-dan", { routing: "autopay", payoutWallet: wallet, declined: false });
    setRouting(db, "u-erin", { routing: "burn", payoutWallet: null, declined: false });
    await h.trade(t.mint, 5_000_000_000n);
    await h.run("sweep");
    const dan = accountFigures(db, "user", "u-dan");
    const erin = accountFigures(db, "user", "u-erin");
    expect(erin.burnedLamports).toBeGreaterThan(0n);
    expect(erin.balanceLamports).toBe(0n);
    await h.run("payouts");
    expect((await h.chain.services.reader.getBalances([wallet])).get(wallet)).toBe(dan.creditedLamports);
    const supplyBefore = (await h.chain.services.reader.getAccounts([t.mint])).get(t.mint)!;
    await h.run("burns");
    const burns = db.$client
      .query<{ source: string; lamports: bigint; token_amount: bigint }, []>(
        "SELECT source, lamports, token_amount FROM burns",
      )
      .all();
    expect(burns).toHaveLength(1);
    expect(burns[0]!.source).toBe("recipient");
    // pump's buy_exact_sol_in may spend a lamport or so less than its budget: what it did not spend
    // goes back to erin's balance, and what she burned is what the buy spent, to the lamport.
    const erinAfter = accountFigures(db, "user", "u-erin");
    expect(BigInt(burns[0]!.lamports)).toBe(erinAfter.burnedLamports);
    expect(erinAfter.burnedLamports + erinAfter.balanceLamports).toBe(erin.burnedLamports);
    expect(BigInt(burns[0]!.token_amount)).toBeGreaterThan(0n);
    // The treasury holds none of the bought tokens: they were burned.
    expect(h.local.pump!.tokenBalance(t.mint, h.chain.services.treasury.publicKey)).toBe(0n);
    // ...and the mint's supply (a Token-2022 mint's u64 at byte 36) fell by what the burn recorded.
    const supplyAfter = (await h.chain.services.reader.getAccounts([t.mint])).get(t.mint)!;
    const supplyOf = (a: { data: Uint8Array }) => Buffer.from(a.data).readBigUInt64LE(36);
    expect(supplyOf(supplyBefore) - supplyOf(supplyAfter)).toBe(BigInt(burns[0]!.token_amount));
    expect(ledgerTotals(db).burnedLamports).toBe(erinAfter.burnedLamports);
    h.checkRelations();
  }, 30_000);
});
