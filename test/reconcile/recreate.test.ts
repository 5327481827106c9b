/**
 * A restore from a backup older than a recipient's first sign-in (issue 61, item 9). The payout
 * they claimed since is on chain with its command key; the restored books hold no row of them.
 * With the handle pinned at launch the books hold the recipient, and the payout is booked to them
 * once; with the handle pinned at first sign-in the chain does not say whose credits paid it, so
 * the reconciliation completes and names what it cannot rebuild instead of failing every run with
 * the database's foreign key error (money held for good, while a resume answered ok).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import { join } from "node:path";
import type { Db } from "../../db/client";
import { closeDatabase, openDatabase } from "../../db/client";
import { moneyHalt } from "../../src/custody";
import { verifyLedger } from "../../src/ledger/verify";
import { queuePayout } from "../../src/payouts";
import { holdForReconciliation, latestReconciliation } from "../../src/reconcile";
import { launchOnLocalChain } from "../helpers/launch";
import { moneyWorld, type World } from "../jobs/world";
import { balances, payoutsOf, reconcile, settle } from "./support";

let w: World;
const platformWallet = Keypair.generate().publicKey.toBase58();
/** Creator indexes of their own: the world's `launch` counts from 1. */
let nextCreatorIndex = 1_000;

beforeAll(async () => {
  w = await moneyWorld({ slotMs: 10 });
}, 60_000);

afterAll(async () => {
  await w?.close();
});

interface Restored {
  db: Db;
  payoutId: number;
  signature: string;
  wallet: string;
  before: { balances: Record<string, string>; payouts: ReturnType<typeof payoutsOf>; wallet: bigint };
}

/**
 * A token naming `handle` (pinned at launch to `idpUserId`, or not), swept; the backup; then the
 * recipient's first sign-in and a claim that lands; then the backup put back and held for the
 * reconciliation, as `restore` leaves it.
 */
async function claimedAfterBackup(handle: string, idpUserId: string, pinnedAtLaunch: boolean): Promise<Restored> {
  const creatorIndex = nextCreatorIndex++;
  const token = launchOnLocalChain(w.db, w, {
    creatorIndex,
    creator: w.chain.creatorAddress(creatorIndex).toBase58(),
    platformBps: 1000,
    recipients: [{ handle, bps: 10_000, ...(pinnedAtLaunch ? { idpUserId } : {}) }],
  });
  w.trade(token.mint, 2_000_000_000n);
  await settle(w, w.db, platformWallet);
  const backupPath = join(w.dir, `backup-${handle}.db`);
  w.db.$client.exec(`VACUUM INTO '${backupPath}'`);

  w.signIn(idpUserId, handle);
  const wallet = Keypair.generate().publicKey.toBase58();
  const queued = queuePayout(w.db, {
    idpUserId,
    lamports: null,
    wallet,
    kind: "claim",
    minLamports: 1n,
    atMs: Date.now(),
  });
  await settle(w, w.db, platformWallet);
  const paid = payoutsOf(w.db).find((p) => p.id === queued.payoutId)!;
  expect(paid.status).toBe("confirmed");
  expect(w.local.node.getBalance(wallet)).toBe(queued.lamports);
  const before = { balances: balances(w.db), payouts: payoutsOf(w.db), wallet: w.local.node.getBalance(wallet) };

  const db = openDatabase(backupPath);
  expect(db.$client.query("SELECT COUNT(*) AS n FROM identities WHERE idp_user_id = ?").get(idpUserId)).toEqual({
    n: pinnedAtLaunch ? 1n : 0n,
  });
  holdForReconciliation(db, "restore", Date.now());
  return { db, payoutId: queued.payoutId, signature: paid.signature!, wallet, before };
}

describe("a restore from a backup older than a recipient's first sign-in", () => {
  test("pinned at first sign-in: the reconciliation completes and its incident names the payout it cannot rebuild", async () => {
    const restored = await claimedAfterBackup("dan_signin", "u-dan-signin", false);
    try {
      const untouched = balances(restored.db);
      const report = await reconcile(w, restored.db, platformWallet);
      expect(report.status).toBe("blocked");
      const item = restored.db.$client
        .query("SELECT status, note FROM reconciliation_items WHERE signature = ?")
        .get(restored.signature) as { status: string; note: string };
      expect(item.status).toBe("unknown");
      expect(item.note).toContain(`payout ${restored.payoutId} to user u-dan-signin`);
      // Money stays halted behind an incident the operator reads: the transaction and what it paid.
      const halt = moneyHalt(restored.db);
      expect(halt?.kind).toBe("unknown-transaction");
      expect(halt?.detail).toContain(restored.signature);
      expect(halt?.detail).toContain(`payout ${restored.payoutId} to user u-dan-signin`);
      expect(latestReconciliation(restored.db)?.status).toBe("blocked");
      // Nothing half-written: the books are as restored, and they audit.
      expect(balances(restored.db)).toEqual(untouched);
      expect(
        restored.db.$client.query("SELECT COUNT(*) AS n FROM payouts WHERE id = ?").get(restored.payoutId),
      ).toEqual({ n: 0n });
      verifyLedger(restored.db);
    } finally {
      closeDatabase(restored.db);
    }
  }, 300_000);

  test("pinned at launch: the payout is booked to the recipient once and money moves again", async () => {
    const restored = await claimedAfterBackup("dan_launch", "u-dan-launch", true);
    try {
      const report = await reconcile(w, restored.db, platformWallet);
      expect(report.status).toBe("done");
      expect(moneyHalt(restored.db)).toBeNull();
      await settle(w, restored.db, platformWallet);
      verifyLedger(restored.db);
      const payout = payoutsOf(restored.db).find((p) => p.id === restored.payoutId);
      expect(payout).toEqual(restored.before.payouts.find((p) => p.id === restored.payoutId));
      expect(balances(restored.db)["user:u-dan-launch"]).toBe(restored.before.balances["user:u-dan-launch"]);
      // Paid once: the wallet holds what it held before the restore.
      expect(w.local.node.getBalance(restored.wallet)).toBe(restored.before.wallet);
    } finally {
      closeDatabase(restored.db);
    }
  }, 300_000);
});
