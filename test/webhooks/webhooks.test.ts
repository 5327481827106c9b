/**
 * Webhooks (Standard Webhooks): the admin routes, signatures checked with the `standardwebhooks`
 * package, retries through a failing then recovering receiver, the in-flight cap, disabling after
 * a day of failures, the outbox surviving a crash before the send, and replay.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { Webhook } from "standardwebhooks";
import { testConfig } from "../../src/config";
import { immediate } from "../../db/transaction";
import { appendFeedEvent } from "../../src/ledger/feed";
import { buildService } from "../../src/service";
import { WebhookDispatcher, type DispatcherOptions } from "../../src/webhooks/dispatcher";
import { webhookSigningKey } from "../../src/webhooks/key";
import { testService, type TestService } from "../helpers/service";
import { launch, sweep, T0 } from "../helpers/read-world";
import { Receiver } from "./receiver";

const ADMIN = { authorization: "Bearer admin-secret-for-tests-0123456789abcdef" };
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function fresh(env: Record<string, string> = {}): TestService {
  const s = testService({
    ADMIN_SECRET: "admin-secret-for-tests-0123456789abcdef",
    WEBHOOKS_ALLOW_PRIVATE: "1",
    ...env,
  });
  cleanups.push(() => s.cleanup());
  return s;
}

function receiver(): Receiver {
  const r = new Receiver().start();
  cleanups.push(() => r.stop());
  return r;
}

function dispatcher(s: { ctx: TestService["ctx"] }, options: Partial<DispatcherOptions> = {}): WebhookDispatcher {
  const d = new WebhookDispatcher(s.ctx.db, {
    signingKey: webhookSigningKey(s.ctx.config),
    allowPrivate: true,
    retryBaseMs: 50,
    tickMs: 20,
    ...options,
  }).start();
  cleanups.push(() => d.stop());
  return d;
}

async function register(s: TestService, url: string, types?: string[]) {
  const created = await s.json("/api/admin/webhooks", {
    method: "POST",
    headers: { ...ADMIN, "content-type": "application/json" },
    body: JSON.stringify(types ? { url, types } : { url }),
  });
  expect(created.status).toBe(200);
  return created.body as { id: string; url: string; types: string[] | null; secret: string };
}

async function deliveries(s: TestService, id: string) {
  const r = await s.json(`/api/admin/webhooks/${id}/deliveries`, { headers: ADMIN });
  expect(r.status).toBe(200);
  return r.body.deliveries as {
    eventId: string;
    attempt: number;
    status: string;
    httpStatus: number | null;
    at: string;
    nextAttemptAt: string | null;
    error: string | null;
  }[];
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await Bun.sleep(10);
  }
}

describe("webhook admin routes", () => {
  test("404 without the admin secret, as every admin route", async () => {
    const s = fresh();
    expect((await s.call("/api/admin/webhooks")).status).toBe(404);
    expect(
      (await s.call("/api/admin/webhooks", { method: "POST", body: "{}", headers: { authorization: "Bearer wrong" } }))
        .status,
    ).toBe(404);
    const unconfigured = testService({});
    cleanups.push(() => unconfigured.cleanup());
    expect((await unconfigured.call("/api/admin/webhooks", { headers: ADMIN })).status).toBe(404);
  });

  test("create answers a whsec_ secret once; list, delete; bad input is a 400", async () => {
    const s = fresh();
    const created = await register(s, "http://127.0.0.1:9/hook", ["sweep", "payout"]);
    expect(Object.keys(created).sort()).toEqual(["id", "secret", "types", "url"]);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.secret.slice(6), "base64")).toHaveLength(32);
    expect(created.types).toEqual(["sweep", "payout"]);

    const list = await s.json("/api/admin/webhooks", { headers: ADMIN });
    expect(list.body).toEqual({
      webhooks: [
        {
          id: created.id,
          url: "http://127.0.0.1:9/hook",
          types: ["sweep", "payout"],
          enabled: true,
          createdAt: expect.any(String),
          failingSince: null,
        },
      ],
    });
    expect(JSON.stringify(list.body)).not.toContain(created.secret.slice(6));
    // The secret is derived from the webhook key, never stored: the database holds no trace of it.
    s.ctx.db.$client.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    const file = Buffer.from(await Bun.file(s.ctx.config.databasePath).arrayBuffer()).toString("latin1");
    expect(file).toContain(created.id);
    expect(file).not.toContain(created.secret.slice(6));
    expect(file).not.toContain(Buffer.from(created.secret.slice(6), "base64").toString("latin1"));
    expect(Number.isNaN(Date.parse(list.body.webhooks[0].createdAt))).toBe(false);

    for (const body of [
      {},
      { url: "ftp://x.example/" },
      { url: "not a url" },
      { url: "http://u:p@x.example/" },
      { url: "http://x.example/", types: [] },
      { url: "http://x.example/", types: ["mint"] },
    ]) {
      const r = await s.json("/api/admin/webhooks", { method: "POST", headers: ADMIN, body: JSON.stringify(body) });
      expect(r.status).toBe(400);
      expect(Object.keys(r.body)).toEqual(["error"]);
    }
    expect((await s.json("/api/admin/webhooks", { method: "POST", headers: ADMIN, body: "[1" })).status).toBe(400);

    expect((await s.json(`/api/admin/webhooks/${created.id}`, { method: "DELETE", headers: ADMIN })).body).toEqual({
      ok: true,
    });
    expect((await s.json(`/api/admin/webhooks/${created.id}`, { method: "DELETE", headers: ADMIN })).status).toBe(404);
    expect((await s.json(`/api/admin/webhooks/${created.id}/deliveries`, { headers: ADMIN })).status).toBe(404);
    expect((await s.json("/api/admin/webhooks", { headers: ADMIN })).body).toEqual({ webhooks: [] });
  });

  test("loopback, private and link-local destinations are refused unless WEBHOOKS_ALLOW_PRIVATE=1", async () => {
    const s = fresh({ WEBHOOKS_ALLOW_PRIVATE: "0" });
    for (const url of [
      "http://127.0.0.1/",
      "http://localhost:8080/",
      "http://10.1.2.3/",
      "http://192.168.0.10/",
      "http://172.16.5.4/",
      "http://169.254.169.254/latest",
      "http://[::1]/",
      "http://[::ffff:127.0.0.1]/",
      "http://0.0.0.0/",
      "http://100.64.0.1/",
    ]) {
      const r = await s.json("/api/admin/webhooks", { method: "POST", headers: ADMIN, body: JSON.stringify({ url }) });
      expect({ url, status: r.status }).toEqual({ url, status: 400 });
      expect(r.body.error).toContain("private or loopback");
    }
    // A public address is accepted (nothing is sent at registration).
    const ok = await s.json("/api/admin/webhooks", {
      method: "POST",
      headers: ADMIN,
      body: JSON.stringify({ url: "https://93.184.215.14/hook" }),
    });
    expect(ok.status).toBe(200);
  });
});

describe("webhook delivery", () => {
  test("each event is a signed POST of {type, at, data} that the standardwebhooks package verifies", async () => {
    const s = fresh();
    const r = receiver();
    const hook = await register(s, r.url);
    dispatcher(s);
    const t = launch(s.ctx.db, { launchedAtMs: T0, symbol: "SIG" });
    sweep(s.ctx.db, t.tokenId, 9_000_000n, T0 + 60_000);
    const got = await r.waitFor(2);
    const feed = (await s.json("/api/ledger")).body.events as { type: string }[];
    const verifier = new Webhook(hook.secret);
    const payloads = got.map(
      (g) => verifier.verify(g.body, g.headers) as { type: string; at: string; data: { type: string; at: string } },
    );
    const byType = new Map(payloads.map((p) => [p.type, p]));
    for (const event of feed) {
      const p = byType.get(event.type)!;
      expect(Object.keys(p)).toEqual(["type", "at", "data"]);
      expect(p.data).toEqual(event as never);
      expect(p.at).toBe(p.data.at);
    }
    for (const g of got) {
      expect(g.headers["content-type"]).toStartWith("application/json");
      expect(Math.abs(Number(g.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(10);
    }
    expect(new Set(got.map((g) => g.headers["webhook-id"])).size).toBe(2);
    // A wrong secret or a changed body does not verify.
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 1).toString("base64")}`).verify(got[0]!.body, got[0]!.headers),
    ).toThrow();
    expect(() => verifier.verify(got[0]!.body.replace(/SIG|9000000/, "XXX"), got[0]!.headers)).toThrow();
    await until(async () => (await deliveries(s, hook.id)).every((d) => d.status === "delivered"));
  });

  test("types filter what an endpoint receives", async () => {
    const s = fresh();
    const r = receiver();
    await register(s, r.url, ["sweep"]);
    dispatcher(s);
    const t = launch(s.ctx.db, { launchedAtMs: T0 });
    sweep(s.ctx.db, t.tokenId, 9_000_000n, T0 + 1);
    const [only] = await r.waitFor(1);
    expect(JSON.parse(only!.body).type).toBe("sweep");
    await Bun.sleep(200);
    expect(r.received).toHaveLength(1);
  });

  test("retries with back-off through a failing (timeout, 500) then recovering receiver, same id and body", async () => {
    const s = fresh();
    const r = receiver();
    r.answers = ["hang", 500, 503, 200];
    const hook = await register(s, r.url);
    dispatcher(s, { timeoutMs: 300, retryBaseMs: 100 });
    launch(s.ctx.db, { launchedAtMs: T0, symbol: "RTY" });
    const got = await r.waitFor(4, 8_000);
    expect(new Set(got.map((g) => g.headers["webhook-id"])).size).toBe(1);
    expect(new Set(got.map((g) => g.body)).size).toBe(1);
    // Back-off doubles: the gaps after the timeout grow (100 ms, 200 ms, 400 ms nominal).
    const gap = (i: number) => got[i + 1]!.atMs - got[i]!.atMs;
    expect(gap(1)).toBeGreaterThanOrEqual(180);
    expect(gap(2)).toBeGreaterThanOrEqual(380);
    expect(gap(2)).toBeGreaterThan(gap(1));
    const verifier = new Webhook(hook.secret);
    for (const g of got) expect(() => verifier.verify(g.body, g.headers)).not.toThrow();
    await until(async () => (await deliveries(s, hook.id))[0]?.status === "delivered");
    const list = await deliveries(s, hook.id);
    expect(list.map((d) => [d.attempt, d.status, d.httpStatus])).toEqual([
      [4, "delivered", 200],
      [3, "failed", 503],
      [2, "failed", 500],
      [1, "failed", null],
    ]);
    expect(list[3]!.error).toContain("No answer within");
    expect(list.every((d) => d.eventId === JSON.parse(got[0]!.body).data.at.replace("Z", "000Z"))).toBe(true);
    // Recovered: the endpoint is not failing any more, and nothing more is sent.
    const hooks = (await s.json("/api/admin/webhooks", { headers: ADMIN })).body.webhooks;
    expect(hooks[0]).toMatchObject({ enabled: true, failingSince: null });
    await Bun.sleep(500);
    expect(r.received).toHaveLength(4);
  });

  test("at most N requests in flight per endpoint", async () => {
    const s = fresh();
    const r = receiver();
    r.delayMs = 100;
    await register(s, r.url);
    dispatcher(s, { maxInFlightPerEndpoint: 2 });
    for (let i = 0; i < 8; i++) launch(s.ctx.db, { launchedAtMs: T0 + i });
    await r.waitFor(8, 5_000);
    expect(r.maxInFlight).toBe(2);
  });

  test("a delivery failing for a day gives up; an endpoint failing for a day is disabled; replay revives it", async () => {
    const s = fresh();
    const r = receiver();
    r.answers = [500];
    let clock = Date.now();
    const hook = await register(s, r.url);
    const d = dispatcher(s, { now: () => clock, retryBaseMs: 3_600_000, retryDelayMaxMs: 6 * 3_600_000 });
    launch(s.ctx.db, { launchedAtMs: T0, symbol: "DAY" });
    await r.waitFor(1);
    await until(async () => (await deliveries(s, hook.id)).some((x) => x.status === "failed"));
    const first = (await s.json("/api/admin/webhooks", { headers: ADMIN })).body.webhooks[0];
    expect(first.failingSince).not.toBeNull();
    expect(first.enabled).toBe(true);
    // Walk the clock through the back-off (1 h, 2 h, 4 h, then 6 h capped): attempts at 0, 6, 12
    // and 18 hours; the next one would fall after the day, so the delivery gives up.
    for (let i = 2; i <= 4; i++) {
      clock += 6 * 3_600_000 + 1;
      d.wake();
      await r.waitFor(i);
      await until(async () => (await deliveries(s, hook.id)).filter((x) => x.status === "failed").length === i);
    }
    await until(async () => !(await deliveries(s, hook.id)).some((x) => x.status === "pending"));
    clock += 6 * 3_600_000 + 1;
    d.wake();
    await Bun.sleep(100);
    expect(r.received).toHaveLength(4);
    // Failing for 18 hours only: still enabled.
    expect((await s.json("/api/admin/webhooks", { headers: ADMIN })).body.webhooks[0].enabled).toBe(true);

    // The next failure, a day after the first one, disables the endpoint.
    launch(s.ctx.db, { launchedAtMs: T0 + 5, symbol: "LATE" });
    await r.waitFor(5);
    await until(
      async () => (await s.json("/api/admin/webhooks", { headers: ADMIN })).body.webhooks[0].enabled === false,
    );
    expect((await deliveries(s, hook.id)).some((x) => x.status === "pending")).toBe(false);
    // Disabled: new events are not queued for it, nothing is sent.
    launch(s.ctx.db, { launchedAtMs: T0 + 6, symbol: "OFF" });
    clock += 3_600_000;
    d.wake();
    await Bun.sleep(200);
    expect(r.received).toHaveLength(5);

    // The receiver is back: a replay re-enables the endpoint and sends both events.
    r.answers = [200];
    const replay = await s.json(`/api/admin/webhooks/${hook.id}/replay`, {
      method: "POST",
      headers: ADMIN,
      body: JSON.stringify({ since: new Date(T0).toISOString() }),
    });
    expect(replay.body).toEqual({ queued: 3 });
    d.wake();
    const got = await r.waitFor(8);
    expect(
      got
        .slice(5)
        .map((g) => JSON.parse(g.body).data.symbol)
        .sort(),
    ).toEqual(["DAY", "LATE", "OFF"]);
    expect((await s.json("/api/admin/webhooks", { headers: ADMIN })).body.webhooks[0]).toMatchObject({
      enabled: true,
      failingSince: null,
    });
  });

  test("replay re-sends under the same webhook-id and body; events from before the endpoint existed too", async () => {
    const s = fresh();
    const r = receiver();
    launch(s.ctx.db, { launchedAtMs: T0, symbol: "PRE" });
    const hook = await register(s, r.url);
    dispatcher(s);
    launch(s.ctx.db, { launchedAtMs: T0 + 1_000, symbol: "P1" });
    launch(s.ctx.db, { launchedAtMs: T0 + 2_000, symbol: "P2" });
    const firstTwo = await r.waitFor(2);
    expect(firstTwo.map((g) => JSON.parse(g.body).data.symbol).sort()).toEqual(["P1", "P2"]);
    await until(async () => (await deliveries(s, hook.id)).every((x) => x.status === "delivered"));

    const bad = await s.json(`/api/admin/webhooks/${hook.id}/replay`, {
      method: "POST",
      headers: ADMIN,
      body: JSON.stringify({ since: "soon" }),
    });
    expect(bad.status).toBe(400);
    const replay = await s.json(`/api/admin/webhooks/${hook.id}/replay`, {
      method: "POST",
      headers: ADMIN,
      body: JSON.stringify({ since: new Date(T0 + 500).toISOString() }),
    });
    expect(replay.body).toEqual({ queued: 2 });
    const again = (await r.waitFor(4)).slice(2);
    const byId = (list: typeof again) => new Map(list.map((g) => [g.headers["webhook-id"], g.body]));
    expect(byId(again)).toEqual(byId(firstTwo));
    // The receiver can see a body before the dispatcher records it delivered; a replay skips what is
    // still in flight, so it waits for the records as the first one did.
    await until(async () => (await deliveries(s, hook.id)).every((x) => x.status === "delivered"));

    const all = await s.json(`/api/admin/webhooks/${hook.id}/replay`, {
      method: "POST",
      headers: ADMIN,
      body: JSON.stringify({ since: new Date(T0 - 1).toISOString() }),
    });
    expect(all.body).toEqual({ queued: 3 });
    const third = (await r.waitFor(7)).slice(4);
    expect(third.map((g) => JSON.parse(g.body).data.symbol).sort()).toEqual(["P1", "P2", "PRE"]);
    const verifier = new Webhook(hook.secret);
    for (const g of third) verifier.verify(g.body, g.headers);
  });
});

describe("the outbox", () => {
  test("written in the event's transaction: a rolled-back event queues nothing", async () => {
    const s = fresh();
    const hook = await register(s, "http://127.0.0.1:9/hook");
    expect(() =>
      immediate(s.ctx.db, () => {
        appendFeedEvent(s.ctx.db, "payout", 999, T0);
        throw new Error("the money write failed");
      }),
    ).toThrow("the money write failed");
    expect(await deliveries(s, hook.id)).toEqual([]);
    launch(s.ctx.db, { launchedAtMs: T0 });
    expect((await deliveries(s, hook.id)).map((d) => [d.attempt, d.status])).toEqual([[1, "pending"]]);
  });

  test("an event committed before a crash is delivered once after the restart", async () => {
    const config = testConfig({ ADMIN_SECRET: "admin-secret-for-tests-0123456789abcdef" });
    cleanups.push(() => rmSync(config.dataDir, { recursive: true, force: true }));
    const r = receiver();
    const first = buildService(config);
    const created = await first.app.handle(
      new Request("http://localhost/api/admin/webhooks", {
        method: "POST",
        headers: ADMIN,
        body: JSON.stringify({ url: r.url }),
      }),
    );
    expect(created.status).toBe(400); // loopback refused without WEBHOOKS_ALLOW_PRIVATE
    const allowed = buildService({ ...config, webhooksAllowPrivate: true });
    await first.close();
    const hook = (await (
      await allowed.app.handle(
        new Request("http://localhost/api/admin/webhooks", {
          method: "POST",
          headers: ADMIN,
          body: JSON.stringify({ url: r.url }),
        }),
      )
    ).json()) as { id: string; secret: string };
    // Committed, and the process goes away before any dispatcher saw it.
    launch(allowed.ctx.db, { launchedAtMs: T0, symbol: "CRASH" });
    await allowed.close();
    expect(r.received).toHaveLength(0);

    const restarted = buildService({ ...config, webhooksAllowPrivate: true });
    cleanups.push(() => restarted.close());
    const d = new WebhookDispatcher(restarted.ctx.db, {
      signingKey: webhookSigningKey(restarted.ctx.config),
      allowPrivate: true,
      tickMs: 20,
    }).start();
    cleanups.push(() => d.stop());
    const [got] = await r.waitFor(1);
    expect((new Webhook(hook.secret).verify(got!.body, got!.headers) as { data: { symbol: string } }).data.symbol).toBe(
      "CRASH",
    );
    await Bun.sleep(300);
    expect(r.received).toHaveLength(1);
  });
});
