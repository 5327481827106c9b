/**
 * Issue 64, item 4, through `app.handle`: what the public document says a request may be is what
 * the service takes. A query parameter given twice is a 400 in the envelope; `before` and `at`
 * carry the pattern and length the handlers accept (checked with Ajv, as test/helpers/openapi.ts
 * checks answers); the cursors the service issues match their documented shape; every route with
 * a body documents its 413; `/api/rpc` documents its request and its answers.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { payoutCursor, tokenCursor } from "../../src/accounts/pages";
import { rng } from "../../scripts/seed";
import { documentChecker } from "../helpers/openapi";
import { address, launch, payout, signIn, sweep, T0 } from "../helpers/read-world";
import { type Json, type TestService, testService } from "../helpers/service";

let svc: TestService;
let doc: Json;
let mint: string;
let provider: ReturnType<typeof Bun.serve>;
const SITE = "https://fees.example";

beforeAll(async () => {
  provider = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const body = await request.json();
      if (body.method === "getBalance")
        return Response.json({ jsonrpc: "2.0", id: body.id, result: { context: { slot: 5 }, value: 42 }, extra: 1 });
      return Response.json({ jsonrpc: "2.0", id: body.id, error: { code: -32601, message: "Method not found" } });
    },
  });
  svc = testService({ RATE_LIMIT: "off", PUBLIC_URL: SITE, RPC_URL: `http://127.0.0.1:${provider.port}/key` });
  const db = svc.ctx.db;
  const token = launch(db, { symbol: "ONE", recipients: [{ handle: "alice", bps: 10_000 }], launchedAtMs: T0 });
  mint = token.mint;
  launch(db, { symbol: "TWO", recipients: [{ handle: "alice", bps: 10_000 }], launchedAtMs: T0 + 1_000 });
  sweep(db, token.tokenId, 900_000_000n, T0 + 2_000);
  signIn(db, "u-alice", "alice", T0 + 3_000);
  payout(db, "u-alice", 20_000_000n, T0 + 4_000, "confirmed");
  payout(db, "u-alice", 20_000_000n, T0 + 5_000, "queued");
  doc = (await svc.json("/api/openapi.json")).body;
});
afterAll(async () => {
  await svc?.cleanup();
  await provider?.stop(true);
});

/** A JSON Schema validator of one documented parameter, with the document's $refs resolved. */
function parameterValidator(path: string, name: string): (value: string) => boolean {
  const parameter = doc.paths[path].get.parameters.find((p: Json) => p.name === name);
  const ajv = new Ajv2020({ strict: false });
  addFormats(ajv);
  return ajv.compile(parameter.schema) as (value: string) => boolean;
}

const documentedQueries = (): { path: string; name: string }[] =>
  Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
    Object.values<Json>(item).flatMap((op) =>
      (op.parameters ?? []).filter((p: Json) => p.in === "query").map((p: Json) => ({ path, name: p.name })),
    ),
  );

describe("a query parameter given twice", () => {
  /** Two values the route accepts one at a time, and the rest of a valid query, per documented parameter. */
  async function validQueries(): Promise<Record<string, { url: string; values: [string, string] }>> {
    const ledger = (await svc.json("/api/ledger?limit=1")).body;
    const tokens = (await svc.json("/api/tokens?limit=1")).body;
    const idpTokens = tokenCursor({ launchedAtMs: T0 + 1_000, mint: address() });
    const idpPayouts = payoutCursor(99);
    const at = new Date(T0 + 10_000).toISOString();
    return {
      "/api/tokens sort": { url: "/api/tokens", values: ["new", "fees"] },
      "/api/tokens q": { url: "/api/tokens", values: ["ONE", "TWO"] },
      "/api/tokens limit": { url: "/api/tokens", values: ["5", "6"] },
      "/api/tokens cursor": { url: "/api/tokens", values: [tokens.nextCursor, tokens.nextCursor] },
      "/api/idp/{handle}/tokens cursor": { url: "/api/idp/alice/tokens", values: [idpTokens, idpTokens] },
      "/api/idp/{handle}/tokens limit": { url: `/api/idp/alice/tokens?cursor=${idpTokens}`, values: ["5", "6"] },
      "/api/idp/{handle}/payouts cursor": { url: "/api/idp/alice/payouts", values: [idpPayouts, idpPayouts] },
      "/api/idp/{handle}/payouts limit": { url: `/api/idp/alice/payouts?cursor=${idpPayouts}`, values: ["5", "6"] },
      "/api/ledger limit": { url: "/api/ledger", values: ["5", "6"] },
      "/api/ledger before": { url: "/api/ledger", values: [ledger.nextBefore, at] },
      "/api/ledger/stream lastEventId": { url: "/api/ledger/stream", values: [ledger.nextBefore, ledger.nextBefore] },
      "/api/proof/liabilities at": { url: "/api/proof/liabilities", values: [at, at] },
      "/api/tokens/{mint}/history days": { url: `/api/tokens/${mint}/history`, values: ["7", "8"] },
      "/api/proof/history days": { url: "/api/proof/history", values: ["7", "8"] },
    };
  }

  const withParam = (url: string, name: string, values: string[]) =>
    `${url}${url.includes("?") ? "&" : "?"}${values.map((v) => `${name}=${encodeURIComponent(v)}`).join("&")}`;

  test("is refused with 400 in the envelope on every documented query parameter, and the document says so", async () => {
    const cases = await validQueries();
    // Every documented query parameter is covered: a new one must be added here.
    expect(
      documentedQueries()
        .map((q) => `${q.path} ${q.name}`)
        .sort(),
    ).toEqual(Object.keys(cases).sort());
    const check = documentChecker(doc);
    for (const [key, { url, values }] of Object.entries(cases)) {
      const name = key.split(" ")[1]!;
      // Each value alone is answered (not a 400)...
      for (const value of values) {
        const alone = await svc.call(withParam(url, name, [value]));
        expect({ key, value, status: alone.status }).not.toEqual({ key, value, status: 400 });
        await alone.body?.cancel();
      }
      // ...both together are refused, naming the parameter.
      const twice = await svc.call(withParam(url, name, values));
      const body = await twice.json();
      expect({ key, status: twice.status }).toEqual({ key, status: 400 });
      expect(body).toEqual({ error: `The query parameter '${name}' is given more than once.` });
      check.assertBody(key.split(" ")[0]!, "GET", 400, body, key);
      expect(check.operation(key.split(" ")[0]!, "GET").responses["400"].description).toContain("more than once");
    }
    // HEAD is the GET's twin.
    expect((await svc.call("/api/ledger?limit=5&limit=6", { method: "HEAD" })).status).toBe(400);
  });

  test("a parameter the route does not take is still ignored, repeated or not (SPEC: /api/stats)", async () => {
    expect((await svc.call("/api/stats?x=1&x=2")).status).toBe(200);
    expect((await svc.call("/api/tokens?limit=5&utm=a&utm=b")).status).toBe(200);
  });
});

/** Times around every edge of the format and of the ranges the server keeps; most well-formed. */
function timeCorpus(): string[] {
  const random = rng(64);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const two = (n: number) => String(n).padStart(2, "0");
  /** Mostly a value of the format (`valid`), sometimes one just outside it. */
  const part = (valid: () => string, invalid: readonly string[]) => (random() < 0.9 ? valid() : pick(invalid));
  const years = ["0000", "0001", "0099", "0400", "1899", "1900", "1969", "1970", "1971", "1999", "2000", "2024"];
  years.push("2026", "2100", "2254", "2255", "2256", "2400", "9999");
  const corpus = [
    "1970-01-01T00:00:00Z",
    "1970-01-01T00:00:00.000001Z",
    "1970-01-01T00:00:00.000001+00:01",
    "2024-02-29T12:00:00Z",
    "2023-02-29T12:00:00Z",
    "2000-02-29T12:00:00Z",
    "2100-02-29T12:00:00Z",
    "2026-04-31T12:00:00Z",
    "2026-10-30T12:00:00.000Z",
    "2026-10-30T12:00:00.1234567890Z",
    "2026-10-30 12:00:00Z",
    "2026-10-30T12:00Z",
    "2026-10-30T12:00:00",
    "2026-10-30",
    "soon",
    "1700000000",
    "",
  ];
  for (let i = 0; i < 400; i++) {
    const date = `${part(() => pick(years), ["999", "20260"])}-${part(() => two(1 + Math.floor(random() * 12)), ["00", "13", "1"])}-${part(() => two(1 + Math.floor(random() * 31)), ["00", "32", "7"])}`;
    const time = `${part(() => two(Math.floor(random() * 24)), ["24", "7"])}:${part(() => two(Math.floor(random() * 60)), ["60"])}:${part(() => two(Math.floor(random() * 60)), ["60", "5"])}`;
    const fraction = part(() => pick(["", ".1", ".123", ".123456", ".123456789"]), [".", ".1234567890"]);
    const zone = part(
      () => pick(["Z", "+00:00", "-23:59", "-05:30", "+14:00"]),
      ["z", "+24:00", "+05:60", "+0000", ""],
    );
    corpus.push(`${date}T${time}${fraction}${zone}`);
  }
  return corpus;
}

describe("the time parameters", () => {
  for (const [path, name, url] of [
    ["/api/ledger", "before", "/api/ledger?before="],
    ["/api/proof/liabilities", "at", "/api/proof/liabilities?at="],
  ] as const) {
    test(`${path} ${name}: the document allows a time exactly when the service takes it`, async () => {
      const parameter = doc.paths[path].get.parameters.find((p: Json) => p.name === name);
      expect(parameter.schema.pattern).toBeString();
      expect(parameter.schema.maxLength).toBe(35);
      const allows = parameterValidator(path, name);
      const disagreements: string[] = [];
      let allowed = 0;
      for (const time of timeCorpus()) {
        const response = await svc.call(`${url}${encodeURIComponent(time)}`);
        const taken = response.status !== 400;
        const body = await response.json();
        if (!taken) expect(Object.keys(body)).toEqual(["error"]);
        if (allows(time) !== taken) disagreements.push(`${time}: document ${allows(time)}, service ${response.status}`);
        if (taken) allowed++;
      }
      expect(disagreements).toEqual([]);
      // The corpus has both kinds in number.
      expect(allowed).toBeGreaterThan(100);
      expect(allowed).toBeLessThan(400);
    });
  }

  test("a time outside the feed's range pages as its meaning says: nothing before 1970, everything before 9999", async () => {
    const all = (await svc.json("/api/ledger")).body.events.length;
    expect(all).toBeGreaterThan(0);
    expect((await svc.json("/api/ledger?before=1969-12-31T23:59:59Z")).body).toEqual({ events: [], nextBefore: null });
    expect((await svc.json("/api/ledger?before=0001-01-01T00:00:00Z")).body).toEqual({ events: [], nextBefore: null });
    expect((await svc.json("/api/ledger?before=9999-12-31T23:59:59Z")).body.events).toHaveLength(all);
    expect((await svc.json("/api/ledger?before=2300-01-01T00:00:00%2B01:00")).body.events).toHaveLength(all);
  });
});

describe("the cursors", () => {
  test("every cursor the service issues has the documented shape and length; one outside it is refused", async () => {
    const tokens = parameterValidator("/api/tokens", "cursor");
    const account = parameterValidator("/api/idp/{handle}/tokens", "cursor");
    expect(parameterValidator("/api/idp/{handle}/payouts", "cursor")("abc_-")).toBe(true);
    for (const sort of ["new", "fees", "mcap"]) {
      const page = (await svc.json(`/api/tokens?sort=${sort}&limit=1`)).body;
      expect(page.nextCursor).toBeString();
      expect({ sort, ok: tokens(page.nextCursor) }).toEqual({ sort, ok: true });
    }
    const longest = tokenCursor({ launchedAtMs: Number.MAX_SAFE_INTEGER, mint: "9".repeat(44) });
    for (const cursor of [payoutCursor(Number.MAX_SAFE_INTEGER), longest]) expect(account(cursor)).toBe(true);
    for (const outside of ["no spaces", "a.b", `${"A".repeat(600)}.${"B".repeat(22)}`]) {
      expect(tokens(outside)).toBe(false);
      expect((await svc.call(`/api/tokens?cursor=${encodeURIComponent(outside)}`)).status).toBe(400);
    }
    expect(account("no+plus")).toBe(false);
    expect((await svc.call("/api/idp/alice/tokens?cursor=no%2Bplus")).status).toBe(400);
  });
});

describe("bodies over the limit", () => {
  test("every public route with a body documents its 413, and answers it in the envelope the document shows", async () => {
    const check = documentChecker(doc);
    const withBody = Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
      Object.entries<Json>(item)
        .filter(([method]) => method !== "get")
        .map(([method, op]) => ({ path, method, op })),
    );
    expect(withBody.map((o) => o.path).sort()).toEqual(
      ["/api/launch/confirm", "/api/launch/intent", "/api/launch/metadata", "/api/rpc"].sort(),
    );
    for (const { path, method, op } of withBody) {
      expect({ path, documented: op.responses["413"] !== undefined }).toEqual({ path, documented: true });
      const response = await svc.call(path, {
        method: method.toUpperCase(),
        headers: { "content-type": "application/json", origin: SITE, "content-length": String(64 * 1024 * 1024) },
        body: "{}",
      });
      expect({ path, status: response.status }).toEqual({ path, status: 413 });
      check.assertBody(path, method, 413, await response.json());
    }
  });
});

describe("POST /api/rpc in the document", () => {
  test("documents its request, and both kinds of its answers validate against it", async () => {
    const op = doc.paths["/api/rpc"].post;
    const requestSchema = op.requestBody?.content?.["application/json"]?.schema;
    expect(requestSchema).toBeDefined();
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ $id: "doc", components: doc.components }, "doc");
    const validRequest = ajv.compile(
      JSON.parse(JSON.stringify(requestSchema).replaceAll('"#/components/', '"doc#/components/')),
    );
    const check = documentChecker(doc);
    const wallet = address();
    for (const request of [
      { jsonrpc: "2.0", id: 7, method: "getBalance", params: [wallet] },
      { jsonrpc: "2.0", id: "a", method: "getGenesisHash" },
    ]) {
      expect(validRequest(request)).toBe(true);
      const answer = await svc.json("/api/rpc", {
        method: "POST",
        headers: { "content-type": "application/json", origin: SITE },
        body: JSON.stringify(request),
      });
      expect(answer.status).toBe(200);
      check.assertBody("/api/rpc", "POST", 200, answer.body, request.method);
    }
    // What the proxy refuses, the document does not allow either.
    for (const refused of [
      [{ jsonrpc: "2.0", id: 1, method: "getBalance", params: [wallet] }],
      { jsonrpc: "1.0", id: 1, method: "getBalance" },
      { jsonrpc: "2.0", id: 1, method: "getProgramAccounts", params: [] },
      { jsonrpc: "2.0", id: {}, method: "getBalance" },
      { jsonrpc: "2.0", id: 1, method: "getBalance", params: "x" },
    ]) {
      expect(validRequest(refused)).toBe(false);
      const answer = await svc.json("/api/rpc", {
        method: "POST",
        headers: { "content-type": "application/json", origin: SITE },
        body: JSON.stringify(refused),
      });
      expect({ refused, status: answer.status }).toEqual({ refused, status: 400 });
      check.assertBody("/api/rpc", "POST", 400, answer.body);
    }
  });
});
