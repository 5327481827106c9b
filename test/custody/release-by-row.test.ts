/**
 * A resume releases rows by id, and only those rows, each once. Two ways the seeded simulation
 * found more leaving than the cap plus what the operator listed (seeds 403217 and 407984):
 * - a replacement payout released both through the payout it replaces and by its own id in a
 *   later resume was counted twice as released, so the window looked emptier than it was and an
 *   unreleased burn buy of 3,824,667 lamports went out under a 3,000,000 cap;
 * - burn buys spent a pooled allowance of every released order, so a buy of an order nobody listed
 *   (another mint's, or one ordered after the resume) went out on a listed order's release.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase, type Db } from "../../db/client";
import { outflowAllows } from "../../src/custody/outflow";
import { recordRelease, type ReleasedRows } from "../../src/custody/release";

const CAPS = { outflowMaxLamportsPerHour: 3_000_000n, outflowMaxLamportsPerDay: 100_000_000n };
const NOW_MS = 1_800_000_000_000;
const WALLET = "So11111111111111111111111111111111111111112";
let dir: string | null = null;
let db: Db | null = null;
afterEach(() => {
  if (db) closeDatabase(db);
  if (dir) rmSync(dir, { recursive: true, force: true });
  db = null;
  dir = null;
});

function fresh(): Db {
  dir = mkdtempSync(join(tmpdir(), "cfl-release-by-row-"));
  db = openDatabase(join(dir, "service.db"));
  db.$client
    .query(
      `INSERT INTO identities (idp_user_id, handle, display_handle, name, avatar_url, created_at_ms)
       VALUES ('u1', 'u1', 'u1', 'u1', '', 0)`,
    )
    .run();
  return db;
}

function payout(
  d: Db,
  p: { id: number; lamports: bigint; status: string; sentAtMs: number | null; replaces?: number },
) {
  d.$client
    .query(
      `INSERT INTO payouts (id, idp_user_id, lamports, wallet, kind, status, replaces_id, created_at_ms, sent_at_ms)
       VALUES (?, 'u1', ?, ?, 'claim', ?, ?, 0, ?)`,
    )
    .run(p.id, p.lamports, WALLET, p.status, p.replaces ?? null, p.sentAtMs);
}

function order(d: Db, o: { id: number; mint: string; lamports: bigint; buyId?: number; splitFrom?: number }) {
  d.$client
    .query(
      `INSERT INTO burn_orders (id, source, idp_user_id, mint, lamports, status, buy_id, created_at_ms, split_from_id)
       VALUES (?, 'platform', NULL, ?, ?, ?, ?, 0, ?)`,
    )
    .run(o.id, o.mint, o.lamports, o.buyId ? "done" : "pending", o.buyId ?? null, o.splitFrom ?? null);
}

function buy(d: Db, b: { id: number; mint: string; lamports: bigint; atMs: number }) {
  d.$client
    .query(
      `INSERT INTO burn_buys (id, mint, signature, last_valid_block_height, status, lamports, created_at_ms)
       VALUES (?, ?, ?, 0, 'confirmed', ?, ?)`,
    )
    .run(b.id, b.mint, `sig-${b.id}`, b.lamports, b.atMs);
}

const release = (d: Db, atMs: number, rows: Partial<ReleasedRows>) =>
  d.$client.transaction(() => recordRelease(d, atMs, { payouts: [], withdrawals: [], burnOrders: [], ...rows }))();

test("a replacement released both through the payout it replaces and by its own id counts once", () => {
  const d = fresh();
  // Payout 1 was released, sent, provably expired and replaced by payout 2; the breaker tripped
  // again and a second resume listed payout 2 itself. Payout 2 has since left.
  payout(d, { id: 1, lamports: 2_000_000n, status: "replaced", sentAtMs: NOW_MS - 120_000 });
  payout(d, { id: 2, lamports: 2_000_000n, status: "confirmed", sentAtMs: NOW_MS - 30_000, replaces: 1 });
  release(d, NOW_MS - 200_000, { payouts: [{ id: 1, lamports: 2_000_000n }] });
  release(d, NOW_MS - 60_000, { payouts: [{ id: 2, lamports: 2_000_000n }] });
  // 2,000,000 left released; a buy nobody released may take the hour to the cap, not beyond it.
  order(d, { id: 1, mint: "mintA", lamports: 3_000_001n });
  expect(outflowAllows(d, CAPS, NOW_MS, 3_000_001n, { burnOrders: [{ id: 1, lamports: 3_000_001n }] }).ok).toBe(false);
  expect(outflowAllows(d, CAPS, NOW_MS, 3_000_000n, { burnOrders: [{ id: 1, lamports: 3_000_000n }] }).ok).toBe(true);
});

test("a burn buy leaves beyond the cap only with the orders a resume listed", () => {
  const d = fresh();
  // The hour holds 2,900,000 already; the resume listed order 1 (mint A) and nothing else.
  buy(d, { id: 9, mint: "mintZ", lamports: 2_900_000n, atMs: NOW_MS - 600_000 });
  order(d, { id: 9, mint: "mintZ", lamports: 2_900_000n, buyId: 9 });
  order(d, { id: 1, mint: "mintA", lamports: 2_400_000n });
  order(d, { id: 2, mint: "mintB", lamports: 500_000n });
  order(d, { id: 3, mint: "mintA", lamports: 400_000n });
  release(d, NOW_MS - 60_000, { burnOrders: [{ id: 1, lamports: 2_400_000n }] });
  const send = (orders: [number, bigint][]) =>
    outflowAllows(
      d,
      CAPS,
      NOW_MS,
      orders.reduce((n, [, l]) => n + l, 0n),
      { burnOrders: orders.map(([id, lamports]) => ({ id, lamports })) },
    ).ok;
  // Another mint's order, within what the listed order is worth: not released.
  expect(send([[2, 500_000n]])).toBe(false);
  // The listed order with one ordered after the resume in the same mint: the new one counts.
  expect(
    send([
      [1, 2_400_000n],
      [3, 400_000n],
    ]),
  ).toBe(false);
  expect(send([[1, 2_400_000n]])).toBe(true);
});

test("the rest of a released order that a buy took only in part stays released, and what it took is counted once", () => {
  const d = fresh();
  order(d, { id: 1, mint: "mintA", lamports: 1_500_000n, buyId: 7 });
  order(d, { id: 2, mint: "mintA", lamports: 3_500_000n, splitFrom: 1 });
  release(d, NOW_MS - 120_000, { burnOrders: [{ id: 1, lamports: 5_000_000n }] });
  // The first part left released, so the hour's counted outflow is still empty.
  buy(d, { id: 7, mint: "mintA", lamports: 1_500_000n, atMs: NOW_MS - 60_000 });
  expect(outflowAllows(d, CAPS, NOW_MS, 3_500_000n, { burnOrders: [{ id: 2, lamports: 3_500_000n }] })).toEqual({
    ok: true,
  });
  // An unreleased send sees the hour as empty of counted outflow: up to the cap, no more.
  order(d, { id: 3, mint: "mintA", lamports: 3_000_000n });
  expect(outflowAllows(d, CAPS, NOW_MS, 3_000_000n, { burnOrders: [{ id: 3, lamports: 3_000_000n }] }).ok).toBe(true);
  expect(outflowAllows(d, CAPS, NOW_MS, 3_000_001n, { burnOrders: [{ id: 3, lamports: 3_000_001n }] }).ok).toBe(false);
});
