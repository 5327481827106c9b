/**
 * Model-based property test of the ledger: random sequences of money commands (and replays of
 * earlier ones) run against the real ledger and a plain in-memory model; after every step every
 * invariant is audited and every figure must equal the model's.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { openDatabase, type Db } from "../../db/client";
import {
  completeBurn,
  confirmPayout,
  creditSweep,
  failPayout,
  orderBurn,
  pinHandleCredits,
  replacePayout,
  reservePayout,
} from "../../src/ledger/commands";
import { accountFigures, creditsByToken, ledgerTotals } from "../../src/ledger/figures";
import { immediate } from "../../db/transaction";
import { splitSweep } from "../../src/ledger/split";
import { verifyLedger } from "../../src/ledger/verify";

const HANDLES = ["alice", "bob", "carol", "dave"] as const;
const USERS = ["u1", "u2", "u3"] as const;
const MINTS = ["MintA", "MintB", "MintC"] as const;

type Cmd =
  | { t: "credit"; mint: number; total: bigint; platformBps: number; handles: number[]; bps: number[] }
  | { t: "pin"; handle: number; user: number }
  | { t: "reserve"; user: number; fraction: number }
  | { t: "confirm"; pick: number }
  | { t: "fail"; pick: number }
  | { t: "replace"; pick: number }
  | { t: "burnOrder"; user: number; mint: number; fraction: number }
  | { t: "buyback"; mint: number; fraction: number }
  | { t: "burn"; mint: number }
  | { t: "replay"; pick: number };

const bpsSplit = (n: number) =>
  fc.array(fc.integer({ min: 1, max: 100 }), { minLength: n, maxLength: n }).map((weights) => {
    const sum = weights.reduce((a, b) => a + b, 0);
    const bps = weights.map((w) => Math.max(1, Math.floor((w * 10_000) / sum)));
    const diff = 10_000 - bps.reduce((a, b) => a + b, 0);
    bps[0]! += diff;
    return bps;
  });

const cmdArb: fc.Arbitrary<Cmd> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.integer({ min: 1, max: 3 }).chain((n) =>
      fc
        .record({
          t: fc.constant("credit" as const),
          mint: fc.integer({ min: 0, max: MINTS.length - 1 }),
          total: fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 10n }), fc.bigInt({ min: 0n, max: 2n ** 40n })),
          platformBps: fc.integer({ min: 0, max: 5000 }),
          handles: fc.uniqueArray(fc.integer({ min: 0, max: HANDLES.length - 1 }), { minLength: n, maxLength: n }),
          bps: bpsSplit(n),
        })
        .filter((c) => c.bps.every((b) => b > 0)),
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant("pin" as const),
      handle: fc.nat(HANDLES.length - 1),
      user: fc.nat(USERS.length - 1),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant("reserve" as const),
      user: fc.nat(USERS.length - 1),
      fraction: fc.integer({ min: 1, max: 100 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("confirm" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("fail" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("replace" as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant("burnOrder" as const),
      user: fc.nat(USERS.length - 1),
      mint: fc.nat(MINTS.length - 1),
      fraction: fc.integer({ min: 1, max: 100 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant("buyback" as const),
      mint: fc.nat(MINTS.length - 1),
      fraction: fc.integer({ min: 1, max: 100 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("burn" as const), mint: fc.nat(MINTS.length - 1) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("replay" as const), pick: fc.nat() }) },
);

/** The reference: plain maps, no SQL. */
class Model {
  handleBalance = new Map<string, bigint>();
  handleCredited = new Map<string, bigint>();
  pinnedTo = new Map<string, string>();
  everPinned = new Set<string>();
  user = new Map<
    string,
    { balance: bigint; credited: bigint; paid: bigint; burned: bigint; byToken: Map<number, bigint> }
  >();
  handleByToken = new Map<string, Map<number, bigint>>();
  livePayouts = new Map<number, { user: string; lamports: bigint }>();
  burnPending = new Map<string, { recipient: bigint; platform: bigint }>();
  swept = 0n;
  paid = 0n;
  burned = 0n;
  platform = 0n;

  u(id: string) {
    let v = this.user.get(id);
    if (!v) {
      v = { balance: 0n, credited: 0n, paid: 0n, burned: 0n, byToken: new Map() };
      this.user.set(id, v);
    }
    return v;
  }
  pending(mint: string) {
    let v = this.burnPending.get(mint);
    if (!v) {
      v = { recipient: 0n, platform: 0n };
      this.burnPending.set(mint, v);
    }
    return v;
  }
}

const add = (m: Map<number, bigint>, k: number, v: bigint) => m.set(k, (m.get(k) ?? 0n) + v);

function runSequence(db: Db, cmds: Cmd[]): void {
  const model = new Model();
  const done: (() => void)[] = [];
  let nextSweepId = 1;
  let nextPayoutId = 1;
  let nextOrderId = 1;
  let nextBuyId = 1;
  let now = 1_000;

  for (const cmd of cmds) {
    now += 1;
    switch (cmd.t) {
      case "credit": {
        const mint = MINTS[cmd.mint]!;
        const tokenId = cmd.mint + 1;
        const recipients = cmd.handles.map((h, i) => {
          const handle = HANDLES[h]!;
          return { handle, bps: cmd.bps[i]!, idpUserId: model.pinnedTo.get(handle) ?? null };
        });
        const sweepId = nextSweepId++;
        const args = {
          sweepId,
          tokenId,
          mint,
          totalLamports: cmd.total,
          platformBps: cmd.platformBps,
          recipients,
          atMs: now,
        };
        const run = () => immediate(db, () => creditSweep(db, args));
        const result = run();
        const split = splitSweep(
          cmd.total,
          cmd.platformBps,
          recipients.map((r, i) => ({ key: i, bps: r.bps })),
        );
        expect(result.platformLamports).toBe(split.platformLamports);
        model.swept += cmd.total;
        model.platform += split.platformLamports;
        recipients.forEach((r, i) => {
          const lamports = split.recipients[i]!.lamports;
          if (r.idpUserId) {
            const u = model.u(r.idpUserId);
            u.balance += lamports;
            u.credited += lamports;
            add(u.byToken, tokenId, lamports);
          } else {
            model.handleBalance.set(r.handle, (model.handleBalance.get(r.handle) ?? 0n) + lamports);
            model.handleCredited.set(r.handle, (model.handleCredited.get(r.handle) ?? 0n) + lamports);
            if (!model.handleByToken.has(r.handle)) model.handleByToken.set(r.handle, new Map());
            add(model.handleByToken.get(r.handle)!, tokenId, lamports);
          }
        });
        done.push(() => expect(run().applied).toBe(false));
        break;
      }
      case "pin": {
        const handle = HANDLES[cmd.handle]!;
        const userId = USERS[cmd.user]!;
        if (model.everPinned.has(handle)) {
          // A re-pin (changed hands) moves nothing: later credits simply go to the new user.
          model.pinnedTo.set(handle, userId);
          break;
        }
        const run = () => immediate(db, () => pinHandleCredits(db, handle, userId, now));
        run();
        const moved = model.handleBalance.get(handle) ?? 0n;
        const u = model.u(userId);
        u.balance += moved;
        u.credited += moved;
        for (const [tokenId, v] of model.handleByToken.get(handle) ?? []) add(u.byToken, tokenId, v);
        model.handleBalance.set(handle, 0n);
        model.pinnedTo.set(handle, userId);
        model.everPinned.add(handle);
        done.push(() => expect(run().applied).toBe(false));
        break;
      }
      case "reserve": {
        const userId = USERS[cmd.user]!;
        const u = model.u(userId);
        const amount = (u.balance * BigInt(cmd.fraction)) / 100n;
        const id = nextPayoutId++;
        if (amount === 0n) {
          // More than the balance can never be reserved, and the refusal changes nothing.
          expect(() => immediate(db, () => reservePayout(db, id, userId, u.balance + 1n, now))).toThrow(
            expect.objectContaining({ code: "LEDGER_INVARIANT" }),
          );
          break;
        }
        const run = () => immediate(db, () => reservePayout(db, id, userId, amount, now));
        run();
        u.balance -= amount;
        u.paid += amount;
        model.livePayouts.set(id, { user: userId, lamports: amount });
        done.push(() => expect(run().applied).toBe(false));
        break;
      }
      case "confirm":
      case "fail":
      case "replace": {
        const live = [...model.livePayouts.keys()];
        if (live.length === 0) break;
        const id = live[cmd.pick % live.length]!;
        const p = model.livePayouts.get(id)!;
        let run: () => { applied: boolean };
        if (cmd.t === "confirm") {
          run = () => immediate(db, () => confirmPayout(db, id, p.lamports, now));
          model.paid += p.lamports;
        } else if (cmd.t === "fail") {
          run = () => immediate(db, () => failPayout(db, id, p.user, p.lamports, now));
          const u = model.u(p.user);
          u.balance += p.lamports;
          u.paid -= p.lamports;
        } else {
          const newId = nextPayoutId++;
          run = () => immediate(db, () => replacePayout(db, id, newId, p.lamports, now));
          model.livePayouts.set(newId, p);
        }
        run();
        model.livePayouts.delete(id);
        done.push(() => expect(run().applied).toBe(false));
        break;
      }
      case "burnOrder": {
        const userId = USERS[cmd.user]!;
        const mint = MINTS[cmd.mint]!;
        const u = model.u(userId);
        const amount = (u.balance * BigInt(cmd.fraction)) / 100n;
        if (amount === 0n) break;
        const orderId = nextOrderId++;
        const run = () =>
          immediate(db, () =>
            orderBurn(db, { orderId, source: "recipient", idpUserId: userId, mint, lamports: amount, atMs: now }),
          );
        run();
        u.balance -= amount;
        u.burned += amount;
        model.pending(mint).recipient += amount;
        done.push(() => expect(run().applied).toBe(false));
        break;
      }
      case "buyback": {
        const mint = MINTS[cmd.mint]!;
        const amount = (model.platform * BigInt(cmd.fraction)) / 100n;
        if (amount === 0n) break;
        const orderId = nextOrderId++;
        const run = () =>
          immediate(db, () =>
            orderBurn(db, { orderId, source: "platform", idpUserId: null, mint, lamports: amount, atMs: now }),
          );
        run();
        model.platform -= amount;
        model.pending(mint).platform += amount;
        done.push(() => expect(run().applied).toBe(false));
        break;
      }
      case "burn": {
        const mint = MINTS[cmd.mint]!;
        const p = model.pending(mint);
        if (p.recipient + p.platform === 0n) break;
        const buyId = nextBuyId++;
        const args = { buyId, mint, recipientLamports: p.recipient, platformLamports: p.platform, atMs: now };
        const run = () => immediate(db, () => completeBurn(db, args));
        run();
        model.burned += p.recipient + p.platform;
        p.recipient = 0n;
        p.platform = 0n;
        done.push(() => expect(run().applied).toBe(false));
        break;
      }
      case "replay": {
        if (done.length === 0) break;
        done[cmd.pick % done.length]!();
        break;
      }
    }
    audit(db, model);
  }
}

function audit(db: Db, model: Model): void {
  verifyLedger(db);
  const totals = ledgerTotals(db);
  let unclaimed = 0n;
  for (const v of model.handleBalance.values()) unclaimed += v;
  for (const u of model.user.values()) unclaimed += u.balance;
  let inFlight = 0n;
  for (const p of model.livePayouts.values()) inFlight += p.lamports;
  let recipientBurns = 0n;
  let platformBurns = 0n;
  for (const p of model.burnPending.values()) {
    recipientBurns += p.recipient;
    platformBurns += p.platform;
  }
  expect(totals.sweptLamports).toBe(model.swept);
  expect(totals.paidLamports).toBe(model.paid);
  expect(totals.burnedLamports).toBe(model.burned);
  expect(totals.unclaimedLamports).toBe(unclaimed);
  expect(totals.owedLamports).toBe(unclaimed + inFlight + recipientBurns);
  expect(totals.platformLamports).toBe(model.platform);
  expect(totals.buybackPendingLamports).toBe(platformBurns);
  for (const [id, u] of model.user) {
    const f = accountFigures(db, "user", id);
    expect(f.balanceLamports).toBe(u.balance);
    expect(f.creditedLamports).toBe(u.credited);
    expect(f.paidLamports).toBe(u.paid);
    expect(f.burnedLamports).toBe(u.burned);
    const byToken = creditsByToken(db, "user", id);
    for (const [tokenId, v] of u.byToken) expect(byToken.get(tokenId) ?? 0n).toBe(v);
  }
  for (const [handle, credited] of model.handleCredited) {
    const f = accountFigures(db, "handle", handle);
    expect(f.creditedLamports).toBe(credited);
    expect(f.balanceLamports).toBe(model.handleBalance.get(handle) ?? 0n);
  }
}

describe("ledger against a reference model", () => {
  test("2,000 random command sequences keep every invariant and match the model", () => {
    let runs = 0;
    fc.assert(
      fc.property(fc.array(cmdArb, { minLength: 1, maxLength: 30 }), (cmds) => {
        const db = openDatabase(":memory:");
        try {
          runSequence(db, cmds);
        } finally {
          db.$client.close();
        }
        runs++;
      }),
      { numRuns: 2000 },
    );
    expect(runs).toBeGreaterThanOrEqual(2000);
  }, 300_000);

  test("a posting that would overdraw an account is refused and leaves the books unchanged", () => {
    const db = openDatabase(":memory:");
    immediate(db, () =>
      creditSweep(db, {
        sweepId: 1,
        tokenId: 1,
        mint: "M",
        totalLamports: 1000n,
        platformBps: 0,
        recipients: [{ handle: "a", bps: 10_000, idpUserId: "u" }],
        atMs: 1,
      }),
    );
    expect(() => immediate(db, () => reservePayout(db, 1, "u", 1001n, 2))).toThrow(
      expect.objectContaining({ code: "LEDGER_INVARIANT" }),
    );
    expect(accountFigures(db, "user", "u").balanceLamports).toBe(1000n);
    expect(Number((db.$client.query("SELECT COUNT(*) AS n FROM ledger_postings").get() as { n: bigint }).n)).toBe(1);
    verifyLedger(db);
  });

  test("an async callback cannot hold a money transaction open", () => {
    const db = openDatabase(":memory:");
    expect(() => immediate(db, (async () => 1) as unknown as () => number)).toThrow(/synchronous/);
  });
});
