/**
 * The restore scenario of the reconciliation tests: a money world with claims, autopay, a burn
 * routing and a withdrawal; a backup taken half-way; life going on after it until the books stand
 * still; and what a correct reconciliation must give back.
 */
import { expect } from "bun:test";
import { Keypair } from "@solana/web3.js";
import { join } from "node:path";
import type { Db } from "../../db/client";
import { loadConfig } from "../../src/config";
import { requestWithdrawal } from "../../src/custody/withdrawals";
import type { JobContext } from "../../src/jobs";
import { Scheduler } from "../../src/jobs/scheduler";
import { queuePayout } from "../../src/payouts";
import { reconcileWithChain } from "../../src/reconcile";
import { registerMoneyJobs } from "../jobs/fixtures/bodies";
import type { World } from "../jobs/world";

export const JOB_ENV = {
  // Dust a sweep leaves in a vault is not swept again: the books stand still once settled.
  SWEEP_MIN_LAMPORTS: "100000",
  AUTOPAY_MIN_LAMPORTS: "1000",
};

export function configOf(w: World, platformWallet: string) {
  return loadConfig({
    DATA_DIR: w.dir,
    JOBS: "0",
    DEMO: "0",
    // Runs in this process release their lease when done; a 1 s one can be lost to a loaded machine.
    JOB_LEASE_MS: "10000",
    PLATFORM_WALLET: platformWallet,
    ...JOB_ENV,
  });
}

export interface Scenario {
  backupPath: string;
  wallets: string[];
  platformWallet: string;
  before: { balances: Record<string, string>; payouts: PayoutRow[]; wallets: bigint[] };
}

export interface PayoutRow {
  id: number;
  status: string;
  signature: string | null;
  lamports: bigint;
}

async function runOn(w: World, db: Db, platformWallet: string, job: "sweep" | "payouts" | "burns") {
  const scheduler = new Scheduler(db, { leaseMs: 10_000 });
  registerMoneyJobs(scheduler, { db, chain: w.chain, config: configOf(w, platformWallet) });
  for (let i = 0; i < 100; i++) {
    const result = await scheduler.runNow(job);
    if (result.ran) {
      expect(result.ok).toBe(true);
      break;
    }
    await Bun.sleep(50);
  }
  await scheduler.stop();
}

/** Runs the money jobs until nothing is queued or in flight. */
export async function settle(w: World, db: Db, platformWallet: string): Promise<void> {
  for (let round = 0; round < 30; round++) {
    await runOn(w, db, platformWallet, "sweep");
    await runOn(w, db, platformWallet, "burns");
    await runOn(w, db, platformWallet, "payouts");
    const busy = db.$client
      .query(
        `SELECT (SELECT COUNT(*) FROM payouts WHERE status IN ('queued', 'sent'))
              + (SELECT COUNT(*) FROM burn_buys WHERE status IN ('sent', 'bought', 'burning'))
              + (SELECT COUNT(*) FROM sweeps WHERE status = 'sent')
              + (SELECT COUNT(*) FROM withdrawals WHERE status IN ('queued', 'sent')) AS n`,
      )
      .get() as { n: bigint };
    if (Number(busy.n) === 0) return;
    await Bun.sleep(100);
  }
  throw new Error("the money jobs did not settle");
}

/** Every ledger account's balance, by kind and ref, in one order. */
export function balances(db: Db): Record<string, string> {
  const rows = db.$client.query("SELECT kind, ref, balance FROM ledger_accounts ORDER BY kind, ref").all() as {
    kind: string;
    ref: string;
    balance: bigint;
  }[];
  return Object.fromEntries(rows.map((r) => [`${r.kind}:${r.ref}`, String(r.balance)]));
}

export function payoutsOf(db: Db): PayoutRow[] {
  return (
    db.$client.query("SELECT id, status, signature, lamports FROM payouts ORDER BY id").all() as {
      id: bigint;
      status: string;
      signature: string | null;
      lamports: bigint;
    }[]
  ).map((p) => ({ id: Number(p.id), status: p.status, signature: p.signature, lamports: BigInt(p.lamports) }));
}

export const jobContext = (): JobContext =>
  ({ lease: {} as JobContext["lease"], signal: new AbortController().signal, assertHeld: () => {} }) as JobContext;

/** Runs the reconciliation step in this process until it finishes. */
export async function reconcile(w: World, db: Db, platformWallet: string) {
  const cfg = configOf(w, platformWallet);
  const now = Date.now;
  const deps = {
    db,
    chain: w.chain,
    now,
    payouts: { db, chain: w.chain, config: cfg, now },
    sweeps: {
      db,
      chain: w.chain,
      sweepMinLamports: cfg.sweepMinLamports,
      platformBuybackBps: cfg.platformBuybackBps,
      now,
      reserves: cfg.custody,
    },
    burns: { db, chain: w.chain, now, slippageBps: cfg.burnSlippageBps, outflowCaps: cfg.custody },
  };
  for (let i = 0; i < 400; i++) {
    const report = await reconcileWithChain(deps, jobContext());
    if (report.status === "done" || report.status === "blocked" || report.status === "clean") return report;
    await Bun.sleep(50);
  }
  throw new Error("the reconciliation did not finish");
}

/** Builds the world's history around a backup and returns what a reconciliation must give back. */
let scenarios = 0;

export async function restoreScenario(w: World): Promise<Scenario> {
  const ana = Keypair.generate().publicKey.toBase58();
  const ben = Keypair.generate().publicKey.toBase58();
  const platformWallet = Keypair.generate().publicKey.toBase58();
  const recipients = [
    { handle: "ana", bps: 6000 },
    { handle: "ben", bps: 3000 },
    { handle: "cai", bps: 1000 },
  ];
  w.signIn("u-ana", "ana", { routing: "hold", wallet: ana });
  w.signIn("u-ben", "ben", { routing: "autopay", wallet: ben });
  w.signIn("u-cai", "cai", { routing: "burn" });
  const tokens = [w.launch(recipients, 1000), w.launch(recipients, 1000)];
  for (const t of tokens) w.trade(t.mint, 2_000_000_000n);
  await settle(w, w.db, platformWallet);
  const claim = (lamports: bigint) =>
    queuePayout(w.db, { idpUserId: "u-ana", lamports, wallet: ana, kind: "claim", minLamports: 1n, atMs: Date.now() });
  claim(100_000n);
  await settle(w, w.db, platformWallet);

  // The backup: a consistent copy of the books at this moment.
  // One world may stage several scenarios (a file's tests share it): each its own copy.
  const backupPath = join(w.dir, `backup-${++scenarios}.db`);
  w.db.$client.exec(`VACUUM INTO '${backupPath}'`);

  // Life goes on after the backup: trades, sweeps, autopay, a burn, a claim, a withdrawal.
  for (const t of tokens) w.trade(t.mint, 3_000_000_000n);
  await settle(w, w.db, platformWallet);
  claim(200_000n);
  requestWithdrawal(
    w.db,
    {
      lamports: 1_000_000n,
      reason: "operating costs",
      actor: "test",
      wallet: platformWallet,
      treasuryLamports: w.treasuryLamports(),
      owedLamports: () => 0n,
      reserveLamports: 0n,
      atMs: Date.now(),
    },
    () => {},
  );
  for (const t of tokens) w.trade(t.mint, 1_000_000_000n);
  await settle(w, w.db, platformWallet);
  const wallets = [ana, ben, platformWallet];
  const before = {
    balances: balances(w.db),
    payouts: payoutsOf(w.db),
    wallets: wallets.map((a) => w.local.node.getBalance(a)),
  };
  expect(before.payouts.filter((p) => p.status === "confirmed").length).toBeGreaterThanOrEqual(3);
  expect(Number(before.balances["burned:burned"] ?? 0)).toBeGreaterThan(0);
  return { backupPath, wallets, platformWallet, before };
}
