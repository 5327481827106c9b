/**
 * A restore from an older backup, reconciled with the chain before money moves (issue 49). The
 * money world runs sweeps, claims, autopay, burns and a withdrawal; a backup is taken half-way;
 * then the backup is put back and reconciled. Afterwards every account's balance is what it was
 * before the restore, every payout is confirmed once with the signature that paid it, and running
 * the money jobs on the restored books pays nobody again (the chain's wallets do not move).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  Keypair,
  SystemProgram,
  type TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import bs58 from "bs58";
import { closeDatabase, openDatabase } from "../../db/client";
import { encodeCommandKey } from "../../src/chain/command-key";
import { memoInstruction } from "../../src/chain/memo";
import { moneyHalt } from "../../src/custody";
import { verifyLedger } from "../../src/ledger/verify";
import { holdForReconciliation, latestReconciliation } from "../../src/reconcile";
import { moneyWorld, type World } from "../jobs/world";
import { balances, payoutsOf, reconcile, restoreScenario, settle } from "./support";

let w: World;
const platformWallet = Keypair.generate().publicKey.toBase58();

beforeAll(async () => {
  w = await moneyWorld({ slotMs: 10 });
}, 60_000);

afterAll(async () => {
  await w?.close();
});

describe("a restore from an older backup", () => {
  test("is reconciled with the chain: balances as before, every payout once, nothing paid again", async () => {
    const scenario = await restoreScenario(w);
    const restored = openDatabase(scenario.backupPath);
    try {
      holdForReconciliation(restored, "restore", Date.now());
      expect(moneyHalt(restored)?.kind).toBe("reconciling");
      const report = await reconcile(w, restored, scenario.platformWallet);
      expect(report.status).toBe("done");
      expect(moneyHalt(restored)).toBeNull();
      const done = latestReconciliation(restored)!;
      expect(done.reason).toBe("restore");
      expect(done.unknown).toBe(0);
      expect(done.total).toBeGreaterThan(0);

      await settle(w, restored, scenario.platformWallet);
      verifyLedger(restored);
      expect(balances(restored)).toEqual(scenario.before.balances);
      expect(payoutsOf(restored)).toEqual(scenario.before.payouts);
      // Nobody was paid again: the wallets hold what they held before the restore.
      expect(scenario.wallets.map((a) => w.local.node.getBalance(a))).toEqual(scenario.before.wallets);
    } finally {
      closeDatabase(restored);
    }
  }, 300_000);

  test("a treasury transaction without a command key halts money with an incident naming it", async () => {
    // Made by hand with the treasury key, outside the service.
    const signature = await sendByHand([
      SystemProgram.transfer({
        fromPubkey: w.treasury.publicKey,
        toPubkey: Keypair.generate().publicKey,
        lamports: 5_000_000n,
      }),
    ]);
    const report = await reconcile(w, w.db, platformWallet);
    expect(report.status).toBe("blocked");
    const halt = moneyHalt(w.db);
    expect(halt?.kind).toBe("unknown-transaction");
    expect(halt?.detail).toContain(signature);
    expect(latestReconciliation(w.db)?.status).toBe("blocked");
  }, 120_000);

  test("a command key that disagrees with what its transaction did is not applied", async () => {
    const before = balances(w.db);
    // Two payouts named, one transfer made: the memo is not believed, nothing is booked.
    const memo = encodeCommandKey({
      kind: "payouts",
      items: [
        { payoutId: 9_001, kind: "claim", idpUserId: "u-ana", firstPayoutId: null },
        { payoutId: 9_002, kind: "claim", idpUserId: "u-ana", firstPayoutId: null },
      ],
    });
    const signature = await sendByHand([
      SystemProgram.transfer({
        fromPubkey: w.treasury.publicKey,
        toPubkey: Keypair.generate().publicKey,
        lamports: 1_000_000n,
      }),
      memoInstruction(memo, w.treasury.publicKey),
    ]);
    const report = await reconcile(w, w.db, platformWallet);
    expect(report.status).toBe("blocked");
    const item = w.db.$client
      .query("SELECT status, note FROM reconciliation_items WHERE signature = ?")
      .get(signature) as { status: string; note: string };
    expect(item.status).toBe("unknown");
    expect(item.note).toContain("names 2 payouts for 1 transfers");
    expect(balances(w.db)).toEqual(before);
    expect(w.db.$client.query("SELECT COUNT(*) AS n FROM payouts WHERE id >= 9001").get()).toEqual({ n: 0n });
  }, 120_000);
});

/** Signs with the treasury key and sends outside the service; returns the signature once finalized. */
async function sendByHand(instructions: TransactionInstruction[]): Promise<string> {
  const { blockhash } = w.local.node.getLatestBlockhash();
  const message = new TransactionMessage({
    payerKey: w.treasury.publicKey,
    recentBlockhash: blockhash,
    instructions,
  }).compileToV0Message();
  const tx = new VersionedTransaction(message);
  tx.sign([w.treasury]);
  const signature = bs58.encode(tx.signatures[0]!);
  await w.chain.sender.send({ signature, wire: tx.serialize() });
  w.local.node.advanceSlots(40);
  expect(w.landed(signature)?.ok).toBe(true);
  return signature;
}
