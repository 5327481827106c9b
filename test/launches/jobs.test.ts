/**
 * The `launches` job (stale intents expire, `bonded` follows the chain), the `market` job (market cap
 * and 24 h volume from the market-data fake, in batches, null when unknown), and the platform-token
 * admin action behind `/api/ca`.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import { registerLaunchJobs } from "../../src/launches/jobs";
import { setPlatformToken } from "../../src/admin/platform-token";
import { recordConfirmedLaunch } from "../../src/tokens/launch-record";
import { startFakeMarket, type FakeMarket } from "../fakes/market";
import { testService, type TestService, type Json } from "../helpers/service";
import { png, prepare, stubChain, upload } from "./support";

let market: FakeMarket;
const services: TestService[] = [];

beforeAll(() => {
  market = startFakeMarket();
});
afterAll(async () => {
  await market.stop();
});
afterEach(async () => {
  market.down = false;
  market.pairs.clear();
  market.requests.length = 0;
  while (services.length) await services.pop()!.cleanup();
});

function service(env: Record<string, string> = {}, options: Parameters<typeof testService>[1] = {}): TestService {
  const svc = testService({ RATE_LIMIT: "0", ...env }, { chain: stubChain(), ...options });
  services.push(svc);
  registerLaunchJobs(svc.ctx.scheduler, svc.ctx);
  return svc;
}

let nextIndex = 1000;
function launchToken(svc: TestService, symbol: string): string {
  const mint = Keypair.generate().publicKey.toBase58();
  recordConfirmedLaunch(
    svc.ctx.db,
    {
      mint,
      name: `Token ${symbol}`,
      symbol,
      description: "",
      website: null,
      twitter: null,
      telegram: null,
      metadataUri: `https://ipfs.example/${symbol}`,
      imageUri: null,
      creatorIndex: nextIndex++,
      creator: Keypair.generate().publicKey.toBase58(),
      creatorVault: Keypair.generate().publicKey.toBase58(),
      deployer: Keypair.generate().publicKey.toBase58(),
      launchSignature: `sig-${symbol}-${mint}`,
      launchedAtMs: Date.now(),
      platformBps: 1000,
      recipients: [{ handle: "alice", bps: 10000 }],
    },
    Date.now(),
  );
  return mint;
}

const tokensByMint = async (svc: TestService) => {
  const res = await svc.json("/api/tokens?limit=60");
  return new Map<string, Json>(res.body.tokens.map((t: { mint: string }) => [t.mint, t]));
};

describe("market job", () => {
  test("fills market cap and 24 h volume in batches of 30; unknown stays null", async () => {
    const svc = service({ MARKET_API_URL: market.url });
    const mints = Array.from({ length: 35 }, (_, i) => launchToken(svc, `M${i}`));
    const [a, b] = mints;
    // Two pools for one token: the deeper one prices it; volume adds up over both.
    market.pairs.set(a!, [
      { baseToken: { address: a! }, marketCap: 12_345.5, volume: { h24: 1_000 }, liquidity: { usd: 50_000 } },
      { baseToken: { address: a! }, marketCap: 99_999, volume: { h24: 250.25 }, liquidity: { usd: 10 } },
    ]);
    // Known to the source but with no figures: still unknown, not zero.
    market.pairs.set(b!, [{ baseToken: { address: b! }, liquidity: { usd: 5 } }]);

    const run = await svc.ctx.scheduler.runNow("market");
    expect(run).toMatchObject({ ran: true, ok: true });
    expect(market.requests.map((r) => r.length).sort((x, y) => x - y)).toEqual([5, 30]);

    const tokens = await tokensByMint(svc);
    expect(tokens.get(a!)).toMatchObject({ marketCapUsd: 12_345.5, volume24hUsd: 1_250.25 });
    expect(tokens.get(b!)).toMatchObject({ marketCapUsd: null, volume24hUsd: null });
    expect(tokens.get(mints[20]!)).toMatchObject({ marketCapUsd: null, volume24hUsd: null });

    // mcap sort puts the known cap first.
    const byCap = await svc.json("/api/tokens?sort=mcap&limit=1");
    expect(byCap.body.tokens[0].mint).toBe(a);
  });

  test("a failing source fails the run and keeps the last figures", async () => {
    const svc = service({ MARKET_API_URL: market.url });
    const mint = launchToken(svc, "KEEP");
    market.pairs.set(mint, [
      { baseToken: { address: mint }, marketCap: 777, volume: { h24: 7 }, liquidity: { usd: 1 } },
    ]);
    expect(await svc.ctx.scheduler.runNow("market")).toMatchObject({ ran: true, ok: true });
    market.down = true;
    const failed = await svc.ctx.scheduler.runNow("market");
    expect(failed).toMatchObject({ ran: true, ok: false });
    expect((await tokensByMint(svc)).get(mint)).toMatchObject({ marketCapUsd: 777, volume24hUsd: 7 });
    const health = await svc.json("/api/cron/health");
    const entry = health.body.jobs.find((j: { job: string }) => j.job === "market");
    expect(entry.lastError).not.toContain("127.0.0.1");
  });

  test("without a market API the job runs clean and changes nothing", async () => {
    const svc = service();
    launchToken(svc, "NONE");
    expect(await svc.ctx.scheduler.runNow("market")).toMatchObject({ ran: true, ok: true });
    expect(market.requests).toHaveLength(0);
  });
});

describe("launches job", () => {
  test("expires intents whose window passed, so their mint can be prepared again", async () => {
    let now = Date.now();
    const svc = service({}, { now: () => now });
    const wallet = Keypair.generate();
    const image = await png();
    const mint = Keypair.generate();
    const stale = (await prepare(svc, wallet, mint, image)).body;
    const uploaded = (await prepare(svc, wallet, Keypair.generate(), image)).body;
    expect((await upload(svc, uploaded, wallet, image)).status).toBe(200);
    now += 11 * 60_000;
    expect(await svc.ctx.scheduler.runNow("launches")).toMatchObject({ ran: true, ok: true });
    const status = (id: string) =>
      (svc.ctx.db.$client.query("SELECT status FROM launch_intents WHERE id = ?").get(id) as { status: string }).status;
    expect(status(stale.intent)).toBe("expired");
    // It was handed a transaction that could still land for a while: not yet.
    expect(status(uploaded.intent)).toBe("metadata");
    now += 5 * 60_000;
    await svc.ctx.scheduler.runNow("launches");
    expect(status(uploaded.intent)).toBe("expired");
    expect((await prepare(svc, wallet, mint, image)).status).toBe(200);
  });

  test("refreshes bonded from the chain; a chain failure fails the run", async () => {
    const bonded = new Set<string>();
    let down = false;
    const svc = service({}, { chain: stubChain({ bonded, vaultsDown: () => down }) });
    const a = launchToken(svc, "BOND");
    const b = launchToken(svc, "CURVE");
    expect(await svc.ctx.scheduler.runNow("launches")).toMatchObject({ ran: true, ok: true });
    expect((await tokensByMint(svc)).get(a).bonded).toBe(false);
    bonded.add(a);
    expect(await svc.ctx.scheduler.runNow("launches")).toMatchObject({ ran: true, ok: true });
    const tokens = await tokensByMint(svc);
    expect(tokens.get(a).bonded).toBe(true);
    expect(tokens.get(b).bonded).toBe(false);
    down = true;
    expect(await svc.ctx.scheduler.runNow("launches")).toMatchObject({ ran: true, ok: false });
  });
});

describe("platform token", () => {
  test("setPlatformToken publishes the mint at /api/ca and writes the audit row", async () => {
    const svc = service();
    expect((await svc.json("/api/ca")).body).toEqual({ mint: null });
    const mint = Keypair.generate().publicKey.toBase58();
    setPlatformToken(svc.ctx.db, mint, "admin", "launch day", 1_700_000_000_000);
    expect((await svc.json("/api/ca")).body).toEqual({ mint });
    const audit = svc.ctx.db.$client
      .query("SELECT actor, action, subject, reason, at_ms AS atMs FROM admin_audit")
      .all();
    expect(audit).toEqual([
      { actor: "admin", action: "set_platform_token", subject: mint, reason: "launch day", atMs: 1_700_000_000_000n },
    ]);
    expect(() => setPlatformToken(svc.ctx.db, "not-a-mint", "admin", null)).toThrow();
    expect((await svc.json("/api/ca")).body).toEqual({ mint });
  });
});
