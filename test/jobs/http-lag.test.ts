/**
 * Through HTTP only: the service (app.handle) and the embedded local chain's JSON-RPC, nothing
 * in-process. A token is launched through the launch routes with a first buy (its creator fee is
 * the money), swept by the cron route, claimed through /api/claim; then `localnet_fault` makes
 * every status read reach a node far behind, for longer than the payout's blockhash lives. The
 * claim is paid exactly once.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import { createRpcChain } from "../../src/chain/rpc";
import { deriveCreatorKeypair } from "../../src/chain/keys";
import { startLocalChain, type LocalChain } from "@fee-ledger/localnet";
import { registerJobs } from "../../src/register-jobs";
import { runJob } from "../helpers/cron";
import { testService, type TestService, type Json } from "../helpers/service";
import { devLogin, postJson } from "../accounts/support";
import { draft, jsonPost, png, prepare, signReturned, upload } from "../launches/support";
import { localLaunchProgram } from "../../src/chain/setup";

const SITE = "http://localhost:3000"; // the origin the accounts helpers send
const CRON = "cron-secret-for-the-lag-test-0123456789";
let local: LocalChain;
let svc: TestService;

beforeAll(async () => {
  local = await startLocalChain({ rpcPort: 0, grpcPort: 0, slotMs: 10 });
  const rpc = createRpcChain({
    rpcUrl: local.rpcUrl,
    timeoutMs: 5_000,
    retries: 3,
    backoffBaseMs: 20,
    allowNodeCosigners: true,
  });
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const creatorKeypair = (i: number) => deriveCreatorKeypair(secret, i);
  svc = testService(
    {
      PUBLIC_URL: SITE,
      RPC_URL: local.rpcUrl,
      RATE_LIMIT: "0",
      CRON_SECRET: CRON,
      SWEEP_MIN_LAMPORTS: "1000000",
      MIN_CLAIM_LAMPORTS: "1000000",
    },
    {
      chain: {
        reader: rpc.reader,
        sender: rpc.sender,
        launchProgram: localLaunchProgram(local, rpc.reader),
        treasury: local.treasury,
        creatorKeypair,
        creatorAddress: (i) => creatorKeypair(i).publicKey,
      },
    },
  );
  // As src/main.ts wires them; they run only when the cron route asks (JOBS=0: no schedule).
  registerJobs(svc.ctx);
});
afterAll(async () => {
  await svc.cleanup();
  await local.stop();
});

async function chainRpc(method: string, params: unknown[] = []): Promise<Json> {
  const res = await fetch(local.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

const cron = async (job: string) => ({ body: await runJob(svc.call, job, CRON) });

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

test("statuses read through a node far behind past a payout's expiry: the claim is paid exactly once", async () => {
  // A deployer funded by the chain's faucet, a launch with a 5 SOL first buy.
  const wallet = Keypair.generate();
  const mint = Keypair.generate();
  await chainRpc("requestAirdrop", [wallet.publicKey.toBase58(), 20_000_000_000]);
  const image = await png(64, 64);
  const intent = await prepare(svc, wallet, mint, image, draft({ firstBuyLamports: "5000000000" }));
  expect([intent.status, intent.body]).toEqual([200, expect.anything()]);
  const metadata = await upload(svc, intent.body, wallet, image);
  expect(metadata.status).toBe(200);
  let signature = "";
  for (const returned of metadata.body.transactions as string[]) {
    const tx = signReturned(returned, [wallet, mint]);
    const sent = await svc.json(
      "/api/rpc",
      jsonPost(
        {
          jsonrpc: "2.0",
          id: 1,
          method: "sendTransaction",
          params: [Buffer.from(tx.serialize()).toString("base64"), { encoding: "base64" }],
        },
        { origin: SITE },
      ),
    );
    expect(sent.body.error).toBeUndefined();
    signature ||= sent.body.result as string;
  }
  await until(
    "the launch confirmed",
    async () =>
      (await svc.json("/api/launch/confirm", jsonPost({ intent: intent.body.intent, signature }))).status === 200,
  );

  // The fee is swept and credited; alice_1 signs in and claims all of it to a fresh wallet.
  const swept = await cron("sweep");
  expect(swept.body).toMatchObject({ state: "succeeded" });
  const cookie = await devLogin(svc, "alice_1");
  const me = (await svc.json("/api/me", { headers: { cookie } })).body;
  const credited = BigInt(me.balanceLamports);
  expect(credited).toBeGreaterThan(5_000_000n);
  const payTo = Keypair.generate().publicKey.toBase58();

  // From now on every status read reaches a node 1,000 slots behind (for its next 40 answers).
  expect(
    await chainRpc("localnet_fault", [
      { kind: "lag", slots: 1_000, share: 1, methods: ["getSignatureStatuses"], count: 40 },
    ]),
  ).toMatchObject({ ok: true });
  const claim = await postJson(svc, "/api/claim", { wallet: payTo }, { cookie });
  expect([claim.status, claim.body]).toEqual([200, expect.anything()]);
  expect(claim.body.lamports).toBe(credited.toString());

  // The batch lands at once; its blockhash expires ~150 blocks later, well inside the lag.
  expect((await cron("payouts")).body).toMatchObject({ state: "succeeded" });
  const startHeight = BigInt(await chainRpc("getBlockHeight"));
  await until(
    "the payout's blockhash long expired",
    async () => BigInt(await chainRpc("getBlockHeight", [{ commitment: "finalized" }])) > startHeight + 200n,
  );
  expect((await cron("payouts")).body).toMatchObject({ state: "succeeded" });
  expect((await cron("payouts")).body).toMatchObject({ state: "succeeded" });

  // The pool recovers; the payout confirms.
  await chainRpc("localnet_fault", [{ kind: "clear" }]);
  await until("the payout confirmed", async () => {
    await cron("payouts");
    const payouts = (await svc.json("/api/me", { headers: { cookie } })).body.payouts as { status: string }[];
    return payouts.some((p) => p.status === "confirmed");
  });
  const payouts = (await svc.json("/api/me", { headers: { cookie } })).body.payouts as {
    status: string;
    lamports: string;
    wallet: string;
  }[];
  // Exactly one payout, confirmed; none replaced and paid again.
  expect(payouts.map((p) => [p.status, p.lamports, p.wallet])).toEqual([["confirmed", credited.toString(), payTo]]);
  const balance = await chainRpc("getBalance", [payTo, { commitment: "confirmed" }]);
  expect(BigInt(balance.value)).toBe(credited);
  // Several status reads reached the node behind and found the payout absent past its expiry. Its
  // answers carry its own slot, 1,000 behind: the height bound at that slot (the last finalized
  // height read, plus the slots since) stayed under the payout's last valid height, so the service
  // waited without asking that node for a height it could only have refused (minContextSlot).
  const faults = await chainRpc("localnet_faults");
  expect(faults.injected.lag).toBeGreaterThanOrEqual(2);
}, 120_000);

test("the page's /api/rpc proxy never forwards the local chain's fault rules", async () => {
  await chainRpc("localnet_fault", [{ kind: "clear" }]);
  const res = await svc.json(
    "/api/rpc",
    jsonPost(
      { jsonrpc: "2.0", id: 1, method: "localnet_fault", params: [{ kind: "dropSends", count: 5 }] },
      { origin: SITE },
    ),
  );
  // refused by the service itself (not a listed method), never reaching the chain
  expect(res.status).toBe(400);
  expect(Object.keys(res.body)).toEqual(["error"]);
  expect((await chainRpc("localnet_faults")).rules).toEqual([]);
});
