/**
 * The indexer watches the most recently active tokens (issue 42), not only the newest: an old
 * token whose trade a sweep reading shows joins the stream, and the least recently active
 * watched token makes room.
 */
import { afterEach, expect, test } from "bun:test";
import { runSweepJob } from "../../src/sweeps/job";
import { indexerHarness, waitFor, type IndexerHarness } from "./harness";

const SOL = 1_000_000_000n;
let h: IndexerHarness | null = null;
afterEach(async () => {
  await h?.indexer?.stop();
  await h?.close();
  h = null;
});

test("an old token that trades joins the stream in place of the least recently active one", async () => {
  h = await indexerHarness({ INDEXER_WATCH_TOKENS: "2" });
  const a = await h.launch("alice");
  const b = await h.launch("bob");
  const c = await h.launch("carol");
  const ix = h.startIndexer();
  await waitFor("stream open", () => ix.state().connected);
  await ix.idle();
  const vaultOf = (t: { mint: string; creator: string }) => h!.chain.launchProgram.vaultAddresses(t).curveVault;
  expect([ix.subscribed(vaultOf(a)), ix.subscribed(vaultOf(b)), ix.subscribed(vaultOf(c))]).toEqual([
    false,
    true,
    true,
  ]);

  // A trade on the oldest token, which nobody streams: the sweep's reading shows it.
  h.trade(a.mint, 2n * SOL);
  h.tick();
  const { ctx } = h.service;
  await runSweepJob(
    { db: ctx.db, chain: h.chain, sweepMinLamports: 10n ** 15n, platformBuybackBps: 0, now: ctx.now },
    h.jobContext("sweep"),
  );
  await waitFor("the active token streamed", () => ix.subscribed(vaultOf(a)));
  await waitFor("the least recently active token dropped", () => !ix.subscribed(vaultOf(b)));
  expect(ix.state().tokens).toBe(2);
  expect(ix.subscribed(vaultOf(c))).toBe(true);

  // Its next trade shows live, without a sweep.
  await ix.idle();
  h.trade(a.mint, SOL);
  const want = await h.chainUnswept(a.mint, a.creator);
  h.tick();
  await waitFor("the stream's reading", () => h!.tokenRow(a.tokenId).vaultLamports === want);
  expect(ix.state().accounts).toBeGreaterThan(0);
  expect(ix.state().receivedBytes).toBeGreaterThan(0);
}, 30_000);
