/**
 * Property: paging `/api/tokens` (each sort) and `/api/ledger` to the end while launches and other
 * events land between pages returns every item that existed when paging began exactly once, in
 * order. New items may or may not show up; nothing may repeat.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { testService, type TestService, type Json } from "../helpers/service";
import { launch, payout, setMarket, setVault, signIn, sweep, T0 } from "../helpers/read-world";

/** Launch times from a small set, so ties (broken by mint) are common. */
const timeArb = fc.integer({ min: 0, max: 6 }).map((k) => T0 + k * 1000);
const landingArb = fc.record({
  launches: fc.array(
    fc.record({
      at: timeArb,
      cap: fc.option(fc.integer({ min: 1, max: 5 }), { nil: null }),
      fees: fc.integer({ min: 0, max: 4 }),
    }),
    { maxLength: 3 },
  ),
  sweepsOnOld: fc.integer({ min: 0, max: 2 }),
});

interface Seeded {
  tokenId: number;
  mint: string;
}

function landNewTokens(
  svc: TestService,
  landing: { launches: { at: number; cap: number | null; fees: number }[] },
): Seeded[] {
  return landing.launches.map((l) => {
    const t = launch(svc.ctx.db, { launchedAtMs: l.at });
    // A new token may arrive with a reading and a market cap, equal to existing keys or not.
    if (l.fees > 0) setVault(svc.ctx.db, t.mint, BigInt(l.fees * 100), l.at);
    if (l.cap !== null) setMarket(svc.ctx.db, t.mint, l.cap * 10);
    return t;
  });
}

describe("paging while things land", () => {
  for (const sort of ["new", "fees", "mcap"] as const) {
    test(`/api/tokens?sort=${sort} never skips or repeats a token that existed when paging began`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record({
              at: timeArb,
              cap: fc.option(fc.integer({ min: 1, max: 5 }), { nil: null }),
              fees: fc.integer({ min: 0, max: 4 }),
            }),
            { maxLength: 25 },
          ),
          fc.integer({ min: 1, max: 7 }),
          fc.array(landingArb, { minLength: 1, maxLength: 30 }),
          async (initial, limit, landings) => {
            const svc = testService({ RATE_LIMIT: "off" });
            try {
              const existing = landNewTokens(svc, { launches: initial });
              const before = (await svc.json(`/api/tokens?sort=${sort}&limit=60`)).body.tokens.map(
                (t: { mint: string }) => t.mint,
              );
              expect(before).toHaveLength(existing.length);
              const seen: string[] = [];
              let cursor: string | null = null;
              let page = 0;
              do {
                const { status, body }: { status: number; body: Json } = await svc.json(
                  `/api/tokens?sort=${sort}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
                );
                expect(status).toBe(200);
                seen.push(...body.tokens.map((t: { mint: string }) => t.mint));
                cursor = body.nextCursor;
                const landing = landings[page++ % landings.length]!;
                landNewTokens(svc, landing);
                // Sweeps on existing tokens move no launch time; other sorts' keys move only for new tokens here.
                if (sort === "new")
                  for (let i = 0; i < landing.sweepsOnOld && i < existing.length; i++)
                    sweep(svc.ctx.db, existing[i]!.tokenId, 1000n, T0 + 99_000);
              } while (cursor);
              expect(new Set(seen).size).toBe(seen.length);
              const original = new Set(before);
              // Every original once, in the order they had when paging began.
              expect(seen.filter((m) => original.has(m))).toEqual(before);
            } finally {
              await svc.cleanup();
            }
          },
        ),
        { numRuns: 12 },
      );
    }, 120_000);
  }

  test("/api/ledger never skips or repeats an event that existed when paging began", async () => {
    let amount = 20_000_000n;
    await fc.assert(
      fc.asyncProperty(
        fc.array(timeArb, { minLength: 0, maxLength: 25 }),
        fc.integer({ min: 1, max: 7 }),
        fc.array(
          fc.record({
            launches: fc.array(timeArb, { maxLength: 3 }),
            sweeps: fc.integer({ min: 0, max: 2 }),
            payouts: fc.integer({ min: 0, max: 1 }),
          }),
          { minLength: 1, maxLength: 30 },
        ),
        async (initialTimes, limit, landings) => {
          const svc = testService({ RATE_LIMIT: "off" });
          try {
            const db = svc.ctx.db;
            const base = launch(db, { launchedAtMs: T0, recipients: [{ handle: "payee", bps: 10_000 }] });
            signIn(db, "u-payee", "payee", T0);
            sweep(db, base.tokenId, 10_000_000_000_000n, T0 + 1);
            const tokens = initialTimes.map((at) => launch(db, { launchedAtMs: at }));
            for (const [i, t] of tokens.entries()) sweep(db, t.tokenId, BigInt(1000 + i), T0 + 500 * i);
            const snapshot: string[] = [];
            {
              let before: string | null = null;
              do {
                const r: Json = await svc.json(
                  `/api/ledger?limit=100${before ? `&before=${encodeURIComponent(before)}` : ""}`,
                );
                snapshot.push(...r.body.events.map((e: unknown) => JSON.stringify(e)));
                before = r.body.nextBefore;
              } while (before);
            }
            const seen: string[] = [];
            let before: string | null = null;
            let page = 0;
            do {
              const r: Json = await svc.json(
                `/api/ledger?limit=${limit}${before ? `&before=${encodeURIComponent(before)}` : ""}`,
              );
              expect(r.status).toBe(200);
              seen.push(...r.body.events.map((e: unknown) => JSON.stringify(e)));
              before = r.body.nextBefore;
              const landing = landings[page++ % landings.length]!;
              // Launches whose block time is old or shared, sweeps of any token, payouts: all land mid-paging.
              for (const at of landing.launches) launch(db, { launchedAtMs: at });
              for (let i = 0; i < landing.sweeps; i++) sweep(db, base.tokenId, 7n + BigInt(page * 10 + i), T0 + 3000);
              if (landing.payouts) {
                amount += 1n;
                payout(db, "u-payee", amount, T0 + 2000, "confirmed");
              }
            } while (before);
            expect(new Set(seen).size).toBe(seen.length);
            const original = new Set(snapshot);
            expect(seen.filter((e) => original.has(e))).toEqual(snapshot);
          } finally {
            await svc.cleanup();
          }
        },
      ),
      { numRuns: 12 },
    );
  }, 120_000);
});
