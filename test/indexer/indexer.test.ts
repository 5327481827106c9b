/**
 * The indexer against the embedded local chain's Yellowstone stream: readings and confirmations
 * become visible with no job run and, for readings, no account read over RPC (the stream carried
 * them: "current within a second" is what a stream gives, so the mechanism is checked, not a
 * duration a loaded machine stretches), a confirmation the job also makes is credited once, and a
 * 30-slot cut of the stream loses and doubles nothing.
 */
import { localLaunchProgram } from "../../src/chain/setup";
import { afterEach, describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import { INDEXER_WATCH_TOKENS_DEFAULT, loadConfig } from "../../src/config";
import { recordSignIn } from "../../src/identity/identity";
import { runPayoutsJob } from "../../src/payouts/job";
import { queuePayout } from "../../src/payouts/service";
import { ledgerTotals } from "../../src/ledger/figures";
import { resolveSweepSignature, runSweepJob } from "../../src/sweeps/job";
import { indexerHarness, waitFor, type IndexerHarness } from "./harness";

let h: IndexerHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

const SOL = 1_000_000_000n;
/** Slots from landing to finalized (the local node: depth > 32): money transitions wait for it. */
const FINALIZE = 34;

function sweepDeps(h: IndexerHarness) {
  const { ctx } = h.service;
  return { db: ctx.db, chain: h.chain, sweepMinLamports: 1n, platformBuybackBps: 0, now: ctx.now, settleTimeoutMs: 0 };
}

/** Runs the sweep job once without letting it wait for its own transaction: only the indexer can confirm it. */
async function sendSweeps(h: IndexerHarness) {
  return runSweepJob(sweepDeps(h), h.jobContext("sweep"));
}

function releaseJob(h: IndexerHarness, job: string) {
  h.service.ctx.db.$client.query("UPDATE job_leases SET holder = NULL, expires_at_ms = 0 WHERE job = ?").run(job);
}

function sweeps(h: IndexerHarness) {
  return h.service.ctx.db.$client
    .query("SELECT id, token_id AS tokenId, status, total_lamports AS total FROM sweeps ORDER BY id")
    .all() as {
    id: bigint;
    tokenId: bigint;
    status: string;
    total: bigint;
  }[];
}

/** Account reads the local chain has answered over JSON-RPC: a reading that came with none came on the stream. */
function accountReadsServed(h: IndexerHarness): number {
  const served = h.local.served.requests;
  return ["getAccountInfo", "getMultipleAccounts", "getBalance"].reduce((n, m) => n + (served.get(m) ?? 0), 0);
}

/** The outcome batch's two calls the local chain has answered so far. */
function statusAsks(h: IndexerHarness) {
  return {
    statuses: h.local.served.requests.get("getSignatureStatuses") ?? 0,
    epochs: h.local.served.requests.get("getEpochInfo") ?? 0,
  };
}

function payouts(h: IndexerHarness) {
  return h.service.ctx.db.$client.query("SELECT id, status, lamports, signature FROM payouts ORDER BY id").all() as {
    id: bigint;
    status: string;
    lamports: bigint;
    signature: string | null;
  }[];
}

function feedCount(h: IndexerHarness, kind: string): number {
  return Number(
    (h.service.ctx.db.$client.query("SELECT COUNT(*) AS n FROM feed_events WHERE type = ?").get(kind) as { n: bigint })
      .n,
  );
}

/** Credits alice through a swept and confirmed fee, signs her in, and queues her claim. */
async function aliceWithClaim(h: IndexerHarness, mint: string): Promise<{ wallet: string; lamports: bigint }> {
  h.trade(mint, 3n * SOL);
  h.tick();
  await sendSweeps(h);
  releaseJob(h, "sweep");
  h.tick(FINALIZE);
  await waitFor("sweep confirmed", () => sweeps(h).every((s) => s.status === "confirmed"));
  recordSignIn(
    h.service.ctx.db,
    { idpUserId: "u-alice", displayHandle: "alice", name: "alice", avatarUrl: "", followers: 0 },
    Date.now(),
  );
  const wallet = Keypair.generate().publicKey.toBase58();
  const q = queuePayout(h.service.ctx.db, {
    idpUserId: "u-alice",
    lamports: null,
    wallet,
    kind: "claim",
    minLamports: 1n,
    atMs: Date.now(),
  });
  return { wallet, lamports: q.lamports };
}

async function sendPayouts(h: IndexerHarness) {
  const { ctx } = h.service;
  const report = await runPayoutsJob(
    { db: ctx.db, chain: h.chain, config: ctx.config, now: ctx.now, settleTimeoutMs: 0 },
    h.jobContext("payouts"),
  );
  releaseJob(h, "payouts");
  return report;
}

describe("indexer on the local chain's gRPC stream", () => {
  test("a fee that accrues in a vault shows in GET /api/tokens/:mint from the stream, with no job run and no account read", async () => {
    h = await indexerHarness();
    const a = await h.launch();
    const b = await h.launch("bob");
    const ix = h.startIndexer();
    await waitFor("stream open", () => ix.state().connected);
    await ix.idle();
    const before = (await h.getToken(a.mint)).body;
    expect(before.vaultLamports).toBe("0");

    h.trade(a.mint, 2n * SOL);
    const expected = await h.chainUnswept(a.mint, a.creator);
    expect(expected).toBeGreaterThan(0n);
    const readsBefore = accountReadsServed(h);
    h.tick();
    const shown = await waitFor("new vaultLamports on the token route", async () => {
      const { body } = await h!.getToken(a.mint);
      return body.vaultLamports === expected.toString() ? body : null;
    });
    expect(accountReadsServed(h)).toBe(readsBefore);
    expect(Date.parse(shown.vaultCheckedAt)).toBeGreaterThanOrEqual(Date.parse(before.vaultCheckedAt));
    // The other token did not move.
    expect((await h.getToken(b.mint)).body.vaultLamports).toBe("0");
    // No job ran: every lease row but the indexer's is untouched.
    const ran = h.service.ctx.db.$client.query("SELECT job FROM job_leases WHERE runs > 0").all() as { job: string }[];
    expect(ran.map((r) => r.job)).toEqual(["indexer"]);
  }, 30_000);

  test("a sweep that lands is confirmed from the stream and credited once, even when the job confirms it too", async () => {
    h = await indexerHarness();
    const a = await h.launch();
    const ix = h.startIndexer();
    await waitFor("stream open", () => ix.state().connected);
    h.trade(a.mint, 5n * SOL);
    h.tick();
    const fees = await h.chainUnswept(a.mint, a.creator);
    const report = await sendSweeps(h);
    releaseJob(h, "sweep");
    expect(report).toMatchObject({ transactionsSent: 1, confirmed: 0 });
    expect(sweeps(h).map((s) => s.status)).toEqual(["sent"]);
    // Fees keep arriving in the slot the sweep lands in: the reading must keep them.
    h.trade(a.mint, 1n * SOL);

    h.tick(FINALIZE);
    await waitFor("sweep confirmed by the indexer", () => sweeps(h!)[0]!.status === "confirmed");
    expect(BigInt(sweeps(h)[0]!.total)).toBe(fees);

    // The fee that arrived in the landing slot is still shown: the confirmation's subtraction
    // was read over again from the chain's state, not left to undercount.
    await ix.idle();
    const trailing = await h.chainUnswept(a.mint, a.creator);
    expect(trailing).toBeGreaterThan(0n);
    expect(h.tokenRow(a.tokenId).vaultLamports).toBe(trailing);

    // The job resolves the same signature afterwards: nothing more is credited for it.
    const again = await sendSweeps(h);
    releaseJob(h, "sweep");
    expect(again).toMatchObject({ confirmed: 0, transactionsSent: 1 });
    expect(ledgerTotals(h.service.ctx.db).sweptLamports).toBe(fees);
    h.tick(FINALIZE);
    await waitFor("second sweep confirmed", () => sweeps(h!)[1]?.status === "confirmed");
    expect(sweeps(h).map((s) => [s.status, BigInt(s.total)])).toEqual([
      ["confirmed", fees],
      ["confirmed", trailing],
    ]);
    expect(ledgerTotals(h.service.ctx.db).sweptLamports).toBe(fees + trailing);
    expect(feedCount(h, "sweep")).toBe(2);
    h.checkBooks();
    await ix.idle();
    expect(h.tokenRow(a.tokenId).vaultLamports).toBe(0n);
  }, 30_000);

  test("a sweep seen landing waits for the stream to show its slot finalized: the node is not asked about it before", async () => {
    h = await indexerHarness();
    const a = await h.launch();
    const ix = h.startIndexer();
    await waitFor("stream open", () => ix.state().connected);
    h.trade(a.mint, 5n * SOL);
    h.tick();
    const fees = await h.chainUnswept(a.mint, a.creator);
    await sendSweeps(h);
    releaseJob(h, "sweep");
    const served = () => statusAsks(h!);
    const before = served();
    // Landed and confirmed, delivered on the stream, but 33 slots from finalized.
    h.tick(2);
    await waitFor("sweep seen on the stream", () => (ix.state().lastSlot ?? 0) >= Number(h!.local.node.getSlot()) - 1);
    // Long enough for the old schedule (asked at once, then after 100 and 250 ms) to have asked thrice.
    await Bun.sleep(600);
    expect(served()).toEqual(before);
    expect(sweeps(h)[0]!.status).toBe("sent");

    h.tick(FINALIZE);
    await waitFor("sweep confirmed by the indexer", () => sweeps(h!)[0]!.status === "confirmed");
    expect(BigInt(sweeps(h)[0]!.total)).toBe(fees);
    // Decided on one outcome batch (status and finalized epoch), with no "still landing" ask first.
    expect(served().statuses - before.statuses).toBe(1);
    expect(served().epochs - before.epochs).toBe(1);
    h.checkBooks();
  }, 30_000);

  test("a run's sweeps finalized together are decided on one status batch, each credited once", async () => {
    h = await indexerHarness();
    const launched = [];
    for (let i = 0; i < 6; i++) launched.push(await h.launch());
    const ix = h.startIndexer();
    await waitFor("stream open", () => ix.state().connected);
    for (const t of launched) h.trade(t.mint, 2n * SOL);
    h.tick();
    const fees = new Map<number, bigint>();
    for (const t of launched) fees.set(t.tokenId, await h.chainUnswept(t.mint, t.creator));
    const report = await sendSweeps(h);
    releaseJob(h, "sweep");
    // Six tokens do not fit one transaction.
    expect(report.transactionsSent).toBeGreaterThanOrEqual(3);
    const served = () => statusAsks(h!);
    h.tick(2);
    await waitFor(
      "the sweeps seen on the stream",
      () => (ix.state().lastSlot ?? 0) >= Number(h!.local.node.getSlot()) - 1,
    );
    const before = served();
    h.tick(FINALIZE);
    await waitFor("every sweep confirmed by the indexer", () => sweeps(h!).every((s) => s.status === "confirmed"));
    expect(served().statuses - before.statuses).toBe(1);
    expect(served().epochs - before.epochs).toBe(1);
    const feesTotal = [...fees.values()].reduce((a, b) => a + b, 0n);
    expect(sweeps(h).reduce((n, s) => n + BigInt(s.total), 0n)).toBe(feesTotal);
    expect(ledgerTotals(h.service.ctx.db).sweptLamports).toBe(feesTotal);
    h.checkBooks();
  }, 30_000);

  test("the job and the indexer racing on one confirmation credit it exactly once", async () => {
    h = await indexerHarness();
    const a = await h.launch();
    const b = await h.launch("bob");
    const ix = h.startIndexer();
    await waitFor("stream open", () => ix.state().connected);
    h.trade(a.mint, 4n * SOL);
    h.trade(b.mint, 3n * SOL);
    h.tick();
    const fees = (await h.chainUnswept(a.mint, a.creator)) + (await h.chainUnswept(b.mint, b.creator));
    await sendSweeps(h);
    releaseJob(h, "sweep");
    h.tick(FINALIZE);
    // The job resolves while the stream's transaction update is being handled.
    const job = runSweepJob({ ...sweepDeps(h), settleTimeoutMs: 5_000 }, h.jobContext("sweep"));
    await waitFor(
      "both sweeps confirmed",
      () => sweeps(h!).length === 2 && sweeps(h!).every((s) => s.status === "confirmed"),
    );
    await job;
    await ix.idle();
    expect(ledgerTotals(h.service.ctx.db).sweptLamports).toBe(fees);
    expect(feedCount(h, "sweep")).toBe(2);
    h.checkBooks();
    expect(h.tokenRow(a.tokenId).vaultLamports).toBe(0n);
    expect(h.tokenRow(b.tokenId).vaultLamports).toBe(0n);
  }, 30_000);

  test("while the stream decides, a run waiting for its own sweep asks the node nothing about it", async () => {
    h = await indexerHarness();
    const a = await h.launch();
    const ix = h.startIndexer();
    await waitFor("stream open", () => ix.state().connected);
    h.trade(a.mint, 4n * SOL);
    h.tick();
    const fees = await h.chainUnswept(a.mint, a.creator);
    const served = (method: string) => h!.local.served.requests.get(method) ?? 0;
    const before = { statuses: served("getSignatureStatuses"), epochs: served("getEpochInfo") };
    let looks = 0;
    const streamResolves = () => {
      looks += 1;
      return ix.state().connected;
    };
    const startedAt = Date.now();
    const job = runSweepJob(
      // A deadline far past the test's own bound: a run that ends at all ended on the credit.
      { ...sweepDeps(h), settleTimeoutMs: 600_000, settlePollMs: 20, streamResolves },
      h.jobContext("sweep"),
    );
    await waitFor("sweep sent", () => sweeps(h!).length === 1);
    h.tick(2);
    // Polling from 20 ms, doubling, a run asking the node would have asked several times by now.
    await waitFor("the run waiting on the stream", () => looks > 20);
    h.tick(FINALIZE);
    // The run ends as soon as the indexer's credit shows in the database, not at its deadline.
    const report = await job;
    // It looked at the database every 20 ms at most: a wait, not a spin.
    expect(looks).toBeLessThanOrEqual((Date.now() - startedAt) / 20 + 5);
    expect(report).toMatchObject({ transactionsSent: 1 });
    expect(sweeps(h).map((s) => [s.status, BigInt(s.total)])).toEqual([["confirmed", fees]]);
    // The indexer's one outcome batch decided it; the run only watched the database.
    expect(served("getSignatureStatuses") - before.statuses).toBe(1);
    expect(served("getEpochInfo") - before.epochs).toBe(1);
    h.checkBooks();
  }, 30_000);

  test("two resolvers asking the chain about one batch at once credit it once and stop no token", async () => {
    h = await indexerHarness();
    const a = await h.launch();
    const b = await h.launch("bob");
    h.trade(a.mint, 4n * SOL);
    h.trade(b.mint, 3n * SOL);
    h.tick();
    const fees = (await h.chainUnswept(a.mint, a.creator)) + (await h.chainUnswept(b.mint, b.creator));
    await sendSweeps(h);
    releaseJob(h, "sweep");
    h.tick(FINALIZE);
    // Both read the batch's sent rows before either has its answer, as the indexer and the job's
    // settle loop do when the finalization reaches both at once. The second to write must count
    // the first's credits once, not stop the batch's tokens for a total twice what arrived.
    const ctx = h.jobContext("sweep");
    const [signature] = h.service.ctx.db.$client.query("SELECT DISTINCT signature FROM sweeps").values() as [string][];
    await Promise.all([
      resolveSweepSignature(sweepDeps(h), ctx, signature![0]),
      resolveSweepSignature(sweepDeps(h), ctx, signature![0]),
    ]);
    expect(sweeps(h).map((s) => s.status)).toEqual(["confirmed", "confirmed"]);
    expect(h.service.ctx.db.$client.query("SELECT mint, reason FROM set_aside").all()).toEqual([]);
    expect(ledgerTotals(h.service.ctx.db).sweptLamports).toBe(fees);
    expect(feedCount(h, "sweep")).toBe(2);
    h.checkBooks();
  }, 30_000);

  test("a payout that lands is confirmed from the stream and paid once, even when the job confirms it too", async () => {
    h = await indexerHarness();
    const a = await h.launch();
    const ix = h.startIndexer();
    await waitFor("stream open", () => ix.state().connected);
    const claim = await aliceWithClaim(h, a.mint);
    const sent = await sendPayouts(h);
    expect(sent).toMatchObject({ sent: 1, confirmed: 0 });

    h.tick(FINALIZE);
    await waitFor("payout confirmed by the indexer", () => payouts(h!)[0]!.status === "confirmed");

    const again = await sendPayouts(h);
    expect(again.confirmed).toBe(0);
    expect(payouts(h).map((p) => p.status)).toEqual(["confirmed"]);
    expect(ledgerTotals(h.service.ctx.db).paidLamports).toBe(claim.lamports);
    expect(await h.chain.reader.getBalances([claim.wallet])).toEqual(new Map([[claim.wallet, claim.lamports]]));
    h.checkBooks();
  }, 30_000);

  test("cut for 30 slots while fees accrue and a payout lands: after reconnect nothing is missed or doubled", async () => {
    h = await indexerHarness();
    const a = await h.launch();
    const b = await h.launch("bob");
    const ix = h.startIndexer();
    await waitFor("stream open", () => ix.state().connected);
    const claim = await aliceWithClaim(h, a.mint);
    await ix.idle();
    const sweptBefore = ledgerTotals(h.service.ctx.db).sweptLamports;

    h.proxy.down();
    h.local.faults.cutStreams();
    await waitFor("indexer sees the cut", () => !ix.state().connected);
    const cutAt = h.local.node.getSlot();
    await sendPayouts(h);
    for (let slot = 0; slot < 30; slot++) {
      if (slot % 3 === 0) h.trade(a.mint, 100_000_000n + BigInt(slot));
      if (slot % 5 === 0) h.trade(b.mint, 70_000_000n + BigInt(slot));
      h.tick();
    }
    expect(h.local.node.getSlot() - cutAt).toBe(30n);
    // money moves at finalized: the payout's slot is finalized 33 slots after it landed
    h.tick(4);
    // Nothing could have reached the database while the stream was down.
    expect(payouts(h)[0]!.status).toBe("sent");

    h.proxy.up();
    await waitFor("stream reopened", () => ix.state().connected, 20_000);
    await waitFor("payout confirmed after the gap", () => payouts(h!)[0]!.status === "confirmed");
    const wantA = await h.chainUnswept(a.mint, a.creator);
    const wantB = await h.chainUnswept(b.mint, b.creator);
    await waitFor(
      "readings caught up",
      () => h!.tokenRow(a.tokenId).vaultLamports === wantA && h!.tokenRow(b.tokenId).vaultLamports === wantB,
    );
    await ix.idle();

    expect(payouts(h).map((p) => p.status)).toEqual(["confirmed"]);
    expect(ledgerTotals(h.service.ctx.db).paidLamports).toBe(claim.lamports);
    expect(ledgerTotals(h.service.ctx.db).sweptLamports).toBe(sweptBefore);
    expect(feedCount(h, "payout")).toBe(1);
    h.checkBooks();
    const state = ix.state();
    expect(state.reconnects).toBeGreaterThanOrEqual(1);
    expect(state.lastSlot).toBeGreaterThanOrEqual(Number(cutAt + 29n));

    // Live again: the next fee comes on the stream.
    h.trade(b.mint, 1n * SOL);
    const want = await h.chainUnswept(b.mint, b.creator);
    const readsBefore = accountReadsServed(h);
    h.tick();
    await waitFor("live reading after reconnect", () => h!.tokenRow(b.tokenId).vaultLamports === want);
    expect(accountReadsServed(h)).toBe(readsBefore);
  }, 30_000);

  test("a new launch is watched without restarting the stream, and its bonded flag follows the curve", async () => {
    h = await indexerHarness();
    await h.launch();
    const ix = h.startIndexer();
    await waitFor("stream open", () => ix.state().connected);
    const c = await h.launch("carol");
    await waitFor("new token watched", () => ix.state().tokens === 2);
    await ix.idle();
    // Enough buying to complete the curve (the local program bonds at 85 SOL).
    h.trade(c.mint, 100n * SOL);
    const want = await h.chainUnswept(c.mint, c.creator);
    const readsBefore = accountReadsServed(h);
    h.tick();
    await waitFor("reading and bonded flag of the new token", () => {
      const row = h!.tokenRow(c.tokenId);
      return row.vaultLamports === want && row.bonded;
    });
    expect(accountReadsServed(h)).toBe(readsBefore);
    expect(ix.state().reconnects).toBe(0);
    expect((await h.getToken(c.mint)).body.bonded).toBe(true);
  }, 30_000);

  test("it watches only the newest INDEXER_WATCH_TOKENS tokens: older ones leave the stream's filters and wait for the sweep", async () => {
    expect(loadConfig({ DATA_DIR: "/tmp/iwt-unused" }).indexerWatchTokens).toBe(INDEXER_WATCH_TOKENS_DEFAULT);
    for (const bad of ["0", "100001", "2.5", "many"])
      expect(() => loadConfig({ DATA_DIR: "/tmp/iwt-unused", INDEXER_WATCH_TOKENS: bad })).toThrow(
        "INDEXER_WATCH_TOKENS must be a whole number from 1 to 100000",
      );
    h = await indexerHarness({ INDEXER_WATCH_TOKENS: "2" });
    const a = await h.launch("alice");
    const b = await h.launch("bob");
    const c = await h.launch("carol");
    const ix = h.startIndexer();
    await waitFor("stream open", () => ix.state().connected);
    await ix.idle();
    const vaultOf = (t: { mint: string; creator: string }) => h!.chain.launchProgram.vaultAddresses(t).curveVault;
    expect(ix.state().tokens).toBe(2);
    expect([ix.subscribed(vaultOf(a)), ix.subscribed(vaultOf(b)), ix.subscribed(vaultOf(c))]).toEqual([
      false,
      true,
      true,
    ]);

    // A new launch takes the place of the oldest watched one.
    const d = await h.launch("dave");
    await waitFor("newest launch watched", () => ix.subscribed(vaultOf(d)));
    await waitFor("oldest watched token dropped", () => !ix.subscribed(vaultOf(b)));
    expect(ix.state().tokens).toBe(2);
    await ix.idle();

    // Fees on a watched token show live; on an unwatched one they wait for the sweep's reading.
    h.trade(d.mint, 2n * SOL);
    h.trade(a.mint, 2n * SOL);
    const wantD = await h.chainUnswept(d.mint, d.creator);
    const wantA = await h.chainUnswept(a.mint, a.creator);
    expect(wantA).toBeGreaterThan(0n);
    h.tick();
    await waitFor("watched token's reading", () => h!.tokenRow(d.tokenId).vaultLamports === wantD);
    await ix.idle();
    expect(h.tokenRow(a.tokenId).vaultLamports).toBe(0n);
    // A run that only reads (nothing reaches its minimum): the sweep reads every vault, watched or not.
    await runSweepJob({ ...sweepDeps(h), sweepMinLamports: 10n ** 15n }, h.jobContext("sweep"));
    expect(h.tokenRow(a.tokenId).vaultLamports).toBe(wantA);
    h.checkBooks();
  }, 30_000);

  test("health shows the indexer's state as extra fields", async () => {
    h = await indexerHarness();
    await h.launch();
    const before = await h.service.app.handle(new Request("http://localhost/api/cron/health"));
    expect("indexer" in (await before.json())).toBe(false);
    const ix = h.startIndexer();
    await waitFor("stream open", () => ix.state().connected);
    h.tick(2);
    await waitFor("a slot applied", () => ix.state().lastSlot !== null);
    const res = await h.service.app.handle(new Request("http://localhost/api/cron/health"));
    const body = await res.json();
    expect(body.jobs.map((j: { job: string }) => j.job)).toEqual(["sweep", "payouts", "burns", "launches", "market"]);
    expect(body.indexer).toMatchObject({ mode: "grpc", connected: true, reconnects: 0, lastError: null, tokens: 1 });
    expect(body.indexer.lastSlot).toBeGreaterThan(0);
    expect(body.indexer.lagSlots).toBeGreaterThanOrEqual(0);
  }, 30_000);
});

describe("single subscriber and the RPC fallback", () => {
  test("a second indexer on the same database stands by until the first stops", async () => {
    h = await indexerHarness();
    const a = await h.launch();
    const first = h.startIndexer();
    await waitFor("first streams", () => first.state().connected);
    const { startIndexer } = await import("../../indexer/index");
    const second = startIndexer(
      h.service.ctx,
      { services: h.chain, local: h.local },
      // The harness's tokens are the old local launch program's (see indexerHarness).
      { grpcUrl: h.proxy.url, leaseMs: 3_000, launchProgramOver: (reader) => localLaunchProgram(h!.local, reader) },
    );
    try {
      // Its first try at the lease runs at start; give it a few ticks of its lease loop to misbehave.
      await Bun.sleep(300);
      expect(second.state().mode).toBe("standby");
      expect(first.state()).toMatchObject({ mode: "grpc", connected: true });
      await first.stop();
      await waitFor("second takes over", () => second.state().connected, 20_000);
      h.trade(a.mint, 1n * SOL);
      const want = await h.chainUnswept(a.mint, a.creator);
      h.tick();
      await waitFor("second keeps readings live", () => h!.tokenRow(a.tokenId).vaultLamports === want);
    } finally {
      await second.stop();
    }
  }, 30_000);

  test("without a gRPC endpoint, RPC polling keeps readings and confirmations current", async () => {
    h = await indexerHarness();
    const a = await h.launch();
    const ix = h.startIndexer({ grpcUrl: null, pollMs: 200 });
    await waitFor("first poll", () => ix.state().connected);
    expect(ix.state().mode).toBe("poll");
    const claim = await aliceWithClaim(h, a.mint);
    await sendPayouts(h);
    h.trade(a.mint, 1n * SOL);
    h.tick(FINALIZE);
    const want = await h.chainUnswept(a.mint, a.creator);
    await waitFor(
      "payout confirmed and reading stored by polling",
      () => payouts(h!)[0]!.status === "confirmed" && h!.tokenRow(a.tokenId).vaultLamports === want,
    );
    expect(ledgerTotals(h.service.ctx.db).paidLamports).toBe(claim.lamports);
    expect(ix.state().lastSlot).toBeGreaterThan(0);
    h.checkBooks();
  }, 30_000);
});

describe("resuming after a long gap", () => {
  test("a gap longer than the endpoint keeps for replay falls back to a plain subscription and a catch-up", async () => {
    h = await indexerHarness();
    const a = await h.launch();
    const ix = h.startIndexer();
    await waitFor("stream open", () => ix.state().connected);
    h.trade(a.mint, 1n * SOL);
    h.tick();
    await waitFor(
      "first reading",
      async () => h!.tokenRow(a.tokenId).vaultLamports === (await h!.chainUnswept(a.mint, a.creator)),
    );

    h.proxy.down();
    await waitFor("indexer sees the cut", () => !ix.state().connected);
    h.trade(a.mint, 2n * SOL);
    // The local endpoint keeps 300 slots for fromSlot replay; this gap is longer.
    h.tick(400);
    h.proxy.up();
    await waitFor("stream reopened", () => ix.state().connected, 20_000);
    const want = await h.chainUnswept(a.mint, a.creator);
    await waitFor("reading caught up over RPC", () => h!.tokenRow(a.tokenId).vaultLamports === want);
    expect(ix.state().lastError).not.toBeNull();
  }, 30_000);
});

describe("reconnect backoff", () => {
  test("grows exponentially to its bound, with full jitter", async () => {
    const { reconnectBackoffMs } = await import("../../indexer/grpc");
    const top = { backoffBaseMs: 100, backoffMaxMs: 1_000, random: () => 0.999999 };
    expect([1, 2, 3, 4, 5, 10, 60].map((n) => reconnectBackoffMs(n, top))).toEqual([99, 199, 399, 799, 999, 999, 999]);
    const bottom = { backoffBaseMs: 100, backoffMaxMs: 1_000, random: () => 0 };
    expect(reconnectBackoffMs(7, bottom)).toBe(0);
  });
});
