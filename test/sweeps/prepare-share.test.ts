/**
 * A sweep run's batches share one latest blockhash and one market price (issue 42): a provider
 * bills each ask, and a run that sweeps many tokens sends several transactions at once.
 */
import { afterEach, expect, test } from "bun:test";
import { scheduleWorld, type ScheduleWorld, MINUTE_MS } from "./harness";

let w: ScheduleWorld | null = null;
afterEach(async () => {
  await w?.close();
  w = null;
});

test("a run sending several sweep transactions asks the blockhash and the fee market once, and every fee is credited", async () => {
  w = await scheduleWorld({ maxIntervalMs: 30 * MINUTE_MS });
  const tokens = [];
  for (let i = 0; i < 12; i++) tokens.push(await w.launch());
  const fees = new Map<number, bigint>();
  for (const t of tokens) fees.set(t.tokenId, await w.trade(t.mint, t.creator, 20_000_000n));
  const served = (method: string) => w!.local.served.requests.get(method) ?? 0;
  const before = { blockhash: served("getLatestBlockhash"), market: served("getRecentPrioritizationFees") };
  const swept = new Map(tokens.map((t) => [t.tokenId, w!.tokenRow(t.tokenId).sweptLamports]));

  const { report } = await w.sweep();

  // Twelve tokens do not fit one transaction: the run sent several, all built on one ask of each.
  expect(report.transactionsSent).toBeGreaterThanOrEqual(3);
  expect(report.tokensSwept).toBe(12);
  expect(served("getLatestBlockhash") - before.blockhash).toBe(1);
  expect(served("getRecentPrioritizationFees") - before.market).toBe(1);
  for (const t of tokens) {
    expect(fees.get(t.tokenId)!).toBeGreaterThan(0n);
    expect(w.tokenRow(t.tokenId).sweptLamports - swept.get(t.tokenId)!).toBe(fees.get(t.tokenId)!);
  }
}, 60_000);
