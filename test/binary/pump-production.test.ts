/**
 * The production configuration end to end (issue 62): the single executable with `CHAIN=pump`,
 * `RPC_URL` at `npx localnet` (which hosts pump's programs at their real ids), an https
 * `PUBLIC_URL`, the treasury key and master secret in files, sign-in through a fake identity
 * provider over loopback. A token is launched through the launch routes (the create transaction
 * pump's create_v2, signed by a wallet), traded by a stranger with pump's own SDK, swept, and its
 * recipients paid: one claims to a wallet, the other's share is bought on the curve and burned.
 * Every step is the code that ships, against pump's instructions.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TOKEN_2022_PROGRAM_ID } from "@solana/spl-token";
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  type TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import { BN } from "@coral-xyz/anchor";
import { getBuyTokenAmountFromSolAmount, OnlinePumpSdk, PUMP_SDK } from "@pump-fun/pump-sdk";
import { fakeUser, type FakeIdp, startFakeIdp } from "../fakes/idp";
import { runJob as runCronJob, overHttp } from "../helpers/cron";
import { until } from "../helpers/demo";
import { answering, serviceExecutable } from "../helpers/executable";
import { collect, startLocalnetProcess } from "../helpers/localnet-process";
import type { Json } from "../helpers/service";
import { freePort } from "../helpers/socket";
import { draft, png, sha256hex, signMessage, signReturned } from "../launches/support";

const SITE = "https://fees.example";
const CRON_SECRET = "c".repeat(40);
const PUMP_PROGRAM_ID = "6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P";

let work: string;
let base: string;
let idp: FakeIdp;
let connection: Connection;
let localnet: Bun.Subprocess<"ignore", "pipe", "pipe"> | null = null;
let service: Bun.Subprocess<"ignore", "pipe", "pipe"> | null = null;
let output = "";

async function call(path: string, init: RequestInit = {}): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${base}${path}`, { redirect: "manual", ...init });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as Json };
}

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  call(path, {
    method: "POST",
    headers: { "content-type": "application/json", origin: SITE, ...headers },
    body: JSON.stringify(body),
  });

/** `read` again (the shared helper's pace) until `done` holds, for at most two minutes. */
function once<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  return until(what, 120_000, async () => {
    const value = await read();
    return done(value) ? value : null;
  });
}

/** A job run through the cron route to its report (a scheduled run's lease waited out). */
const runJob = (job: string) => runCronJob(overHttp(base), job, CRON_SECRET);

async function funded(lamports: number): Promise<Keypair> {
  const wallet = Keypair.generate();
  const signature = await connection.requestAirdrop(wallet.publicKey, lamports);
  await connection.confirmTransaction({ signature, ...(await connection.getLatestBlockhash()) }, "confirmed");
  return wallet;
}

async function sendAndConfirm(tx: VersionedTransaction): Promise<string> {
  const signature = await connection.sendRawTransaction(tx.serialize());
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
  const result = await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight }, "confirmed");
  if (result.value.err) throw new Error(`transaction failed: ${JSON.stringify(result.value.err)}`);
  return signature;
}

async function signAndSend(payer: Keypair, instructions: TransactionInstruction[]): Promise<string> {
  const tx = new VersionedTransaction(
    new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: (await connection.getLatestBlockhash()).blockhash,
      instructions,
    }).compileToV0Message(),
  );
  tx.sign([payer]);
  return sendAndConfirm(tx);
}

/** Signs in through the fake provider: start, consent, callback; the session cookie. */
async function signIn(userId: string): Promise<string> {
  idp.signInAs(userId);
  const start = await fetch(`${base}/api/auth/idp/start?returnTo=%2Fme`, { redirect: "manual" });
  const oauth = /(?:__Host-)?idp_oauth=[^;]+/.exec(start.headers.get("set-cookie") ?? "")?.[0];
  if (start.status !== 302 || !oauth) throw new Error(`sign-in start answered ${start.status}`);
  const consent = await fetch(start.headers.get("location")!, { redirect: "manual" });
  const back = new URL(consent.headers.get("location")!);
  const callback = await fetch(`${base}${back.pathname}${back.search}`, {
    redirect: "manual",
    headers: { cookie: oauth },
  });
  const session = /(?:__Host-)?session=[^;]+/.exec(callback.headers.get("set-cookie") ?? "")?.[0];
  if (!session) throw new Error(`sign-in callback answered ${callback.status} without a session`);
  return session;
}

let mint: Keypair;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "cfl-pump-production-"));
  const dataDir = join(work, "data");
  mkdirSync(dataDir);
  const treasuryFile = join(work, "treasury.json");
  const masterSecretFile = join(work, "master-secret");
  writeFileSync(treasuryFile, JSON.stringify([...Keypair.generate().secretKey]), { mode: 0o600 });
  writeFileSync(masterSecretFile, Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex"), {
    mode: 0o600,
  });
  idp = startFakeIdp();
  idp.users.set("7001", fakeUser("7001", "alice_pump"));
  idp.users.set("7002", fakeUser("7002", "bob_pump"));

  const started = startLocalnetProcess({ cwd: work, keypairFile: treasuryFile });
  localnet = started.child;
  const [{ rpcUrl, wsUrl }, binary] = await Promise.all([started.ready, serviceExecutable()]);
  connection = new Connection(rpcUrl, { commitment: "confirmed", wsEndpoint: wsUrl });
  const port = freePort();
  base = `http://127.0.0.1:${port}`;
  service = Bun.spawn([binary], {
    cwd: dataDir,
    env: {
      CHAIN: "pump",
      RPC_URL: rpcUrl,
      PUBLIC_URL: SITE,
      HOST: "127.0.0.1",
      PORT: String(port),
      DATA_DIR: dataDir,
      TREASURY_KEY_FILE: treasuryFile,
      MASTER_SECRET_FILE: masterSecretFile,
      CRON_SECRET,
      // The test runs each job itself, in order.
      JOBS: "off",
      RATE_LIMIT: "off",
      MIN_CLAIM_LAMPORTS: "1000000",
      SWEEP_MIN_LAMPORTS: "1000000",
      ...idp.env,
      ...idp.appEnv,
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  collect(service.stdout, (text) => {
    output += text;
  });
  collect(service.stderr, (text) => {
    output += text;
  });
  await answering(service, `${base}/api/cron/health`, () => output.slice(-3_000));
}, 240_000);

afterAll(async () => {
  if (service && service.exitCode === null) service.kill("SIGKILL");
  if (localnet && localnet.exitCode === null) localnet.kill("SIGKILL");
  await idp?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe("CHAIN=pump against npx localnet: launch, trade, sweep, claim and burn through pump's programs", () => {
  test("a wallet launches through the launch routes: pump's create_v2, verified and recorded", async () => {
    const wallet = await funded(5 * LAMPORTS_PER_SOL);
    mint = Keypair.generate();
    const image = await png(128, 128);
    const d = draft({
      recipients: [
        { handle: "alice_pump", bps: 6000 },
        { handle: "bob_pump", bps: 4000 },
      ],
    });
    const intent = await post("/api/launch/intent", {
      draft: d,
      wallet: wallet.publicKey.toBase58(),
      mint: mint.publicKey.toBase58(),
      digest: sha256hex(image),
    });
    expect(intent.status).toBe(200);
    const form = new FormData();
    form.append("intent", intent.body.intent);
    form.append("signature", signMessage(wallet, intent.body.message));
    form.append("image", new Blob([new Uint8Array(image)], { type: "image/png" }), "image.png");
    const metadata = await call("/api/launch/metadata", { method: "POST", body: form, headers: { origin: SITE } });
    expect(metadata.status).toBe(200);
    const tx = signReturned(metadata.body.transactions[0], [wallet, mint]);
    const programs = tx.message.compiledInstructions.map((ix) =>
      tx.message.staticAccountKeys[ix.programIdIndex]!.toBase58(),
    );
    expect(programs).toContain(PUMP_PROGRAM_ID);
    const signature = await sendAndConfirm(tx);
    const confirmed = await once(
      "the launch confirmed",
      () => post("/api/launch/confirm", { intent: intent.body.intent, signature }),
      (r) => r.status !== 202,
    );
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.token.mint).toBe(mint.publicKey.toBase58());
    // Read back by any client: the create invoked pump's program at its real id.
    const read = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    const keys = read!.transaction.message.staticAccountKeys.map((k) => k.toBase58());
    expect(
      read!.transaction.message.compiledInstructions.some((ix) => keys[ix.programIdIndex] === PUMP_PROGRAM_ID),
    ).toBe(true);
    expect(read!.meta!.logMessages!.some((l) => l.startsWith("Program data: "))).toBe(true);
  }, 120_000);

  test("a stranger trades with pump's SDK, the sweep collects the creator fees, a claim is paid and a share burned", async () => {
    const alice = await signIn("7001");
    const bob = await signIn("7002");
    const aliceWallet = Keypair.generate().publicKey;
    expect((await post("/api/routing", { routing: "burn" }, { cookie: bob })).status).toBe(200);

    const trader = await funded(30 * LAMPORTS_PER_SOL);
    const online = new OnlinePumpSdk(connection);
    const global = await online.fetchGlobal();
    const feeConfig = await online.fetchFeeConfig();
    const state = await online.fetchBuyState(mint.publicKey, trader.publicKey, TOKEN_2022_PROGRAM_ID);
    const solAmount = new BN(10 * LAMPORTS_PER_SOL);
    const amount = getBuyTokenAmountFromSolAmount({
      global,
      feeConfig,
      mintSupply: state.bondingCurve.tokenTotalSupply,
      bondingCurve: state.bondingCurve,
      amount: solAmount,
      quoteMint: state.quoteMint,
    });
    await signAndSend(
      trader,
      await PUMP_SDK.buyInstructions({
        global,
        bondingCurveAccountInfo: state.bondingCurveAccountInfo,
        bondingCurve: state.bondingCurve,
        associatedUserAccountInfo: state.associatedUserAccountInfo,
        mint: mint.publicKey,
        user: trader.publicKey,
        amount,
        solAmount,
        slippage: 1,
        tokenProgram: TOKEN_2022_PROGRAM_ID,
      }),
    );

    await runJob("sweep");
    const token = await once(
      "the sweep credited on the token",
      () => call(`/api/tokens/${mint.publicKey.toBase58()}`),
      (r) => r.status === 200 && BigInt(r.body.sweptLamports ?? "0") > 0n,
    );
    const swept = BigInt(token.body.sweptLamports);
    const me = await once(
      "alice's balance",
      () => call("/api/me", { headers: { cookie: alice } }),
      (r) => r.status === 200 && BigInt(r.body.balanceLamports ?? "0") > 0n,
    );
    const owed = BigInt(me.body.balanceLamports);
    // 10% platform, then 60% of the rest (rounding to the lamport is the ledger's).
    expect(owed).toBeGreaterThan((swept * 54n) / 100n - 2n);
    expect(owed).toBeLessThanOrEqual((swept * 54n) / 100n + 2n);

    const claimed = await post("/api/claim", { wallet: aliceWallet.toBase58() }, { cookie: alice });
    expect(claimed.status).toBe(200);
    await runJob("payouts");
    const paid = await once(
      "the payout in alice's wallet",
      () => connection.getBalance(aliceWallet, "confirmed"),
      (lamports) => lamports > 0,
    );
    expect(BigInt(paid)).toBe(owed);

    const supplyBefore = BigInt((await connection.getTokenSupply(mint.publicKey)).value.amount);
    await runJob("burns");
    const supplyAfter = await once(
      "the burn's supply fall",
      async () => {
        await runJob("burns");
        return BigInt((await connection.getTokenSupply(mint.publicKey)).value.amount);
      },
      (supply) => supply < supplyBefore,
    );
    expect(supplyAfter).toBeLessThan(supplyBefore);
    const ledger = await once(
      "the burn in the ledger",
      () => call("/api/ledger"),
      (r) =>
        r.body.events.some(
          (e: { type: string; mint?: string }) => e.type === "burn" && e.mint === mint.publicKey.toBase58(),
        ),
    );
    expect(ledger.status).toBe(200);
  }, 240_000);
});
