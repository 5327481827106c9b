/** POST /api/routing: every status of SPEC's table; a refusal changes neither routing nor balance. */
import { afterEach, describe, expect, test } from "bun:test";
import { setClaimsPaused } from "../../src/settings/service";
import type { TestService } from "../helpers/service";
import {
  balanceOfUser,
  devLogin,
  freshWallet,
  launchToken,
  ledgerSnapshot,
  pdaAddress,
  postJson,
  serviceWith,
  sweep,
  tokenAccount,
  type FakeChain,
} from "./support";

let svc: TestService;
let chain: FakeChain;
let n = 0;
const ip = () => `192.0.2.${(n++ % 250) + 1}`;

afterEach(async () => {
  await svc?.cleanup();
});

async function alice() {
  ({ svc } = serviceWith());
  chain = svc.ctx.chain as FakeChain;
  const t = launchToken(svc.ctx.db, [{ handle: "alice", bps: 10_000 }]);
  sweep(svc.ctx.db, t.tokenId, 1_000_000_000n);
  return devLogin(svc, "alice", ip());
}

const route = (body: unknown, cookie: string | null, extra: { origin?: string | null } = {}) =>
  postJson(svc, "/api/routing", body, { cookie, ip: ip(), ...extra });

const identity = () =>
  svc.ctx.db.$client
    .query("SELECT routing, payout_wallet AS wallet, declined FROM identities WHERE idp_user_id = 'dev-alice'")
    .get() as { routing: string | null; wallet: string | null; declined: bigint };

async function refused(status: number, body: unknown, cookie: string | null, extra: { origin?: string | null } = {}) {
  const before = {
    ledger: ledgerSnapshot(svc.ctx.db),
    identity: identity(),
    balance: balanceOfUser(svc.ctx.db, "dev-alice"),
  };
  const r = await route(body, cookie, extra);
  expect(r.status).toBe(status);
  expect(Object.keys(r.body)).toEqual(["error"]);
  expect(r.headers.get("cache-control")).toBe("private, no-store");
  expect({
    ledger: ledgerSnapshot(svc.ctx.db),
    identity: identity(),
    balance: balanceOfUser(svc.ctx.db, "dev-alice"),
  }).toEqual(before);
  return r;
}

describe("200", () => {
  test("autopay with a wallet, then hold keeping it, then clearing it, then a public decline", async () => {
    const cookie = await alice();
    const wallet = freshWallet();
    let r = await route({ routing: "autopay", wallet }, cookie);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true, routing: "autopay", payoutWallet: wallet, declined: false });
    expect(r.headers.get("cache-control")).toBe("private, no-store");

    r = await route({ routing: "hold" }, cookie);
    expect(r.body).toEqual({ ok: true, routing: "hold", payoutWallet: wallet, declined: false });
    // autopay again with the saved wallet: no chain read needed
    const reads = chain.reads;
    r = await route({ routing: "autopay" }, cookie);
    expect(r.body.payoutWallet).toBe(wallet);
    expect(chain.reads).toBe(reads);

    r = await route({ routing: "hold", wallet: null }, cookie);
    expect(r.body).toEqual({ ok: true, routing: "hold", payoutWallet: null, declined: false });

    r = await route({ routing: "burn", declined: true }, cookie);
    expect(r.body).toEqual({ ok: true, routing: "burn", payoutWallet: null, declined: true });
    const me = (await svc.json("/api/me", { headers: { cookie } })).body;
    expect(me.routing).toBe("burn");
    expect(me.declined).toBe(true);
    expect(me.payoutWallet).toBeNull();
    expect(me.balanceLamports).toBe("1000000000");
  });
});

describe("400", () => {
  test("unknown or missing routing, decline without burn, declined not a boolean", async () => {
    const cookie = await alice();
    await refused(400, { routing: "HOLD" }, cookie);
    await refused(400, { routing: "payout" }, cookie);
    await refused(400, {}, cookie);
    await refused(400, { routing: "hold", declined: true }, cookie);
    await refused(400, { routing: "autopay", wallet: freshWallet(), declined: true }, cookie);
    await refused(400, { routing: "burn", declined: "yes" }, cookie);
  });

  test("autopay without a wallet (none saved, or cleared in the same request)", async () => {
    const cookie = await alice();
    await refused(400, { routing: "autopay" }, cookie);
    expect((await route({ routing: "hold", wallet: freshWallet() }, cookie)).status).toBe(200);
    await refused(400, { routing: "autopay", wallet: null }, cookie);
  });

  test("not a wallet address, or not a wallet account", async () => {
    const cookie = await alice();
    await refused(400, { routing: "autopay", wallet: "abc" }, cookie);
    await refused(400, { routing: "autopay", wallet: 7 }, cookie);
    await refused(400, { routing: "autopay", wallet: pdaAddress() }, cookie);
    await refused(400, { routing: "autopay", wallet: chain.treasury.publicKey.toBase58() }, cookie);
    const tokenAcc = freshWallet();
    chain.accounts.set(tokenAcc, tokenAccount());
    await refused(400, { routing: "hold", wallet: tokenAcc }, cookie);
  });

  test("body not a JSON object", async () => {
    const cookie = await alice();
    await refused(400, '["hold"]', cookie);
    await refused(400, "hold", cookie);
  });
});

describe("401, 403, 503", () => {
  test("not signed in", async () => {
    await alice();
    await refused(401, { routing: "hold" }, null);
  });

  test("another site", async () => {
    const cookie = await alice();
    await refused(403, { routing: "burn", declined: true }, cookie, { origin: "https://evil.example" });
  });

  test("the wallet could not be checked on chain, or claims are paused", async () => {
    const cookie = await alice();
    chain.down = true;
    await refused(503, { routing: "autopay", wallet: freshWallet() }, cookie);
    chain.down = false;
    setClaimsPaused(svc.ctx.db, true);
    await refused(503, { routing: "autopay", wallet: freshWallet() }, cookie);
    await refused(503, { routing: "hold" }, cookie);
  });
});
