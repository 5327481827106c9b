/**
 * An autopay account's record stays small: `/api/idp/:handle` and `/api/me` carry the first 100
 * tokens and payouts and a cursor each; the page routes give the rest, newest first, with no item
 * skipped or repeated, even while new payouts land between pages.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { testService, type TestService, type Json } from "../helpers/service";
import { devLogin } from "./support";
import { launch, payout, sweep, T0 } from "../helpers/read-world";

let svc: TestService | null = null;
afterEach(async () => {
  await svc?.cleanup();
  svc = null;
});

const TOKENS = 130;
const PAYOUTS = 230;

/** carol (signed in through dev login, so pinned to dev-carol) named by 130 tokens, paid 230 times. */
async function autopayAccount(s: TestService) {
  const db = s.ctx.db;
  const cookie = await devLogin(s, "carol");
  const mints: string[] = [];
  for (let i = 0; i < TOKENS; i++) {
    // Pairs of launches in the same millisecond: the mint breaks the tie.
    const t = launch(db, {
      recipients: [{ handle: "carol", bps: 10_000 }],
      launchedAtMs: T0 + Math.floor(i / 2) * 1000,
    });
    mints.push(t.mint);
    if (i === 0) sweep(db, t.tokenId, 10_000_000_000n, T0 + 500);
  }
  for (let i = 0; i < PAYOUTS; i++) payout(db, "dev-carol", 1000n, T0 + 10_000 + i, "confirmed", "autopay");
  return { cookie, mints };
}

async function follow(
  s: TestService,
  first: { items: Json[]; cursor: string | null },
  path: (cursor: string) => string,
  key: "tokens" | "payouts",
  init: RequestInit = {},
) {
  const items = [...first.items];
  let cursor = first.cursor;
  let pages = 1;
  while (cursor) {
    const page = await s.json(path(cursor), init);
    expect(page.status).toBe(200);
    expect(page.body[key].length).toBeLessThanOrEqual(100);
    items.push(...page.body[key]);
    cursor = page.body.nextCursor;
    pages++;
    expect(pages).toBeLessThan(10);
  }
  return { items, pages };
}

describe("paging of payouts and tokens", () => {
  test("/api/idp/:handle: the first 100 inline with cursors; the pages give the rest, newest first, once each", async () => {
    svc = testService({ RATE_LIMIT: "off" });
    await autopayAccount(svc);
    const record = await svc.json("/api/idp/carol");
    expect(record.status).toBe(200);
    expect(record.body.tokens).toHaveLength(100);
    expect(record.body.payouts).toHaveLength(100);
    expect(record.body.tokensNextCursor).toEqual(expect.any(String));
    expect(record.body.payoutsNextCursor).toEqual(expect.any(String));
    // Figures still cover everything, not the page.
    expect(record.body.paidLamports).toBe(String(1000 * PAYOUTS));

    const payouts = await follow(
      svc,
      { items: record.body.payouts, cursor: record.body.payoutsNextCursor },
      (c) => `/api/idp/carol/payouts?cursor=${c}`,
      "payouts",
    );
    expect(payouts.pages).toBe(3);
    const ids = payouts.items.map((p: { id: number }) => p.id);
    expect(ids).toHaveLength(PAYOUTS);
    expect(new Set(ids).size).toBe(PAYOUTS);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);

    const tokens = await follow(
      svc,
      { items: record.body.tokens, cursor: record.body.tokensNextCursor },
      (c) => `/api/idp/carol/tokens?cursor=${c}&limit=7`,
      "tokens",
    );
    expect(tokens.pages).toBe(1 + Math.ceil(30 / 7));
    const mints = tokens.items.map((t: { mint: string }) => t.mint);
    expect(new Set(mints).size).toBe(TOKENS);
    expect(tokens.items.every((t: { bps: number }) => t.bps === 10_000)).toBe(true);
  }, 60_000);

  test("a new payout between pages shifts nothing; bad cursors and limits are 400; unknown handles 404", async () => {
    svc = testService({ RATE_LIMIT: "off" });
    await autopayAccount(svc);
    const record = await svc.json("/api/idp/carol");
    const firstIds = record.body.payouts.map((p: { id: number }) => p.id);
    payout(svc.ctx.db, "dev-carol", 1000n, T0 + 99_999, "confirmed", "autopay");
    const next = await svc.json(`/api/idp/carol/payouts?cursor=${record.body.payoutsNextCursor}`);
    expect(next.body.payouts[0].id).toBe(firstIds[99] - 1);

    for (const path of [
      "/api/idp/carol/payouts?cursor=nope",
      "/api/idp/carol/payouts",
      `/api/idp/carol/payouts?cursor=${record.body.tokensNextCursor}`,
      `/api/idp/carol/tokens?cursor=${record.body.payoutsNextCursor}`,
      `/api/idp/carol/tokens?cursor=${record.body.tokensNextCursor}&limit=101`,
      "/api/idp/not-a-handle!/tokens?cursor=x",
    ]) {
      const res = await svc.json(path);
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expect(Object.keys(res.body)).toEqual(["error"]);
    }
    expect((await svc.json(`/api/idp/nobody/payouts?cursor=${record.body.payoutsNextCursor}`)).status).toBe(404);
  }, 60_000);

  test("/api/me: the same first 100 and cursors, and its own page routes behind the session", async () => {
    svc = testService({ RATE_LIMIT: "off" });
    const { cookie } = await autopayAccount(svc);
    const me = await svc.json("/api/me", { headers: { cookie } });
    expect(me.body.signedIn).toBe(true);
    expect(me.body.tokens).toHaveLength(100);
    expect(me.body.payouts).toHaveLength(100);
    const payouts = await follow(
      svc,
      { items: me.body.payouts, cursor: me.body.payoutsNextCursor },
      (c) => `/api/me/payouts?cursor=${c}`,
      "payouts",
      { headers: { cookie } },
    );
    expect(new Set(payouts.items.map((p: { id: number }) => p.id)).size).toBe(PAYOUTS);
    const tokens = await follow(
      svc,
      { items: me.body.tokens, cursor: me.body.tokensNextCursor },
      (c) => `/api/me/tokens?cursor=${c}`,
      "tokens",
      { headers: { cookie } },
    );
    expect(new Set(tokens.items.map((t: { mint: string }) => t.mint)).size).toBe(TOKENS);
    const signedOut = await svc.json(`/api/me/payouts?cursor=${me.body.payoutsNextCursor}`);
    expect(signedOut.status).toBe(401);
    expect(signedOut.headers.get("cache-control")).toBe("private, no-store");
  }, 60_000);

  test("a small account's answer is as before, with null cursors; the OpenAPI document lists the pages", async () => {
    svc = testService();
    launch(svc.ctx.db, { recipients: [{ handle: "dave", bps: 10_000 }] });
    const record = await svc.json("/api/idp/dave");
    expect(record.body).toMatchObject({ tokensNextCursor: null, payoutsNextCursor: null, payouts: [] });
    expect(record.body.tokens).toHaveLength(1);
    const doc = (await svc.json("/api/openapi.json")).body;
    for (const path of ["/api/idp/{handle}/payouts", "/api/idp/{handle}/tokens"]) {
      expect(doc.paths[path]?.get).toBeDefined();
      expect(JSON.stringify(doc.paths[path].get.parameters)).toContain("cursor");
    }
    expect(JSON.stringify(doc)).toContain("payoutsNextCursor");
  });
});
