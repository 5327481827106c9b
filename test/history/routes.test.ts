/**
 * The history routes: a token's fees per UTC day, solvency over time from the snapshots (written
 * by the same function the job hooks call), an account's pin and rename history. Empty histories
 * are 200 with empty lists; unknown mints and handles are 404.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { recordSolvencySnapshot, SNAPSHOT_RETENTION_MS, takeSolvencySnapshot } from "../../src/history/snapshots";
import { PROOF_HISTORY_MAX_POINTS } from "../../src/history/queries";
import { testService, type TestService, type Json } from "../helpers/service";
import { address, fakeChain, launch, payout, signIn, sweep, T0 } from "../helpers/read-world";

let svc: TestService;
afterEach(async () => svc && (await svc.cleanup()));

const DAY = 86_400_000;
/** A clock inside the seeded history: noon on the tenth day after T0. */
const NOW = T0 + 10 * DAY + 12 * 3_600_000;
const at = (ms: number) => () => ms;

describe("GET /api/tokens/:mint/history", () => {
  test("one point per UTC day with a confirmed sweep, with exact sums, oldest first", async () => {
    svc = testService({}, { now: at(NOW) });
    const db = svc.ctx.db;
    const t = launch(db, { recipients: [{ handle: "alice", bps: 10_000 }], platformBps: 1000, launchedAtMs: T0 });
    const other = launch(db, { recipients: [{ handle: "bob", bps: 10_000 }], launchedAtMs: T0 });
    sweep(db, t.tokenId, 1_000_000_001n, T0 + 2 * DAY + 5);
    sweep(db, t.tokenId, 9_007_199_254_740_993n, T0 + 2 * DAY + 23 * 3_600_000); // past 2^53: exact or wrong
    sweep(db, t.tokenId, 500n, T0 + 5 * DAY);
    sweep(db, t.tokenId, 777n, T0 + 6 * DAY, "failed");
    sweep(db, t.tokenId, 888n, T0 + 7 * DAY, "sent");
    sweep(db, other.tokenId, 1234n, T0 + 2 * DAY);
    const { status, body, headers } = await svc.json(`/api/tokens/${t.mint}/history`);
    expect(status).toBe(200);
    expect(headers.get("cache-control")).toBe("public, max-age=0, s-maxage=10, stale-while-revalidate=30");
    const platform = (n: bigint) => (n * 1000n) / 10_000n;
    expect(body).toEqual({
      points: [
        {
          day: "2026-01-03",
          sweptLamports: (1_000_000_001n + 9_007_199_254_740_993n).toString(),
          platformLamports: (platform(1_000_000_001n) + platform(9_007_199_254_740_993n)).toString(),
          sweeps: 2,
        },
        { day: "2026-01-06", sweptLamports: "500", platformLamports: "50", sweeps: 1 },
      ],
    });
  });

  test("days limits the window to that many UTC days, today included", async () => {
    svc = testService({}, { now: at(NOW) });
    const db = svc.ctx.db;
    const t = launch(db, { launchedAtMs: T0 });
    sweep(db, t.tokenId, 1000n, T0 + 8 * DAY + 1); // 2026-01-09
    sweep(db, t.tokenId, 1000n, T0 + 9 * DAY + 1); // 2026-01-10
    sweep(db, t.tokenId, 1000n, T0 + 10 * DAY + 1); // today, 2026-01-11
    const days = async (n: number) =>
      (await svc.json(`/api/tokens/${t.mint}/history?days=${n}`)).body.points.map((p: Json) => p.day);
    expect(await days(1)).toEqual(["2026-01-11"]);
    expect(await days(2)).toEqual(["2026-01-10", "2026-01-11"]);
    expect(await days(365)).toEqual(["2026-01-09", "2026-01-10", "2026-01-11"]);
  });

  test("a token without sweeps is 200 with no points; unknown 404, malformed 400, days outside 1-365 400", async () => {
    svc = testService({}, { now: at(NOW) });
    const t = launch(svc.ctx.db, { launchedAtMs: T0 });
    expect(await svc.json(`/api/tokens/${t.mint}/history`)).toMatchObject({ status: 200, body: { points: [] } });
    const unknown = await svc.json(`/api/tokens/${address()}/history`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: expect.any(String) });
    expect((await svc.json("/api/tokens/not-a-mint!/history")).status).toBe(400);
    for (const days of ["0", "366", "abc", "1.5"]) {
      const r = await svc.json(`/api/tokens/${t.mint}/history?days=${days}`);
      expect(r.status).toBe(400);
      expect(Object.keys(r.body)).toEqual(["error"]);
    }
  });

  test("a new sweep shows at once (the remembered answer follows the books)", async () => {
    svc = testService({}, { now: at(NOW) });
    const db = svc.ctx.db;
    const t = launch(db, { launchedAtMs: T0 });
    expect((await svc.json(`/api/tokens/${t.mint}/history`)).body.points).toEqual([]);
    sweep(db, t.tokenId, 1000n, NOW - 1000);
    expect((await svc.json(`/api/tokens/${t.mint}/history`)).body.points).toEqual([
      { day: "2026-01-11", sweptLamports: "1000", platformLamports: "100", sweeps: 1 },
    ]);
  });
});

describe("GET /api/proof/history", () => {
  test("no snapshots yet is 200 with no points", async () => {
    svc = testService({}, { now: at(NOW) });
    const { status, body, headers } = await svc.json("/api/proof/history");
    expect(status).toBe(200);
    expect(body).toEqual({ points: [] });
    expect(headers.get("cache-control")).toBe("public, max-age=0, s-maxage=15, stale-while-revalidate=45");
  });

  test("snapshots carry the treasury and what the books owed at that moment", async () => {
    svc = testService({}, { now: at(NOW) });
    const db = svc.ctx.db;
    const t = launch(db, { recipients: [{ handle: "alice", bps: 10_000 }], launchedAtMs: T0 });
    recordSolvencySnapshot(db, { treasuryLamports: 0n, atMs: NOW - 3 * DAY, trigger: "hourly" });
    sweep(db, t.tokenId, 10_000n, NOW - 2 * DAY); // owes 9000 to alice
    recordSolvencySnapshot(db, { treasuryLamports: 10_000n, atMs: NOW - 2 * DAY, trigger: "sweep" });
    signIn(db, "u-alice", "alice", NOW - DAY);
    payout(db, "u-alice", 4000n, NOW - DAY, "confirmed");
    recordSolvencySnapshot(db, { treasuryLamports: 5_000n, atMs: NOW - DAY + 10, trigger: "payouts" });
    recordSolvencySnapshot(db, { treasuryLamports: 4_000n, atMs: NOW - 1000, trigger: "payouts" });
    const { body } = await svc.json("/api/proof/history");
    expect(body.points).toEqual([
      {
        at: new Date(NOW - 3 * DAY).toISOString(),
        treasuryLamports: "0",
        owedLamports: "0",
        surplusLamports: "0",
        solvent: true,
      },
      {
        at: new Date(NOW - 2 * DAY).toISOString(),
        treasuryLamports: "10000",
        owedLamports: "9000",
        surplusLamports: "1000",
        solvent: true,
      },
      {
        at: new Date(NOW - DAY + 10).toISOString(),
        treasuryLamports: "5000",
        owedLamports: "5000",
        surplusLamports: "0",
        solvent: true,
      },
      {
        at: new Date(NOW - 1000).toISOString(),
        treasuryLamports: "4000",
        owedLamports: "5000",
        surplusLamports: "-1000",
        solvent: false,
      },
    ]);
    expect((await svc.json("/api/proof/history?days=1")).body.points.map((p: Json) => p.treasuryLamports)).toEqual([
      "5000",
      "4000",
    ]);
    expect((await svc.json("/api/proof/history?days=0")).status).toBe(400);
    expect((await svc.json("/api/proof/history?days=366")).status).toBe(400);
  });

  test("a repeat within the hour is not written; an hourly one is written once the last is an hour old", () => {
    svc = testService({}, { now: at(NOW) });
    const db = svc.ctx.db;
    expect(recordSolvencySnapshot(db, { treasuryLamports: 5n, atMs: NOW, trigger: "sweep" }).written).toBe(true);
    expect(recordSolvencySnapshot(db, { treasuryLamports: 5n, atMs: NOW + 60_000, trigger: "payouts" }).written).toBe(
      false,
    );
    expect(recordSolvencySnapshot(db, { treasuryLamports: 6n, atMs: NOW + 120_000, trigger: "payouts" }).written).toBe(
      true,
    );
    expect(recordSolvencySnapshot(db, { treasuryLamports: 7n, atMs: NOW + 180_000, trigger: "hourly" }).written).toBe(
      false,
    );
    expect(
      recordSolvencySnapshot(db, { treasuryLamports: 6n, atMs: NOW + 120_000 + 3_600_000, trigger: "hourly" }).written,
    ).toBe(true);
  });

  test("snapshots older than a year are dropped", () => {
    svc = testService({}, { now: at(NOW) });
    const db = svc.ctx.db;
    recordSolvencySnapshot(db, { treasuryLamports: 1n, atMs: NOW - SNAPSHOT_RETENTION_MS - 1, trigger: "sweep" });
    recordSolvencySnapshot(db, { treasuryLamports: 2n, atMs: NOW - SNAPSHOT_RETENTION_MS + 1, trigger: "sweep" });
    recordSolvencySnapshot(db, { treasuryLamports: 3n, atMs: NOW, trigger: "sweep" });
    const left = db.$client.query("SELECT treasury_lamports AS t FROM solvency_snapshots ORDER BY at_ms").all() as {
      t: bigint;
    }[];
    expect(left.map((r) => Number(r.t))).toEqual([2, 3]);
  });

  test("a long window is thinned to each stretch's lowest surplus, so a shortfall is never hidden", async () => {
    svc = testService({}, { now: at(NOW) });
    const db = svc.ctx.db;
    const insert = db.$client.prepare(
      "INSERT INTO solvency_snapshots (at_ms, treasury_lamports, owed_lamports, trigger) VALUES (?, ?, 0, 'sweep')",
    );
    const count = 3000;
    const shortAt = 1777;
    db.$client.transaction(() => {
      for (let i = 0; i < count; i++) insert.run(NOW - 29 * DAY + i * 600_000, 1_000_000n + BigInt(i));
    })();
    db.$client
      .query("UPDATE solvency_snapshots SET owed_lamports = 2000000 WHERE at_ms = ?")
      .run(NOW - 29 * DAY + shortAt * 600_000);
    const { body } = await svc.json("/api/proof/history?days=30");
    expect(body.points.length).toBeLessThanOrEqual(PROOF_HISTORY_MAX_POINTS);
    expect(body.points.length).toBeGreaterThan(PROOF_HISTORY_MAX_POINTS / 2);
    const short = body.points.filter((p: Json) => !p.solvent);
    expect(short).toEqual([
      {
        at: new Date(NOW - 29 * DAY + shortAt * 600_000).toISOString(),
        treasuryLamports: String(1_000_000 + shortAt),
        owedLamports: "2000000",
        surplusLamports: String(1_000_000 + shortAt - 2_000_000),
        solvent: false,
      },
    ]);
  });

  test("the job hook reads the treasury; an unreadable balance writes nothing rather than a zero", async () => {
    svc = testService({}, { now: at(NOW) });
    const db = svc.ctx.db;
    const good = fakeChain({ treasuryLamports: 42n });
    expect(await takeSolvencySnapshot({ db, chain: good, now: at(NOW) }, "sweep")).toEqual({
      written: true,
      atMs: NOW,
    });
    const broken = fakeChain({
      treasuryLamports: async () => {
        throw new Error("rpc down");
      },
    });
    expect(await takeSolvencySnapshot({ db, chain: broken, now: at(NOW + 2 * 3_600_000) }, "hourly")).toBeNull();
    expect((await svc.json("/api/proof/history")).body.points.map((p: Json) => p.treasuryLamports)).toEqual(["42"]);
  });
});

describe("GET /api/idp/:handle/history", () => {
  test("an unpinned handle has an empty history; an unknown one is 404; a malformed one 400", async () => {
    svc = testService({}, { now: at(NOW) });
    launch(svc.ctx.db, { recipients: [{ handle: "Nobody_Yet", bps: 10_000 }], launchedAtMs: T0 });
    const { status, body, headers } = await svc.json("/api/idp/nobody_yet/history");
    expect(status).toBe(200);
    expect(body).toEqual({ entries: [] });
    expect(headers.get("cache-control")).toBe("public, max-age=0, s-maxage=10, stale-while-revalidate=30");
    expect((await svc.json("/api/idp/someone_else/history")).status).toBe(404);
    expect((await svc.json("/api/idp/bad-handle!/history")).status).toBe(400);
  });

  test("the pin and each rename of the account, newest first, under any of its handles", async () => {
    svc = testService({}, { now: at(NOW) });
    const db = svc.ctx.db;
    launch(db, { recipients: [{ handle: "OldName", bps: 10_000 }], launchedAtMs: T0 });
    signIn(db, "u-1", "OldName", T0 + DAY);
    signIn(db, "u-1", "NewName", T0 + 3 * DAY);
    signIn(db, "u-2", "stranger", T0 + 4 * DAY);
    const expected = {
      entries: [
        {
          handle: "newname",
          displayHandle: "NewName",
          pinnedAt: new Date(T0 + 3 * DAY).toISOString(),
          event: "renamed",
        },
        { handle: "oldname", displayHandle: "OldName", pinnedAt: new Date(T0 + DAY).toISOString(), event: "pinned" },
      ],
    };
    expect((await svc.json("/api/idp/@OLDNAME/history")).body).toEqual(expected);
  });
});
