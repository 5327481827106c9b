/**
 * Burn buys are priced tight (issue 41): the buy asks for at least its fresh quote less
 * BURN_SLIPPAGE_BPS (default 100 bps, was a fixed 500), so a sandwich can take at most that.
 */
import { afterEach, expect, test } from "bun:test";
import { checkBurnedExactlyOnce, setupBurns } from "../jobs/scenarios";
import { moneyWorld, type World } from "../jobs/world";

let w: World | null = null;
afterEach(async () => {
  await w?.close();
  w = null;
});

test("every burn buy asks for its quote less BURN_SLIPPAGE_BPS: 100 by default, as configured otherwise", async () => {
  w = await moneyWorld();
  const setup = await setupBurns(w);
  const asked: number[] = [];
  const program = w.chain.launchProgram;
  const original = program.buildBurnBuy.bind(program);
  program.buildBurnBuy = (token, buyer, lamports, slippageBps) => {
    asked.push(slippageBps);
    return original(token, buyer, lamports, slippageBps);
  };
  expect(await w.run("burns")).toMatchObject({ ran: true, ok: true });
  expect(asked.length).toBeGreaterThan(0);
  expect(new Set(asked)).toEqual(new Set([100]));
  await checkBurnedExactlyOnce(w, setup);
  // Configured tighter: the same bound reaches every buy.
  w.trade(setup.mints[0]!, 2_000_000_000n);
  expect(await w.run("sweep", { PLATFORM_BUYBACK_BPS: "5000" })).toMatchObject({ ran: true, ok: true });
  asked.length = 0;
  expect(await w.run("burns", { BURN_SLIPPAGE_BPS: "25" })).toMatchObject({ ran: true, ok: true });
  expect(asked.length).toBeGreaterThan(0);
  expect(new Set(asked)).toEqual(new Set([25]));
}, 60_000);
