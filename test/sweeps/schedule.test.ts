/**
 * The reading schedule (issue 42): the sweep reads a token every run while it trades, less and
 * less often once its readings stop changing, and at once again on a sign of activity, and no fee
 * waits past the configured maximum.
 */
import { afterEach, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { QUIET_FIRST_INTERVAL_MS, quietCapMs } from "../../src/tokens";
import { MINUTE_MS, type ScheduleWorld, scheduleWorld } from "./harness";

const HOUR_MS = 60 * MINUTE_MS;
const RUN_EVERY_MS = 2 * MINUTE_MS;

let w: ScheduleWorld | null = null;
afterEach(async () => {
  await w?.close();
  w = null;
});

async function waitFor(what: string, done: () => boolean, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

/** Sweep runs every 2 virtual minutes for `hours`; the minutes (from the first) at which `mint` was read. */
async function runFor(world: ScheduleWorld, hours: number, mint: string): Promise<number[]> {
  const start = world.clock.nowMs;
  const readAt: number[] = [];
  for (let i = 0; i < (hours * HOUR_MS) / RUN_EVERY_MS; i++) {
    const { read } = await world.sweep();
    if (read.has(mint)) readAt.push((world.clock.nowMs - start) / MINUTE_MS);
    world.clock.nowMs += RUN_EVERY_MS;
  }
  return readAt;
}

const gapsOf = (times: number[]) => times.slice(1).map((t, i) => t - times[i]!);

describe("reading schedule", () => {
  test("a quiet token is read less and less often, and at the next run after a trade the stream shows", async () => {
    w = await scheduleWorld({ maxIntervalMs: 6 * HOUR_MS });
    const token = await w.launch();
    await w.trade(token.mint, token.creator, 100_000_000n);
    const readAt = await runFor(w, 10, token.mint);
    const gaps = gapsOf(readAt);
    // Read (and swept) at once, then the waits double: 2, 4, 8, ... minutes, up to the cap.
    expect(readAt[0]).toBe(0);
    for (let i = 1; i < gaps.length; i++) expect(gaps[i]!).toBeGreaterThanOrEqual(gaps[i - 1]!);
    expect(gaps.slice(0, 6)).toEqual([2, 2, 4, 8, 16, 32]);
    expect(Math.max(...gaps) * MINUTE_MS).toBeLessThanOrEqual(quietCapMs(6 * HOUR_MS) + RUN_EVERY_MS);
    // 300 runs in 10 hours; the quiet token was read in a handful of them.
    expect(readAt.length).toBeLessThan(12);

    const swept = w.tokenRow(token.tokenId).sweptLamports;
    const indexer = w.startIndexer();
    await waitFor("the stream", () => indexer.state().connected && indexer.state().tokens === 1);
    const before = w.tokenRow(token.tokenId).vaultLamports;
    const fee = await w.trade(token.mint, token.creator, 50_000_000n);
    expect(fee).toBeGreaterThan(0n);
    await waitFor("the stream's reading", () => w!.tokenRow(token.tokenId).vaultLamports !== before);
    await indexer.idle();
    // Its schedule said hours; the trade made it due at the very next run, which credits the fee.
    const { read } = await w.sweep();
    expect(read.has(token.mint)).toBe(true);
    expect(w.tokenRow(token.tokenId).sweptLamports - swept).toBe(fee);
  }, 120_000);

  test("a detail view of a quiet token still refreshes a reading over a minute old, and tells its age", async () => {
    w = await scheduleWorld({ maxIntervalMs: 6 * HOUR_MS });
    const token = await w.launch();
    await w.trade(token.mint, token.creator, 100_000_000n);
    const readAt = await runFor(w, 1, token.mint);
    expect(readAt.length).toBeLessThan(8);
    const lastRead = w.tokenRow(token.tokenId).vaultCheckedAtMs;
    // Runs that skip the quiet token leave its reading's time alone: Explore says how old it is.
    const { read } = await w.sweep();
    expect(read.has(token.mint)).toBe(false);
    const res = await w.service.app.handle(
      new Request("http://localhost/api/tokens?sort=fees", { headers: { "x-forwarded-for": "203.0.113.9" } }),
    );
    const list = (await res.json()) as { tokens: { mint: string; vaultCheckedAt: string }[] };
    expect(list.tokens.find((t) => t.mint === token.mint)?.vaultCheckedAt).toBe(new Date(lastRead).toISOString());
    expect(w.clock.nowMs - lastRead).toBeGreaterThan(60_000);

    // A trade nobody streams: the detail's refresh reads it (SPEC: a reading over a minute old).
    const swept = w.tokenRow(token.tokenId).sweptLamports;
    const fee = await w.trade(token.mint, token.creator, 30_000_000n);
    const detail = await w.getToken(token.mint);
    expect(detail.status).toBe(200);
    expect(detail.body.vaultCheckedAt).toBe(new Date(w.clock.nowMs).toISOString());
    expect(BigInt(detail.body.vaultLamports)).toBe(w.tokenRow(token.tokenId).vaultLamports);
    expect(BigInt(detail.body.vaultLamports)).toBeGreaterThanOrEqual(fee);
    // The refresh found a change: the next run reads and credits it, not hours later.
    w.clock.nowMs += RUN_EVERY_MS;
    const next = await w.sweep();
    expect(next.read.has(token.mint)).toBe(true);
    expect(w.tokenRow(token.tokenId).sweptLamports - swept).toBe(fee);
  }, 60_000);

  test("property: over random activity, no fee is left uncredited past the maximum interval", async () => {
    const maxIntervalMs = 30 * MINUTE_MS;
    const hours = 3;
    const runs = (hours * HOUR_MS) / RUN_EVERY_MS;
    // Per token, the chance it trades in a 2-minute step: busy, occasional, rare.
    const activity = fc.array(
      fc.record({
        chance: fc.constantFrom(0.5, 0.1, 0.02),
        quietFrom: fc.integer({ min: 0, max: runs }),
      }),
      { minLength: 3, maxLength: 4 },
    );
    await fc.assert(
      fc.asyncProperty(activity, fc.integer({ min: 1, max: 2 ** 31 - 1 }), async (profiles, seed) => {
        let state = seed;
        const rand = () => {
          state = (state * 48_271) % 2_147_483_647;
          return state / 2_147_483_647;
        };
        w = await scheduleWorld({ maxIntervalMs });
        try {
          const tokens = [];
          for (const profile of profiles)
            tokens.push({ ...(await w.launch()), profile, fees: [] as [number, bigint][] });
          for (let run = 0; run < runs; run++) {
            // Trades at random moments between two runs.
            const offset = Math.floor(rand() * RUN_EVERY_MS);
            w.clock.nowMs += offset;
            for (const t of tokens) {
              if (run >= t.profile.quietFrom || rand() >= t.profile.chance) continue;
              const fee = await w.trade(t.mint, t.creator, BigInt(1_000_000 + Math.floor(rand() * 50_000_000)));
              t.fees.push([w.clock.nowMs, fee]);
            }
            w.clock.nowMs += RUN_EVERY_MS - offset;
            await w.sweep();
            for (const t of tokens) {
              const due = t.fees.filter(([at]) => at <= w!.clock.nowMs - maxIntervalMs).reduce((s, [, f]) => s + f, 0n);
              expect(w.tokenRow(t.tokenId).sweptLamports).toBeGreaterThanOrEqual(due);
            }
          }
        } finally {
          await w.close();
          w = null;
        }
      }),
      { numRuns: 3 },
    );
  }, 600_000);

  test("the first quiet wait is one default sweep period", () => {
    expect(QUIET_FIRST_INTERVAL_MS).toBe(RUN_EVERY_MS);
  });
});
