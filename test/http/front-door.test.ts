/**
 * The front door of the hardening issue: HEAD limited as GET, bodies refused while they are read,
 * operator routes that do not exist without their secret (before the body), failed-attempt limits,
 * IPv6 per /64, TRUST_PROXY only from TRUSTED_PROXIES, HSTS, the audit's request id and IP.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config";
import { RateLimiter } from "../../src/http/rate-limit";
import { testService, type TestService } from "../helpers/service";
import { listen, sendChunked } from "../helpers/socket";

let svc: TestService | null = null;
let stopServer: (() => void) | null = null;
afterEach(async () => {
  stopServer?.();
  stopServer = null;
  await svc?.cleanup();
  svc = null;
});

const ADMIN = "admin-secret-for-hardening-tests-0123456789";
const CRON = "cron-secret-for-hardening-tests-01234567890";
const METRICS = "metrics-secret-for-hardening-tests-0123456";
const MB = 1024 * 1024;

function frozen(s: TestService) {
  // A minute boundary in the middle of a test must not reset a window.
  s.ctx.limiter = new RateLimiter({ now: () => Date.UTC(2026, 5, 1, 12, 0, 30) });
}

describe("HEAD counts as GET", () => {
  test("130 HEAD /api/stats in a minute: 429 past 120, with the GET's rate-limit and cache headers", async () => {
    svc = testService();
    frozen(svc);
    const get = await svc.call("/api/stats");
    let last: Response | null = null;
    for (let i = 0; i < 119; i++) last = await svc.call("/api/stats", { method: "HEAD" });
    expect(last!.status).toBe(200);
    expect(await last!.text()).toBe("");
    expect(last!.headers.get("x-ratelimit-limit")).toBe("120");
    expect(last!.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(last!.headers.get("cache-control")).toBe(get.headers.get("cache-control"));
    const over = await svc.call("/api/stats", { method: "HEAD" });
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    // HEAD and GET share one bucket: the GET is refused too.
    expect((await svc.call("/api/stats")).status).toBe(429);
  });

  test("the expensive reads are limited for HEAD too (proof, token detail)", async () => {
    svc = testService();
    frozen(svc);
    for (let i = 0; i < 60; i++) await svc.call("/api/proof", { method: "HEAD" });
    expect((await svc.call("/api/proof", { method: "HEAD" })).status).toBe(429);
    const mint = "So11111111111111111111111111111111111111112";
    for (let i = 0; i < 60; i++) await svc.call(`/api/tokens/${mint}`, { method: "HEAD" });
    const over = await svc.call(`/api/tokens/${mint}`, { method: "HEAD" });
    expect(over.status).toBe(429);
    expect(over.headers.get("x-ratelimit-limit")).toBe("60");
  });
});

describe("body limits", () => {
  test("a Content-Length over the route's limit is 413 at once; a chunked body is cut while read", async () => {
    svc = testService();
    const big = await svc.call("/api/launch/intent", {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": String(40 * MB) },
      body: "{}",
    });
    expect(big.status).toBe(413);
    expect(await big.json()).toEqual({ error: expect.any(String) });
    // No Content-Length: a stream that would go on for 40 MB is refused after the route's 64 KB.
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled >= 40 * MB) return controller.close();
        pulled += 16 * 1024;
        controller.enqueue(new Uint8Array(16 * 1024).fill(32));
      },
    });
    const chunked = await svc.call("/api/launch/intent", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(chunked.headers.get("x-request-id")).toBeTruthy();
    expect(pulled).toBeLessThan(1 * MB);
    // A body within the limit still reaches the route (a validation 400, not a 413).
    const small = await svc.call("/api/launch/intent", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ draft: {} }),
    });
    expect(small.status).toBe(400);
  });

  test("a 40 MB chunked body to the real server is answered before it is sent whole", async () => {
    svc = testService({ ADMIN_SECRET: ADMIN });
    const server = listen(svc);
    stopServer = server.stop;
    for (const [path, headers, status] of [
      ["/api/claim", { "content-type": "application/json", origin: "http://localhost:3000" }, 413],
      ["/api/launch/intent", { "content-type": "application/json" }, 413],
      ["/api/admin/claims/pause", { "content-type": "application/json" }, 404],
      ["/api/admin/claims/pause", { "content-type": "application/json", authorization: `Bearer ${ADMIN}` }, 413],
    ] as const) {
      const result = await sendChunked(server.port, path, headers, 40 * MB);
      expect({ path, status: result.status }).toEqual({ path, status });
      expect(JSON.parse(result.body)).toEqual({ error: expect.any(String) });
      expect(result.bytesSentBeforeAnswer).toBeLessThan(8 * MB);
    }
  }, 60_000);

  test("the upload route takes an image's worth, not more", async () => {
    svc = testService({ MAX_IMAGE_BYTES: String(64 * 1024) });
    const form = new FormData();
    form.append("intent", "x");
    form.append("signature", "y");
    form.append("image", new Blob([new Uint8Array(200 * 1024)]), "a.png");
    const refused = await svc.call("/api/launch/metadata", { method: "POST", body: form });
    expect(refused.status).toBe(413);
  });
});

/** The operator routes' front door answers 404 (no such route) or 429 (too many failures); anything else got past it. */
const passedFrontDoor = (status: number) => status !== 404 && status !== 429;

describe("operator routes", () => {
  test("admin, cron and metrics not configured: 404 to anything, a malformed body included", async () => {
    svc = testService();
    for (const [path, method] of [
      ["/api/admin/claims/pause", "POST"],
      ["/api/admin/audit", "GET"],
      ["/api/admin/nope", "DELETE"],
      ["/api/cron/sweep", "POST"],
      ["/metrics", "GET"],
      ["/metrics", "HEAD"],
      ["//api//admin/min-claim", "POST"],
    ] as const) {
      const response = await svc.call(path, {
        method,
        headers: { "content-type": "application/json" },
        body: method === "GET" || method === "HEAD" ? undefined : "{not json",
      });
      expect({ path, method, status: response.status }).toEqual({ path, method, status: 404 });
    }
  });

  test("with the secret configured, a wrong secret is 404 before the body is read (a malformed body never shows as 400)", async () => {
    svc = testService({ ADMIN_SECRET: ADMIN });
    const wrong = await svc.call("/api/admin/min-claim", {
      method: "POST",
      headers: { authorization: "Bearer wrong", "content-type": "application/json" },
      body: "{not json",
    });
    expect(wrong.status).toBe(404);
    const right = await svc.call("/api/admin/min-claim", {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: "{not json",
    });
    expect(right.status).toBe(400);
  });

  test("30 failed attempts a minute per IP, then 429 for more guesses, while the right secret still passes", async () => {
    svc = testService({ ADMIN_SECRET: ADMIN, CRON_SECRET: CRON, METRICS_SECRET: METRICS });
    frozen(svc);
    svc.ctx.scheduler.register("sweep", async () => {});
    for (const [path, method, secret] of [
      ["/api/admin/audit", "GET", ADMIN],
      ["/api/cron/sweep", "POST", CRON],
      ["/metrics", "GET", METRICS],
    ] as const) {
      // Successes do not count. (Past the front door: neither its 404 nor its 429; cron answers 202.)
      for (let i = 0; i < 5; i++)
        expect(
          passedFrontDoor(
            (await svc.call(path, { method, headers: { authorization: `Bearer ${secret}` }, ip: "198.51.100.20" }))
              .status,
          ),
        ).toBe(true);
      for (let i = 0; i < 30; i++)
        expect(
          (await svc.call(path, { method, headers: { authorization: `Bearer guess-${i}` }, ip: "198.51.100.20" }))
            .status,
        ).toBe(404);
      const blocked = await svc.call(path, {
        method,
        headers: { authorization: "Bearer guess-31" },
        ip: "198.51.100.20",
      });
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await blocked.json()).toEqual({ error: expect.any(String) });
      // Issue 43, finding 5: somebody guessing from the operator's address does not lock the operator out.
      expect(
        passedFrontDoor(
          (await svc.call(path, { method, headers: { authorization: `Bearer ${secret}` }, ip: "198.51.100.20" }))
            .status,
        ),
      ).toBe(true);
      expect(
        passedFrontDoor(
          (await svc.call(path, { method, headers: { authorization: `Bearer ${secret}` }, ip: "198.51.100.21" }))
            .status,
        ),
      ).toBe(true);
    }
  });

  test("the audit row records the request id and the client IP", async () => {
    svc = testService({ ADMIN_SECRET: ADMIN });
    const done = await svc.call("/api/admin/claims/pause", {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json", "x-request-id": "req-audit-1" },
      body: JSON.stringify({ reason: "incident" }),
      ip: "2001:db8::7",
    });
    expect(done.status).toBe(200);
    const row = svc.ctx.db.$client
      .query("SELECT action, request_id AS requestId, client_ip AS clientIp FROM admin_audit")
      .get();
    expect(row).toEqual({ action: "pause_claims", requestId: "req-audit-1", clientIp: "2001:db8::7" });
    const listed = await svc.json("/api/admin/audit", { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(listed.body.entries[0]).toMatchObject({
      action: "pause_claims",
      requestId: "req-audit-1",
      clientIp: "2001:db8::7",
    });
  });
});

describe("limits added by the hardening", () => {
  test("sign-in start and callback 30 a minute per IP; launch objects 600 a minute", async () => {
    svc = testService();
    frozen(svc);
    for (const [path, limit] of [
      ["/api/auth/idp/start", 30],
      ["/api/auth/idp/callback?code=a&state=b", 30],
      [`/api/launch/objects/${"a".repeat(64)}`, 600],
    ] as const) {
      let last: Response | null = null;
      for (let i = 0; i < limit; i++) last = await svc.call(path);
      expect(last!.status).not.toBe(429);
      expect(last!.headers.get("x-ratelimit-limit")).toBe(String(limit));
      const over = await svc.call(path);
      expect({ path, status: over.status }).toEqual({ path, status: 429 });
    }
  });

  test("bearer secrets under 32 characters are refused at start, naming the setting only", () => {
    for (const name of ["CRON_SECRET", "ADMIN_SECRET", "METRICS_SECRET"]) {
      const secret = "short-but-not-that-short-31chrs";
      expect(secret.length).toBe(31);
      let error: unknown = null;
      try {
        loadConfig({ DATA_DIR: "/tmp/cfl-unused", [name]: secret });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain(name);
      expect((error as Error).message).not.toContain(secret);
      expect(() => loadConfig({ DATA_DIR: "/tmp/cfl-unused", [name]: `${secret}x` })).not.toThrow();
    }
  });
});

describe("client addresses", () => {
  test("IPv6 clients share one bucket per /64; another /64 has its own", async () => {
    svc = testService();
    frozen(svc);
    for (let i = 0; i < 120; i++)
      expect((await svc.call("/api/stats", { ip: `2001:db8:aa:bb:${i.toString(16)}::1` })).status).toBe(200);
    expect((await svc.call("/api/stats", { ip: "2001:db8:aa:bb:ffff:ffff:ffff:ffff" })).status).toBe(429);
    expect((await svc.call("/api/stats", { ip: "2001:db8:aa:bc::1" })).status).toBe(200);
    // An IPv4 client seen through a dual-stack socket is the IPv4 client.
    for (let i = 0; i < 120; i++) await svc.call("/api/stats", { ip: "192.0.2.9" });
    expect((await svc.call("/api/stats", { ip: "::ffff:192.0.2.9" })).status).toBe(429);
  });

  test("TRUST_PROXY is believed only from a socket in TRUSTED_PROXIES", async () => {
    // The loopback socket is not a trusted proxy here: every spoofed address lands in one bucket.
    svc = testService({ TRUSTED_PROXIES: "10.0.0.0/8" });
    // 121 requests over real sockets crossed a minute boundary once on a loaded machine.
    frozen(svc);
    let server = listen(svc);
    stopServer = server.stop;
    const spoof = (port: number, i: number) =>
      fetch(`http://127.0.0.1:${port}/api/stats`, { headers: { "x-forwarded-for": `198.51.100.${i}` } });
    for (let i = 0; i < 120; i++) expect((await spoof(server.port, i)).status).toBe(200);
    expect((await spoof(server.port, 200)).status).toBe(429);
    server.stop();
    stopServer = null;
    await svc.cleanup();
    // The loopback proxy is trusted (the default): each forwarded client has its own bucket.
    svc = testService();
    frozen(svc);
    server = listen(svc);
    stopServer = server.stop;
    for (let i = 0; i < 121; i++) expect((await spoof(server.port, i)).status).toBe(200);
    expect(() => loadConfig({ DATA_DIR: "/tmp/cfl-unused", TRUSTED_PROXIES: "10.0.0.0/33" })).toThrow(ConfigError);
  }, 30_000);

  test("expired buckets are swept off the request path: a hit never walks the map", () => {
    let now = Date.UTC(2026, 5, 1, 12, 0, 0);
    const limiter = new RateLimiter({ maxBuckets: 1_000_000, now: () => now });
    const rule = { name: "r", limit: 10, windowMs: 60_000 };
    for (let i = 0; i < 100_000; i++) limiter.hit(rule, `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    now += 120_000;
    // A new IP after every window expired: O(1), so the 100k stale buckets are still there...
    const started = performance.now();
    for (let i = 0; i < 10_000; i++) limiter.hit(rule, `11.0.${(i >> 8) & 255}.${i & 255}`);
    const hitMs = performance.now() - started;
    expect(limiter.size).toBe(110_000);
    // ...until the timer's sweep drops them.
    expect(limiter.sweepExpired()).toBe(100_000);
    expect(limiter.size).toBe(10_000);
    // 10,000 hits at 100k buckets take well under what 10,000 walks of the map would (seconds).
    expect(hitMs).toBeLessThan(500);
  });

  test("the cap drops the oldest bucket, one per new client", () => {
    const limiter = new RateLimiter({ maxBuckets: 1000, now: () => 0 });
    const rule = { name: "r", limit: 1, windowMs: 60_000 };
    for (let i = 0; i < 5000; i++) limiter.hit(rule, `ip${i}`);
    expect(limiter.size).toBe(1000);
    expect(limiter.hit(rule, "ip4999").allowed).toBe(false);
  });
});

describe("HSTS on a real chain", () => {
  const pumpEnv = {
    CHAIN: "pump",
    RPC_URL: "http://127.0.0.1:9",
    MASTER_SECRET: "m".repeat(40),
    TREASURY_KEY: "unused-in-this-test",
    DEV_LOGIN: "0",
    DEMO: "0",
  };

  test("PUBLIC_URL must be https on a real chain", () => {
    expect(() => loadConfig({ DATA_DIR: "/tmp/cfl-unused", ...pumpEnv })).toThrow("PUBLIC_URL must be an https URL");
    expect(() => loadConfig({ DATA_DIR: "/tmp/cfl-unused", ...pumpEnv, PUBLIC_URL: "http://fees.example" })).toThrow(
      ConfigError,
    );
    expect(loadConfig({ DATA_DIR: "/tmp/cfl-unused", ...pumpEnv, PUBLIC_URL: "https://fees.example" }).hsts).toBe(true);
    expect(loadConfig({ DATA_DIR: "/tmp/cfl-unused" }).hsts).toBe(false);
  });

  test("every answer carries Strict-Transport-Security there, errors and early refusals included; none on the local chain", async () => {
    svc = testService({ ...pumpEnv, PUBLIC_URL: "https://fees.example" }, { chain: null });
    for (const [path, status] of [
      ["/api/stats", 200],
      ["/api/nope", 404],
      ["/metrics", 404],
    ] as const) {
      const response = await svc.call(path);
      expect(response.status).toBe(status);
      expect(response.headers.get("strict-transport-security")).toBe("max-age=63072000; includeSubDomains");
    }
    await svc.cleanup();
    svc = testService();
    expect((await svc.call("/api/stats")).headers.get("strict-transport-security")).toBeNull();
  });
});
