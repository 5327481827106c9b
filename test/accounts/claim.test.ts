/** POST /api/claim: every status of SPEC's table, and the balance untouched by every refusal. */
import { afterEach, describe, expect, test } from "bun:test";
import { setClaimsPaused, setMinClaimLamports } from "../../src/settings/service";
import type { TestService } from "../helpers/service";
import {
  balanceOfUser,
  devLogin,
  fakeChain,
  freshWallet,
  launchToken,
  ledgerSnapshot,
  ORIGIN,
  pdaAddress,
  postJson,
  programAccount,
  serviceWith,
  sweep,
  systemAccount,
  tokenAccount,
  type FakeChain,
} from "./support";

let svc: TestService;
let chain: FakeChain;
let ipCounter = 0;
/** a fresh client IP per request, so the per-IP claim limit stays out of the way here */
const ip = () => `192.0.2.${(ipCounter++ % 250) + 1}`;

afterEach(async () => {
  await svc?.cleanup();
});

const SOL = 1_000_000_000n;

/** alice is named on a token and credited 2 SOL; she signs in (dev login, the embedded default). */
async function aliceWithBalance(env: Record<string, string> = {}, chainOverride?: FakeChain | null) {
  ({ svc } = serviceWith(env, { chain: chainOverride === undefined ? fakeChain() : chainOverride }));
  chain = (svc.ctx.chain as FakeChain) ?? fakeChain();
  const token = launchToken(svc.ctx.db, [{ handle: "alice", bps: 10_000 }]);
  sweep(svc.ctx.db, token.tokenId, 2n * SOL);
  const cookie = await devLogin(svc, "alice", ip());
  return { cookie, token, id: "dev-alice" };
}

const claim = (body: unknown, cookie: string | null, extra: { origin?: string | null } = {}) =>
  postJson(svc, "/api/claim", body, { cookie, ip: ip(), ...extra });

/** Runs a refused claim and checks the status, the envelope, and that no money moved. */
async function refused(status: number, body: unknown, cookie: string | null, extra: { origin?: string | null } = {}) {
  const before = ledgerSnapshot(svc.ctx.db);
  const balance = balanceOfUser(svc.ctx.db, "dev-alice");
  const r = await claim(body, cookie, extra);
  expect(r.status).toBe(status);
  expect(Object.keys(r.body)).toEqual(["error"]);
  expect(typeof r.body.error).toBe("string");
  expect(r.headers.get("cache-control")).toBe("private, no-store");
  expect(ledgerSnapshot(svc.ctx.db)).toEqual(before);
  expect(balanceOfUser(svc.ctx.db, "dev-alice")).toBe(balance);
  return r;
}

describe("200 queued", () => {
  test("omitted amount claims the whole balance; it leaves the balance at once and shows on /api/me", async () => {
    const { cookie } = await aliceWithBalance();
    const wallet = freshWallet();
    const r = await claim({ wallet }, cookie);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ payoutId: expect.any(Number), lamports: "2000000000", status: "queued" });
    expect(r.headers.get("cache-control")).toBe("private, no-store");
    expect(balanceOfUser(svc.ctx.db, "dev-alice")).toBe(0n);
    const me = (await svc.json("/api/me", { headers: { cookie } })).body;
    expect(me.balanceLamports).toBe("0");
    expect(me.paidLamports).toBe("2000000000");
    expect(me.payouts).toEqual([
      expect.objectContaining({ id: r.body.payoutId, lamports: "2000000000", wallet, kind: "claim", status: "queued" }),
    ]);
  });

  test("a given amount (decimal string) to a plain system account leaves the rest", async () => {
    const { cookie } = await aliceWithBalance();
    const wallet = freshWallet();
    chain.accounts.set(wallet, systemAccount());
    const r = await claim({ wallet, lamports: "500000000" }, cookie);
    expect(r.status).toBe(200);
    expect(r.body.lamports).toBe("500000000");
    expect(balanceOfUser(svc.ctx.db, "dev-alice")).toBe(1_500_000_000n);
  });

  test("the account comes from the session: a user id or handle in the body changes nothing", async () => {
    const { cookie } = await aliceWithBalance();
    const bob = launchToken(svc.ctx.db, [{ handle: "bob", bps: 10_000 }]);
    sweep(svc.ctx.db, bob.tokenId, SOL);
    await devLogin(svc, "bob", ip());
    const r = await claim(
      { wallet: freshWallet(), idpUserId: "dev-bob", handle: "bob", lamports: "100000000" },
      cookie,
    );
    expect(r.status).toBe(200);
    expect(balanceOfUser(svc.ctx.db, "dev-alice")).toBe(2n * SOL - 100_000_000n);
    expect(balanceOfUser(svc.ctx.db, "dev-bob")).toBe(SOL);
  });
});

describe("400", () => {
  test("not a wallet address", async () => {
    const { cookie } = await aliceWithBalance();
    for (const wallet of [
      "",
      "not-an-address",
      "0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl",
      "1111",
      "2".repeat(60),
      12345,
      null,
      ["x"],
    ]) {
      await refused(400, { wallet }, cookie);
    }
    await refused(400, {}, cookie);
    expect(chain.reads).toBe(0);
  });

  test("an address that is not a wallet: off the curve, token account, program, system account with data", async () => {
    const { cookie } = await aliceWithBalance();
    await refused(400, { wallet: pdaAddress() }, cookie);
    const tokenAcc = freshWallet();
    chain.accounts.set(tokenAcc, tokenAccount());
    await refused(400, { wallet: tokenAcc }, cookie);
    const program = freshWallet();
    chain.accounts.set(program, programAccount());
    await refused(400, { wallet: program }, cookie);
    const nonce = freshWallet();
    chain.accounts.set(nonce, { ...systemAccount(), data: new Uint8Array(80) });
    await refused(400, { wallet: nonce }, cookie);
  });

  test("the treasury, and the mints and fee addresses of tokens launched here", async () => {
    const { cookie, token } = await aliceWithBalance();
    await refused(400, { wallet: chain.treasury.publicKey.toBase58() }, cookie);
    await refused(400, { wallet: token.mint }, cookie);
    await refused(400, { wallet: token.creator }, cookie);
    const vault = svc.ctx.db.$client.query("SELECT creator_vault AS v FROM tokens WHERE id = ?").get(token.tokenId) as {
      v: string;
    };
    await refused(400, { wallet: vault.v }, cookie);
  });

  test("amount zero, above the balance, below the minimum, or not a decimal string", async () => {
    const { cookie } = await aliceWithBalance();
    const wallet = freshWallet();
    await refused(400, { wallet, lamports: "0" }, cookie);
    await refused(400, { wallet, lamports: "2000000001" }, cookie);
    await refused(400, { wallet, lamports: "9999999" }, cookie);
    await refused(400, { wallet, lamports: "99999999999999999999" }, cookie);
    await refused(400, { wallet, lamports: 100000000 }, cookie);
    await refused(400, { wallet, lamports: "1.5" }, cookie);
    await refused(400, { wallet, lamports: "-5" }, cookie);
    await refused(400, { wallet, lamports: " 100000000" }, cookie);
  });

  test("no balance, and a whole balance below the minimum", async () => {
    ({ svc } = serviceWith());
    chain = svc.ctx.chain as FakeChain;
    const cookie = await devLogin(svc, "carol", ip());
    const r = await claim({ wallet: freshWallet() }, cookie);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/no balance/i);
    const t = launchToken(svc.ctx.db, [{ handle: "carol", bps: 10_000 }]);
    sweep(svc.ctx.db, t.tokenId, 9_999_999n);
    const before = ledgerSnapshot(svc.ctx.db);
    const small = await claim({ wallet: freshWallet() }, cookie);
    expect(small.status).toBe(400);
    expect(small.body.error).toMatch(/minimum/);
    expect(ledgerSnapshot(svc.ctx.db)).toEqual(before);
  });

  test("the minimum in force is the stored setting, and /api/me shows it", async () => {
    const { cookie } = await aliceWithBalance();
    setMinClaimLamports(svc.ctx.db, 600_000_000n);
    await refused(400, { wallet: freshWallet(), lamports: "500000000" }, cookie);
    expect((await svc.json("/api/me", { headers: { cookie } })).body.minClaimLamports).toBe("600000000");
    expect((await claim({ wallet: freshWallet(), lamports: "600000000" }, cookie)).status).toBe(200);
  });

  test("body not a JSON object", async () => {
    const { cookie } = await aliceWithBalance();
    await refused(400, "[1,2]", cookie);
    await refused(400, '"wallet"', cookie);
    await refused(400, "null", cookie);
    await refused(400, "{not json", cookie);
    const before = ledgerSnapshot(svc.ctx.db);
    for (const type of ["text/plain", "application/x-www-form-urlencoded"]) {
      const r = await svc.json("/api/claim", {
        method: "POST",
        headers: { "content-type": type, cookie, origin: ORIGIN },
        body: type === "text/plain" ? JSON.stringify({ wallet: freshWallet() }) : `wallet=${freshWallet()}`,
        ip: ip(),
      });
      expect(r.status).toBe(400);
    }
    expect(ledgerSnapshot(svc.ctx.db)).toEqual(before);
  });
});

describe("401, 403", () => {
  test("not signed in", async () => {
    await aliceWithBalance();
    await refused(401, { wallet: freshWallet() }, null);
    await refused(401, { wallet: freshWallet() }, "session=abcdefghijklmnopqrstuvwxyz234567");
  });

  test("Origin naming another site, Origin null, or a cross-site fetch without Origin", async () => {
    const { cookie } = await aliceWithBalance();
    await refused(403, { wallet: freshWallet() }, cookie, { origin: "https://evil.example" });
    await refused(403, { wallet: freshWallet() }, cookie, { origin: "http://localhost:4000" });
    await refused(403, { wallet: freshWallet() }, cookie, { origin: "null" });
    const before = ledgerSnapshot(svc.ctx.db);
    const r = await svc.json("/api/claim", {
      method: "POST",
      headers: { "content-type": "application/json", cookie, "sec-fetch-site": "cross-site" },
      body: JSON.stringify({ wallet: freshWallet() }),
      ip: ip(),
    });
    expect(r.status).toBe(403);
    expect(ledgerSnapshot(svc.ctx.db)).toEqual(before);
    // no Origin at all (a script, not a browser) is not another site
    expect((await claim({ wallet: freshWallet(), lamports: "100000000" }, cookie, { origin: null })).status).toBe(200);
  });
});

describe("409, 503", () => {
  test("a payout already queued or in flight", async () => {
    const { cookie } = await aliceWithBalance();
    expect((await claim({ wallet: freshWallet(), lamports: "100000000" }, cookie)).status).toBe(200);
    await refused(409, { wallet: freshWallet(), lamports: "100000000" }, cookie);
    svc.ctx.db.$client
      .query("UPDATE payouts SET status = 'sent', signature = 'sig' WHERE idp_user_id = 'dev-alice'")
      .run();
    await refused(409, { wallet: freshWallet(), lamports: "100000000" }, cookie);
  });

  test("claims paused", async () => {
    const { cookie } = await aliceWithBalance();
    setClaimsPaused(svc.ctx.db, true);
    const r = await refused(503, { wallet: freshWallet() }, cookie);
    expect(r.body.error).toMatch(/paused/i);
    expect((await svc.json("/api/me", { headers: { cookie } })).body.claimsPaused).toBe(true);
    setClaimsPaused(svc.ctx.db, false);
    expect((await claim({ wallet: freshWallet() }, cookie)).status).toBe(200);
  });

  test("a pause that lands while the wallet is being checked still stops the claim", async () => {
    const { cookie } = await aliceWithBalance();
    chain.delayMs = 30;
    const pending = refused(503, { wallet: freshWallet() }, cookie);
    await Bun.sleep(5);
    setClaimsPaused(svc.ctx.db, true);
    await pending;
  });

  test("the chain cannot be asked about the wallet, or no chain is configured", async () => {
    const { cookie } = await aliceWithBalance();
    chain.down = true;
    const r = await refused(503, { wallet: freshWallet() }, cookie);
    expect(r.body.error).not.toMatch(/http|rpc|url/i);
    await svc.cleanup();
    const second = await aliceWithBalance({}, null);
    await refused(503, { wallet: freshWallet() }, second.cookie);
  });
});

describe("concurrency", () => {
  test("50 concurrent claims from one account: exactly one queued payout and 49 answers of 409", async () => {
    const { cookie } = await aliceWithBalance();
    chain.delayMs = 5;
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => claim({ wallet: freshWallet(), lamports: String(100_000_000 + i) }, cookie)),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    const payouts = svc.ctx.db.$client.query("SELECT lamports FROM payouts").all() as { lamports: bigint }[];
    expect(payouts).toHaveLength(1);
    const won = answers.find((a) => a.status === 200)!.body;
    expect(BigInt(payouts[0]!.lamports)).toBe(BigInt(won.lamports));
    expect(balanceOfUser(svc.ctx.db, "dev-alice")).toBe(2n * SOL - BigInt(won.lamports));
  });
});
