/**
 * The operator page's session: ADMIN_SECRET posted once from this site opens a cookie session
 * (HttpOnly, SameSite=Strict, scoped to /api/admin) that the admin routes accept beside the
 * bearer; writes through the cookie need this site's Origin; sign-in and sign-out are audited;
 * with no secret configured there is nothing to find.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { testService, type TestService } from "../helpers/service";
import { launch } from "../helpers/read-world";

let svc: TestService;
afterEach(async () => svc && (await svc.cleanup()));

const ORIGIN = "https://fees.example";
const SECRET = "s3cret-for-the-operator-page-0123456789";

function start(env: Record<string, string> = { ADMIN_SECRET: SECRET }) {
  svc = testService({ PUBLIC_URL: ORIGIN, ...env });
  return svc;
}

async function signIn(secret = SECRET, origin: string | null = ORIGIN) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (origin) headers.origin = origin;
  return svc.call("/api/admin/session", { method: "POST", headers, body: JSON.stringify({ secret }) });
}

const cookieOf = (response: Response) => response.headers.get("set-cookie")!.split(";")[0]!;

describe("the operator page's session", () => {
  test("the right secret from this site opens a strict, HttpOnly cookie session scoped to /api/admin", async () => {
    start();
    const response = await signIn();
    expect(response.status).toBe(200);
    const line = response.headers.get("set-cookie")!;
    expect(line).toStartWith("__Secure-admin=");
    expect(line).toContain("HttpOnly");
    expect(line).toContain("SameSite=Strict");
    expect(line).toContain("Path=/api/admin");
    expect(line).toContain("Secure");
    expect(line).not.toContain(SECRET);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const cookie = cookieOf(response);
    expect((await svc.json("/api/admin/session", { headers: { cookie } })).body).toEqual({ signedIn: true });
    expect((await svc.json("/api/admin/session")).body).toEqual({ signedIn: false });
    const overview = await svc.json("/api/admin/overview", { headers: { cookie } });
    expect(overview.status).toBe(200);
    expect(overview.body.health.jobs.map((j: { job: string }) => j.job)).toContain("sweep");
    expect(overview.body.settings).toMatchObject({ claimsPaused: false, launchesPaused: false });
    // The secret itself is stored nowhere.
    const ids = (svc.ctx.db.$client.query("SELECT id FROM admin_sessions").all() as { id: string }[]).map((r) => r.id);
    expect(ids).toHaveLength(1);
    expect(ids[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(ids[0]).not.toBe(cookie.split("=")[1]);
  });

  test("a wrong secret is 401, another site's sign-in 403, and neither opens a session", async () => {
    start();
    const wrong = await signIn("not-it");
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("set-cookie")).toBeNull();
    expect(await wrong.json()).toEqual({ error: expect.any(String) });
    expect((await signIn(SECRET, "https://evil.example")).status).toBe(403);
    expect((await signIn(SECRET, null)).status).toBe(403);
    expect(svc.ctx.db.$client.query("SELECT COUNT(*) AS n FROM admin_sessions").get()).toEqual({ n: 0n });
  });

  test("writes through the cookie need this site's Origin; each action and the sign-in are audited as the page", async () => {
    start();
    const t = launch(svc.ctx.db);
    const cookie = cookieOf(await signIn());
    const hide = (origin: string | null) =>
      svc.call(`/api/admin/tokens/${t.mint}/hide`, {
        method: "POST",
        headers: { cookie, "content-type": "application/json", ...(origin ? { origin } : {}) },
        body: JSON.stringify({ reason: "spam" }),
      });
    expect((await hide("https://evil.example")).status).toBe(404);
    expect((await hide(null)).status).toBe(404);
    expect((await svc.json(`/api/tokens`)).body.tokens).toHaveLength(1);
    expect((await hide(ORIGIN)).status).toBe(200);
    expect((await svc.json(`/api/tokens`)).body.tokens).toHaveLength(0);
    const audit = (await svc.json("/api/admin/audit", { headers: { cookie } })).body.entries;
    expect(audit.map((e: { action: string }) => e.action)).toEqual(["hide_token", "admin_sign_in"]);
    expect(audit[0]).toMatchObject({ subject: t.mint, reason: "spam" });
    expect(audit[1]).toMatchObject({ actor: "admin-page" });
    const tokens = (await svc.json(`/api/admin/tokens?q=${t.mint.slice(0, 6)}`, { headers: { cookie } })).body.tokens;
    expect(tokens).toEqual([expect.objectContaining({ mint: t.mint, hidden: true })]);
  });

  test("signing out ends the session for good and is audited; the bearer keeps working", async () => {
    start();
    const cookie = cookieOf(await signIn());
    const out = await svc.call("/api/admin/session", { method: "DELETE", headers: { cookie, origin: ORIGIN } });
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
    expect((await svc.json("/api/admin/overview", { headers: { cookie } })).status).toBe(404);
    const bearer = await svc.json("/api/admin/audit", { headers: { authorization: `Bearer ${SECRET}` } });
    expect(bearer.status).toBe(200);
    expect(bearer.body.entries.map((e: { action: string }) => e.action)).toEqual(["admin_sign_out", "admin_sign_in"]);
    expect((await svc.json("/api/admin/overview", { headers: { authorization: `Bearer ${SECRET}` } })).status).toBe(
      200,
    );
  });

  test("an expired session is refused", async () => {
    let now = Date.now();
    svc = testService({ PUBLIC_URL: ORIGIN, ADMIN_SECRET: SECRET }, { now: () => now });
    const cookie = cookieOf(await signIn());
    expect((await svc.json("/api/admin/overview", { headers: { cookie } })).status).toBe(200);
    now += 8 * 60 * 60 * 1000 + 1;
    expect((await svc.json("/api/admin/overview", { headers: { cookie } })).status).toBe(404);
  });

  test("with no ADMIN_SECRET there is no sign-in and no admin route, whatever cookie is sent", async () => {
    start({});
    expect((await svc.json("/api/admin/session")).status).toBe(404);
    expect((await signIn()).status).toBe(404);
    expect(
      (
        await svc.json("/api/admin/overview", {
          headers: { cookie: "__Secure-admin=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" },
        })
      ).status,
    ).toBe(404);
  });
});
