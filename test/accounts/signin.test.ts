/** Sign-in with the identity provider, end to end against the local fake provider over loopback. */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { fakeUser, startFakeIdp, type FakeIdp } from "../fakes/idp";
import type { TestService } from "../helpers/service";
import { cookieFrom, ORIGIN, postJson, serviceWith, setCookieLine, signInThroughIdp } from "./support";

let idp: FakeIdp;
let svc: TestService;
let clock = 1_700_000_000_000;
const now = () => clock;

beforeAll(() => {
  idp = startFakeIdp();
  idp.users.set("1001", fakeUser("1001", "Alice_X", 1234));
  idp.users.set("1002", fakeUser("1002", "bob"));
});
afterAll(() => idp.stop());
afterEach(async () => {
  await svc?.cleanup();
});

function fresh(env: Record<string, string> = {}) {
  clock = 1_700_000_000_000;
  svc = serviceWith({ ...idp.env, ...env }, { now }).svc;
  return svc;
}

const me = (cookie: string | null) => svc.json("/api/me", { headers: cookie ? { cookie } : {} });

describe("start", () => {
  test("redirects to the provider with PKCE S256, both read scopes, a state and our callback", async () => {
    fresh();
    const start = await svc.call("/api/auth/idp/start?returnTo=%2Ftokens%3Fsort%3Dfees");
    expect(start.status).toBe(302);
    const location = new URL(start.headers.get("location")!);
    expect(`${location.origin}${location.pathname}`).toBe(idp.env.IDP_AUTHORIZE_URL!);
    const q = location.searchParams;
    expect(q.get("response_type")).toBe("code");
    expect(q.get("client_id")).toBe(idp.clientId);
    expect(q.get("redirect_uri")).toBe(`${ORIGIN}/api/auth/idp/callback`);
    expect(q.get("code_challenge_method")).toBe("S256");
    expect(q.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get("scope")!.split(" ").sort()).toEqual(["tweet.read", "users.read"]);
    expect(q.get("state")!.length).toBeGreaterThanOrEqual(32);
    const cookie = setCookieLine(start, "idp_oauth")!;
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).toContain("Path=/api/auth/idp");
    expect(cookie).toContain("Max-Age=600");
    // localhost: no Secure, or the browser would drop the cookie on plain http
    expect(cookie).not.toContain("Secure");
    // neither the verifier nor the secret leaves in the URL
    expect(location.toString()).not.toContain(idp.clientSecret);
    expect(start.headers.get("cache-control")).toBe("no-store");
  });

  test("returnTo is limited to this site's own paths", async () => {
    fresh();
    for (const bad of [
      "//evil.example/x",
      "https://evil.example/",
      "/\\evil.example",
      "javascript:alert(1)",
      "evil",
      "/%0d%0aSet-Cookie:x=1".replace("%0d%0a", "\r\n"),
    ]) {
      const r = await svc.json(`/api/auth/idp/start?returnTo=${encodeURIComponent(bad)}`);
      expect(r.status).toBe(400);
      expect(Object.keys(r.body)).toEqual(["error"]);
    }
    const ok = await svc.call("/api/auth/idp/start");
    expect(ok.status).toBe(302);
  });

  test("without a provider configured, start answers 503 and /api/me says so", async () => {
    svc = serviceWith({}, { now }).svc;
    expect((await svc.json("/api/auth/idp/start")).status).toBe(503);
    const r = await me(null);
    expect(r.body).toEqual({ signedIn: false, idpConfigured: false, devLogin: true });
  });
});

describe("callback", () => {
  test("a full sign-in: the verifier matches the challenge, the session cookie is set, /api/me shows the account", async () => {
    fresh();
    const before = idp.tokenRequests.length;
    const { callback, session } = await signInThroughIdp(svc, idp, "1001", "/tokens?sort=fees");
    expect(callback.status).toBe(302);
    expect(callback.headers.get("location")).toBe(`${ORIGIN}/tokens?sort=fees`);
    const tokenRequest = idp.tokenRequests[before]!;
    expect(tokenRequest.accepted).toBe(true);
    // PKCE: the verifier sent with the code hashes (SHA-256, base64url) to the challenge of the consent URL
    const challenge = idp.authorizeRequests.at(-1)!.get("code_challenge");
    expect(tokenRequest.challenge).toBe(challenge);
    expect(createHash("sha256").update(tokenRequest.verifier!).digest("base64url")).toBe(challenge!);

    const line = setCookieLine(callback, "session")!;
    expect(line).toContain("HttpOnly");
    expect(line).toContain("SameSite=Lax");
    expect(line).toContain("Path=/");
    expect(line).toContain(`Max-Age=${7 * 24 * 3600}`);
    expect(line).not.toContain("Secure");
    // the round-trip cookie is cleared
    expect(setCookieLine(callback, "idp_oauth")).toContain("Max-Age=0");

    const r = await me(session);
    expect(r.status).toBe(200);
    expect(r.body.signedIn).toBe(true);
    expect(r.body.idpUserId).toBe("1001");
    expect(r.body.handle).toBe("alice_x");
    expect(r.body.displayHandle).toBe("Alice_X");
    expect(r.body.name).toBe("Alice_X (name)");
    expect(r.body.avatarUrl).toBe("https://pbs.example/1001.jpg");
    expect(r.body.routing).toBe("hold");
    expect(r.body.handles).toEqual(["alice_x"]);

    // only the SHA-256 of the token is stored
    const token = session!.split("=")[1]!;
    const rows = svc.ctx.db.$client.query("SELECT id FROM sessions").all() as { id: string }[];
    expect(rows.map((x) => x.id)).toEqual([createHash("sha256").update(token).digest("hex")]);
    expect(rows.some((x) => x.id === token)).toBe(false);
  });

  test("a replayed state is refused, even with the original cookie, and no second code exchange happens", async () => {
    fresh();
    const first = await signInThroughIdp(svc, idp, "1001");
    expect(first.callback.status).toBe(302);
    const exchanges = idp.tokenRequests.length;
    const again = await svc.json(first.callbackPath, { headers: { cookie: first.oauthCookie } });
    expect(again.status).toBe(400);
    expect(Object.keys(again.body)).toEqual(["error"]);
    expect(idp.tokenRequests.length).toBe(exchanges);
    expect(svc.ctx.db.$client.query("SELECT COUNT(*) AS n FROM sessions").get()).toEqual({ n: 1n });
  });

  test("a foreign state is refused: another state, no cookie, or a cookie this service did not issue", async () => {
    fresh();
    idp.signInAs("1001");
    const start = await svc.call("/api/auth/idp/start");
    const cookie = cookieFrom(start, "idp_oauth")!;
    const consent = await fetch(start.headers.get("location")!, { redirect: "manual" });
    const back = new URL(consent.headers.get("location")!);
    const code = back.searchParams.get("code")!;
    const state = back.searchParams.get("state")!;

    const foreignState = await svc.json(`/api/auth/idp/callback?code=${code}&state=${"x".repeat(43)}`, {
      headers: { cookie },
    });
    expect(foreignState.status).toBe(400);
    const noCookie = await svc.json(`/api/auth/idp/callback?code=${code}&state=${state}`);
    expect(noCookie.status).toBe(400);
    // a round trip issued by another instance (another key) with a matching state is still refused
    const other = serviceWith(idp.env, { now }).svc;
    const otherStart = await other.call("/api/auth/idp/start");
    const otherCookie = cookieFrom(otherStart, "idp_oauth")!;
    const otherState = new URL(otherStart.headers.get("location")!).searchParams.get("state")!;
    await other.cleanup();
    const forged = await svc.json(`/api/auth/idp/callback?code=${code}&state=${otherState}`, {
      headers: { cookie: otherCookie },
    });
    expect(forged.status).toBe(400);
    // a tampered cookie (state swapped, MAC kept) is refused
    const parts = cookie.split("=")[1]!.split(".");
    parts[0] = otherState;
    const tampered = await svc.json(`/api/auth/idp/callback?code=${code}&state=${otherState}`, {
      headers: { cookie: `idp_oauth=${parts.join(".")}` },
    });
    expect(tampered.status).toBe(400);
    expect(svc.ctx.db.$client.query("SELECT COUNT(*) AS n FROM sessions").get()).toEqual({ n: 0n });
    // the genuine pair still works once
    const genuine = await svc.call(`/api/auth/idp/callback?code=${code}&state=${state}`, { headers: { cookie } });
    expect(genuine.status).toBe(302);
    expect(cookieFrom(genuine, "session")).not.toBeNull();
  });

  test("a round trip older than ten minutes is refused", async () => {
    fresh();
    idp.signInAs("1002");
    const start = await svc.call("/api/auth/idp/start");
    const cookie = cookieFrom(start, "idp_oauth")!;
    const consent = await fetch(start.headers.get("location")!, { redirect: "manual" });
    const back = new URL(consent.headers.get("location")!);
    clock += 10 * 60_000 + 1;
    const r = await svc.json(`${back.pathname}${back.search}`, { headers: { cookie } });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/too long/);
  });

  test("refused consent returns to the page, still signed out", async () => {
    fresh();
    idp.signInAs(null as never);
    const start = await svc.call("/api/auth/idp/start?returnTo=/x");
    const cookie = cookieFrom(start, "idp_oauth")!;
    const consent = await fetch(start.headers.get("location")!, { redirect: "manual" });
    const back = new URL(consent.headers.get("location")!);
    expect(back.searchParams.get("error")).toBe("access_denied");
    const r = await svc.call(`${back.pathname}${back.search}`, { headers: { cookie } });
    expect(r.status).toBe(302);
    expect(r.headers.get("location")).toBe(`${ORIGIN}/x`);
    expect(cookieFrom(r, "session")).toBeNull();
  });

  test("a provider that fails the code exchange is a 502 and no session", async () => {
    fresh();
    idp.failToken = true;
    try {
      const { callback, session } = await signInThroughIdp(svc, idp, "1001");
      expect(callback.status).toBe(502);
      const body = await callback.json();
      expect(Object.keys(body)).toEqual(["error"]);
      // nothing of the provider's address or the client secret leaks into the answer
      expect(JSON.stringify(body)).not.toContain("127.0.0.1");
      expect(JSON.stringify(body)).not.toContain(idp.clientSecret);
      expect(session).toBeNull();
    } finally {
      idp.failToken = false;
    }
  });

  test("on a public https deployment the session cookie is Secure and __Host- prefixed", async () => {
    fresh({ PUBLIC_URL: "https://fees.example" });
    idp.signInAs("1001");
    const start = await svc.call("/api/auth/idp/start");
    expect(setCookieLine(start, "idp_oauth")).toContain("Secure");
    const cookie = cookieFrom(start, "idp_oauth")!;
    const consent = await fetch(start.headers.get("location")!, { redirect: "manual" });
    const back = new URL(consent.headers.get("location")!);
    expect(back.origin).toBe("https://fees.example");
    const callback = await svc.call(`${back.pathname}${back.search}`, { headers: { cookie } });
    const line = setCookieLine(callback, "__Host-session")!;
    expect(line).toContain("Secure");
    expect(line).toContain("HttpOnly");
    const session = cookieFrom(callback, "__Host-session")!;
    expect((await me(session)).body.signedIn).toBe(true);
    // the unprefixed name opens nothing on this deployment
    expect((await me(`session=${session.split("=")[1]}`)).body.signedIn).toBe(false);
  });
});

describe("sessions", () => {
  test("a tampered session cookie is signed out: /api/me is signed out (and drops the cookie), claim is 401", async () => {
    fresh();
    const { session } = await signInThroughIdp(svc, idp, "1001");
    const token = session!.split("=")[1]!;
    const flipped = `session=${token.slice(0, -1)}${token.endsWith("a") ? "b" : "a"}`;
    const r = await me(flipped);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ signedIn: false, idpConfigured: true, devLogin: true });
    expect(setCookieLine(await svc.call("/api/me", { headers: { cookie: flipped } }), "session")).toContain(
      "Max-Age=0",
    );
    const claim = await postJson(
      svc,
      "/api/claim",
      { wallet: "11111111111111111111111111111111" },
      { cookie: flipped },
    );
    expect(claim.status).toBe(401);
    // the real cookie still works
    expect((await me(session)).body.signedIn).toBe(true);
  });

  test("sessions last seven days; an expired one is refused and removed", async () => {
    fresh();
    const { session } = await signInThroughIdp(svc, idp, "1001");
    clock += 7 * 24 * 3600_000 - 1;
    expect((await me(session)).body.signedIn).toBe(true);
    clock += 1;
    expect((await me(session)).body.signedIn).toBe(false);
    expect(svc.ctx.db.$client.query("SELECT COUNT(*) AS n FROM sessions").get()).toEqual({ n: 0n });
    const routing = await postJson(svc, "/api/routing", { routing: "hold" }, { cookie: session });
    expect(routing.status).toBe(401);
  });

  test("signing in again from the same browser replaces its old session", async () => {
    fresh();
    const first = await signInThroughIdp(svc, idp, "1001");
    idp.signInAs("1002");
    const start = await svc.call("/api/auth/idp/start");
    const oauth = cookieFrom(start, "idp_oauth")!;
    const consent = await fetch(start.headers.get("location")!, { redirect: "manual" });
    const back = new URL(consent.headers.get("location")!);
    const callback = await svc.call(`${back.pathname}${back.search}`, {
      headers: { cookie: `${oauth}; ${first.session}` },
    });
    expect(callback.status).toBe(302);
    expect((await me(first.session)).body.signedIn).toBe(false);
    expect((await me(cookieFrom(callback, "session"))).body.idpUserId).toBe("1002");
  });

  test("logout ends the session server-side: the same cookie replayed afterwards opens nothing", async () => {
    fresh();
    const { session } = await signInThroughIdp(svc, idp, "1001");
    const other = await signInThroughIdp(svc, idp, "1002");
    const foreign = await postJson(svc, "/api/auth/logout", {}, { cookie: session, origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect((await me(session)).body.signedIn).toBe(true);

    const out = await svc.call("/api/auth/logout", { method: "POST", headers: { cookie: session!, origin: ORIGIN } });
    expect(out.status).toBe(200);
    expect(await out.json()).toEqual({ ok: true });
    expect(setCookieLine(out, "session")).toContain("Max-Age=0");
    expect((await me(session)).body.signedIn).toBe(false);
    expect((await postJson(svc, "/api/routing", { routing: "hold" }, { cookie: session })).status).toBe(401);
    // another account's session is untouched
    expect((await me(other.session)).body.signedIn).toBe(true);
    expect(svc.ctx.db.$client.query("SELECT idp_user_id AS id FROM sessions").all()).toEqual([{ id: "1002" }]);
  });
});
