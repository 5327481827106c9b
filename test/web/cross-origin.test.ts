/**
 * Issue 64, item 1, in Chromium: a dashboard served from another origin (another loopback host
 * and port) reads the public API with fetch, follows the live ledger with EventSource, and reads
 * a refusal's sentence; a cross-origin request to a route of the session cookie is blocked by the
 * browser, and one that needs a preflight never reaches the service.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createSession, sessionCookieName } from "../../src/auth/sessions";
import { launch, signIn, sweep, T0 } from "../helpers/read-world";
import { type TestService, testService } from "../helpers/service";
import { useBrowser } from "./browser";

const browser = useBrowser();

let svc: TestService;
let api: ReturnType<typeof Bun.serve>;
let dashboard: ReturnType<typeof Bun.serve>;
let apiUrl: string;
let dashboardUrl: string;
/** Every request that reached the service, as `METHOD /path`. */
const arrived: string[] = [];

beforeAll(() => {
  api = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    // The stream is idle between heartbeats.
    idleTimeout: 0,
    fetch(request) {
      arrived.push(`${request.method} ${new URL(request.url).pathname}`);
      return svc.app.handle(request);
    },
  });
  apiUrl = `http://127.0.0.1:${api.port}`;
  svc = testService({ PUBLIC_URL: apiUrl });
  const token = launch(svc.ctx.db, {
    symbol: "DASH",
    recipients: [{ handle: "alice", bps: 10_000 }],
    launchedAtMs: T0,
  });
  sweep(svc.ctx.db, token.tokenId, 80_000_000n, T0 + 1_000);
  signIn(svc.ctx.db, "u-alice", "alice", T0 + 2_000);
  // Another origin: another host name and another port.
  dashboard = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () =>
      new Response("<!doctype html><title>dashboard</title><h1>Fees dashboard</h1>", {
        headers: { "content-type": "text/html; charset=utf-8" },
      }),
  });
  dashboardUrl = `http://localhost:${dashboard.port}/`;
});

afterAll(async () => {
  await api?.stop(true);
  await dashboard?.stop(true);
  await svc?.cleanup();
});

describe("a dashboard on another origin", () => {
  test("reads the public API with fetch: bodies, exposed headers, a preflighted request and a refusal", async () => {
    const page = await browser.newPage();
    await page.goto(dashboardUrl);
    expect(new URL(page.url()).origin).not.toBe(apiUrl);
    const read = await page.evaluate(async (base) => {
      const stats = await fetch(`${base}/api/stats`);
      const tokens = await fetch(`${base}/api/tokens?limit=5`);
      const ledger = await fetch(`${base}/api/ledger?limit=5`);
      // A header outside the safelist makes the browser ask first (a preflight).
      const withId = await fetch(`${base}/api/idp/alice`, { headers: { "x-request-id": "dashboard-1" } });
      const refused = await fetch(`${base}/api/ledger?before=soon`);
      return {
        stats: await stats.json(),
        tokenSymbols: ((await tokens.json()).tokens as { symbol: string }[]).map((t) => t.symbol),
        remaining: tokens.headers.get("x-ratelimit-remaining"),
        ledgerTypes: ((await ledger.json()).events as { type: string }[]).map((e) => e.type),
        withId: { status: withId.status, requestId: withId.headers.get("x-request-id"), body: await withId.json() },
        refused: { status: refused.status, body: await refused.json() },
      };
    }, apiUrl);
    const sameStats = (await svc.json("/api/stats")).body;
    expect({ ...read.stats, updatedAt: null }).toEqual({ ...sameStats, updatedAt: null });
    expect(read.stats.tokens).toBe(1);
    expect(read.tokenSymbols).toEqual(["DASH"]);
    expect(Number(read.remaining)).toBeGreaterThan(0);
    expect(read.ledgerTypes).toEqual(["sweep", "launch"]);
    expect(read.withId.status).toBe(200);
    expect(read.withId.requestId).toBe("dashboard-1");
    expect(read.withId.body.handle).toBe("alice");
    expect(arrived).toContain("OPTIONS /api/idp/alice");
    expect(read.refused.status).toBe(400);
    expect(read.refused.body).toEqual({ error: expect.any(String) });
    await page.close();
  });

  test("follows the live ledger with EventSource", async () => {
    const page = await browser.newPage();
    await page.goto(dashboardUrl);
    await page.evaluate((base) => {
      const w = window as unknown as { opened: boolean; failed: number; launches: { id: string; symbol: string }[] };
      w.opened = false;
      w.failed = 0;
      w.launches = [];
      const source = new EventSource(`${base}/api/ledger/stream`);
      source.onopen = () => {
        w.opened = true;
      };
      source.onerror = () => {
        w.failed++;
      };
      source.addEventListener("launch", (event) => {
        const message = event as MessageEvent<string>;
        w.launches.push({ id: message.lastEventId, symbol: JSON.parse(message.data).symbol });
      });
    }, apiUrl);
    await page.waitForFunction(() => (window as unknown as { opened: boolean }).opened, null, { timeout: 15_000 });
    launch(svc.ctx.db, { symbol: "LIVE", recipients: [{ handle: "bob", bps: 10_000 }], launchedAtMs: T0 + 60_000 });
    await page.waitForFunction(() => (window as unknown as { launches: unknown[] }).launches.length > 0, null, {
      timeout: 15_000,
    });
    const seen = await page.evaluate(
      () => (window as unknown as { failed: number; launches: { id: string; symbol: string }[] }).launches,
    );
    expect(seen.map((l) => l.symbol)).toEqual(["LIVE"]);
    // The id is the cursor /api/ledger pages from.
    expect(seen[0]!.id).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect(await page.evaluate(() => (window as unknown as { failed: number }).failed)).toBe(0);
    await page.close();
  });

  test("cannot read a route of the session cookie, and a claim needing a preflight never reaches the service", async () => {
    const session = createSession(svc.ctx.db, "u-alice", Date.now());
    await browser.context.addCookies([
      { name: sessionCookieName(svc.ctx.config), value: session.token, url: apiUrl, httpOnly: true, sameSite: "Lax" },
    ]);
    const page = await browser.newPage();
    // The service's own page reads the session: the cookie is there.
    await page.goto(`${apiUrl}/api/me`);
    expect(JSON.parse((await page.textContent("body")) ?? "{}").signedIn).toBe(true);
    await page.goto(dashboardUrl);
    const before = arrived.length;
    const outcome = await page.evaluate(async (base) => {
      const attempt = async (run: () => Promise<Response>) => {
        try {
          const response = await run();
          return `read ${response.status}`;
        } catch (error) {
          return `blocked: ${(error as Error).name}`;
        }
      };
      return {
        me: await attempt(() => fetch(`${base}/api/me`, { credentials: "include" })),
        meNoCookie: await attempt(() => fetch(`${base}/api/me`)),
        claim: await attempt(() =>
          fetch(`${base}/api/claim`, {
            method: "POST",
            credentials: "include",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ wallet: "11111111111111111111111111111111" }),
          }),
        ),
        rpc: await attempt(() =>
          fetch(`${base}/api/rpc`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getGenesisHash" }),
          }),
        ),
      };
    }, apiUrl);
    expect(outcome).toEqual({
      me: "blocked: TypeError",
      meNoCookie: "blocked: TypeError",
      claim: "blocked: TypeError",
      rpc: "blocked: TypeError",
    });
    const reached = arrived.slice(before);
    expect(reached).toContain("OPTIONS /api/claim");
    expect(reached).not.toContain("POST /api/claim");
    expect(reached).not.toContain("POST /api/rpc");
    await page.close();
  });
});
