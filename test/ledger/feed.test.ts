import { afterEach, describe, expect, test } from "bun:test";
import { isoMicros, parseBefore } from "../../src/ledger/feed-queries";
import { testService, type TestService, type Json } from "../helpers/service";
import { burnAll, launch, payout, setHidden, setPlatformToken, signIn, sweep, T0 } from "../helpers/read-world";

let svc: TestService;
afterEach(async () => svc && (await svc.cleanup()));

async function feedAll(limit: number): Promise<Json[]> {
  const events: Json[] = [];
  let before: string | null = null;
  do {
    const { status, body }: { status: number; body: Json } = await svc.json(
      `/api/ledger?limit=${limit}${before ? `&before=${encodeURIComponent(before)}` : ""}`,
    );
    expect(status).toBe(200);
    events.push(...body.events);
    before = body.nextBefore;
  } while (before);
  return events;
}

describe("GET /api/ledger", () => {
  test("an empty ledger is 200 with no events and a null nextBefore, publicly cached for 5 s", async () => {
    svc = testService();
    const { status, body, headers } = await svc.json("/api/ledger");
    expect(status).toBe(200);
    expect(body).toEqual({ events: [], nextBefore: null });
    expect(headers.get("cache-control")).toBe("public, max-age=0, s-maxage=5, stale-while-revalidate=15");
  });

  test("launches, confirmed sweeps, payouts in every status and completed burns, newest first, with their fields", async () => {
    svc = testService();
    const db = svc.ctx.db;
    const a = launch(db, {
      symbol: "AAA",
      recipients: [
        { handle: "alice", bps: 6000 },
        { handle: "bob", bps: 4000 },
      ],
      launchedAtMs: T0,
    });
    const hidden = launch(db, { symbol: "HID", recipients: [{ handle: "alice", bps: 10_000 }], launchedAtMs: T0 + 1 });
    setHidden(db, hidden.mint);
    signIn(db, "u-a", "alice", T0 + 2, { routing: "hold" });
    signIn(db, "u-b", "bob", T0 + 2, { routing: "burn" });
    // The platform token is `a` itself, so one buy pays both bob's burn order and the buyback.
    setPlatformToken(db, a.mint);
    const buyback = { platformBuybackBps: 5000, platformTokenMint: a.mint };
    const s1 = sweep(db, a.tokenId, 1_000_000_000n, T0 + 10, "confirmed", buyback);
    sweep(db, a.tokenId, 5n, T0 + 11, "failed");
    sweep(db, a.tokenId, 6n, T0 + 12, "sent");
    const s2 = sweep(db, hidden.tokenId, 2_000_000_000n, T0 + 13);
    burnAll(db, T0 + 20, 1_000_000n);
    signIn(db, "u-a", "AliceRenamed", T0 + 25); // the feed shows the latest sign-in handle
    payout(db, "u-a", 1_000_000n, T0 + 30, "confirmed", "autopay");
    payout(db, "u-a", 1_000_000n, T0 + 40, "failed");
    payout(db, "u-a", 1_000_000n, T0 + 50, "replaced"); // leaves its replacement queued
    const c = launch(db, { symbol: "CCC", recipients: [{ handle: "carol", bps: 10_000 }], launchedAtMs: T0 + 3 });
    signIn(db, "u-c", "carol", T0 + 4);
    sweep(db, c.tokenId, 100_000_000n, T0 + 5);
    payout(db, "u-c", 1_000_000n, T0 + 60, "sent");
    const { body } = await svc.json("/api/ledger");
    const types = body.events.map((e: { type: string }) => e.type);
    // No launch of the hidden token; its sweep is still there. The failed and sent sweeps are not.
    expect(types.filter((t: string) => t === "launch")).toHaveLength(2);
    expect(types.filter((t: string) => t === "sweep")).toHaveLength(3);
    expect(types.filter((t: string) => t === "burn")).toHaveLength(2);
    const ats = body.events.map((e: { at: string }) => Date.parse(e.at));
    expect([...ats].sort((x, y) => y - x)).toEqual(ats);

    const launchEvent = body.events.find((e: Json) => e.type === "launch" && e.mint === a.mint);
    expect(launchEvent).toEqual({
      type: "launch",
      id: "2026-01-01T00:00:00.000000Z",
      at: new Date(T0).toISOString(),
      mint: a.mint,
      symbol: "AAA",
      signature: expect.any(String),
      recipients: 2,
    });
    const sweeps = body.events.filter((e: Json) => e.type === "sweep" && e.mint !== c.mint);
    expect(sweeps[0]).toEqual({
      type: "sweep",
      id: "2026-01-01T00:00:00.013000Z",
      at: new Date(T0 + 13).toISOString(),
      mint: hidden.mint,
      symbol: "HID",
      signature: s2.signature,
      totalLamports: "2000000000",
      platformLamports: "200000000",
    });
    expect(sweeps[1]).toMatchObject({
      mint: a.mint,
      signature: s1.signature,
      totalLamports: "1000000000",
      platformLamports: "100000000",
    });

    // One buy, two burns: bob's order (40% of 900000000) and the buyback (half the platform part).
    const burns = body.events.filter((e: Json) => e.type === "burn");
    const bySource = Object.fromEntries(burns.map((b: Json) => [b.source, b]));
    expect(bySource.recipient).toMatchObject({
      mint: a.mint,
      symbol: "AAA",
      lamports: "360000000",
      at: new Date(T0 + 21).toISOString(),
    });
    expect(bySource.platform).toMatchObject({ mint: a.mint, symbol: "AAA", lamports: "50000000" });
    expect(BigInt(bySource.recipient.tokenAmount) + BigInt(bySource.platform.tokenAmount)).toBe(1_000_000n);
    expect(bySource.recipient.signature).toBe(bySource.platform.signature);

    // Each payout is announced once, as queued; every status it reached since is an event of its own.
    const payouts = body.events.filter((e: Json) => e.type === "payout");
    expect(payouts.map((p: Json) => p.status)).toEqual(["queued", "queued", "queued", "queued", "queued"]);
    expect(payouts.map((p: Json) => p.signature)).toEqual([null, null, null, null, null]);
    expect(payouts.map((p: Json) => p.kind)).toEqual(["claim", "claim", "claim", "claim", "autopay"]);
    expect(payouts[0].handle).toBe("carol");
    for (const p of payouts.slice(1)) {
      expect(p.handle).toBe("alicerenamed");
      expect(p.lamports).toBe("1000000");
    }
    const changes = body.events.filter((e: Json) => e.type === "payoutStatus");
    expect(changes.map((c: Json) => [c.payoutId, c.status])).toEqual([
      [payouts[0].payoutId, "sent"],
      [payouts[2].payoutId, "replaced"],
      [payouts[2].payoutId, "sent"],
      [payouts[3].payoutId, "failed"],
      [payouts[3].payoutId, "sent"],
      [payouts[4].payoutId, "confirmed"],
      [payouts[4].payoutId, "sent"],
    ]);
    expect(changes[1].replacementPayoutId).toBe(payouts[1].payoutId);
    for (const c of changes) {
      expect(c.signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
      if (c.status !== "replaced") expect(c.replacementPayoutId).toBeNull();
    }
  });

  test("events sharing a millisecond page one at a time with no skip and no repeat", async () => {
    svc = testService();
    const db = svc.ctx.db;
    for (let i = 0; i < 7; i++) launch(db, { launchedAtMs: T0 }); // seven launches in one millisecond
    launch(db, { launchedAtMs: T0 + 1 });
    const events = await feedAll(1);
    expect(events).toHaveLength(8);
    expect(new Set(events.map((e) => e.mint)).size).toBe(8);
    const page = await svc.json("/api/ledger?limit=3");
    expect(page.body.nextBefore).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
  });

  test("limit defaults to 50 and allows 1 to 100", async () => {
    svc = testService();
    for (let i = 0; i < 120; i++) launch(svc.ctx.db, { launchedAtMs: T0 + i });
    expect((await svc.json("/api/ledger")).body.events).toHaveLength(50);
    expect((await svc.json("/api/ledger?limit=100")).body.events).toHaveLength(100);
    expect(await feedAll(100)).toHaveLength(120);
  });

  test.each([
    "limit=0",
    "limit=101",
    "limit=x",
    "limit=2.5",
    "before=yesterday",
    "before=2026-13-01T00:00:00Z",
    "before=2026-01-01",
    "before=1700000000",
    "before=",
  ])("%s is 400 with the error envelope and the rate-limit headers", async (query) => {
    svc = testService();
    const { status, body, headers } = await svc.json(`/api/ledger?${query}`);
    expect(status).toBe(400);
    expect(Object.keys(body)).toEqual(["error"]);
    expect(headers.get("x-ratelimit-limit")).toBe("120");
    expect(headers.get("retry-after")).toBeNull();
  });

  test("before accepts any ISO 8601 UTC or offset time; digits past the microsecond never skip an event", () => {
    const us = Date.UTC(2026, 0, 1) * 1000 + 123_456;
    expect(parseBefore(isoMicros(us))).toBe(us);
    expect(parseBefore("2026-01-01T00:00:00.123Z")).toBe(Date.UTC(2026, 0, 1) * 1000 + 123_000);
    expect(parseBefore("2026-01-01T01:00:00+01:00")).toBe(Date.UTC(2026, 0, 1) * 1000);
    // an event at .123456 is older than .1234561, so the bound must let it through
    expect(parseBefore("2026-01-01T00:00:00.1234561Z")).toBe(us + 1);
  });

  test("a feed event's own time keeps its microsecond order across pages while new events land", async () => {
    svc = testService();
    const db = svc.ctx.db;
    for (let i = 0; i < 4; i++) launch(db, { launchedAtMs: T0 + i });
    const first = await svc.json("/api/ledger?limit=2");
    // New launches, one in the very millisecond of the page's last event.
    launch(db, { launchedAtMs: T0 + 2 });
    launch(db, { launchedAtMs: T0 + 10 });
    const second = await svc.json(`/api/ledger?limit=10&before=${encodeURIComponent(first.body.nextBefore)}`);
    const seen = [...first.body.events, ...second.body.events].map((e: Json) => e.mint);
    expect(new Set(seen).size).toBe(seen.length);
    expect(second.body.events).toHaveLength(2);
  });
});
