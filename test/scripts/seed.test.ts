/** The seed's synthetic history has every state the public reads must show, on books that pass the audit. */
import { expect, test } from "bun:test";
import { openDatabase } from "../../db/client";
import { verifyLedger } from "../../src/ledger/verify";
import { fillPoolVaults, seedDatabase } from "../../scripts/seed";

test("seedDatabase writes a varied, audited history through the services", () => {
  const db = openDatabase(":memory:");
  const summary = seedDatabase(db, { tokens: 300, seed: 3, nowMs: Date.UTC(2026, 10, 1) });
  verifyLedger(db);
  const c = db.$client;
  const values = (sql: string) => (c.query(sql).all() as { v: string }[]).map((r) => String(r.v)).sort();
  const count = (sql: string) => Number((c.query(sql).get() as { n: bigint }).n);
  expect(summary.tokens).toBe(300);
  expect(count("SELECT COUNT(*) AS n FROM tokens WHERE hidden = 1")).toBeGreaterThan(0);
  expect(
    values("SELECT DISTINCT COUNT(*) AS v FROM token_recipients GROUP BY token_id")
      .map(Number)
      .sort((a, b) => a - b)
      .at(-1),
  ).toBeGreaterThanOrEqual(4);
  expect(values("SELECT DISTINCT status AS v FROM sweeps")).toEqual(["confirmed", "failed", "sent"]);
  expect(values("SELECT DISTINCT status AS v FROM payouts")).toEqual([
    "confirmed",
    "failed",
    "queued",
    "replaced",
    "sent",
  ]);
  expect(values("SELECT DISTINCT kind AS v FROM payouts")).toEqual(["autopay", "claim"]);
  expect(values("SELECT DISTINCT source AS v FROM burns")).toEqual(["platform", "recipient"]);
  // A buy that paid both sources shows twice.
  expect(
    count("SELECT COUNT(*) AS n FROM (SELECT buy_id FROM burns GROUP BY buy_id HAVING COUNT(*) = 2)"),
  ).toBeGreaterThan(0);
  // Pinned and unpinned handles, and renames: two handles pinned to one id.
  expect(count("SELECT COUNT(*) AS n FROM handles WHERE idp_user_id IS NULL")).toBeGreaterThan(0);
  expect(
    count(
      "SELECT COUNT(*) AS n FROM (SELECT idp_user_id FROM handles WHERE idp_user_id IS NOT NULL GROUP BY idp_user_id HAVING COUNT(*) > 1)",
    ),
  ).toBeGreaterThan(0);
  expect(values("SELECT DISTINCT routing AS v FROM identities")).toEqual(["autopay", "burn", "hold"]);
  expect(count("SELECT COUNT(*) AS n FROM identities WHERE declined = 1")).toBeGreaterThan(0);
  expect(count("SELECT COUNT(*) AS n FROM tokens WHERE market_cap_usd IS NULL")).toBeGreaterThan(0);
  expect(count("SELECT COUNT(*) AS n FROM feed_events")).toBe(summary.feedEvents);
}, 60_000);

test("every seeded token has both vaults recorded, and an older seed's missing pool vaults are filled as the seed writes them", () => {
  const db = openDatabase(":memory:");
  seedDatabase(db, { tokens: 50, seed: 3, nowMs: Date.UTC(2026, 10, 1) });
  const c = db.$client;
  const vaults = () =>
    c
      .query<{ id: bigint; curve: string; pool: string | null }, []>(
        "SELECT id, creator_vault AS curve, pool_vault AS pool FROM tokens ORDER BY id",
      )
      .all();
  const seeded = vaults();
  expect(seeded.every((t) => t.pool !== null && t.pool !== t.curve)).toBe(true);
  expect(new Set(seeded.map((t) => t.pool)).size).toBe(seeded.length);
  // As a database seeded before migration 0013 reads: no pool vault.
  c.exec("UPDATE tokens SET pool_vault = NULL WHERE id % 2 = 0");
  expect(fillPoolVaults(db)).toBe(seeded.filter((t) => Number(t.id) % 2 === 0).length);
  expect(vaults()).toEqual(seeded);
  expect(fillPoolVaults(db)).toBe(0);
});
