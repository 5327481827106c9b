/**
 * A backup taken while a transaction of the service was in flight (signed, journalled, sent, its
 * outcome not yet booked). The outcome the chain gave it after the backup can put money back in
 * the platform's balance: a withdrawal that failed on chain returns its amount, a burn that closed
 * its token account returns the rent its buy paid. A withdrawal requested after the backup may
 * spend exactly that money, so the reconciliation must book the backup's own transactions'
 * outcomes before it applies what was made since; otherwise the withdrawal looks like more than
 * the platform ever had and the restore ends blocked, money halted for an operator.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import { join } from "node:path";
import { closeDatabase, type Db, openDatabase } from "../../db/client";
import { freeLeasesOfBackup } from "../../src/backup";
import { requestWithdrawal } from "../../src/custody/withdrawals";
import { type CrashPointName, setCrashHook } from "../../src/jobs";
import { verifyLedger } from "../../src/ledger/verify";
import { holdForReconciliation, latestReconciliation } from "../../src/reconcile";
import { moneyWorld, type World } from "../jobs/world";
import { balances, reconcile, settle } from "./support";

let w: World;

beforeAll(async () => {
  w = await moneyWorld({ slotMs: 10 });
}, 60_000);

afterAll(async () => {
  setCrashHook(null);
  await w?.close();
});

function platformLamports(db: Db): bigint {
  const row = db.$client.query("SELECT balance FROM ledger_accounts WHERE kind = 'platform'").get() as {
    balance: bigint;
  } | null;
  return BigInt(row?.balance ?? 0n);
}

function withdraw(lamports: bigint, wallet: string): void {
  requestWithdrawal(
    w.db,
    {
      lamports,
      reason: "operating costs",
      actor: "test",
      wallet,
      treasuryLamports: w.treasuryLamports(),
      owedLamports: () => 0n,
      reserveLamports: 0n,
      atMs: Date.now(),
    },
    () => {},
  );
}

function withdrawalsOf(db: Db) {
  return db.$client.query("SELECT id, lamports, wallet, status, signature FROM withdrawals ORDER BY id").all();
}

/** Settles the money jobs, taking a backup (VACUUM INTO, as the backup job does) the first time `point` is passed. */
async function settleWithBackupAt(point: CrashPointName, platformWallet: string, name: string): Promise<string> {
  const backupPath = join(w.dir, `${name}.db`);
  let taken = false;
  setCrashHook((reached) => {
    if (reached !== point || taken) return;
    taken = true;
    w.db.$client.exec(`VACUUM INTO '${backupPath}'`);
  });
  try {
    await settle(w, w.db, platformWallet);
  } finally {
    setCrashHook(null);
  }
  expect(taken).toBe(true);
  return backupPath;
}

/** Puts the backup back as `bun run restore` does, reconciles it, and compares it with the books before. */
async function restoreAndCompare(backupPath: string, platformWallet: string): Promise<void> {
  const before = { balances: balances(w.db), withdrawals: withdrawalsOf(w.db) };
  const restored = openDatabase(backupPath);
  try {
    freeLeasesOfBackup(restored);
    holdForReconciliation(restored, "restore", Date.now());
    const report = await reconcile(w, restored, platformWallet);
    expect(latestReconciliation(restored)?.detail ?? null).toBeNull();
    expect(report.status).toBe("done");
    expect(latestReconciliation(restored)?.unknown).toBe(0);
    await settle(w, restored, platformWallet);
    verifyLedger(restored);
    expect(balances(restored)).toEqual(before.balances);
    expect(withdrawalsOf(restored)).toEqual(before.withdrawals);
  } finally {
    closeDatabase(restored);
  }
}

describe("a restore from a backup taken while a transaction was in flight", () => {
  test("a withdrawal that failed on chain after the backup returns its amount before a later withdrawal spends it", async () => {
    const platformWallet = Keypair.generate().publicKey.toBase58();
    w.signIn("u-ana", "ana", { routing: "hold", wallet: Keypair.generate().publicKey.toBase58() });
    const token = w.launch([{ handle: "ana", bps: 10_000 }], 1000);
    w.trade(token.mint, 10_000_000_000n);
    await settle(w, w.db, platformWallet);
    const platform = platformLamports(w.db);
    expect(platform).toBeGreaterThan(1_000_000n);

    // The first withdrawal fails on chain; the backup is taken between its send and its resolution.
    withdraw(platform, platformWallet);
    const isWithdrawal = (signature: string) =>
      w.db.$client
        .query("SELECT 1 FROM chain_transactions WHERE signature = ? AND job = 'withdrawal'")
        .get(signature) !== null;
    w.local.faults.failNextSends(1, isWithdrawal);
    const backupPath = await settleWithBackupAt("withdrawals:after-send", platformWallet, "backup-withdrawal");
    expect(withdrawalsOf(w.db).map((r) => (r as { status: string }).status)).toEqual(["failed"]);
    expect(platformLamports(w.db)).toBe(platform);

    // After the backup: the amount it returned is withdrawn again, and this time it leaves.
    withdraw(platform, platformWallet);
    await settle(w, w.db, platformWallet);
    expect(withdrawalsOf(w.db).map((r) => (r as { status: string }).status)).toEqual(["failed", "confirmed"]);

    await restoreAndCompare(backupPath, platformWallet);
  }, 300_000);

  test("a burn that landed after the backup returns its rent before a later withdrawal spends it", async () => {
    const platformWallet = Keypair.generate().publicKey.toBase58();
    w.signIn("u-cai", "cai", { routing: "burn" });
    const token = w.launch([{ handle: "cai", bps: 10_000 }], 1000);
    w.trade(token.mint, 3_000_000_000n);
    // The sweep books cai's share as a burn order; the burns run buys, then burns, and the backup
    // is taken between the burn's send and its resolution.
    const backupPath = await settleWithBackupAt("burns:burn-after-send", platformWallet, "backup-burn");
    const rentReturned = w.db.$client
      .query("SELECT COUNT(*) AS n FROM ledger_postings WHERE kind = 'rent_returned'")
      .get() as { n: bigint };
    expect(Number(rentReturned.n)).toBeGreaterThan(0);

    // After the backup: the platform's whole balance, the rent the burn returned included, is withdrawn.
    withdraw(platformLamports(w.db), platformWallet);
    await settle(w, w.db, platformWallet);
    expect(platformLamports(w.db)).toBe(0n);

    await restoreAndCompare(backupPath, platformWallet);
  }, 300_000);
});
