/**
 * At least 10,000 generated bad requests across every route of the app (enumerated from the
 * router, so a new route is fuzzed without editing this file): wrong types, huge and negative
 * numbers, 2^63 amounts, bad base58, bad handles, unicode, oversize bodies, bad JSON, wrong content
 * types, repeated and missing fields. No 5xx; every error in the `{error}` envelope; no ledger
 * change on any 4xx.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { recordSignIn } from "../../src/accounts/identity";
import { confirmSweep, recordSweepsSent } from "../../src/sweeps/service";
import { recordConfirmedLaunch } from "../../src/tokens/launch-record";
import { testServiceWithChain, type TestService } from "../helpers/service";

const MINT = "So11111111111111111111111111111111111111112";
let svc: TestService;

beforeAll(async () => {
  // Everything configured (chain, identity provider, secrets), so no answer is a legitimate
  // "not configured" 503: any 5xx is a bug. The provider's address is a closed loopback port.
  svc = await testServiceWithChain({
    RATE_LIMIT: "off", CRON_SECRET: "cron-secret-value", ADMIN_SECRET: "admin-secret-value", METRICS_SECRET: "metrics-secret-value",
    IDP_CLIENT_ID: "fuzz-client", IDP_CLIENT_SECRET: "fuzz-client-secret", IDP_AUTHORIZE_URL: "http://127.0.0.1:9/authorize",
    IDP_TOKEN_URL: "http://127.0.0.1:9/token", IDP_API_URL: "http://127.0.0.1:9/2",
  });
  const db = svc.ctx.db;
  const { tokenId } = recordConfirmedLaunch(
    db,
    {
      mint: MINT, name: "Fuzz", symbol: "FUZ", description: "", website: null, twitter: null, telegram: null,
      metadataUri: "local://m", imageUri: null, creatorIndex: 1, creator: "11111111111111111111111111111112",
      creatorVault: "11111111111111111111111111111113", deployer: "D", launchSignature: "L", launchedAtMs: Date.now(),
      platformBps: 500, recipients: [{ handle: "alice", bps: 5000 }, { handle: "bob", bps: 5000 }],
    },
    Date.now(),
  );
  const [sweepId] = recordSweepsSent(db, [{ tokenId, signature: "S", lastValidBlockHeight: 1n, atMs: Date.now() }]);
  confirmSweep(db, { sweepId: sweepId!, totalLamports: 5_000_000_000n, atMs: Date.now(), buyback: { platformBuybackBps: 0, platformTokenMint: null } });
  recordSignIn(db, { idpUserId: "u-bob", displayHandle: "bob", name: "Bob", avatarUrl: "", followers: 1 }, Date.now());
});
afterAll(async () => svc && (await svc.cleanup()));

const nasty = fc.oneof(
  fc.constantFrom(
    "", " ", "0", "-1", "1e309", "NaN", "Infinity", "null", "true", "[]", "{}", "9223372036854775808", "9223372036854775807",
    "18446744073709551616", "-9223372036854775809", "0x10", "1.5", "01", "%00", "%ff", "..%2f..%2fetc%2fpasswd", "../../etc/passwd",
    "' OR 1=1 --", "\"; DROP TABLE tokens; --", "%27%20OR%201%3D1", "@", "@@alice", "alice!", "a".repeat(16), "0OIl",
    "So1111111111111111111111111111111111111111", "so11111111111111111111111111111111111111112", "🙂", "é", "\u202e", "\\u0000",
    "<script>alert(1)</script>", "a".repeat(5000),
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

const bodyFields = ["wallet", "lamports", "routing", "declined", "handle", "draft", "mint", "digest", "intent", "signature", "reason", "jsonrpc", "method", "params", "id"];

const bodyArb = fc.oneof(
  fc.dictionary(fc.constantFrom(...bodyFields), jsonValue, { maxKeys: 6 }).map((o) => ({ type: "application/json", text: JSON.stringify(o) })),
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
    { type: "multipart/form-data; boundary=xyz", text: "--xyz\r\nContent-Disposition: form-data; name=\"intent\"\r\n\r\nnope\r\n--xyz--" },
    { type: "application/octet-stream", text: "\u0000\u0001\u0002" },
    { type: "application/json", text: JSON.stringify({ pad: "x".repeat(9 * 1024 * 1024) }) },
  ),
  fc.string({ maxLength: 200 }).map((text) => ({ type: "application/json", text })),
);

function fillPath(path: string, values: string[]): string {
  let i = 0;
  return path.replace(/:[a-zA-Z]+/g, () => encodeURIComponent(values[i++ % values.length] ?? "x"));
}

const headerArb = fc.record(
  {
    origin: fc.constantFrom("https://evil.example", "null", "http://localhost", "http://localhost:3000"),
    cookie: fc.constantFrom("session=forged", "session=" + "A".repeat(300), "session=", "a=b; session=%00"),
    authorization: fc.constantFrom("Bearer wrong", "Basic abc", "Bearer ", "Bearer cron-secret-valuex"),
    "x-forwarded-for": fc.constantFrom("1.2.3.4", "::1", "not-an-ip", "1.1.1.1, 2.2.2.2", "999.999.999.999"),
  },
  { requiredKeys: [] },
);

function postingsCount(): number {
  const row = svc.ctx.db.$client.query("SELECT COUNT(*) AS n, COALESCE(MAX(id), 0) AS m FROM ledger_postings").get() as { n: bigint; m: bigint };
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
      headers: headerArb,
      wrongMethod: fc.boolean(),
    });
    let sent = 0;
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(requestArb, async (r) => {
        const url = new URL(`http://localhost${fillPath(r.route.path, r.pathValues)}`);
        for (const [k, v] of Object.entries(r.query)) url.searchParams.append(k, v);
        if (r.repeatQuery) for (const [k, v] of Object.entries(r.query)) url.searchParams.append(k, `${v}2`);
        const method = r.wrongMethod ? (r.route.method === "GET" ? "POST" : "GET") : r.route.method;
        const headers: Record<string, string> = { ...r.headers };
        let body: string | undefined;
        if (r.body && method !== "GET") {
          headers["content-type"] = r.body.type;
          body = r.body.text;
        }
        const before = postingsCount();
        const response = await svc.call(`${url.pathname}${url.search}`, { method, headers, body, ip: r.headers["x-forwarded-for"] });
        sent++;
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        // An event stream (GET /api/ledger/stream) never ends: a 200 is let go unread.
        const endless = response.status === 200 && (response.headers.get("content-type") ?? "").startsWith("text/event-stream");
        const text = endless ? (await response.body?.cancel(), "") : await response.text();
        if (response.status >= 500) throw new Error(`${method} ${url.pathname}${url.search} answered ${response.status}: ${text.slice(0, 200)}`);
        if (response.status >= 400) {
          expect(response.headers.get("content-type") ?? "").toContain("application/json");
          const parsed = JSON.parse(text);
          expect(Object.keys(parsed)).toEqual(["error"]);
          expect(typeof parsed.error).toBe("string");
          expect(parsed.error).not.toMatch(/SELECT|INSERT|sqlite|at \/|\.ts:\d|node_modules|SECRET|RPC_URL/i);
          expect(postingsCount()).toBe(before);
        }
      }),
      { numRuns: 10_000 },
    );
    expect(sent).toBeGreaterThanOrEqual(10_000);
    // The generator did reach the refusal paths of the API, not just the 404s.
    expect(statuses.get(400) ?? 0).toBeGreaterThan(500);
  }, 600_000);
});
