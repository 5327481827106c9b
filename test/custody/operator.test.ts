/**
 * The operator's side of custody (issue 43): incidents and resume over the admin API, held payouts
 * approved, platform withdrawals bounded by the surplus and landing exactly once through a SIGKILL
 * at every crash point, and an `incident` webhook that the `standardwebhooks` package verifies.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Keypair, PublicKey } from "@solana/web3.js";
import { Webhook } from "standardwebhooks";
import { testConfig } from "../../src/config";
import { raiseIncident, requestWithdrawal } from "../../src/custody";
import { accounts, balanceOf, ledgerTotals, verifyLedger } from "../../src/ledger";
import { queuePayout } from "../../src/payouts";
import { owedForReserves } from "../../src/proof";
import { buildService } from "../../src/service";
import { WebhookDispatcher } from "../../src/webhooks/dispatcher";
import { webhookSigningKey } from "../../src/webhooks/key";
import { testService } from "../helpers/service";
import { setupPayouts } from "../jobs/scenarios";
import { moneyWorld, type World } from "../jobs/world";
import { Receiver } from "../webhooks/receiver";

const ADMIN = "admin-secret-for-custody-tests-0123456789";
const cleanups: (() => Promise<void> | void)[] = [];
let w: World | null = null;
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await w?.close();
  w = null;
});

// biome-ignore lint/suspicious/noExplicitAny: test-side JSON, checked by the assertions that read it
type Json = any;

/** The HTTP service on the world's own database and chain, with the admin credential. */
function http(world: World, env: Record<string, string> = {}) {
  const config = testConfig({ DATA_DIR: world.dir, ADMIN_SECRET: ADMIN, TRUST_PROXY: "x-forwarded-for", ...env });
  const service = buildService(config, { chain: world.chain });
  cleanups.push(() => service.close());
  return async (path: string, init: { method?: string; body?: unknown; admin?: boolean } = {}) => {
    const headers = new Headers({ "x-forwarded-for": "203.0.113.7" });
    if (init.admin !== false) headers.set("authorization", `Bearer ${ADMIN}`);
    if (init.body !== undefined) headers.set("content-type", "application/json");
    const res = await service.app.handle(
      new Request(`http://localhost${path}`, {
        method: init.method ?? (init.body !== undefined ? "POST" : "GET"),
        headers,
        ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      }),
    );
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as Json };
  };
}

describe("incidents and resume over the admin API", () => {
  test("a halt is listed; resume needs a reason, is audited, and answers 404 without the credential", async () => {
    w = await moneyWorld();
    const call = http(w);
    expect((await call("/api/admin/incidents", { admin: false })).status).toBe(404);
    raiseIncident(w.db, { kind: "outflow-hour", detail: "a test halt", atMs: Date.now() });
    const listed = await call("/api/admin/incidents");
    expect(listed.status).toBe(200);
    expect(listed.body.halted).toMatchObject({ kind: "outflow-hour", detail: "a test halt", halts: true });
    const noReason = await call("/api/admin/resume", { body: {} });
    expect(noReason).toEqual({ status: 400, body: { error: "A reason is required." } });
    const resumed = await call("/api/admin/resume", { body: { reason: "limit raised after a look" } });
    expect(resumed).toEqual({
      status: 200,
      body: {
        ok: true,
        action: "resume_money",
        resolved: 1,
        released: { payoutIds: [], withdrawalIds: [], burnOrderIds: [], totalLamports: "0" },
      },
    });
    expect((await call("/api/admin/incidents")).body.halted).toBeNull();
    const audit = await call("/api/admin/audit");
    expect(audit.body.entries[0]).toMatchObject({
      action: "resume_money",
      reason: "limit raised after a look",
      actor: "admin-api",
    });
  }, 60_000);

  test("a held payout is listed and approved (or refused, its amount back in the balance)", async () => {
    w = await moneyWorld();
    w.signIn("u-a", "held_a");
    w.signIn("u-b", "held_b");
    const t = w.launch(
      [
        { handle: "held_a", bps: 5_000 },
        { handle: "held_b", bps: 5_000 },
      ],
      0,
    );
    w.trade(t.mint, 4_000_000_000n);
    expect(await w.run("sweep")).toMatchObject({ ran: true, ok: true });
    const call = http(w);
    const queue = (id: string) =>
      queuePayout(w!.db, {
        idpUserId: id,
        lamports: null,
        wallet: PublicKey.unique().toBase58(),
        kind: "claim",
        minLamports: 1n,
        atMs: Date.now(),
        reviewLamports: 1n,
      });
    const a = queue("u-a");
    const b = queue("u-b");
    const held = await call("/api/admin/payouts/held");
    expect(held.body.payouts.map((p: Json) => p.payoutId)).toEqual([a.payoutId, b.payoutId]);
    expect(
      (await call(`/api/admin/payouts/${a.payoutId}/approve`, { body: { reason: "known recipient" } })).status,
    ).toBe(200);
    expect((await call(`/api/admin/payouts/${a.payoutId}/approve`, { body: {} })).status).toBe(400);
    expect((await call(`/api/admin/payouts/${b.payoutId}/refuse`, { body: {} })).status).toBe(400);
    const before = balanceOf(w.db, accounts.user("u-b"));
    expect((await call(`/api/admin/payouts/${b.payoutId}/refuse`, { body: { reason: "looks wrong" } })).status).toBe(
      200,
    );
    expect(balanceOf(w.db, accounts.user("u-b")) - before).toBe(b.lamports);
    expect(await w.run("payouts")).toMatchObject({ ran: true, ok: true });
    const rows = w.db.$client.query("SELECT id, status FROM payouts ORDER BY id").all();
    expect(rows).toEqual([
      { id: BigInt(a.payoutId), status: "confirmed" },
      { id: BigInt(b.payoutId), status: "failed" },
    ]);
    verifyLedger(w.db);
  }, 60_000);
});

/** A claim queued and a platform balance of about 0.03 SOL from a sweep. */
async function platformRevenue(world: World): Promise<void> {
  await setupPayouts(world, 1, 0);
  const mint = world.db.$client.query<{ mint: string }, []>("SELECT mint FROM tokens LIMIT 1").get()!.mint;
  world.trade(mint, 100_000_000_000n);
  expect(await world.run("sweep")).toMatchObject({ ran: true, ok: true });
  expect(balanceOf(world.db, accounts.platform())).toBeGreaterThan(10_000_000n);
}

describe("platform withdrawals", () => {
  test("refused above the platform's balance or the surplus less the reserve, with the reason; one within lands once", async () => {
    w = await moneyWorld();
    await platformRevenue(w);
    const wallet = Keypair.generate().publicKey.toBase58();
    const off = http(w);
    expect(await off("/api/admin/withdrawals", { body: { lamports: "1000", reason: "revenue" } })).toEqual({
      status: 400,
      body: { error: "Withdrawals are not configured on this deployment." },
    });
    const call = http(w, { PLATFORM_WALLET: wallet });
    const platform = balanceOf(w.db, accounts.platform());
    expect(platform).toBeGreaterThan(0n);
    const tooMuch = await call("/api/admin/withdrawals", {
      body: { lamports: String(platform + 1n), reason: "revenue" },
    });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.error).toStartWith(`At most ${platform} lamports can be withdrawn now`);
    expect((await call("/api/admin/withdrawals", { body: { lamports: "1000000" } })).body).toEqual({
      error: "A reason is required.",
    });
    expect((await call("/api/admin/withdrawals", { body: { lamports: "1000", reason: "dust" } })).body.error).toContain(
      "rent-exempt minimum",
    );
    // The surplus bound: with the treasury holding only what is owed plus the reserve, nothing may go.
    const tight = http(w, {
      PLATFORM_WALLET: wallet,
      TREASURY_RESERVE_LAMPORTS: String(w.treasuryLamports() - owedForReserves(w.db)),
    });
    const bySurplus = await tight("/api/admin/withdrawals", { body: { lamports: "1000000", reason: "revenue" } });
    expect(bySurplus).toEqual({ status: 400, body: { error: expect.stringContaining("At most 0 lamports") } });

    const amount = platform / 2n;
    const ok = await call("/api/admin/withdrawals", { body: { lamports: String(amount), reason: "monthly revenue" } });
    expect(ok.status).toBe(200);
    expect(ok.body.withdrawal).toMatchObject({ status: "queued", lamports: String(amount), wallet });
    expect(balanceOf(w.db, accounts.platform())).toBe(platform - amount);
    expect(await w.run("payouts", { PLATFORM_WALLET: wallet })).toMatchObject({ ran: true, ok: true });
    const listed = await call("/api/admin/withdrawals");
    expect(listed.body.withdrawals[0]).toMatchObject({ status: "confirmed", lamports: String(amount) });
    expect(w.local.node.getBalance(new PublicKey(wallet))).toBe(amount);
    expect(ledgerTotals(w.db).withdrawnLamports).toBe(amount);
    // Solvent by construction.
    expect(w.treasuryLamports()).toBeGreaterThanOrEqual(owedForReserves(w.db));
    verifyLedger(w.db);
    w.checkRelations();
  }, 60_000);

  for (const point of ["withdrawals:after-save", "withdrawals:after-send", "withdrawals:after-confirm"]) {
    test(`SIGKILL at ${point}, then restart: the withdrawal lands exactly once`, async () => {
      w = await moneyWorld();
      await platformRevenue(w);
      // The claim of the setup goes first, so the crash hits the withdrawal alone.
      expect(await w.run("payouts")).toMatchObject({ ran: true, ok: true });
      const wallet = Keypair.generate().publicKey.toBase58();
      const amount = balanceOf(w.db, accounts.platform()) / 3n;
      requestWithdrawal(
        w.db,
        {
          lamports: amount,
          reason: "revenue",
          actor: "test",
          wallet,
          treasuryLamports: w.treasuryLamports(),
          owedLamports: () => owedForReserves(w!.db),
          reserveLamports: 0n,
          atMs: Date.now(),
        },
        () => {},
      );
      const env = { PLATFORM_WALLET: wallet };
      const crashed = await w.worker({ jobs: ["payouts"], crashAt: point, env });
      expect(crashed.signalCode).toBe("SIGKILL");
      const recovered = await w.worker({ jobs: ["payouts"], runs: 2, env });
      expect(recovered.exitCode).toBe(0);
      const rows = w.db.$client.query("SELECT status, signature FROM withdrawals").all() as {
        status: string;
        signature: string;
      }[];
      expect(rows.map((r) => r.status)).toEqual(["confirmed"]);
      expect(w.local.node.getBalance(new PublicKey(wallet))).toBe(amount);
      // Exactly one transaction ever paid the wallet.
      expect(w.local.node.signaturesForAddress(wallet, { limit: 10 }).filter((t) => t.err === null).length).toBe(1);
      expect(ledgerTotals(w.db).withdrawnLamports).toBe(amount);
      verifyLedger(w.db);
      w.checkRelations();
    }, 90_000);
  }
});

describe("incident webhooks", () => {
  test("a new incident is a signed `incident` event the standardwebhooks package verifies", async () => {
    const s = testService({ ADMIN_SECRET: ADMIN, WEBHOOKS_ALLOW_PRIVATE: "1" });
    cleanups.push(() => s.cleanup());
    const receiver = new Receiver().start();
    cleanups.push(() => receiver.stop());
    const created = await s.json("/api/admin/webhooks", {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify({ url: receiver.url, types: ["incident"] }),
    });
    expect(created.status).toBe(200);
    const dispatcher = new WebhookDispatcher(s.ctx.db, {
      signingKey: webhookSigningKey(s.ctx.config),
      allowPrivate: true,
      retryBaseMs: 50,
      tickMs: 20,
    }).start();
    cleanups.push(() => dispatcher.stop());
    const atMs = Date.UTC(2026, 10, 26, 12, 0, 0);
    raiseIncident(s.ctx.db, { kind: "shortfall", detail: "the treasury is short by 5 lamports", atMs });
    // The same kind while it is open: no second event.
    raiseIncident(s.ctx.db, { kind: "shortfall", detail: "again", atMs: atMs + 1 });
    const [got] = await receiver.waitFor(1);
    const payload = new Webhook(created.body.secret).verify(got!.body, got!.headers) as Json;
    expect(payload).toEqual({
      type: "incident",
      at: "2026-11-26T12:00:00.000Z",
      data: {
        type: "incident",
        at: "2026-11-26T12:00:00.000Z",
        id: 1,
        kind: "shortfall",
        detail: "the treasury is short by 5 lamports",
        halts: true,
      },
    });
    await Bun.sleep(200);
    expect(receiver.received.length).toBe(1);
  });
});
