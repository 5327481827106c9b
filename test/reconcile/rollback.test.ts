/**
 * A database older than the chain that nobody announced (issue 61, items 1 and 3): a volume
 * snapshot put back or a file copied back leaves no restore marker, so the check at start must read
 * the treasury's history back to the books' newest landed transaction, however many transactions
 * the books do know landed since (sweeps), and hold sweeps until it has. And strangers' transfers
 * to the treasury are surplus: they never start a reconciliation, and one landing while the
 * history is read does not make the history look cut short.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import { closeDatabase, openDatabase, type Db } from "../../db/client";
import type { ChainReader } from "../../src/chain/ports";
import type { ChainServices } from "../../src/chain/services";
import { moneyHalt } from "../../src/custody";
import { Scheduler } from "../../src/jobs/scheduler";
import { verifyLedger } from "../../src/ledger/verify";
import { holdForReconciliation, latestReconciliation, reconcileWithChain } from "../../src/reconcile";
import { registerMoneyJobs } from "../jobs/fixtures/bodies";
import { moneyWorld, type World } from "../jobs/world";
import { balances, configOf, jobContext, payoutsOf, restoreScenario } from "./support";

let w: World;

beforeAll(async () => {
  w = await moneyWorld({ slotMs: 10 });
}, 60_000);

afterAll(async () => {
  await w?.close();
});

/** One run of a money job as the service wires it: the payouts run reconciles, sweeps wait for the check. */
async function runJob(db: Db, platformWallet: string, job: "sweep" | "payouts" | "burns", chain = w.chain) {
  const scheduler = new Scheduler(db, { leaseMs: 10_000 });
  registerMoneyJobs(scheduler, { db, chain, config: configOf(w, platformWallet), reconcile: true });
  try {
    // Nothing else holds the job's lease here: every run runs at once.
    const result = await scheduler.runNow(job);
    if (!result.ran || !result.ok) throw new Error(`${job} run did not succeed: ${JSON.stringify(result)}`);
  } finally {
    await scheduler.stop();
  }
}

const sweepsOf = (db: Db) => Number((db.$client.query("SELECT COUNT(*) AS n FROM sweeps").get() as { n: bigint }).n);
const credits = (db: Db) =>
  db.$client.query("SELECT signature, lamports FROM treasury_credits ORDER BY signature").all() as {
    signature: string;
    lamports: bigint;
  }[];

describe("strangers' transfers to the treasury", () => {
  const platformWallet = Keypair.generate().publicKey.toBase58();

  test("are booked as surplus once each and start no reconciliation", async () => {
    const before = latestReconciliation(w.db)?.id ?? 0;
    const dust = [1n, 2n, 3n].map((lamports) => w.local.node.airdrop(w.treasury.publicKey, lamports));
    w.local.node.advanceSlots(40);
    const report = await reconcileWithChain(reconcileDeps(w.db, platformWallet, w.chain), jobContext());
    expect(report.status).toBe("clean");
    expect(latestReconciliation(w.db)?.id ?? 0).toBe(before);
    expect(moneyHalt(w.db)).toBeNull();
    const booked = credits(w.db).filter((c) => dust.includes(c.signature));
    expect(booked.map((c) => c.lamports).sort()).toEqual([1n, 2n, 3n]);
  }, 120_000);

  test("a transfer landing while the history is read does not cut the history short", async () => {
    // The restore marker on the live books: the reconciliation reads the history whole, finds nothing unknown.
    holdForReconciliation(w.db, "restore", Date.now());
    let injected: string | null = null;
    const reader: ChainReader = Object.create(w.chain.reader);
    reader.signaturesForAddress = async (address, options) => {
      const page = await w.chain.reader.signaturesForAddress!(address, options);
      // Between the listing and the balance read: a stranger's transfer lands.
      if (injected === null) {
        injected = w.local.node.airdrop(w.treasury.publicKey, 7n);
        w.local.node.advanceSlots(40);
      }
      return page;
    };
    const chain: ChainServices = { ...w.chain, reader };
    let report = await reconcileWithChain(reconcileDeps(w.db, platformWallet, chain), jobContext());
    for (let i = 0; i < 50 && report.status !== "done"; i++)
      report = await reconcileWithChain(reconcileDeps(w.db, platformWallet, chain), jobContext());
    expect(report.status).toBe("done");
    expect(report.unknown).toBe(0);
    expect(moneyHalt(w.db)).toBeNull();
    expect(credits(w.db).some((c) => c.signature === injected && c.lamports === 7n)).toBe(true);
  }, 120_000);
});

describe("a database copied back by hand", () => {
  test("is reconciled at the next start although sweeps the books know landed since: nothing paid twice", async () => {
    const scenario = await restoreScenario(w);
    // Copied back by hand: no restore marker, only the hold every start takes.
    const copied = openDatabase(scenario.backupPath);
    try {
      const earlier = latestReconciliation(copied)?.id ?? 0;
      holdForReconciliation(copied, "start", Date.now());
      // More sweeps than the newest page the payouts run looks at once the start's check passed:
      // each, known to the copied books, would push the forgotten payouts further down the history.
      const sweepsBefore = sweepsOf(copied);
      for (let i = 0; i < 27; i++) {
        w.trade((await firstMint(copied))!, 50_000_000n);
        await runJob(copied, scenario.platformWallet, "sweep");
      }
      // Held: the copied books have not been checked against the history yet.
      expect(sweepsOf(copied)).toBe(sweepsBefore);
      expect(moneyHalt(copied)).not.toBeNull();

      const newer = () => {
        const latest = latestReconciliation(copied);
        return latest && latest.id > earlier ? latest : null;
      };
      for (let i = 0; i < 50 && newer()?.status !== "done"; i++)
        await runJob(copied, scenario.platformWallet, "payouts");
      const done = newer();
      expect(done?.status).toBe("done");
      expect(done?.reason).toBe("start");
      expect(done?.unknown).toBe(0);
      expect(moneyHalt(copied)).toBeNull();

      // Every payout the chain holds is booked once, with the signature that paid it.
      expect(payoutsOf(copied).slice(0, scenario.before.payouts.length)).toEqual(scenario.before.payouts);
      for (const user of ["u-ana", "u-cai"])
        expect(balances(copied)[`user:${user}`]).toBe(scenario.before.balances[`user:${user}`]);
      verifyLedger(copied);
      // ana holds (no autopay): her wallet has what it had, nothing was paid to her again.
      expect(w.local.node.getBalance(scenario.wallets[0]!)).toBe(scenario.before.wallets[0]!);
      // The sweeps held meanwhile go on once the check has passed.
      await runJob(copied, scenario.platformWallet, "sweep");
      expect(sweepsOf(copied)).toBeGreaterThan(sweepsBefore);
    } finally {
      closeDatabase(copied);
    }
  }, 300_000);
});

async function firstMint(db: Db): Promise<string | undefined> {
  return (db.$client.query("SELECT mint FROM tokens ORDER BY id LIMIT 1").get() as { mint: string } | null)?.mint;
}

function reconcileDeps(db: Db, platformWallet: string, chain: ChainServices) {
  const cfg = configOf(w, platformWallet);
  const now = Date.now;
  return {
    db,
    chain,
    now,
    payouts: { db, chain, config: cfg, now },
    sweeps: {
      db,
      chain,
      sweepMinLamports: cfg.sweepMinLamports,
      platformBuybackBps: cfg.platformBuybackBps,
      now,
      reserves: cfg.custody,
    },
    burns: { db, chain, now, slippageBps: cfg.burnSlippageBps, outflowCaps: cfg.custody },
  };
}
