/**
 * Issue 43's review findings on the operator's surface, each checked through HTTP:
 *
 * 1. /admin sessions are bound to ADMIN_SECRET: rotating it signs everyone out; "sign out all
 *    sessions" ends every page session at once.
 * 5. Wrong keys from an address do not lock the right key out (the page's sign-in here; the bearer
 *    routes in test/http/front-door.test.ts).
 * 6. The webhook routes and GET /api/admin/set-aside take the /admin session as well as the bearer.
 * 7. Every admin action is audited with its credential, client IP, request id and reason: webhook
 *    create/delete/replay, page actions as the page, sign-ins.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { launch } from "../helpers/read-world";
import { testService, type TestService } from "../helpers/service";

const ORIGIN = "https://fees.example";
const SECRET = "s3cret-for-the-operator-page-0123456789";
const ROTATED = "rotated-secret-for-the-operator-0123456789";
const BEARER = { authorization: `Bearer ${SECRET}` };

const services: TestService[] = [];
afterEach(async () => {
  while (services.length) await services.pop()!.cleanup();
});

function start(env: Record<string, string> = {}): TestService {
  const svc = testService({ PUBLIC_URL: ORIGIN, ADMIN_SECRET: SECRET, WEBHOOKS_ALLOW_PRIVATE: "1", ...env });
  services.push(svc);
  return svc;
}

async function signIn(svc: TestService, secret = SECRET, init: { ip?: string; requestId?: string } = {}) {
  const headers: Record<string, string> = { "content-type": "application/json", origin: ORIGIN };
  if (init.requestId) headers["x-request-id"] = init.requestId;
  return svc.call("/api/admin/session", {
    method: "POST",
    headers,
    body: JSON.stringify({ secret }),
    ip: init.ip,
  });
}

async function cookieOf(svc: TestService, init: { ip?: string; requestId?: string } = {}): Promise<string> {
  const response = await signIn(svc, SECRET, init);
  expect(response.status).toBe(200);
  return response.headers.get("set-cookie")!.split(";")[0]!;
}

const signedIn = async (svc: TestService, cookie: string) =>
  (await svc.json("/api/admin/session", { headers: { cookie } })).body.signedIn as boolean;

interface AuditEntry {
  actor: string;
  action: string;
  subject: string | null;
  reason: string | null;
  requestId: string | null;
  clientIp: string | null;
}
const auditOf = async (svc: TestService): Promise<AuditEntry[]> =>
  (await svc.json("/api/admin/audit", { headers: BEARER })).body.entries;

describe("finding 1: page sessions are bound to the secret", () => {
  test("rotating ADMIN_SECRET signs every page session out, across a restart on the same data", async () => {
    const first = start();
    const cookie = await cookieOf(first);
    expect(await signedIn(first, cookie)).toBe(true);
    await first.close();
    services.pop();

    const second = start({ DATA_DIR: first.ctx.config.dataDir, ADMIN_SECRET: ROTATED });
    expect(await signedIn(second, cookie)).toBe(false);
    expect((await second.json("/api/admin/overview", { headers: { cookie } })).status).toBe(404);
    // The new secret opens a session as before.
    const fresh = await signIn(second, ROTATED);
    expect(fresh.status).toBe(200);
  });

  test("the same secret after a restart keeps the session", async () => {
    const first = start();
    const cookie = await cookieOf(first);
    await first.close();
    services.pop();
    const second = start({ DATA_DIR: first.ctx.config.dataDir });
    expect(await signedIn(second, cookie)).toBe(true);
  });

  test("sign out all sessions: every page session ends, audited with its reason; the bearer still works", async () => {
    const svc = start();
    const mine = await cookieOf(svc);
    const other = await cookieOf(svc);
    // Through the cookie, a write needs this site's Origin, as every admin write does.
    const crossSite = await svc.call("/api/admin/sessions", {
      method: "DELETE",
      headers: { cookie: mine, origin: "https://evil.example" },
    });
    expect(crossSite.status).toBe(404);
    expect(await signedIn(svc, other)).toBe(true);

    const out = await svc.json("/api/admin/sessions", {
      method: "DELETE",
      headers: { cookie: mine, origin: ORIGIN, "content-type": "application/json", "x-request-id": "req-out-all" },
      body: JSON.stringify({ reason: "laptop lost" }),
      ip: "198.51.100.40",
    });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ ok: true, signedOut: 2 });
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
    expect(await signedIn(svc, mine)).toBe(false);
    expect(await signedIn(svc, other)).toBe(false);
    const [entry] = await auditOf(svc);
    expect(entry).toMatchObject({
      actor: "admin-page",
      action: "admin_sign_out_all",
      reason: "laptop lost",
      requestId: "req-out-all",
      clientIp: "198.51.100.40",
    });
    // The bearer alone can do it too (a script, when the page is not at hand).
    await cookieOf(svc);
    const byBearer = await svc.json("/api/admin/sessions", { method: "DELETE", headers: BEARER });
    expect(byBearer.body).toEqual({ ok: true, signedOut: 1 });
  });
});

describe("finding 5: wrong keys do not lock the right one out", () => {
  test("after 10 wrong keys from an address, more wrong keys are 429, the right key still signs in", async () => {
    const svc = start();
    const ip = "198.51.100.50";
    for (let i = 0; i < 10; i++) expect((await signIn(svc, `wrong-key-${i}`, { ip })).status).toBe(401);
    const limited = await signIn(svc, "wrong-key-10", { ip });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await limited.json()).toEqual({ error: expect.any(String) });
    expect((await signIn(svc, SECRET, { ip })).status).toBe(200);
  });
});

describe("finding 6: the page's session reaches the webhook and set-aside routes", () => {
  test("list, create, deliveries, replay, delete webhooks and list set-aside tokens through the cookie", async () => {
    const svc = start();
    const cookie = await cookieOf(svc);
    const read = { cookie };
    const write = { cookie, origin: ORIGIN, "content-type": "application/json" };
    expect((await svc.json("/api/admin/set-aside", { headers: read })).status).toBe(200);
    expect((await svc.json("/api/admin/webhooks", { headers: read })).body).toEqual({ webhooks: [] });
    const created = await svc.json("/api/admin/webhooks", {
      method: "POST",
      headers: write,
      body: JSON.stringify({ url: "http://127.0.0.1:9/hook" }),
    });
    expect(created.status).toBe(200);
    const id = created.body.id as string;
    expect((await svc.json(`/api/admin/webhooks/${id}/deliveries`, { headers: read })).status).toBe(200);
    const replay = await svc.json(`/api/admin/webhooks/${id}/replay`, {
      method: "POST",
      headers: write,
      body: JSON.stringify({ since: "2020-01-01T00:00:00.000000Z" }),
    });
    expect(replay.status).toBe(200);
    // A write through the cookie from another site is not one.
    const crossSite = await svc.call(`/api/admin/webhooks/${id}`, {
      method: "DELETE",
      headers: { cookie, origin: "https://evil.example" },
    });
    expect(crossSite.status).toBe(404);
    expect((await svc.json(`/api/admin/webhooks/${id}`, { method: "DELETE", headers: write })).status).toBe(200);
    expect((await svc.json("/api/admin/webhooks", { headers: read })).body).toEqual({ webhooks: [] });
  });
});

describe("finding 7: every admin action is audited with credential, IP, request id and reason", () => {
  test("webhook create, replay and delete by the bearer", async () => {
    const svc = start();
    const headers = (requestId: string) => ({
      ...BEARER,
      "content-type": "application/json",
      "x-request-id": requestId,
    });
    const created = await svc.json("/api/admin/webhooks", {
      method: "POST",
      headers: headers("req-create"),
      body: JSON.stringify({ url: "http://127.0.0.1:9/hook", reason: "partner feed" }),
      ip: "198.51.100.61",
    });
    expect(created.status).toBe(200);
    const id = created.body.id as string;
    await svc.json(`/api/admin/webhooks/${id}/replay`, {
      method: "POST",
      headers: headers("req-replay"),
      body: JSON.stringify({ since: "2020-01-01T00:00:00.000000Z", reason: "receiver was down" }),
      ip: "198.51.100.62",
    });
    await svc.json(`/api/admin/webhooks/${id}`, {
      method: "DELETE",
      headers: headers("req-delete"),
      body: JSON.stringify({ reason: "partner left" }),
      ip: "198.51.100.63",
    });
    const entries = await auditOf(svc);
    expect(entries.slice(0, 3).reverse()).toEqual([
      {
        ...entries[2]!,
        actor: "admin-api",
        action: "create_webhook",
        subject: id,
        reason: "partner feed",
        requestId: "req-create",
        clientIp: "198.51.100.61",
      },
      {
        ...entries[1]!,
        actor: "admin-api",
        action: "replay_webhook",
        subject: `${id} since 2020-01-01T00:00:00.000000Z`,
        reason: "receiver was down",
        requestId: "req-replay",
        clientIp: "198.51.100.62",
      },
      {
        ...entries[0]!,
        actor: "admin-api",
        action: "delete_webhook",
        subject: id,
        reason: "partner left",
        requestId: "req-delete",
        clientIp: "198.51.100.63",
      },
    ]);
    // Nothing done, nothing audited: a second delete of the same id is a 404 and no row.
    expect((await svc.json(`/api/admin/webhooks/${id}`, { method: "DELETE", headers: BEARER })).status).toBe(404);
    expect(await auditOf(svc)).toHaveLength(3);
  });

  test("the page's actions are recorded as the page; its sign-in carries the IP and request id", async () => {
    const svc = start();
    const t = launch(svc.ctx.db);
    const cookie = await cookieOf(svc, { ip: "198.51.100.70", requestId: "req-sign-in" });
    const hidden = await svc.call(`/api/admin/tokens/${t.mint}/hide`, {
      method: "POST",
      headers: { cookie, origin: ORIGIN, "content-type": "application/json", "x-request-id": "req-hide" },
      body: JSON.stringify({ reason: "spam" }),
      ip: "198.51.100.71",
    });
    expect(hidden.status).toBe(200);
    const [hide, signInRow] = await auditOf(svc);
    expect(hide).toMatchObject({
      actor: "admin-page",
      action: "hide_token",
      subject: t.mint,
      reason: "spam",
      requestId: "req-hide",
      clientIp: "198.51.100.71",
    });
    expect(signInRow).toMatchObject({
      actor: "admin-page",
      action: "admin_sign_in",
      requestId: "req-sign-in",
      clientIp: "198.51.100.70",
    });
  });
});
