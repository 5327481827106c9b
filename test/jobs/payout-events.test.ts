/**
 * Issue 64 item 2 as an integrator meets it: a bot claims over HTTP on the embedded local chain and
 * follows its payout from queued to confirmed through the live stream (fetch streaming: the
 * `eventsource` package is not installed) and through webhooks verified with `standardwebhooks`;
 * every event keeps reading the same on `/api/ledger`. Then the payouts job is killed at its crash
 * points: each status a payout reached is one event in the feed, none lost, none twice.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Connection, Keypair, PublicKey } from "@solana/web3.js";
import { Webhook } from "standardwebhooks";
import type { Db } from "../../db/client";
import { feedPage, parseBefore } from "../../src/ledger/feed-queries";
import { queuePayout } from "../../src/payouts";
import { WebhookDispatcher } from "../../src/webhooks/dispatcher";
import { webhookSigningKey } from "../../src/webhooks/key";
import { type SseFrame, SseReader } from "../ledger/sse";
import { Receiver } from "../webhooks/receiver";
import { closeDatabase, openDatabase } from "../../db/client";
import { holdForReconciliation } from "../../src/reconcile";
import { reconcile, settle } from "../reconcile/support";
import { moneyHarness } from "./harness";
import { checkPaidExactlyOnce, setupPayouts } from "./scenarios";
import { moneyWorld, type World } from "./world";

const ADMIN_SECRET = "admin-secret-for-tests-0123456789abcdef";
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("a bot follows its payout from queued to confirmed", () => {
  test("over SSE and signed webhooks, with one event per status, each id reading the same afterwards", async () => {
    const h = await moneyHarness({
      ADMIN_SECRET,
      WEBHOOKS_ALLOW_PRIVATE: "1",
      RATE_LIMIT: "off",
      MIN_CLAIM_LAMPORTS: "1000000",
    });
    cleanups.push(() => h.close());
    const t = await h.launch([{ handle: "alice", bps: 10_000 }]);
    await h.trade(t.mint, 3_000_000_000n);
    await h.run("sweep");

    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      idleTimeout: 0,
      fetch: (request) => h.service.app.handle(request),
    });
    cleanups.push(() => server.stop(true));
    const base = `http://127.0.0.1:${server.port}`;
    const receiver = new Receiver().start();
    cleanups.push(() => receiver.stop());

    // The operator registers the bot's endpoint; the dispatcher runs as it does beside the jobs.
    const registered = await fetch(`${base}/api/admin/webhooks`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_SECRET}`, "content-type": "application/json" },
      body: JSON.stringify({ url: receiver.url, types: ["payout", "payoutStatus"] }),
    });
    expect(registered.status).toBe(200);
    const { secret } = (await registered.json()) as { secret: string };
    const dispatcher = new WebhookDispatcher(h.service.ctx.db, {
      signingKey: webhookSigningKey(h.service.ctx.config),
      allowPrivate: true,
      tickMs: 20,
    }).start();
    cleanups.push(() => dispatcher.stop());

    // The bot: follows the stream, signs in, claims.
    const streamed = await fetch(`${base}/api/ledger/stream`);
    expect(streamed.status).toBe(200);
    const reader = new SseReader(streamed);
    cleanups.push(() => reader.close());
    const login = await fetch(`${base}/api/auth/dev-login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ handle: "alice" }),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers
      .getSetCookie()
      .find((c) => c.startsWith("session="))!
      .split(";")[0]!;
    const wallet = Keypair.generate().publicKey.toBase58();
    const claimed = await fetch(`${base}/api/claim`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ wallet }),
    });
    expect({ status: claimed.status, body: claimed.status === 200 ? null : await claimed.text() }).toEqual({
      status: 200,
      body: null,
    });
    const claim = (await claimed.json()) as { payoutId: number; lamports: string; status: string };
    expect(claim.status).toBe("queued");

    const ofThisPayout = (f: SseFrame) =>
      (f.event === "payout" || f.event === "payoutStatus") && JSON.parse(f.data!).payoutId === claim.payoutId;
    const queued = await reader.next(ofThisPayout, 15_000);
    expect(JSON.parse(queued.data!)).toMatchObject({
      type: "payout",
      id: queued.id,
      payoutId: claim.payoutId,
      handle: "alice",
      lamports: claim.lamports,
      status: "queued",
      signature: null,
    });

    await h.run("payouts");
    const sent = await reader.next(ofThisPayout, 15_000);
    const confirmed = await reader.next(ofThisPayout, 15_000);
    const [sentEvent, confirmedEvent] = [sent, confirmed].map((f) => JSON.parse(f.data!));
    expect(sentEvent).toMatchObject({ type: "payoutStatus", id: sent.id, status: "sent", lamports: claim.lamports });
    expect(confirmedEvent).toMatchObject({
      type: "payoutStatus",
      id: confirmed.id,
      status: "confirmed",
      signature: sentEvent.signature,
    });
    // What the events say is what the chain says: that signature landed and paid the wallet.
    const connection = new Connection(h.local.rpcUrl, "confirmed");
    const status = (await connection.getSignatureStatus(sentEvent.signature)).value;
    expect(status?.err ?? null).toBeNull();
    expect(status?.confirmationStatus === "confirmed" || status?.confirmationStatus === "finalized").toBe(true);
    expect(BigInt(await connection.getBalance(new PublicKey(wallet)))).toBe(BigInt(claim.lamports));

    // The same three events as webhooks: verified, in order, the webhook-id the event's id, the data the stream's.
    const frames = [queued, sent, confirmed];
    const deliveries = await receiver.waitFor(3, 15_000);
    const verifier = new Webhook(secret);
    expect(deliveries).toHaveLength(3);
    for (const [i, delivery] of deliveries.entries()) {
      const body = verifier.verify(delivery.body, delivery.headers) as { type: string; at: string; data: unknown };
      expect(delivery.headers["webhook-id"]).toBe(frames[i]!.id!);
      expect(JSON.stringify(body.data)).toBe(frames[i]!.data!);
      expect(body.type).toBe(frames[i]!.event!);
    }

    // Read back once the payout confirmed: each id reads what it read live; the queued one still says queued.
    const page = (await (await fetch(`${base}/api/ledger?limit=100`)).json()) as { events: { id: string }[] };
    for (const frame of frames) {
      expect(JSON.stringify(page.events.find((e) => e.id === frame.id))).toBe(frame.data!);
    }
  }, 60_000);
});

/** Every payout event of the feed, oldest first (what a bot paging `/api/ledger` to the end collects). */
function payoutEvents(db: Db) {
  const events = [];
  for (let before: number | null = null; ; ) {
    const p = feedPage(db, before, 100);
    events.push(...p.events);
    if (p.nextBefore === null) break;
    before = parseBefore(p.nextBefore);
  }
  return events.reverse().filter((e) => e.type === "payout" || e.type === "payoutStatus");
}

/** Each payout: announced once, then one event per status it went through, as the books hold them. */
function checkOneEventPerStatus(w: World): void {
  const events = payoutEvents(w.db);
  const payouts = w.db.$client
    .query("SELECT id, status, signature, replaces_id AS replacesId FROM payouts ORDER BY id")
    .all() as { id: bigint; status: string; signature: string; replacesId: bigint | null }[];
  const replacementOf = new Map(payouts.filter((p) => p.replacesId !== null).map((p) => [p.replacesId, p.id]));
  for (const p of payouts) {
    const own = events.filter((e) => e.payoutId === Number(p.id));
    expect(own.map((e): string[] => [e.type, e.status])).toEqual([
      ["payout", "queued"],
      ["payoutStatus", "sent"],
      ["payoutStatus", p.status],
    ]);
    expect(own.slice(1).map((e) => e.signature)).toEqual([p.signature, p.signature]);
    const last = own[2]!;
    expect(last.type === "payoutStatus" && last.replacementPayoutId).toBe(
      p.status === "replaced" ? Number(replacementOf.get(p.id)) : null,
    );
  }
  expect(events).toHaveLength(payouts.length * 3);
}

async function crashThenRecover(world: World, crashAt: string): Promise<void> {
  const env = { JOB_LEASE_MS: "10000" };
  const crashed = await world.worker({ jobs: ["payouts"], crashAt, env });
  expect({ crashAt, signal: crashed.signalCode, results: crashed.results.map((r) => r.error ?? "ok") }).toEqual({
    crashAt,
    signal: "SIGKILL",
    results: [],
  });
  // The dead holder's lease runs out (test/jobs/crash.test.ts waits it out the same way).
  world.db.$client.query("UPDATE job_leases SET expires_at_ms = 0 WHERE job = ?").run("payouts");
  const recovered = await world.worker({ jobs: ["payouts"], runs: 2, env });
  expect(recovered.results.map((r) => [r.ran, r.ok, r.error ?? null])).toEqual([
    [true, true, null],
    [true, true, null],
  ]);
}

describe("payout events across a SIGKILL of the payouts job", () => {
  for (const point of ["payouts:after-save", "payouts:after-confirm"]) {
    test(point, async () => {
      const w = await moneyWorld();
      cleanups.push(() => w.close());
      const setup = await setupPayouts(w, 3, 1);
      await crashThenRecover(w, point);
      checkPaidExactlyOnce(w, setup);
      checkOneEventPerStatus(w);
    }, 60_000);
  }

  test("payouts:after-expiry: the expired batch's payouts are replaced once, each replacement announced once", async () => {
    const w = await moneyWorld();
    cleanups.push(() => w.close());
    const setup = await setupPayouts(w, 3, 0);
    w.local.faults.dropNextSends(1);
    await crashThenRecover(w, "payouts:after-expiry");
    checkPaidExactlyOnce(w, setup);
    checkOneEventPerStatus(w);
    const statuses = payoutEvents(w.db)
      .filter((e) => e.type === "payoutStatus")
      .map((e) => e.status);
    expect(statuses.filter((s) => s === "replaced")).toHaveLength(3);
    expect(statuses.filter((s) => s === "confirmed")).toHaveLength(3);
  }, 60_000);
});

/** The moves a payout's status can make (DESIGN §5); a reconciliation can rebuild a payout as `sent`. */
const NEXT: Record<string, string[]> = {
  held: ["queued", "failed"],
  queued: ["sent"],
  sent: ["confirmed", "failed", "replaced"],
};

/** Each payout's events, read in feed order, walk its status history to the status the books hold. */
function checkEventsFollowStatus(db: Db): void {
  const events = payoutEvents(db);
  const payouts = db.$client.query("SELECT id, status, signature FROM payouts ORDER BY id").all() as {
    id: bigint;
    status: string;
    signature: string | null;
  }[];
  for (const p of payouts) {
    const own = events.filter((e) => e.payoutId === Number(p.id));
    expect(own.filter((e) => e.type === "payout")).toHaveLength(1);
    expect(own[0]!.type).toBe("payout");
    const statuses: string[] = own.map((e) => e.status);
    expect({ payout: Number(p.id), last: statuses.at(-1) }).toEqual({ payout: Number(p.id), last: p.status });
    for (let i = 1; i < statuses.length; i++) expect(NEXT[statuses[i - 1]!]).toContain(statuses[i]!);
    for (const e of own) if (e.status !== "queued" && e.status !== "held") expect(e.signature).toBe(p.signature);
  }
}

describe("payout events of a restore's reconciliation", () => {
  test("a payout queued in the backup and paid after it is announced sent, then confirmed, in the restored books", async () => {
    const w = await moneyWorld({ slotMs: 10 });
    cleanups.push(() => w.close());
    const platformWallet = Keypair.generate().publicKey.toBase58();
    const wallet = Keypair.generate().publicKey.toBase58();
    w.signIn("u-ana", "ana", { routing: "hold", wallet });
    const t = w.launch([{ handle: "ana", bps: 10_000 }], 1000);
    w.trade(t.mint, 5_000_000_000n);
    await settle(w, w.db, platformWallet);
    const q = queuePayout(w.db, {
      idpUserId: "u-ana",
      // Above the rent-exempt minimum: the wallet is new, and a smaller first transfer fails on chain.
      lamports: 1_000_000n,
      wallet,
      kind: "claim",
      minLamports: 1n,
      atMs: Date.now(),
    });
    const backupPath = join(w.dir, "backup.db");
    w.db.$client.exec(`VACUUM INTO '${backupPath}'`);
    await settle(w, w.db, platformWallet);

    const restored = openDatabase(backupPath);
    cleanups.push(() => closeDatabase(restored));
    holdForReconciliation(restored, "restore", Date.now());
    expect((await reconcile(w, restored, platformWallet)).status).toBe("done");
    await settle(w, restored, platformWallet);
    const own = payoutEvents(restored).filter((e) => e.payoutId === q.payoutId);
    expect(own.map((e) => [e.type, e.status])).toEqual([
      ["payout", "queued"],
      ["payoutStatus", "sent"],
      ["payoutStatus", "confirmed"],
    ]);
    checkEventsFollowStatus(restored);
    checkEventsFollowStatus(w.db);
  }, 120_000);
});
