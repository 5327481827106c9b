/** The money state services every job and route goes through, on a fresh database. */
import { describe, expect, test } from "bun:test";
import { openDatabase, type Db } from "../../db/client";
import { recordSignIn, setRouting } from "../../src/identity/identity";
import { completeBurnBuy, failBurnBuy, pendingBurnGroups, startBurnBuy } from "../../src/burns/service";
import { appendFeedEvent } from "../../src/ledger/feed";
import { accountFigures, ledgerTotals, recipientCredits } from "../../src/ledger/figures";
import { verifyLedger } from "../../src/ledger/verify";
import {
  confirmPayouts,
  failPayouts,
  markPayoutsSent,
  queuePayout,
  replaceExpiredPayouts,
} from "../../src/payouts/service";
import { confirmSweep, failSweep, recordSweepsSent, type BuybackPolicy } from "../../src/sweeps/service";
import { recordFixtureLaunch } from "../helpers/launch";

const noBuyback: BuybackPolicy = { platformBuybackBps: 0, platformTokenMint: null };

function launch(db: Db, mint: string, recipients: { handle: string; bps: number }[], platformBps = 1000, index = 1) {
  return recordFixtureLaunch(
    db,
    {
      mint,
      name: mint,
      symbol: mint.slice(0, 4),
      creatorIndex: index,
      creator: `C${mint}`,
      creatorVault: `V${mint}`,
      launchSignature: `L${mint}`,
      platformBps,
      recipients,
    },
    1_000,
  ).tokenId;
}

function sweep(db: Db, tokenId: number, total: bigint, sig: string, buyback = noBuyback) {
  const [id] = recordSweepsSent(db, [{ tokenId, signature: sig, lastValidBlockHeight: 50n, atMs: 2_000 }]);
  return { id: id!, result: confirmSweep(db, { sweepId: id!, totalLamports: total, atMs: 3_000, buyback }) };
}

const profile = (id: string, handle: string) => ({
  idpUserId: id,
  displayHandle: handle,
  name: handle,
  avatarUrl: "",
  followers: 0,
});

describe("sweeps", () => {
  test("a confirmed sweep credits the split to the lamport, once, and updates the token", () => {
    const db = openDatabase(":memory:");
    const tokenId = launch(db, "MintA", [
      { handle: "Alice", bps: 3333 },
      { handle: "bob", bps: 6667 },
    ]);
    const { id, result } = sweep(db, tokenId, 1_000_000_007n, "S1");
    expect(result.applied).toBe(true);
    // Replays (the job and the indexer both seeing it) change nothing.
    expect(
      confirmSweep(db, { sweepId: id, totalLamports: 1_000_000_007n, atMs: 3_000, buyback: noBuyback }).applied,
    ).toBe(false);
    const credits = recipientCredits(db, tokenId);
    // platform = floor(T*10%) = 100000000; R = 900000007; alice floor(R*.3333)=299970002, bob floor(R*.6667)=600030004
    expect(credits.get("alice")).toBe(299_970_002n);
    expect(credits.get("bob")).toBe(600_030_004n);
    const row = db.$client
      .query<{ total_lamports: bigint; platform_lamports: bigint; status: string }, [number]>(
        "SELECT total_lamports, platform_lamports, status FROM sweeps WHERE id = ?",
      )
      .get(id)!;
    expect(row.status).toBe("confirmed");
    expect(BigInt(row.platform_lamports)).toBe(100_000_000n + 1n); // dust 1
    expect(BigInt(row.total_lamports)).toBe(1_000_000_007n);
    const token = db.$client
      .query<{ swept_lamports: bigint; last_swept_at_ms: bigint }, [number]>(
        "SELECT swept_lamports, last_swept_at_ms FROM tokens WHERE id = ?",
      )
      .get(tokenId)!;
    expect(BigInt(token.swept_lamports)).toBe(1_000_000_007n);
    expect(Number(token.last_swept_at_ms)).toBe(3_000);
    expect(ledgerTotals(db).unclaimedLamports).toBe(299_970_002n + 600_030_004n);
    verifyLedger(db);
  });

  test("a failed sweep credits nothing and can never be confirmed afterwards", () => {
    const db = openDatabase(":memory:");
    const tokenId = launch(db, "MintA", [{ handle: "alice", bps: 10_000 }]);
    const [id] = recordSweepsSent(db, [{ tokenId, signature: "S1", lastValidBlockHeight: 50n, atMs: 2_000 }]);
    expect(failSweep(db, id!, "expired").applied).toBe(true);
    expect(() => confirmSweep(db, { sweepId: id!, totalLamports: 5n, atMs: 3_000, buyback: noBuyback })).toThrow();
    expect(ledgerTotals(db).sweptLamports).toBe(0n);
    verifyLedger(db);
  });

  test("credits of pinned accounts follow the user id; burn routing and declines become burn orders", () => {
    const db = openDatabase(":memory:");
    const tokenId = launch(
      db,
      "MintA",
      [
        { handle: "alice", bps: 5000 },
        { handle: "bob", bps: 5000 },
      ],
      0,
    );
    sweep(db, tokenId, 1000n, "S1");
    recordSignIn(db, profile("u-alice", "alice"), 4_000);
    recordSignIn(db, profile("u-bob", "bob"), 4_000);
    expect(accountFigures(db, "user", "u-alice").balanceLamports).toBe(500n);
    setRouting(db, "u-bob", { routing: "burn", payoutWallet: null, declined: true });
    sweep(db, tokenId, 2000n, "S2");
    const bob = accountFigures(db, "user", "u-bob");
    expect(bob).toEqual({ creditedLamports: 1500n, paidLamports: 0n, burnedLamports: 1000n, balanceLamports: 500n });
    expect(accountFigures(db, "user", "u-alice").balanceLamports).toBe(1500n);
    const groups = pendingBurnGroups(db, 10);
    expect(groups).toEqual([
      {
        mint: "MintA",
        orderIds: [1],
        recipientLamports: 1000n,
        platformLamports: 0n,
        orders: [{ id: 1, source: "recipient", lamports: 1000n }],
      },
    ]);
    const totals = ledgerTotals(db);
    expect(totals.owedLamports - totals.unclaimedLamports).toBe(1000n);
    verifyLedger(db);
  });
});

describe("payouts", () => {
  function funded(db: Db) {
    const tokenId = launch(db, "MintA", [{ handle: "alice", bps: 10_000 }], 0);
    sweep(db, tokenId, 100_000_000n, "S1");
    recordSignIn(db, profile("u-alice", "alice"), 4_000);
  }
  const claim = (lamports: bigint | null) => ({
    idpUserId: "u-alice",
    lamports,
    wallet: "W",
    kind: "claim" as const,
    minLamports: 10n,
    atMs: 5_000,
  });

  test("queue, send, confirm: paid once, counted in stats only when confirmed", () => {
    const db = openDatabase(":memory:");
    funded(db);
    const q = queuePayout(db, claim(40_000_000n));
    expect(() => queuePayout(db, claim(1_000n))).toThrow(expect.objectContaining({ code: "PAYOUT_IN_FLIGHT" }));
    expect(accountFigures(db, "user", "u-alice").balanceLamports).toBe(60_000_000n);
    expect(ledgerTotals(db).paidLamports).toBe(0n);
    markPayoutsSent(db, { payoutIds: [q.payoutId], signature: "P1", lastValidBlockHeight: 10n, atMs: 6_000 });
    expect(confirmPayouts(db, "P1", 7_000)).toBe(1);
    expect(confirmPayouts(db, "P1", 7_000)).toBe(0);
    expect(ledgerTotals(db).paidLamports).toBe(40_000_000n);
    expect(accountFigures(db, "user", "u-alice").paidLamports).toBe(40_000_000n);
    verifyLedger(db);
  });

  test("a failed payout puts the amount back; an expired one is replaced by a new queued payout", () => {
    const db = openDatabase(":memory:");
    funded(db);
    const q = queuePayout(db, claim(null));
    expect(q.lamports).toBe(100_000_000n);
    markPayoutsSent(db, { payoutIds: [q.payoutId], signature: "P1", lastValidBlockHeight: 10n, atMs: 6_000 });
    failPayouts(db, "P1", "custom program error", 7_000);
    expect(accountFigures(db, "user", "u-alice")).toMatchObject({ balanceLamports: 100_000_000n, paidLamports: 0n });
    const again = queuePayout(db, claim(null));
    markPayoutsSent(db, { payoutIds: [again.payoutId], signature: "P2", lastValidBlockHeight: 10n, atMs: 8_000 });
    const [replacement] = replaceExpiredPayouts(db, "P2", 9_000);
    const rows = db.$client
      .query<{ id: bigint; status: string; replaces_id: bigint | null }, []>(
        "SELECT id, status, replaces_id FROM payouts ORDER BY id",
      )
      .all();
    expect(rows.map((r) => r.status)).toEqual(["failed", "replaced", "queued"]);
    expect(Number(rows[2]!.replaces_id)).toBe(again.payoutId);
    expect(Number(rows[2]!.id)).toBe(replacement!);
    // Still owed once, not twice.
    expect(accountFigures(db, "user", "u-alice")).toMatchObject({ balanceLamports: 0n, paidLamports: 100_000_000n });
    expect(ledgerTotals(db).owedLamports).toBe(100_000_000n);
    // The replacement is in flight: no second payout while it is.
    expect(() => queuePayout(db, claim(null))).toThrow(expect.objectContaining({ code: "PAYOUT_IN_FLIGHT" }));
    verifyLedger(db);
  });

  test("amount rules: above the balance or below the minimum is refused with the balance untouched", () => {
    const db = openDatabase(":memory:");
    funded(db);
    expect(() => queuePayout(db, claim(100_000_001n))).toThrow(
      expect.objectContaining({ code: "INSUFFICIENT_BALANCE" }),
    );
    expect(() => queuePayout(db, claim(9n))).toThrow(expect.objectContaining({ code: "INSUFFICIENT_BALANCE" }));
    expect(accountFigures(db, "user", "u-alice").balanceLamports).toBe(100_000_000n);
  });
});

describe("burns", () => {
  test("a buy pays recipient orders and the platform buyback; tokens split pro rata; a failed buy returns its orders", () => {
    const db = openDatabase(":memory:");
    const tokenId = launch(db, "MintA", [{ handle: "bob", bps: 10_000 }], 2000);
    recordSignIn(db, profile("u-bob", "bob"), 1_500);
    setRouting(db, "u-bob", { routing: "burn", payoutWallet: null, declined: false });
    sweep(db, tokenId, 10_000n, "S1", { platformBuybackBps: 5000, platformTokenMint: "MintA" });
    const [group] = pendingBurnGroups(db, 10);
    expect(group).toMatchObject({ recipientLamports: 8000n, platformLamports: 1000n });
    const failing = startBurnBuy(db, { group: group!, signature: "B1", lastValidBlockHeight: 9n, atMs: 4_000 });
    failBurnBuy(db, failing, "slippage");
    const [retry] = pendingBurnGroups(db, 10);
    expect(retry).toEqual(group);
    const buyId = startBurnBuy(db, { group: retry!, signature: "B2", lastValidBlockHeight: 9n, atMs: 5_000 });
    expect(completeBurnBuy(db, { buyId, tokenAmount: 1_000_001n, atMs: 6_000 }).applied).toBe(true);
    expect(completeBurnBuy(db, { buyId, tokenAmount: 1_000_001n, atMs: 6_000 }).applied).toBe(false);
    const burns = db.$client
      .query<{ source: string; lamports: bigint; token_amount: bigint }, []>(
        "SELECT source, lamports, token_amount FROM burns ORDER BY id",
      )
      .all();
    expect(burns.map((b) => [b.source, BigInt(b.lamports), BigInt(b.token_amount)])).toEqual([
      ["recipient", 8000n, 888_889n],
      ["platform", 1000n, 111_112n],
    ]);
    expect(ledgerTotals(db).burnedLamports).toBe(9000n);
    expect(accountFigures(db, "user", "u-bob").burnedLamports).toBe(8000n);
    verifyLedger(db);
  });
});

describe("feed", () => {
  test("events in one millisecond get distinct microsecond times; re-appending is a no-op", () => {
    const db = openDatabase(":memory:");
    const times = [1, 2, 3, 4].map((id) => appendFeedEvent(db, "payout", id, 5_000));
    expect(times).toEqual([5_000_000, 5_000_001, 5_000_002, 5_000_003]);
    expect(appendFeedEvent(db, "payout", 2, 9_999)).toBe(5_000_001);
    expect(appendFeedEvent(db, "sweep", 1, 5_000)).toBe(5_000_004);
  });
});
