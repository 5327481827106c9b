/**
 * At least 10,000 generated bad requests across every route of the app (enumerated from the
 * router, so a new route is fuzzed without editing this file): wrong types, huge and negative
 * numbers, 2^63 amounts, bad base58, bad handles, unicode, oversize bodies, bad JSON, wrong content
 * types, repeated and missing fields; HEAD requests, chunked bodies (no Content-Length) up to 12 MB,
 * Content-Lengths that lie, IPv4, IPv6 and forwarded-chain client addresses. No 5xx; every error in
 * the `{error}` envelope; no ledger change on any 4xx.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { recordSignIn } from "../../src/identity/identity";
import { confirmSweep, recordSweepsSent } from "../../src/sweeps/service";
import { recordFixtureLaunch } from "../helpers/launch";
import { testServiceWithChain, type TestService } from "../helpers/service";

let svc: TestService;

beforeAll(async () => {
  // Everything configured (chain, identity provider, secrets), so no answer is a legitimate
  // "not configured" 503: any 5xx is a bug. The provider's address is a closed loopback port.
  svc = await testServiceWithChain({
    RATE_LIMIT: "off",
    CRON_SECRET: "cron-secret-value-0123456789abcdef",
    ADMIN_SECRET: "admin-secret-value-0123456789abcdef",
    METRICS_SECRET: "metrics-secret-value-0123456789abcdef",
    IDP_CLIENT_ID: "fuzz-client",
    IDP_CLIENT_SECRET: "fuzz-client-secret",
    IDP_AUTHORIZE_URL: "http://127.0.0.1:9/authorize",
    IDP_TOKEN_URL: "http://127.0.0.1:9/token",
    IDP_API_URL: "http://127.0.0.1:9/2",
  });
  const db = svc.ctx.db;
  const { tokenId } = recordFixtureLaunch(db, {
    name: "Fuzz",
    symbol: "FUZ",
    platformBps: 500,
    recipients: [
      { handle: "alice", bps: 5000 },
      { handle: "bob", bps: 5000 },
    ],
  });
  const [sweepId] = recordSweepsSent(db, [{ tokenId, signature: "S", lastValidBlockHeight: 1n, atMs: Date.now() }]);
  confirmSweep(db, {
    sweepId: sweepId!,
    totalLamports: 5_000_000_000n,
    atMs: Date.now(),
    buyback: { platformBuybackBps: 0, platformTokenMint: null },
  });
  recordSignIn(db, { idpUserId: "u-bob", displayHandle: "bob", name: "Bob", avatarUrl: "", followers: 1 }, Date.now());
});
afterAll(async () => svc && (await svc.cleanup()));

const nasty = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "0",
    "-1",
    "1e309",
    "NaN",
    "Infinity",
    "null",
    "true",
    "[]",
    "{}",
    "9223372036854775808",
    "9223372036854775807",
    "18446744073709551616",
    "-9223372036854775809",
    "0x10",
    "1.5",
    "01",
    "%00",
    "%ff",
    "..%2f..%2fetc%2fpasswd",
    "../../etc/passwd",
    "' OR 1=1 --",
    '"; DROP TABLE tokens; --',
    "%27%20OR%201%3D1",
    "@",
    "@@alice",
    "alice!",
    "a".repeat(16),
    "0OIl",
    "So1111111111111111111111111111111111111111",
    "so11111111111111111111111111111111111111112",
    "🙂",
    "é",
    "\u202e",
    "\\u0000",
    "<script>alert(1)</script>",
    "a".repeat(5000),
  ),
  fc.string({ maxLength: 80 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.double().map(String),
);

const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  nasty,
  fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map((n) => Number(n)),
  fc.constantFrom(null, true, false, 0, -1, 2 ** 63, 1e308, [], {}, [1, 2], { nested: { deep: [null] } }),
);

const bodyFields = [
  "wallet",
  "lamports",
  "routing",
  "declined",
  "handle",
  "draft",
  "mint",
  "digest",
  "intent",
  "signature",
  "reason",
  "jsonrpc",
  "method",
  "params",
  "id",
];

const bodyArb = fc.oneof(
  fc
    .dictionary(fc.constantFrom(...bodyFields), jsonValue, { maxKeys: 6 })
    .map((o) => ({ type: "application/json", text: JSON.stringify(o) })),
  fc.constantFrom(
    { type: "application/json", text: "{" },
    { type: "application/json", text: "[1,2,3]" },
    { type: "application/json", text: '"just a string"' },
    { type: "application/json", text: "null" },
    { type: "application/json", text: '{"lamports": 1e999}' },
    { type: "application/json", text: '{"lamports":"1","lamports":"2"}' },
    { type: "application/json", text: `{"wallet":"${"1".repeat(44)}","lamports":"9223372036854775808"}` },
    { type: "text/plain", text: "hello" },
    { type: "application/x-www-form-urlencoded", text: "a=1&a=2&lamports=-5" },
    {
      type: "multipart/form-data; boundary=xyz",
      text: '--xyz\r\nContent-Disposition: form-data; name="intent"\r\n\r\nnope\r\n--xyz--',
    },
    { type: "application/octet-stream", text: "\u0000\u0001\u0002" },
    { type: "application/json", text: JSON.stringify({ pad: "x".repeat(9 * 1024 * 1024) }) },
  ),
  fc.string({ maxLength: 200 }).map((text) => ({ type: "application/json", text })),
);

/** How the body travels: with its length, chunked (a stream, no length), or with a length that lies. */
const framingArb = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: "length" as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: "chunked" as const }) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 65 * 1024, max: 12 * 1024 * 1024 })
      .map((padBytes) => ({ kind: "chunked-pad" as const, padBytes })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom("99999999999", "70000", "-1", "abc")
      .map((declared) => ({ kind: "lying-length" as const, declared })),
  },
);

/** A chunked body: the text, then (for chunked-pad) spaces up to padBytes, in 16 KB chunks, counting what was pulled. */
function chunkedBody(text: string, padBytes: number, pulled: { bytes: number }): ReadableStream<Uint8Array> {
  const head = new TextEncoder().encode(text);
  let offset = 0;
  const total = Math.max(head.length, padBytes);
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= total) return controller.close();
      const size = Math.min(16 * 1024, total - offset);
      const chunk = new Uint8Array(size).fill(32);
      if (offset < head.length) chunk.set(head.subarray(offset, offset + size));
      offset += size;
      pulled.bytes += size;
      controller.enqueue(chunk);
    },
  });
}

function fillPath(path: string, values: string[]): string {
  let i = 0;
  return path.replace(/:[a-zA-Z]+/g, () => encodeURIComponent(values[i++ % values.length] ?? "x"));
}

const headerArb = fc.record(
  {
    origin: fc.constantFrom("https://evil.example", "null", "http://localhost", "http://localhost:3000"),
    cookie: fc.constantFrom("session=forged", `session=${"A".repeat(300)}`, "session=", "a=b; session=%00"),
    authorization: fc.constantFrom(
      "Bearer wrong",
      "Basic abc",
      "Bearer ",
      "Bearer cron-secret-value-0123456789abcdefx",
    ),
    "x-forwarded-for": fc.constantFrom(
      "1.2.3.4",
      "::1",
      "not-an-ip",
      "1.1.1.1, 2.2.2.2",
      "999.999.999.999",
      "2001:db8::1",
      "2001:db8:0:0:1:2:3:4",
      "::ffff:198.51.100.7",
      "fe80::1%eth0",
      "[2001:db8::2]",
      "2001:db8::1, 10.0.0.1",
      "10.0.0.1, 2001:db8:abcd::9",
      "::",
      "0.0.0.0",
      `2001:db8::${"f".repeat(60)}`,
    ),
    "x-request-id": fc.constantFrom("ok-id-1", "bad id; <script>", "x".repeat(200)),
  },
  { requiredKeys: [] },
);

function postingsCount(): number {
  const row = svc.ctx.db.$client
    .query("SELECT COUNT(*) AS n, COALESCE(MAX(id), 0) AS m FROM ledger_postings")
    .get() as { n: bigint; m: bigint };
  return Number(row.n) * 1e9 + Number(row.m);
}

describe("fuzzing every route", () => {
  test("10,000 generated bad requests: no 5xx, errors in the envelope, no ledger change on any 4xx", async () => {
    const routes = (svc.app as unknown as { routes: { method: string; path: string }[] }).routes
      .filter((r) => r.method !== "ALL")
      .map((r) => ({ method: r.method, path: r.path }));
    expect(routes.length).toBeGreaterThan(30);
    const requestArb = fc.record({
      route: fc.constantFrom(...routes),
      pathValues: fc.array(nasty, { minLength: 1, maxLength: 2 }),
      query: fc.dictionary(
        fc.constantFrom("sort", "q", "limit", "cursor", "before", "returnTo", "code", "state", "x", "limit"),
        nasty,
        { maxKeys: 4 },
      ),
      repeatQuery: fc.boolean(),
      body: fc.option(bodyArb, { nil: undefined }),
      framing: framingArb,
      headers: headerArb,
      methodChoice: fc.constantFrom("route", "route", "wrong", "HEAD"),
    });
    let sent = 0;
    const statuses = new Map<number, number>();
    const kinds = new Set<string>();
    await fc.assert(
      fc.asyncProperty(requestArb, async (r) => {
        const url = new URL(`http://localhost${fillPath(r.route.path, r.pathValues)}`);
        for (const [k, v] of Object.entries(r.query)) url.searchParams.append(k, v);
        if (r.repeatQuery) for (const [k, v] of Object.entries(r.query)) url.searchParams.append(k, `${v}2`);
        const method =
          r.methodChoice === "HEAD"
            ? "HEAD"
            : r.methodChoice === "wrong"
              ? r.route.method === "GET"
                ? "POST"
                : "GET"
              : r.route.method;
        const headers: Record<string, string> = { ...r.headers };
        let body: string | ReadableStream<Uint8Array> | undefined;
        const pulled = { bytes: 0 };
        if (r.body && method !== "GET" && method !== "HEAD") {
          headers["content-type"] = r.body.type;
          if (r.framing.kind === "length") body = r.body.text;
          else if (r.framing.kind === "lying-length") {
            body = r.body.text;
            headers["content-length"] = r.framing.declared;
          } else body = chunkedBody(r.body.text, r.framing.kind === "chunked-pad" ? r.framing.padBytes : 0, pulled);
        }
        const before = postingsCount();
        let response: Response;
        try {
          response = await svc.call(`${url.pathname}${url.search}`, {
            method,
            headers,
            body,
            duplex: "half",
            ip: r.headers["x-forwarded-for"],
          } as RequestInit & { ip?: string });
        } catch (error) {
          // The client side (Request) may refuse a header as malformed before anything is sent: not the service's answer.
          if (error instanceof TypeError && r.framing.kind === "lying-length") return;
          throw error;
        }
        sent++;
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        // An event stream (GET /api/ledger/stream) never ends: a 200 is let go unread.
        const endless =
          response.status === 200 && (response.headers.get("content-type") ?? "").startsWith("text/event-stream");
        let text = "";
        if (endless) await response.body?.cancel();
        else text = await response.text();
        if (response.status >= 500)
          throw new Error(`${method} ${url.pathname}${url.search} answered ${response.status}: ${text.slice(0, 200)}`);
        // A chunked body is read only up to its route's limit (the upload's is the largest), never whole.
        if (r.framing.kind === "chunked-pad")
          expect(pulled.bytes).toBeLessThanOrEqual(2 * svc.ctx.config.maxImageBytes + 64 * 1024 + 64 * 1024);
        // A mistyped page path (outside /api and /assets) may get the page's not-found view (issue 22).
        const pagePath = !url.pathname.startsWith("/api") && !url.pathname.startsWith("/assets/");
        if (
          response.status === 404 &&
          pagePath &&
          (method === "GET" || method === "HEAD") &&
          response.headers.get("content-type") === "text/html; charset=utf-8"
        ) {
          if (method === "GET") expect(text).toContain('<main id="main"');
          expect(postingsCount()).toBe(before);
          return;
        }
        if (response.status >= 400) {
          expect(response.headers.get("content-type") ?? "").toContain("application/json");
          // A HEAD answer may carry no body; when it does, it is the envelope too.
          if (method !== "HEAD" || text !== "") {
            const parsed = JSON.parse(text);
            expect(Object.keys(parsed)).toEqual(["error"]);
            expect(typeof parsed.error).toBe("string");
            expect(parsed.error).not.toMatch(/SELECT|INSERT|sqlite|at \/|\.ts:\d|node_modules|SECRET|RPC_URL/i);
          }
          expect(postingsCount()).toBe(before);
        }
        kinds.add(`${method === "HEAD" ? "HEAD" : "other"}:${r.framing.kind}:${response.status === 413 ? 413 : "x"}`);
        if (String(r.headers["x-forwarded-for"] ?? "").includes(":")) kinds.add("ipv6");
      }),
      { numRuns: 10_000 },
    );
    expect(sent).toBeGreaterThanOrEqual(10_000);
    // The generator did reach the refusal paths of the API, not just the 404s.
    expect(statuses.get(400) ?? 0).toBeGreaterThan(500);
    // ...and the hardening's: HEAD, chunked bodies cut at their limit (413), lying lengths, IPv6 clients.
    for (const kind of ["HEAD:length:x", "other:chunked:x", "other:chunked-pad:413", "other:lying-length:413", "ipv6"])
      expect(kinds).toContain(kind);
    expect(statuses.get(413) ?? 0).toBeGreaterThan(100);
  }, 600_000);
});
