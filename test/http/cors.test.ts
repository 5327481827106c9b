/**
 * Issue 64, item 1, through `app.handle`: the public reads and the stream answer any origin
 * (`Access-Control-Allow-Origin: *`, never credentials), their refusals included, and grant a
 * preflight; the session, launch and operator routes carry no CORS header and their preflight is
 * not granted. The browser's side of it is test/web/cross-origin.test.ts.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { isPublicRead } from "../../src/http/cors";
import { RateLimiter } from "../../src/http/rate-limit";
import { fakeChain, launch, signIn, sweep, T0 } from "../helpers/read-world";
import { type Json, type TestService, testService } from "../helpers/service";

let svc: TestService | null = null;
afterEach(async () => {
  await svc?.cleanup();
  svc = null;
});

const ORIGIN = "https://dashboard.example";
const ADMIN = "admin-secret-for-cors-tests-0123456789abcdef";
const CRON = "cron-secret-for-cors-tests-0123456789abcdefg";
const METRICS = "metrics-secret-for-cors-tests-0123456789abc";

function seeded(): { svc: TestService; mint: string } {
  const s = testService(
    { ADMIN_SECRET: ADMIN, CRON_SECRET: CRON, METRICS_SECRET: METRICS },
    { chain: fakeChain({ treasuryLamports: 10n }) },
  );
  const { mint, tokenId } = launch(s.ctx.db, {
    image: true,
    recipients: [{ handle: "alice", bps: 10_000 }],
    launchedAtMs: T0,
  });
  sweep(s.ctx.db, tokenId, 50_000_000n, T0 + 1_000);
  signIn(s.ctx.db, "u-alice", "alice", T0 + 2_000);
  return { svc: s, mint };
}

/** One request of each public read (the paths of SPEC and of the public OpenAPI document). */
const publicReads = (mint: string) => [
  "/api/stats",
  "/api/tokens",
  `/api/tokens/${mint}`,
  `/api/tokens/${mint}/history`,
  `/api/token-images/${mint}`,
  "/api/idp/alice",
  "/api/idp/alice/history",
  "/api/ledger",
  "/api/launch/config",
  "/api/ca",
  "/api/proof",
  "/api/proof/history",
  "/api/cron/health",
  "/api/openapi.json",
];

function expectOpen(response: Response, label: string): void {
  expect({ label, allow: response.headers.get("access-control-allow-origin") }).toEqual({ label, allow: "*" });
  expect(response.headers.get("access-control-allow-credentials")).toBeNull();
  const exposed = (response.headers.get("access-control-expose-headers") ?? "").split(/,\s*/);
  for (const name of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "retry-after", "x-request-id"])
    expect(exposed).toContain(name);
}

function expectSameOrigin(response: Response, label: string): void {
  const cors = [...response.headers.keys()].filter((name) => name.startsWith("access-control-"));
  expect({ label, cors }).toEqual({ label, cors: [] });
}

describe("the public reads answer any origin", () => {
  test("every public read, success and refusal alike, carries Access-Control-Allow-Origin: * and no credentials", async () => {
    const world = seeded();
    svc = world.svc;
    for (const path of publicReads(world.mint)) {
      const response = await svc.call(path, { headers: { origin: ORIGIN } });
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
      expectOpen(response, path);
      await response.arrayBuffer();
    }
    // The page must be able to read why it was refused: 400 and 404 in the envelope, CORS included.
    for (const [path, status] of [
      ["/api/ledger?before=yesterday", 400],
      ["/api/tokens?limit=0", 400],
      ["/api/tokens/nope", 400],
      [`/api/tokens/${"1".repeat(44)}`, 404],
      ["/api/idp/nobody_here", 404],
    ] as const) {
      const response = await svc.call(path, { headers: { origin: ORIGIN } });
      expect({ path, status: response.status }).toEqual({ path, status });
      expect(Object.keys(await response.json())).toEqual(["error"]);
      expectOpen(response, path);
    }
    const head = await svc.call("/api/stats", { method: "HEAD", headers: { origin: ORIGIN } });
    expect(head.status).toBe(200);
    expectOpen(head, "HEAD /api/stats");
  });

  test("a 429 of a public read carries them too, with retry-after readable by the page", async () => {
    svc = testService();
    svc.ctx.limiter = new RateLimiter({ now: () => Date.UTC(2026, 5, 1, 12, 0, 30) });
    for (let i = 0; i < 120; i++) await svc.call("/api/stats");
    const limited = await svc.call("/api/stats", { headers: { origin: ORIGIN } });
    expect(limited.status).toBe(429);
    expect(Object.keys(await limited.json())).toEqual(["error"]);
    expectOpen(limited, "429 /api/stats");
    expect(limited.headers.get("retry-after")).toBe("30");
  });

  test("the live stream answers any origin", async () => {
    svc = testService();
    const stream = await svc.call("/api/ledger/stream", { headers: { origin: ORIGIN } });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toStartWith("text/event-stream");
    expectOpen(stream, "/api/ledger/stream");
    await stream.body?.cancel();
    const refused = await svc.call("/api/ledger/stream", { headers: { origin: ORIGIN, "last-event-id": "nonsense" } });
    expect(refused.status).toBe(400);
    expectOpen(refused, "400 /api/ledger/stream");
  });

  test("a preflight of a public read is granted: GET and HEAD, the headers a reader sends, no credentials", async () => {
    const world = seeded();
    svc = world.svc;
    for (const path of [...publicReads(world.mint), "/api/ledger/stream"]) {
      const response = await svc.call(path, {
        method: "OPTIONS",
        headers: {
          origin: ORIGIN,
          "access-control-request-method": "GET",
          "access-control-request-headers": "last-event-id",
        },
      });
      expect({ path, status: response.status }).toEqual({ path, status: 204 });
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      expect(response.headers.get("access-control-allow-credentials")).toBeNull();
      expect(response.headers.get("access-control-allow-methods")).toBe("GET, HEAD, OPTIONS");
      expect(response.headers.get("access-control-allow-headers")).toContain("last-event-id");
      expect(Number(response.headers.get("access-control-max-age"))).toBeGreaterThan(0);
      // A preflight is not a read: it costs nothing of the route's limit.
      expect(response.headers.get("x-ratelimit-limit")).toBeNull();
    }
  });
});

describe("the routes of the session cookie, the launch and the operator stay same-origin", () => {
  const sameOrigin: [method: string, path: string, headers?: Record<string, string>][] = [
    ["GET", "/api/me"],
    ["GET", "/api/me/tokens"],
    ["GET", "/api/me/payouts"],
    ["GET", "/api/me/proof"],
    ["GET", "/api/me/export.csv"],
    ["GET", "/api/auth/idp/start"],
    ["POST", "/api/auth/logout"],
    ["POST", "/api/auth/dev-login"],
    ["POST", "/api/claim"],
    ["POST", "/api/routing"],
    ["POST", "/api/launch/intent"],
    ["POST", "/api/launch/confirm"],
    ["POST", "/api/rpc"],
    ["GET", "/api/admin/audit", { authorization: `Bearer ${ADMIN}` }],
    ["GET", "/api/admin/session"],
    ["POST", "/api/cron/sweep", { authorization: `Bearer ${CRON}` }],
    ["GET", "/metrics", { authorization: `Bearer ${METRICS}` }],
    ["GET", "/api/openapi-operator.json"],
    ["GET", "/"],
  ];

  test("no CORS header on their answers, whatever the Origin", async () => {
    svc = seeded().svc;
    for (const [method, path, headers = {}] of sameOrigin) {
      const response = await svc.call(path, {
        method,
        headers: { origin: ORIGIN, "content-type": "application/json", ...headers },
        ...(method === "POST" ? { body: "{}" } : {}),
      });
      expectSameOrigin(response, `${method} ${path} (${response.status})`);
      await response.arrayBuffer();
    }
  });

  test("their preflight is not granted: a 404 in the envelope, no CORS header", async () => {
    svc = seeded().svc;
    for (const [method, path] of sameOrigin) {
      const response = await svc.call(path, {
        method: "OPTIONS",
        headers: {
          origin: ORIGIN,
          "access-control-request-method": method,
          "access-control-request-headers": "content-type",
        },
      });
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      expect(Object.keys(await response.json())).toEqual(["error"]);
      expectSameOrigin(response, `OPTIONS ${path}`);
    }
  });
});

describe("which routes are open", () => {
  test("exactly the GET routes of the public document (and the document itself) among every route the app serves", async () => {
    svc = testService();
    const doc: Json = (await svc.json("/api/openapi.json")).body;
    const documentedReads = new Set(
      Object.entries<Json>(doc.paths)
        .filter(([, item]) => item.get)
        .map(([path]) => path.replace(/\{([^}]+)\}/g, ":$1")),
    );
    documentedReads.add("/api/openapi.json");
    const sample = (pattern: string) =>
      pattern.replace(/:mint/g, "So11111111111111111111111111111111111111112").replace(/:[A-Za-z]+/g, "x");
    const served = (svc.app.routes as { method: string; path: string }[]).filter((r) => r.method === "GET");
    const open = served.filter((r) => isPublicRead(sample(r.path))).map((r) => r.path);
    expect(open.sort()).toEqual([...documentedReads].sort());
    // No POST route of any kind is open.
    const posts = (svc.app.routes as { method: string; path: string }[]).filter((r) => r.method !== "GET");
    for (const route of posts) {
      const response = await svc.call(sample(route.path), { method: "OPTIONS", headers: { origin: ORIGIN } });
      expectSameOrigin(response, `OPTIONS ${route.path}`);
    }
  });
});
