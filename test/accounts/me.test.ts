/** GET /api/me exactly as SPEC, dev login, and SPEC's rate limits of the session routes. */
import { afterEach, describe, expect, test } from "bun:test";
import { RateLimiter } from "../../src/http/rate-limit";
import { setAutopayMinLamports } from "../../src/settings/service";
import type { TestService } from "../helpers/service";
import { devLogin, freshWallet, launchToken, ORIGIN, postJson, serviceWith, sweep } from "./support";

let svc: TestService;
afterEach(async () => {
  await svc?.cleanup();
});

const LAMPORTS = /^[0-9]+$/;

describe("GET /api/me", () => {
  test("signed out: 200 with signedIn false, idpConfigured and devLogin only; private, no-store", async () => {
    ({ svc } = serviceWith());
    const r = await svc.json("/api/me");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ signedIn: false, idpConfigured: false, devLogin: true });
    expect(r.headers.get("cache-control")).toBe("private, no-store");
    expect(r.headers.get("x-ratelimit-limit")).toBe("120");
  });

  test("signed in: every field of SPEC with its type", async () => {
    ({ svc } = serviceWith());
    const t = launchToken(svc.ctx.db, [
      { handle: "Dana", bps: 6000 },
      { handle: "eve", bps: 4000 },
    ]);
    sweep(svc.ctx.db, t.tokenId, 1_000_000_000n);
    setAutopayMinLamports(svc.ctx.db, 50_000_000n);
    const cookie = await devLogin(svc, "Dana");
    await postJson(svc, "/api/claim", { wallet: freshWallet(), lamports: "100000000" }, { cookie });
    const r = await svc.json("/api/me", { headers: { cookie } });
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toBe("private, no-store");
    const b = r.body;
    expect(Object.keys(b).sort()).toEqual(
      [
        "signedIn",
        "idpConfigured",
        "devLogin",
        "idpUserId",
        "handle",
        "displayHandle",
        "name",
        "avatarUrl",
        "routing",
        "payoutWallet",
        "declined",
        "creditedLamports",
        "paidLamports",
        "burnedLamports",
        "balanceLamports",
        "handles",
        "tokens",
        "payouts",
        "tokensNextCursor",
        "payoutsNextCursor",
        "minClaimLamports",
        "autopayMinLamports",
        "claimsPaused",
        "claimsPausedReason",
      ].sort(),
    );
    expect(b).toMatchObject({
      signedIn: true,
      idpConfigured: false,
      devLogin: true,
      idpUserId: "dev-dana",
      handle: "dana",
      displayHandle: "Dana",
      name: "Dana",
      avatarUrl: "",
      routing: "hold",
      payoutWallet: null,
      declined: false,
      creditedLamports: "600000000",
      paidLamports: "100000000",
      burnedLamports: "0",
      balanceLamports: "500000000",
      handles: ["dana"],
      minClaimLamports: "10000000",
      autopayMinLamports: "50000000",
      claimsPaused: false,
      claimsPausedReason: null,
    });
    for (const k of [
      "creditedLamports",
      "paidLamports",
      "burnedLamports",
      "balanceLamports",
      "minClaimLamports",
      "autopayMinLamports",
    ]) {
      expect(b[k]).toMatch(LAMPORTS);
    }
    expect(b.tokens).toEqual([
      {
        mint: t.mint,
        name: expect.any(String),
        symbol: expect.any(String),
        imageUrl: null,
        bps: 6000,
        creditedLamports: "600000000",
      },
    ]);
    expect(b.payouts).toEqual([
      {
        id: expect.any(Number),
        lamports: "100000000",
        wallet: expect.any(String),
        kind: "claim",
        status: "queued",
        signature: null,
        createdAt: expect.stringMatching(/Z$/),
        confirmedAt: null,
      },
    ]);
  });

  test("signed in with nothing credited: zeros and empty lists, not errors", async () => {
    ({ svc } = serviceWith());
    const cookie = await devLogin(svc, "nobody");
    const b = (await svc.json("/api/me", { headers: { cookie } })).body;
    expect(b).toMatchObject({
      signedIn: true,
      creditedLamports: "0",
      balanceLamports: "0",
      tokens: [],
      payouts: [],
      handles: ["nobody"],
    });
  });
});

describe("dev login", () => {
  test("off unless DEV_LOGIN on a local chain: the route is 404 and /api/me says devLogin false", async () => {
    ({ svc } = serviceWith({ DEV_LOGIN: "0" }));
    const r = await postJson(svc, "/api/auth/dev-login", { handle: "x" });
    expect(r.status).toBe(404);
    expect((await svc.json("/api/me")).body.devLogin).toBe(false);
  });

  test("signs in as the account the handle is pinned to; another site or a bad handle is refused", async () => {
    ({ svc } = serviceWith());
    const first = await devLogin(svc, "frank");
    const again = await devLogin(svc, "@FRANK");
    const a = (await svc.json("/api/me", { headers: { cookie: first } })).body;
    const b = (await svc.json("/api/me", { headers: { cookie: again } })).body;
    expect(a.idpUserId).toBe(b.idpUserId);
    expect(
      (await postJson(svc, "/api/auth/dev-login", { handle: "frank" }, { origin: "https://evil.example" })).status,
    ).toBe(403);
    expect((await postJson(svc, "/api/auth/dev-login", { handle: "not a handle!" })).status).toBe(400);
  });
});

describe("rate limits with their headers", () => {
  async function exhaust(_path: string, limit: number, send: (ip?: string) => Promise<Response>) {
    // A frozen clock a second into a window, so the test never straddles a window boundary.
    const frozen = Math.floor(Date.now() / 60_000) * 60_000 + 1_000;
    svc.ctx.limiter = new RateLimiter({ now: () => frozen });
    for (let i = 1; i <= limit; i++) {
      const r = await send();
      expect(r.status).not.toBe(429);
      expect(r.headers.get("x-ratelimit-limit")).toBe(String(limit));
      expect(r.headers.get("x-ratelimit-remaining")).toBe(String(limit - i));
      const reset = Number(r.headers.get("x-ratelimit-reset"));
      // unix seconds, not a duration
      expect(reset).toBe((frozen - 1_000 + 60_000) / 1000);
      expect(r.headers.get("retry-after")).toBeNull();
    }
    const over = await send();
    expect(over.status).toBe(429);
    expect(Object.keys(await over.json())).toEqual(["error"]);
    expect(over.headers.get("retry-after")).toBe("59");
    expect(over.headers.get("x-ratelimit-remaining")).toBe("0");
    // another client IP has its own window
    const other = await send("198.51.100.200");
    expect(other.status).not.toBe(429);
  }

  test("/api/me: 120 a minute per IP", async () => {
    ({ svc } = serviceWith());
    await exhaust("/api/me", 120, (ip = "198.51.100.9") => svc.call("/api/me", { ip }));
  });

  test("/api/claim: 10 a minute per IP, headers on refusals too", async () => {
    ({ svc } = serviceWith());
    const cookie = await devLogin(svc, "gina");
    await exhaust("/api/claim", 10, (ip = "198.51.100.9") =>
      svc.call("/api/claim", {
        method: "POST",
        ip,
        headers: { "content-type": "application/json", origin: ORIGIN, cookie },
        body: JSON.stringify({ wallet: freshWallet() }),
      }),
    );
  });

  test("/api/routing: 20 a minute per IP", async () => {
    ({ svc } = serviceWith());
    const cookie = await devLogin(svc, "hank");
    await exhaust("/api/routing", 20, (ip = "198.51.100.9") =>
      svc.call("/api/routing", {
        method: "POST",
        ip,
        headers: { "content-type": "application/json", origin: ORIGIN, cookie },
        body: JSON.stringify({ routing: "hold" }),
      }),
    );
  });
});
