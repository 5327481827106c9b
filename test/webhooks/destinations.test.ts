/**
 * Where a webhook may be delivered (issue 43, finding 9) and the id it carries (issue 46, item 5):
 *
 * - only global unicast addresses: IPv4-compatible IPv6 such as `[::7f00:1]` is refused like
 *   loopback;
 * - a delivery connects to the address that was checked, never to whatever the name resolves to a
 *   moment later (DNS rebinding), while the Host header and TLS name stay the URL's;
 * - the webhook-id is the event's id: the same string as its SSE id, the deliveries route's
 *   `eventId` and the `/api/ledger` cursor, verified with the `standardwebhooks` package.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { isPublicAddress } from "../../src/webhooks/destination";
import { WebhookDispatcher, type DispatcherOptions } from "../../src/webhooks/dispatcher";
import { webhookSigningKey } from "../../src/webhooks/key";
import { launch, sweep, T0 } from "../helpers/read-world";
import { testService, type TestService } from "../helpers/service";
import { SseReader } from "../ledger/sse";
import { Receiver } from "./receiver";

const SECRET = "admin-secret-for-tests-0123456789abcdef";
const ADMIN = { authorization: `Bearer ${SECRET}`, "content-type": "application/json" };
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function fresh(env: Record<string, string> = {}): TestService {
  const s = testService({ ADMIN_SECRET: SECRET, WEBHOOKS_ALLOW_PRIVATE: "1", ...env });
  cleanups.push(() => s.cleanup());
  return s;
}

function dispatcher(s: TestService, options: Partial<DispatcherOptions> = {}): WebhookDispatcher {
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

async function register(s: TestService, url: string) {
  const created = await s.json("/api/admin/webhooks", {
    method: "POST",
    headers: ADMIN,
    body: JSON.stringify({ url }),
  });
  expect(created.status).toBe(200);
  return created.body as { id: string; secret: string };
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await Bun.sleep(10);
  }
}

describe("only global unicast destinations", () => {
  test("IPv4-compatible and other non-global IPv6 addresses are refused at registration", async () => {
    const s = fresh({ WEBHOOKS_ALLOW_PRIVATE: "0" });
    for (const url of [
      "http://[::7f00:1]/",
      "http://[::a00:1]/",
      "http://[::a9fe:a9fe]/latest",
      "http://[100::1]/",
      "http://[2001:db8::1]/",
      "http://[64:ff9b::a00:1]/",
      "http://[fe80::1]/",
      "http://[fc00::1]/",
    ]) {
      const r = await s.json("/api/admin/webhooks", { method: "POST", headers: ADMIN, body: JSON.stringify({ url }) });
      expect({ url, status: r.status }).toEqual({ url, status: 400 });
      expect(r.body.error).toContain("private or loopback");
    }
    for (const url of ["https://[2606:4700:4700::1111]/hook", "https://93.184.215.14/hook"]) {
      const r = await s.json("/api/admin/webhooks", { method: "POST", headers: ADMIN, body: JSON.stringify({ url }) });
      expect({ url, status: r.status }).toEqual({ url, status: 200 });
    }
  });

  test("isPublicAddress: IPv6 only within 2000::/3, IPv4-mapped judged as its IPv4", () => {
    expect(isPublicAddress("::7f00:1")).toBe(false);
    expect(isPublicAddress("::ffff:127.0.0.1")).toBe(false);
    expect(isPublicAddress("::ffff:93.184.215.14")).toBe(true);
    expect(isPublicAddress("2606:4700:4700::1111")).toBe(true);
    expect(isPublicAddress("93.184.215.14")).toBe(true);
  });
});

describe("a delivery connects to the address that was checked", () => {
  test("a name that answers a public address to the check and loopback later is still sent to the public one", async () => {
    const s = fresh({ WEBHOOKS_ALLOW_PRIVATE: "0" });
    const hook = await register(s, "https://93.184.215.14/hook");
    // The stored URL names a host; its resolver rebinds after the first answer.
    s.ctx.db.$client
      .query("UPDATE webhooks SET url = ? WHERE id = ?")
      .run("https://hooks.example:8443/in?x=1", hook.id);
    let lookups = 0;
    const resolve = async () => (lookups++ === 0 ? [{ address: "93.184.215.14" }] : [{ address: "127.0.0.1" }]);
    const seen: { url: string; init: RequestInit & { tls?: { serverName?: string } } }[] = [];
    dispatcher(s, {
      allowPrivate: false,
      resolve,
      fetch: async (url, init) => {
        seen.push({ url, init });
        return new Response("ok", { status: 200 });
      },
    });
    launch(s.ctx.db, { launchedAtMs: T0 });
    await until(() => seen.length === 1);
    const sent = seen[0]!;
    expect(new URL(sent.url).hostname).toBe("93.184.215.14");
    expect(new URL(sent.url).port).toBe("8443");
    expect(new URL(sent.url).pathname + new URL(sent.url).search).toBe("/in?x=1");
    expect(new Headers(sent.init.headers).get("host")).toBe("hooks.example:8443");
    // TLS still names, and checks the certificate against, the URL's host.
    expect(sent.init.tls?.serverName).toBe("hooks.example");
    expect(lookups).toBe(1);
  });

  test("the receiver gets the POST at the resolved address, with the URL's own Host", async () => {
    const s = fresh();
    const r = new Receiver().start();
    cleanups.push(() => r.stop());
    const port = new URL(r.url).port;
    await register(s, `http://hook.invalid:${port}/hook`);
    dispatcher(s, { resolve: async () => [{ address: "127.0.0.1" }] });
    launch(s.ctx.db, { launchedAtMs: T0 });
    const [got] = await r.waitFor(1);
    expect(got!.headers.host).toBe(`hook.invalid:${port}`);
  });
});

describe("one event id everywhere", () => {
  test("a delivery's webhook-id is the event's SSE id, its deliveries eventId and its /api/ledger cursor", async () => {
    const s = fresh();
    const r = new Receiver().start();
    cleanups.push(() => r.stop());
    const hook = await register(s, r.url);
    const opened = await s.call("/api/ledger/stream");
    expect(opened.status).toBe(200);
    const sse = new SseReader(opened);
    cleanups.push(() => sse.close());
    dispatcher(s);
    const t = launch(s.ctx.db, { launchedAtMs: T0, symbol: "IDS" });
    sweep(s.ctx.db, t.tokenId, 9_000_000n, T0 + 60_000);

    const frames = await sse.events(2);
    const got = await r.waitFor(2);
    const verifier = new Webhook(hook.secret);
    const byType = new Map(
      got.map((g) => {
        const payload = verifier.verify(g.body, g.headers) as { type: string };
        return [payload.type, g.headers["webhook-id"]!];
      }),
    );
    for (const frame of frames) expect(byType.get(frame.event!)).toBe(frame.id!);

    await until(async () => {
      const d = await s.json(`/api/admin/webhooks/${hook.id}/deliveries`, { headers: ADMIN });
      return (
        d.body.deliveries.length === 2 && d.body.deliveries.every((x: { status: string }) => x.status === "delivered")
      );
    });
    const deliveries = (await s.json(`/api/admin/webhooks/${hook.id}/deliveries`, { headers: ADMIN })).body.deliveries;
    expect(new Set(deliveries.map((d: { eventId: string }) => d.eventId))).toEqual(new Set(byType.values()));

    // The ledger's cursor: the newest event's id is the cursor that pages past it.
    const page = (await s.json("/api/ledger?limit=1")).body;
    expect(page.nextBefore).toBe(byType.get(page.events[0].type));
  });
});
