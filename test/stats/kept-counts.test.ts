/**
 * `/api/stats` from counts kept as they change (migration 0025): after every kind of operation that
 * moves one, the kept figures equal a full recount of the tables, and reading them walks no table.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase, type Db } from "../../db/client";
import { seedDatabase } from "../../scripts/seed";
import { pinHandleAtLaunch } from "../../src/identity/identity";
import { verifyLedger } from "../../src/ledger/verify";
import { computeStats, type Stats } from "../../src/stats/service";
import { launch, payout, signIn, sweep } from "../helpers/read-world";
import { countStatements, planOf } from "../helpers/statements-run";

const NOW = Date.UTC(2026, 10, 1);
const DAY = 86_400_000;

/** The figures counted from the tables themselves, as `/api/stats` counted them before they were kept. */
function recount(db: Db, nowMs: number): Stats {
  const c = db.$client;
  const count = (sql: string, ...args: number[]) => Number((c.query(sql).get(...args) as { n: bigint }).n);
  const byKind = new Map(
    (
      c.query("SELECT kind, SUM(balance) AS total FROM ledger_accounts GROUP BY kind").all() as {
        kind: string;
        total: bigint;
      }[]
    ).map((r) => [r.kind, BigInt(r.total)]),
  );
  const sum = (...kinds: string[]) => kinds.reduce((total, kind) => total + (byKind.get(kind) ?? 0n), 0n);
  return {
    tokens: count("SELECT COUNT(*) AS n FROM tokens"),
    recipients: count("SELECT COUNT(DISTINCT handle) AS n FROM token_recipients"),
    claimedAccounts: count(
      `SELECT COUNT(DISTINCT h.idp_user_id) AS n FROM handles h
         JOIN identities i ON i.idp_user_id = h.idp_user_id
        WHERE i.first_sign_in_at_ms IS NOT NULL
          AND EXISTS (SELECT 1 FROM token_recipients r WHERE r.handle = h.handle)`,
    ),
    sweptLamports: (-sum("sweep_source")).toString(),
    paidLamports: sum("paid_out").toString(),
    burnedLamports: sum("burned").toString(),
    owedLamports: sum("user", "handle", "payout", "burn_pending").toString(),
    unclaimedLamports: sum("user", "handle").toString(),
    launches24h: count("SELECT COUNT(*) AS n FROM tokens WHERE launched_at_ms >= ?", nowMs - DAY),
    updatedAt: new Date(nowMs).toISOString(),
  };
}

function expectKeptEqualsRecount(db: Db, nowMs = NOW): Stats {
  const counted = recount(db, nowMs);
  // The rows themselves, and the figures the route serves from them.
  const rows = db.$client.query("SELECT name, count FROM stats_counts ORDER BY name").all() as {
    name: string;
    count: bigint;
  }[];
  expect(rows.map((r) => [r.name, Number(r.count)])).toEqual([
    ["claimed_accounts", counted.claimedAccounts],
    ["recipients", counted.recipients],
    ["tokens", counted.tokens],
  ]);
  const kept = computeStats(db, nowMs);
  expect(kept).toEqual(counted);
  return kept;
}

const profile = (idpUserId: string, displayHandle: string) => ({
  idpUserId,
  displayHandle,
  name: displayHandle,
  avatarUrl: "",
  followers: 0,
});

describe("kept stats counts", () => {
  test("equal a full recount after a seeded history: launches, sweeps, sign-ins and renames, payouts in every status, burns, hidden tokens", () => {
    const db = openDatabase(":memory:");
    seedDatabase(db, { tokens: 400, seed: 23, nowMs: NOW, sweepsPerToken: 3, days: 30 });
    verifyLedger(db);
    const kept = expectKeptEqualsRecount(db);
    // The history moved every figure (a count left at its start would equal a recount of nothing).
    expect(kept.tokens).toBe(400);
    expect(kept.recipients).toBeGreaterThan(100);
    expect(kept.claimedAccounts).toBeGreaterThan(10);
    expect(kept.launches24h).toBeGreaterThan(0);
    for (const figure of [kept.sweptLamports, kept.paidLamports, kept.burnedLamports, kept.owedLamports]) {
      expect(BigInt(figure)).toBeGreaterThan(0n);
    }
    closeDatabase(db);
  }, 120_000);

  test("follow each operation that changes who counts: a sign-in before any token names the handle, the launch that names it, a second handle, a handle changing hands, payouts", () => {
    const db = openDatabase(":memory:");
    launch(db, { recipients: [{ handle: "Someone_Else", bps: 10_000 }], launchedAtMs: NOW - 2 * DAY });
    signIn(db, "kept-user-0", "Someone_Else", NOW - 2 * DAY);
    const before = expectKeptEqualsRecount(db);
    expect(before).toMatchObject({ tokens: 1, recipients: 1, claimedAccounts: 1, launches24h: 0 });
    // Signed in, named by no token: not a claimed account yet, not a recipient.
    signIn(db, "kept-user-1", "Kept_One", NOW - 5_000);
    expect(expectKeptEqualsRecount(db).claimedAccounts).toBe(before.claimedAccounts);
    // A launch names the handle: a recipient, and its identity a claimed account.
    const first = launch(db, { recipients: [{ handle: "Kept_One", bps: 10_000 }], launchedAtMs: NOW - 4_000 });
    const named = expectKeptEqualsRecount(db);
    expect(named.recipients).toBe(before.recipients + 1);
    expect(named.claimedAccounts).toBe(before.claimedAccounts + 1);
    // A second token naming the same handle and a new one: one new recipient, the same account.
    launch(db, {
      recipients: [
        { handle: "kept_one", bps: 5_000 },
        { handle: "Kept_Two", bps: 5_000 },
      ],
      launchedAtMs: NOW - 3_000,
    });
    expect(expectKeptEqualsRecount(db)).toMatchObject({
      recipients: before.recipients + 2,
      claimedAccounts: before.claimedAccounts + 1,
    });
    // The second handle is pinned to the same identity (a rename): still one account.
    signIn(db, "kept-user-1", "Kept_Two", NOW - 2_500);
    expect(expectKeptEqualsRecount(db).claimedAccounts).toBe(before.claimedAccounts + 1);
    // Money moves: a sweep credits the account, a payout leaves it.
    sweep(db, first.tokenId, 2_000_000n, NOW - 2_000);
    payout(db, "kept-user-1", 500_000n, NOW - 1_500, "confirmed");
    expectKeptEqualsRecount(db);
    // Both handles change hands to an identity that never signed in: the first identity keeps no
    // named handle and stops counting, and the new holder, unclaimed, does not count.
    pinHandleAtLaunch(db, profile("kept-user-2", "Kept_One"), NOW - 1_000);
    pinHandleAtLaunch(db, profile("kept-user-2", "Kept_Two"), NOW - 1_000);
    expect(expectKeptEqualsRecount(db).claimedAccounts).toBe(before.claimedAccounts);
    // The new holder signs in: it counts.
    signIn(db, "kept-user-2", "Kept_One", NOW - 500);
    expect(expectKeptEqualsRecount(db).claimedAccounts).toBe(before.claimedAccounts + 1);
    // The day's launches, counted from the index: the two of today (the first was two days ago), and
    // a day later only the last.
    expect(expectKeptEqualsRecount(db).launches24h).toBe(2);
    expect(expectKeptEqualsRecount(db, NOW + DAY - 3_500).launches24h).toBe(1);
    verifyLedger(db);
    closeDatabase(db);
  });
});

describe("a stats read", () => {
  const dir = mkdtempSync(join(tmpdir(), "kept-counts-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("reads the kept rows and a day's launches, and walks no table", () => {
    const seeded = openDatabase(":memory:");
    seedDatabase(seeded, { tokens: 200, seed: 29, nowMs: NOW, sweepsPerToken: 1, days: 30 });
    writeFileSync(join(dir, "service.db"), seeded.$client.serialize());
    closeDatabase(seeded);
    const db = openDatabase(join(dir, "service.db"));
    try {
      const ran = countStatements(db);
      computeStats(db, NOW);
      const plans = ran.map((r) => planOf(db, r.sql));
      expect(plans).toEqual([
        ["SCAN stats_counts"],
        ["SCAN ledger_kind_totals"],
        ["SEARCH tokens USING COVERING INDEX tokens_new (hidden=? AND launched_at_ms>?)"],
      ]);
      // What those scans walk: a row per count and per kind of ledger account, whatever the books hold.
      const rows = (table: string) =>
        Number((db.$client.query(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: bigint }).n);
      expect(rows("stats_counts")).toBe(3);
      expect(rows("ledger_kind_totals")).toBeLessThanOrEqual(16);
    } finally {
      closeDatabase(db);
    }
  }, 60_000);
});
