/**
 * The money jobs under the local chain's fault injection: dropped transactions, confirmations
 * delayed past a run, RPC errors and timeouts, expired blockhashes, a payout failing on chain,
 * claims paused. Nothing is lost, nothing doubled, and each state is the one SPEC and DESIGN §5
 * name. Jobs run in this process under their lease, over the chain's JSON-RPC.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Keypair, PublicKey } from "@solana/web3.js";
import { accountFigures, ledgerTotals } from "../../src/ledger/figures";
import { queuePayout } from "../../src/payouts/service";
import { LAST_RECONCILIATION_KEY, setClaimsPaused } from "../../src/settings/service";
import {
  checkBurnedExactlyOnce,
  checkPaidExactlyOnce,
  checkSweptExactlyOnce,
  setupBurns,
  setupPayouts,
  setupSweep,
} from "./scenarios";
import { moneyWorld, type World } from "./world";

let w: World | null = null;
afterEach(async () => {
  await w?.close();
  w = null;
});

const ok = { ran: true, ok: true };
const count = (world: World, sql: string, ...args: (string | number)[]) =>
  Number((world.db.$client.query(sql).get(...args) as { n: bigint }).n);

describe("sweep under faults", () => {
  test("a dropped sweep is failed once provably expired, credits nothing, and the next run sweeps it", async () => {
    w = await moneyWorld();
    const setup = await setupSweep(w, 3);
    w.local.faults.dropNextSends(1);
    expect(await w.run("sweep")).toMatchObject(ok);
    const failed = w.db.$client
      .query<{ token_id: bigint; t: bigint; c: bigint | null }, []>(
        "SELECT token_id, total_lamports AS t, confirmed_at_ms AS c FROM sweeps WHERE status = 'failed'",
      )
      .all();
    expect(failed.length).toBeGreaterThan(0);
    for (const f of failed) expect([BigInt(f.t), f.c]).toEqual([0n, null]);
    // What the dropped sweep held is still in its vaults, and not credited.
    const stillThere = await w.unswept(
      setup.tokens.filter((t) => failed.some((f) => Number(f.token_id) === t.tokenId)),
    );
    for (const v of stillThere.values()) expect(v).toBeGreaterThan(0n);
    w.checkRelations();
    expect(await w.run("sweep")).toMatchObject(ok);
    await checkSweptExactlyOnce(w, setup);
  }, 30_000);

  test("one run resolves every sweep it sent, however many pages of sent sweeps that takes", async () => {
    w = await moneyWorld();
    const setup = await setupSweep(w, 5);
    // Two sent sweeps a resolution page: the run must page on, not stop after the first page.
    expect(await w.run("sweep", {}, { resolveBatchSize: 2 })).toMatchObject(ok);
    await checkSweptExactlyOnce(w, setup);
  }, 30_000);

  test("a page edge never splits a transaction's sweeps: each is credited whole, none stopped", async () => {
    w = await moneyWorld();
    const setup = await setupSweep(w, 5);
    // One sent sweep a page: every transaction packing two tokens or more is cut by a page's edge.
    expect(await w.run("sweep", {}, { resolveBatchSize: 1 })).toMatchObject(ok);
    const perTransaction = w.db.$client
      .query<{ n: bigint }, []>("SELECT COUNT(*) AS n FROM sweeps GROUP BY signature")
      .all()
      .map((r) => Number(r.n));
    expect(Math.max(...perTransaction)).toBeGreaterThan(1);
    expect(count(w, "SELECT COUNT(*) AS n FROM set_aside WHERE job = 'sweep'")).toBe(0);
    await checkSweptExactlyOnce(w, setup);
  }, 30_000);

  test("a run over more tokens than one chunk sends each chunk as it is read and sweeps every token once", async () => {
    w = await moneyWorld();
    const setup = await setupSweep(w, 10);
    // Chunks of 3 tokens (one read page each): four chunks of sends in one run.
    expect(await w.run("sweep", {}, { readBatchSize: 3, sendChunkTokens: 3 })).toMatchObject(ok);
    await checkSweptExactlyOnce(w, setup);
    // Chunks in id order: tokens 1-3, 4-6, 7-9 and 10. Each chunk is packed and sent before the
    // next is read, so no transaction holds two chunks' tokens.
    const sweeps = w.db.$client
      .query<{ token_id: bigint; signature: string }, []>(
        "SELECT token_id, signature FROM sweeps WHERE status = 'confirmed' ORDER BY token_id",
      )
      .all();
    const chunkOf = new Map(sweeps.map((r, rank) => [r.token_id, Math.floor(rank / 3)]));
    const chunksBySignature = new Map<string, Set<number>>();
    for (const r of sweeps) {
      const chunks = chunksBySignature.get(r.signature) ?? new Set<number>();
      chunks.add(chunkOf.get(r.token_id)!);
      chunksBySignature.set(r.signature, chunks);
    }
    expect(sweeps.length).toBe(10);
    expect([...chunksBySignature.values()].map((c) => c.size)).toEqual([...chunksBySignature.keys()].map(() => 1));
    // Packing still fills transactions within a chunk.
    expect(chunksBySignature.size).toBeLessThan(sweeps.length);
    // Every swept token was read again after the run: its stored reading is the chain's (empty vaults).
    const stored = w.db.$client.query<{ v: bigint }, []>("SELECT vault_lamports AS v FROM tokens").all();
    expect(stored.map((r) => BigInt(r.v))).toEqual(stored.map(() => 0n));
  }, 30_000);

  test("a confirmation delayed past the run leaves the sweep sent; no second sweep; a later run credits it once", async () => {
    w = await moneyWorld();
    const setup = await setupSweep(w, 3);
    w.local.faults.delayNextSends(10, 60);
    expect(await w.run("sweep", {}, { settleTimeoutMs: 100 })).toMatchObject(ok);
    const sent = count(w, "SELECT COUNT(*) AS n FROM sweeps WHERE status = 'sent'");
    expect(sent).toBe(3);
    expect(ledgerTotals(w.db).sweptLamports).toBe(0n);
    // A run while they are in flight neither re-sweeps those tokens nor credits anything.
    expect(await w.run("sweep", {}, { settleTimeoutMs: 100 })).toMatchObject(ok);
    expect(count(w, "SELECT COUNT(*) AS n FROM sweeps")).toBe(3);
    expect(ledgerTotals(w.db).sweptLamports).toBe(0n);
    w.checkRelations();
    await Bun.sleep(60 * 10 + 300);
    expect(await w.run("sweep")).toMatchObject(ok);
    await checkSweptExactlyOnce(w, setup);
  }, 30_000);

  test("RPC errors and timeouts: a run that cannot finish fails cleanly, the next one completes; credited once", async () => {
    w = await moneyWorld({ rpcTimeoutMs: 300 });
    const setup = await setupSweep(w, 3);
    // Every send answers 503 (retries exhausted): the sweeps are saved, never reach the chain,
    // and are failed once their blockhash has provably expired.
    w.local.faults.failRpc("sendTransaction", 50, "error");
    expect(await w.run("sweep")).toMatchObject(ok);
    expect(count(w, "SELECT COUNT(*) AS n FROM sweeps WHERE status = 'failed'")).toBeGreaterThan(0);
    expect(ledgerTotals(w.db).sweptLamports).toBe(0n);
    w.local.faults.clear();
    // Status look-ups time out (beyond the retries): unknown is not an outcome, so the sweeps in
    // flight stay sent and nothing is credited or failed; the run carries on with the rest.
    const sentBefore = count(w, "SELECT COUNT(*) AS n FROM sweeps WHERE status = 'sent'");
    w.local.faults.failRpc("getSignatureStatuses", 100, "timeout", 1_000);
    const timedOut = await w.run("sweep", {}, { settleTimeoutMs: 2_000 });
    expect(timedOut).toMatchObject({ ran: true });
    expect(count(w, "SELECT COUNT(*) AS n FROM sweeps WHERE status = 'sent'")).toBeGreaterThanOrEqual(sentBefore);
    expect(count(w, "SELECT COUNT(*) AS n FROM sweeps WHERE status = 'confirmed'")).toBe(0);
    w.checkRelations();
    w.local.faults.clear();
    // A transient error is absorbed by the client's retries.
    w.local.faults.failRpc("getMultipleAccounts", 2, "error");
    expect(await w.run("sweep")).toMatchObject(ok);
    expect(await w.run("sweep")).toMatchObject(ok);
    await checkSweptExactlyOnce(w, setup);
  }, 40_000);

  test("a send delayed until its blockhash expired never lands; the sweep fails and is redone once", async () => {
    w = await moneyWorld();
    const setup = await setupSweep(w, 2);
    w.local.faults.delayNextSends(1, 200);
    expect(await w.run("sweep")).toMatchObject(ok);
    expect(count(w, "SELECT COUNT(*) AS n FROM sweeps WHERE status = 'failed'")).toBeGreaterThan(0);
    expect(await w.run("sweep")).toMatchObject(ok);
    // Well past the held sends' slot: they were refused, not landed late.
    await Bun.sleep(200 * 10 + 200);
    await checkSweptExactlyOnce(w, setup);
  }, 30_000);
});

describe("payouts under faults", () => {
  test("a payout batch failing on chain: payouts failed, amounts back in balances, nothing paid", async () => {
    w = await moneyWorld();
    const setup = await setupPayouts(w, 3, 0);
    w.local.faults.failNextSends(1);
    expect(await w.run("payouts")).toMatchObject(ok);
    const rows = w.db.$client.query("SELECT idp_user_id AS id, status FROM payouts").all() as {
      id: string;
      status: string;
    }[];
    expect(rows.map((r) => r.status)).toEqual(["failed", "failed", "failed"]);
    for (const [id, amount] of setup.amounts) {
      expect(w.local.node.getBalance(new PublicKey(setup.wallets.get(id)!))).toBe(0n);
      const figures = accountFigures(w.db, "user", id);
      expect(figures.balanceLamports).toBe(amount);
      expect(figures.paidLamports).toBe(0n);
    }
    const t = w.checkRelations();
    expect(t.paidLamports).toBe(0n);
    expect(t.owedLamports).toBe(t.unclaimedLamports);
    // Claimed again, paid once.
    const failedFees = w.feesOf(
      (w.db.$client.query("SELECT signature FROM payouts").all() as { signature: string }[]).map((r) => r.signature),
    );
    expect(failedFees).toBeGreaterThan(0n);
    for (const id of setup.amounts.keys()) {
      queuePayout(w.db, {
        idpUserId: id,
        lamports: null,
        wallet: setup.wallets.get(id)!,
        kind: "claim",
        minLamports: 1n,
        atMs: Date.now(),
      });
    }
    expect(await w.run("payouts")).toMatchObject(ok);
    for (const [id, amount] of setup.amounts)
      expect(w.local.node.getBalance(new PublicKey(setup.wallets.get(id)!))).toBe(amount);
    expect(w.checkRelations().paidLamports).toBe([...setup.amounts.values()].reduce((a, b) => a + b, 0n));
  }, 30_000);

  test("a dropped payout is replaced after proven expiry and paid once; the old one shows replaced", async () => {
    w = await moneyWorld();
    const setup = await setupPayouts(w, 13, 1);
    w.local.faults.dropNextSends(1);
    expect(await w.run("payouts")).toMatchObject(ok);
    expect(count(w, "SELECT COUNT(*) AS n FROM payouts WHERE status = 'replaced'")).toBe(12);
    expect(count(w, "SELECT COUNT(*) AS n FROM payouts p WHERE status = 'queued' AND replaces_id IS NOT NULL")).toBe(
      12,
    );
    w.checkRelations();
    expect(await w.run("payouts")).toMatchObject(ok);
    checkPaidExactlyOnce(w, setup);
  }, 30_000);

  test("a confirmation delayed past the run: the payout stays sent, is never sent twice, and confirms once", async () => {
    w = await moneyWorld();
    const setup = await setupPayouts(w, 2, 0);
    w.local.faults.delayNextSends(1, 60);
    expect(await w.run("payouts", {}, { settleTimeoutMs: 100 })).toMatchObject(ok);
    const sent = w.db.$client.query("SELECT DISTINCT signature FROM payouts WHERE status = 'sent'").all();
    expect(sent).toHaveLength(1);
    expect(await w.run("payouts", {}, { settleTimeoutMs: 100 })).toMatchObject(ok);
    expect(w.db.$client.query("SELECT DISTINCT signature FROM payouts").all()).toEqual(sent);
    expect(w.checkRelations().paidLamports).toBe(0n);
    await Bun.sleep(60 * 10 + 300);
    expect(await w.run("payouts")).toMatchObject(ok);
    checkPaidExactlyOnce(w, setup);
  }, 30_000);

  test("a send that times out never reached the chain: replaced after expiry, paid once", async () => {
    w = await moneyWorld({ rpcTimeoutMs: 300 });
    const setup = await setupPayouts(w, 2, 0);
    w.local.faults.failRpc("sendTransaction", 4, "timeout", 1_000);
    expect(await w.run("payouts")).toMatchObject(ok);
    expect(count(w, "SELECT COUNT(*) AS n FROM payouts WHERE status = 'replaced'")).toBe(2);
    expect(await w.run("payouts")).toMatchObject(ok);
    checkPaidExactlyOnce(w, setup);
  }, 30_000);

  test("a payout too small for a new wallet fails alone; the payouts beside it are paid; autopay waits", async () => {
    w = await moneyWorld();
    const fresh = () => Keypair.generate().publicKey.toBase58();
    const wallets = { small: fresh(), big1: fresh(), big2: fresh(), auto: fresh() };
    w.signIn("u-small", "small");
    w.signIn("u-big1", "big1");
    w.signIn("u-big2", "big2");
    w.signIn("u-auto", "auto", { routing: "autopay", wallet: wallets.auto });
    const t = w.launch(
      [
        { handle: "small", bps: 3000 },
        { handle: "big1", bps: 3000 },
        { handle: "big2", bps: 4000 },
      ],
      1000,
    );
    const u = w.launch([{ handle: "auto", bps: 10_000 }], 1000);
    w.trade(t.mint, 3_000_000_000n);
    w.trade(u.mint, 200_000_000n);
    expect(await w.run("sweep")).toMatchObject(ok);
    const autoBalance = accountFigures(w.db, "user", "u-auto").balanceLamports;
    // Above the autopay threshold, below the rent-exempt minimum of a new account.
    expect(autoBalance).toBeGreaterThan(1000n);
    expect(autoBalance).toBeLessThan(890_880n);
    const claim = (id: string, wallet: string, lamports: bigint | null) =>
      queuePayout(w!.db, { idpUserId: id, lamports, wallet, kind: "claim", minLamports: 1n, atMs: Date.now() });
    const tiny = claim("u-small", wallets.small, 1000n);
    const big1 = claim("u-big1", wallets.big1, null);
    const big2 = claim("u-big2", wallets.big2, null);
    expect(await w.run("payouts")).toMatchObject(ok);
    const status = (id: number) =>
      w!.db.$client.query("SELECT status, signature FROM payouts WHERE id = ?").get(id) as {
        status: string;
        signature: string;
      };
    // The tiny one failed on chain in a transaction of its own; its amount is back in the balance.
    expect(status(tiny.payoutId).status).toBe("failed");
    expect(w.local.node.getBalance(new PublicKey(wallets.small))).toBe(0n);
    expect(accountFigures(w.db, "user", "u-small").paidLamports).toBe(0n);
    // The others were paid, exactly.
    expect([status(big1.payoutId).status, status(big2.payoutId).status]).toEqual(["confirmed", "confirmed"]);
    expect(status(big1.payoutId).signature).not.toBe(status(tiny.payoutId).signature);
    expect(w.local.node.getBalance(new PublicKey(wallets.big1))).toBe(big1.lamports);
    expect(w.local.node.getBalance(new PublicKey(wallets.big2))).toBe(big2.lamports);
    // No autopay that could only fail was queued.
    expect(w.db.$client.query("SELECT COUNT(*) AS n FROM payouts WHERE idp_user_id = 'u-auto'").get()).toEqual({
      n: 0n,
    });
    w.checkRelations();
    // Once the wallet exists, the autopay is queued and paid.
    w.local.node.fund(new PublicKey(wallets.auto), 1_000_000_000n);
    expect(await w.run("payouts")).toMatchObject(ok);
    expect(w.local.node.getBalance(new PublicKey(wallets.auto))).toBe(1_000_000_000n + autoBalance);
    expect(w.checkRelations().paidLamports).toBe(big1.lamports + big2.lamports + autoBalance);
  }, 30_000);

  test("claims paused: nothing is sent and no autopay is queued until resumed", async () => {
    w = await moneyWorld();
    const setup = await setupPayouts(w, 2, 1);
    setClaimsPaused(w.db, true);
    expect(await w.run("payouts")).toMatchObject(ok);
    expect(w.db.$client.query("SELECT status FROM payouts").all()).toEqual([
      { status: "queued" },
      { status: "queued" },
    ]);
    for (const wallet of setup.wallets.values()) expect(w.local.node.getBalance(new PublicKey(wallet))).toBe(0n);
    setClaimsPaused(w.db, false);
    expect(await w.run("payouts")).toMatchObject(ok);
    checkPaidExactlyOnce(w, setup);
  }, 30_000);
});

describe("burns under faults", () => {
  test("a buy failing on chain returns its orders; a dropped burn is burned again; one buy per mint", async () => {
    w = await moneyWorld();
    const setup = await setupBurns(w);
    const env = { PLATFORM_BUYBACK_BPS: "5000" };
    // The first buy fails on chain (fee charged), the first burn after the buys is dropped.
    w.local.faults.failNextSends(1);
    expect(await w.run("burns", env)).toMatchObject(ok);
    expect(count(w, "SELECT COUNT(*) AS n FROM burn_buys WHERE status = 'failed'")).toBe(1);
    expect(count(w, "SELECT COUNT(*) AS n FROM burn_orders WHERE status = 'pending'")).toBeGreaterThan(0);
    w.checkRelations();
    w.local.faults.dropNextSends(1);
    expect(await w.run("burns", env)).toMatchObject(ok);
    expect(await w.run("burns", env)).toMatchObject(ok);
    checkBurnedExactlyOnce(w, setup);
  }, 40_000);
});

describe("reconciliation in every sweep run", () => {
  test("fees arriving while a sweep is in flight: the reading is re-read from the chain; reserves recorded", async () => {
    w = await moneyWorld();
    const setup = await setupSweep(w, 1);
    const token = setup.tokens[0]!;
    w.local.faults.delayNextSends(1, 30);
    const run = w.run("sweep");
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && count(w, "SELECT COUNT(*) AS n FROM sweeps WHERE status = 'sent'") === 0)
      await Bun.sleep(5);
    // A trade lands between the reading and the sweep: its fee stays in the vault.
    w.trade(token.mint, 1_000_000_000n);
    expect(await run).toMatchObject(ok);
    const swept = w.db.$client.query("SELECT status, total_lamports AS t FROM sweeps").all() as {
      status: string;
      t: bigint;
    }[];
    expect(swept).toEqual([{ status: "confirmed", t: setup.before.get(token.mint)! }]);
    const onChain = (await w.unswept([token])).get(token.mint)!;
    expect(onChain).toBeGreaterThan(0n);
    // The stored reading is the chain's, not "reading minus credited" (which would say 0).
    const stored = w.db.$client.query("SELECT vault_lamports AS v FROM tokens WHERE id = ?").get(token.tokenId) as {
      v: bigint;
    };
    expect(BigInt(stored.v)).toBe(onChain);
    // The proof of reserves: the treasury balance read from the chain against what is owed.
    const reconciliation = JSON.parse(
      (w.db.$client.query("SELECT value FROM settings WHERE key = ?").get(LAST_RECONCILIATION_KEY) as { value: string })
        .value,
    );
    const totals = w.checkRelations();
    expect(BigInt(reconciliation.treasuryLamports)).toBe(w.treasuryLamports());
    expect(BigInt(reconciliation.owedLamports)).toBe(totals.owedLamports);
    expect(BigInt(reconciliation.treasuryLamports)).toBeGreaterThanOrEqual(totals.owedLamports);
    // The next run sweeps the late fee, once.
    expect(await w.run("sweep")).toMatchObject(ok);
    expect(w.checkRelations().sweptLamports).toBe(setup.before.get(token.mint)! + onChain);
  }, 30_000);
});
