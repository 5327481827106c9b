/** SPEC Limits and Errors across every public read: rate-limit headers, 429s, Cache-Control, the error envelope. */
import { afterEach, describe, expect, test } from "bun:test";
import { RateLimiter } from "../../src/http/rate-limit";
import { testService, type TestService } from "../helpers/service";
import { address, fakeChain, launch, setPlatformToken, sweep, T0 } from "../helpers/read-world";

let svc: TestService;
afterEach(async () => svc && (await svc.cleanup()));

const PUBLIC_READ = "public, max-age=0, s-maxage=10, stale-while-revalidate=30";

interface Route {
  name: string;
  limit: number;
  cache: string;
  ok: (m: string) => string;
  /** a request the route refuses (400/404/503) */
  bad: string;
  badStatus: number;
}

const ROUTES: Route[] = [
  {
    name: "tokens",
    limit: 120,
    cache: PUBLIC_READ,
    ok: () => "/api/tokens",
    bad: "/api/tokens?limit=0",
    badStatus: 400,
  },
  {
    name: "token",
    limit: 60,
    cache: PUBLIC_READ,
    ok: (m) => `/api/tokens/${m}`,
    bad: "/api/tokens/nope",
    badStatus: 400,
  },
  { name: "idp", limit: 120, cache: PUBLIC_READ, ok: () => "/api/idp/alice", bad: "/api/idp/nobody", badStatus: 404 },
  { name: "stats", limit: 120, cache: PUBLIC_READ, ok: () => "/api/stats", bad: "", badStatus: 0 },
  {
    name: "ledger",
    limit: 120,
    cache: "public, max-age=0, s-maxage=5, stale-while-revalidate=15",
    ok: () => "/api/ledger",
    bad: "/api/ledger?before=x",
    badStatus: 400,
  },
  {
    name: "proof",
    limit: 60,
    cache: "public, max-age=0, s-maxage=15, stale-while-revalidate=45",
    ok: () => "/api/proof",
    bad: "",
    badStatus: 0,
  },
  {
    name: "token-images",
    limit: 600,
    cache: "public, max-age=31536000, immutable",
    ok: (m) => `/api/token-images/${m}`,
    bad: `/api/token-images/${"1".repeat(44)}`,
    badStatus: 404,
  },
  { name: "launch-config", limit: 60, cache: PUBLIC_READ, ok: () => "/api/launch/config", bad: "", badStatus: 0 },
];

function freezeLimiter(s: TestService, nowMs: number) {
  // A fixed clock: a minute boundary in the middle of the test must not reset the window.
  s.ctx.limiter = new RateLimiter({ now: () => nowMs });
}

describe("rate limits and cache headers of the public reads", () => {
  for (const route of ROUTES) {
    test(`${route.name}: ${route.limit} a minute per IP, headers on success and failure, 429 with retry-after`, async () => {
      svc = testService({}, { chain: fakeChain({ treasuryLamports: 10n }) });
      const nowMs = Date.UTC(2026, 5, 1, 12, 0, 30);
      freezeLimiter(svc, nowMs);
      const { mint } = launch(svc.ctx.db, {
        image: true,
        recipients: [{ handle: "alice", bps: 10_000 }],
        launchedAtMs: T0,
      });
      const resetSec = String(Date.UTC(2026, 5, 1, 12, 1, 0) / 1000);

      const ok = await svc.call(route.ok(mint));
      expect(ok.status).toBe(200);
      expect(ok.headers.get("cache-control")).toBe(route.cache);
      expect(ok.headers.get("x-ratelimit-limit")).toBe(String(route.limit));
      expect(ok.headers.get("x-ratelimit-remaining")).toBe(String(route.limit - 1));
      expect(ok.headers.get("x-ratelimit-reset")).toBe(resetSec);
      expect(ok.headers.get("retry-after")).toBeNull();
      let used = 1;
      if (route.bad) {
        const bad = await svc.call(route.bad);
        used++;
        expect(bad.status).toBe(route.badStatus);
        expect(await bad.json()).toEqual({ error: expect.any(String) });
        expect(bad.headers.get("x-ratelimit-limit")).toBe(String(route.limit));
        expect(bad.headers.get("x-ratelimit-remaining")).toBe(String(route.limit - 2));
        expect(bad.headers.get("x-ratelimit-reset")).toBe(resetSec);
        expect(bad.headers.get("retry-after")).toBeNull();
        // An error is never stored by a shared cache.
        expect(bad.headers.get("cache-control")).toBe("no-store");
      }
      for (; used < route.limit; used++) expect((await svc.call(route.ok(mint))).status).toBe(200);
      const limited = await svc.call(route.ok(mint));
      expect(limited.status).toBe(429);
      expect(await limited.json()).toEqual({ error: expect.any(String) });
      expect(limited.headers.get("retry-after")).toBe("30");
      expect(limited.headers.get("x-ratelimit-limit")).toBe(String(route.limit));
      expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
      expect(limited.headers.get("x-ratelimit-reset")).toBe(resetSec);
      // Another client IP has its own window.
      const other = await svc.call(route.ok(mint), { ip: "198.51.100.9" });
      expect(other.status).toBe(200);
      expect(other.headers.get("x-ratelimit-remaining")).toBe(String(route.limit - 1));
    });
  }

  test("the next fixed window starts afresh", async () => {
    svc = testService();
    let nowMs = Date.UTC(2026, 5, 1, 12, 0, 59, 500);
    svc.ctx.limiter = new RateLimiter({ now: () => nowMs });
    for (let i = 0; i < 120; i++) await svc.call("/api/stats");
    expect((await svc.call("/api/stats")).status).toBe(429);
    nowMs += 600;
    const fresh = await svc.call("/api/stats");
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get("x-ratelimit-remaining")).toBe("119");
  });

  test("RATE_LIMIT=off lifts every per-IP limit and its headers", async () => {
    svc = testService({ RATE_LIMIT: "off" });
    for (let i = 0; i < 130; i++) {
      const r = await svc.call("/api/tokens");
      expect(r.status).toBe(200);
      expect(r.headers.get("x-ratelimit-limit")).toBeNull();
    }
    expect((await svc.call("/api/tokens")).headers.get("cache-control")).toBe(PUBLIC_READ);
  });

  test("a session cookie changes nothing on a public read, so a shared cache may store it", async () => {
    svc = testService();
    launch(svc.ctx.db, { launchedAtMs: T0 });
    const anonymous = await svc.json("/api/tokens");
    const withCookie = await svc.json("/api/tokens", { headers: { cookie: "session=abc" } });
    expect(withCookie.body).toEqual(anonymous.body);
    expect(withCookie.headers.get("cache-control")).toBe(PUBLIC_READ);
    expect(withCookie.headers.get("set-cookie")).toBeNull();
  });

  test("an unexpected failure is a 500 with a plain sentence: no stack, SQL or setting names", async () => {
    svc = testService();
    svc.ctx.db.$client.exec("DROP TRIGGER tokens_search_insert");
    svc.ctx.db.$client.exec("DROP TABLE tokens_search");
    const { status, body, headers } = await svc.json("/api/tokens?q=pepe");
    expect(status).toBe(500);
    expect(Object.keys(body)).toEqual(["error"]);
    expect(body.error).not.toMatch(/SELECT|sqlite|tokens_search|stack|at \/|RATE_LIMIT|DATA_DIR/i);
    expect(headers.get("x-ratelimit-limit")).toBe("120");
  });

  test("reads outside the Limits table are not limited", async () => {
    svc = testService();
    for (const path of ["/api/ca", "/api/cron/health", "/api/openapi.json"]) {
      const r = await svc.call(path);
      expect(r.status).toBe(200);
      expect(r.headers.get("x-ratelimit-limit")).toBeNull();
    }
  });
});

describe("GET /api/proof", () => {
  test("503 when no chain is configured, when the node fails and when it is too slow", async () => {
    svc = testService();
    const none = await svc.json("/api/proof");
    expect(none.status).toBe(503);
    expect(Object.keys(none.body)).toEqual(["error"]);
    await svc.cleanup();
    svc = testService(
      {},
      {
        chain: fakeChain({
          treasuryLamports: async () => {
            throw new Error("429 from https://rpc.example/?api-key=SECRET");
          },
        }),
      },
    );
    const failing = await svc.json("/api/proof");
    expect(failing.status).toBe(503);
    expect(failing.body.error).not.toContain("SECRET");
    expect(failing.headers.get("x-ratelimit-limit")).toBe("60");
    await svc.cleanup();
    svc = testService({}, { chain: fakeChain({ treasuryLamports: () => new Promise(() => {}) }) });
    const started = performance.now();
    expect((await svc.json("/api/proof")).status).toBe(503);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  test("checks the treasury against what the books owe", async () => {
    const chain = fakeChain({ treasuryLamports: 1_000n });
    svc = testService({}, { chain });
    const { tokenId } = launch(svc.ctx.db, { launchedAtMs: T0 });
    sweep(svc.ctx.db, tokenId, 10_000n, T0 + 1);
    const { status, body, headers } = await svc.json("/api/proof");
    expect(status).toBe(200);
    expect(headers.get("cache-control")).toBe("public, max-age=0, s-maxage=15, stale-while-revalidate=45");
    expect(body).toEqual({
      treasury: chain.treasury.publicKey.toBase58(),
      treasuryLamports: "1000",
      owedLamports: "9000",
      surplusLamports: "-8000",
      solvent: false,
      checkedAt: expect.any(String),
    });
    expect(new Date(body.checkedAt).toISOString()).toBe(body.checkedAt);
  });
});

describe("GET /api/launch/config and /api/ca", () => {
  test("serves the launch settings with the creator fee read live", async () => {
    svc = testService(
      { PLATFORM_BPS: "750", MAX_RECIPIENTS: "6" },
      { chain: fakeChain({ creatorFeeBps: async () => 95 }) },
    );
    const { status, body, headers } = await svc.json("/api/launch/config");
    expect(status).toBe(200);
    expect(headers.get("cache-control")).toBe(PUBLIC_READ);
    expect(body).toEqual({
      launchesOpen: true,
      platformBps: 750,
      maxRecipients: 6,
      maxFirstBuyLamports: "5000000000",
      creatorFeeBps: 95,
      maxImageBytes: 4_194_304,
      handlesPinnedAtLaunch: false,
    });
    svc.ctx.db.$client.query("INSERT INTO settings (key, value) VALUES ('launches_paused', '1')").run();
    expect((await svc.json("/api/launch/config")).body.launchesOpen).toBe(false);
  });

  test("a chain that cannot be asked gives null, or the last value read, within about two seconds", async () => {
    let mode: "ok" | "fail" | "hang" = "fail";
    let now = T0;
    const chain = fakeChain({
      creatorFeeBps: async () => {
        if (mode === "ok") return 120;
        if (mode === "fail") throw new Error("node down");
        return new Promise<number>(() => {});
      },
    });
    svc = testService({}, { chain, now: () => now });
    expect((await svc.json("/api/launch/config")).body.creatorFeeBps).toBeNull();
    mode = "ok";
    expect((await svc.json("/api/launch/config")).body.creatorFeeBps).toBe(120);
    mode = "hang";
    now += 60_000;
    const started = performance.now();
    const { status, body } = await svc.json("/api/launch/config");
    expect(status).toBe(200);
    expect(body.creatorFeeBps).toBe(120);
    expect(performance.now() - started).toBeLessThan(4_000);
  });

  test("/api/ca is null until the platform token is published", async () => {
    svc = testService();
    expect((await svc.json("/api/ca")).body).toEqual({ mint: null });
    const mint = address();
    setPlatformToken(svc.ctx.db, mint);
    expect((await svc.json("/api/ca")).body).toEqual({ mint });
  });
});
