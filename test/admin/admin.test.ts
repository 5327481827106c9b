import { afterEach, describe, expect, test } from "bun:test";
import { testService, type TestService, type Json } from "../helpers/service";
import { FIXTURE_MINT, recordFixtureLaunch } from "../helpers/launch";
import { performAdminAction } from "../../src/admin/service";

let svc: TestService;
afterEach(async () => svc && (await svc.cleanup()));

const MINT = FIXTURE_MINT;
const auth = { authorization: "Bearer admin-secret-for-tests-0123456789ab", "content-type": "application/json" };

function seedToken(s: TestService) {
  recordFixtureLaunch(s.ctx.db, {
    name: "Hidden",
    symbol: "HID",
  });
}

describe("admin routes", () => {
  test("answer 404 when ADMIN_SECRET is unset or wrong", async () => {
    svc = testService();
    expect((await svc.call("/api/admin/claims/pause", { method: "POST", headers: auth })).status).toBe(404);
    await svc.cleanup();
    svc = testService({ ADMIN_SECRET: "admin-secret-for-tests-0123456789ab" });
    expect(
      (await svc.call("/api/admin/claims/pause", { method: "POST", headers: { authorization: "Bearer nope" } })).status,
    ).toBe(404);
    expect((await svc.call("/api/admin/claims/pause", { method: "POST" })).status).toBe(404);
    expect((await svc.call("/api/admin/audit")).status).toBe(404);
  });

  test("hide and unhide a token: Explore leaves it out, its record still answers, and the audit names each action", async () => {
    svc = testService({ ADMIN_SECRET: "admin-secret-for-tests-0123456789ab" });
    seedToken(svc);
    const hide = await svc.json(`/api/admin/tokens/${MINT}/hide`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ reason: "spam report" }),
    });
    expect(hide.status).toBe(200);
    expect((await svc.json("/api/tokens")).body.tokens).toHaveLength(0);
    expect((await svc.json(`/api/tokens/${MINT}`)).status).toBe(200);
    await svc.json(`/api/admin/tokens/${MINT}/unhide`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ reason: "reviewed" }),
    });
    expect((await svc.json("/api/tokens")).body.tokens).toHaveLength(1);
    const audit = (await svc.json("/api/admin/audit", { headers: auth })).body.entries;
    expect(audit.map((e: Json) => [e.action, e.subject, e.reason])).toEqual([
      ["unhide_token", MINT, "reviewed"],
      ["hide_token", MINT, "spam report"],
    ]);
    expect((await svc.json(`/api/admin/tokens/${"1".repeat(32)}/hide`, { method: "POST", headers: auth })).status).toBe(
      404,
    );
    expect((await svc.json(`/api/admin/tokens/not-a-mint/hide`, { method: "POST", headers: auth })).status).toBe(400);
  });

  test("pause claims and set thresholds: the values in force are stored and every action audited", async () => {
    svc = testService({ ADMIN_SECRET: "admin-secret-for-tests-0123456789ab" });
    expect((await svc.json("/api/admin/claims/pause", { method: "POST", headers: auth, body: "{}" })).status).toBe(200);
    expect(
      (
        await svc.json("/api/admin/min-claim", {
          method: "POST",
          headers: auth,
          body: JSON.stringify({ lamports: "20000000" }),
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await svc.json("/api/admin/min-claim", {
          method: "POST",
          headers: auth,
          body: JSON.stringify({ lamports: -1 }),
        })
      ).status,
    ).toBe(400);
    // Below a new wallet's rent-exempt minimum a payout could only fail on chain.
    const tooSmall = await svc.json("/api/admin/autopay-min", {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ lamports: "890879" }),
    });
    expect(tooSmall.status).toBe(400);
    expect(tooSmall.body.error).toContain("rent-exempt");
    expect(
      (
        await svc.json("/api/admin/min-claim", {
          method: "POST",
          headers: auth,
          body: JSON.stringify({ lamports: "99999999999999999999" }),
        })
      ).status,
    ).toBe(400);
    const rows = svc.ctx.db.$client.query("SELECT key, value FROM settings ORDER BY key").all() as {
      key: string;
      value: string;
    }[];
    expect(rows).toContainEqual({ key: "claims_paused", value: "1" });
    expect(rows).toContainEqual({ key: "min_claim_lamports", value: "20000000" });
    await svc.json("/api/admin/claims/resume", { method: "POST", headers: auth });
    const audit = (await svc.json("/api/admin/audit?limit=10", { headers: auth })).body.entries.map(
      (e: Json) => e.action,
    );
    expect(audit).toEqual(["resume_claims", "set_min_claim", "pause_claims"]);
  });

  test("the platform token is published through /api/ca", async () => {
    svc = testService({ ADMIN_SECRET: "admin-secret-for-tests-0123456789ab" });
    const before = (await svc.json("/api/ca")).body;
    expect(Object.values(before)).toContain(null);
    await svc.json("/api/admin/platform-token", {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ mint: MINT, reason: "launch day" }),
    });
    expect(JSON.stringify((await svc.json("/api/ca")).body)).toContain(MINT);
  });

  test("an action with a reason over the limit is refused and nothing is written", () => {
    svc = testService();
    expect(() =>
      performAdminAction(svc.ctx.db, { actor: "cli", reason: "x".repeat(501), nowMs: 1 }, { action: "pause_claims" }),
    ).toThrow();
    expect(svc.ctx.db.$client.query<{ n: bigint }, []>("SELECT COUNT(*) AS n FROM admin_audit").get()?.n).toBe(0n);
  });
});
