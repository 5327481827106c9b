/**
 * Integer query parameters are parsed strictly (decimal digits only, within SPEC's bounds), and
 * every fault of one parameter answers the same sentence: `Number()`-style coercion once let
 * `limit=0x10` list 16 tokens and `1e1` 10, and `limit=0` and `limit=abc` were refused in
 * different words.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { seedDatabase } from "../../scripts/seed";
import { type Json, type TestService, testService } from "../helpers/service";

let svc: TestService;
let mint: string;
let handle: string;

beforeAll(() => {
  svc = testService({ RATE_LIMIT: "off" });
  const { samples } = seedDatabase(svc.ctx.db, { tokens: 30, seed: 5 });
  mint = samples.mints[0]!;
  handle = samples.handles[0]!;
}, 60_000);
afterAll(async () => svc && (await svc.cleanup()));

const NOT_INTEGERS = ["0x10", "1e1", "0b11", "%201", "1%20", "+1", "-1", "1.0", "abc", "", "99999999999999999999"];

const cases = [
  {
    label: "/api/tokens",
    path: () => "/api/tokens",
    name: "limit",
    min: 1,
    max: 60,
    within: 7,
    count: (b: Json) => b.tokens.length,
  },
  {
    label: "/api/ledger",
    path: () => "/api/ledger",
    name: "limit",
    min: 1,
    max: 100,
    within: 9,
    count: (b: Json) => b.events.length,
  },
  {
    label: "/api/tokens/{mint}/history",
    path: () => `/api/tokens/${mint}/history`,
    name: "days",
    min: 1,
    max: 365,
    within: 30,
    count: null,
  },
  {
    label: "/api/proof/history",
    path: () => "/api/proof/history",
    name: "days",
    min: 1,
    max: 365,
    within: 30,
    count: null,
  },
  {
    label: "/api/idp/{handle}/tokens",
    path: () =>
      `/api/idp/${handle}/tokens?cursor=${Buffer.from('["t",9e15,"11111111111111111111111111111111"]').toString("base64url")}`,
    name: "limit",
    min: 1,
    max: 100,
    within: 1,
    count: (b: Json) => b.tokens.length,
  },
  {
    label: "/api/idp/{handle}/payouts",
    path: () => `/api/idp/${handle}/payouts?cursor=${Buffer.from('["p",2147483648]').toString("base64url")}`,
    name: "limit",
    min: 1,
    max: 100,
    within: 1,
    count: null,
  },
];

const withQuery = (path: string, query: string) => `${path}${path.includes("?") ? "&" : "?"}${query}`;

describe("integer query parameters", () => {
  for (const c of cases) {
    const route = c.label;
    test(`${c.name} on ${route}: every malformed or out-of-bounds value is one 400 sentence`, async () => {
      const sentence = `The query parameter '${c.name}' must be an integer from ${c.min} to ${c.max}.`;
      for (const raw of [...NOT_INTEGERS, String(c.min - 1), String(c.max + 1)]) {
        const { status, body } = await svc.json(withQuery(c.path(), `${c.name}=${raw}`));
        expect({ raw, status, body }).toEqual({ raw, status: 400, body: { error: sentence } });
      }
    });

    test(`${c.name} on ${route}: decimal values within bounds are served`, async () => {
      for (const raw of [String(c.min), String(c.within), String(c.max)]) {
        const { status, body } = await svc.json(withQuery(c.path(), `${c.name}=${raw}`));
        expect({ raw, status }).toEqual({ raw, status: 200 });
        if (c.count) expect(c.count(body)).toBeLessThanOrEqual(Number(raw));
      }
    });
  }

  test("limit=0x10 does not list 16 tokens, and the default is SPEC's 24", async () => {
    expect((await svc.json("/api/tokens?limit=0x10")).status).toBe(400);
    expect((await svc.json("/api/tokens")).body.tokens).toHaveLength(24);
    expect((await svc.json("/api/tokens?limit=16")).body.tokens).toHaveLength(16);
  });
});
