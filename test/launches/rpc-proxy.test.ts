/**
 * `/api/rpc` against a JSON-RPC provider stand-in on loopback whose URL carries a key, as hosted
 * providers' URLs do: only listed methods, only this site's pages, only launch transactions, and
 * the provider's URL never comes back.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import {
  createAssociatedTokenAccountIdempotentInstruction,
  getAssociatedTokenAddressSync,
  TOKEN_2022_PROGRAM_ID,
} from "@solana/spl-token";
import {
  ComputeBudgetProgram,
  Keypair,
  PublicKey,
  SystemProgram,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import bs58 from "bs58";
import { testService, type TestService, type Json } from "../helpers/service";
import { draft, jsonPost, png, prepare, PUMP_PROGRAM_ID, stubChain, upload } from "./support";

const SITE = "https://launch.example";
const KEY = "provider-key-5f1b2c";
let provider: ReturnType<typeof Bun.serve>;
let providerMode: "ok" | "error" = "ok";
const received: { path: string; body: Json }[] = [];
const services: TestService[] = [];

beforeAll(() => {
  provider = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const body = await request.json();
      received.push({ path: new URL(request.url).pathname, body });
      if (providerMode === "error") return new Response("bad gateway", { status: 503 });
      if (body.method === "sendTransaction") return Response.json({ jsonrpc: "2.0", id: body.id, result: "SiGnAtUrE" });
      if (body.method === "getBalance")
        return Response.json({
          jsonrpc: "2.0",
          id: body.id,
          result: { context: { slot: 5 }, value: 42 },
          provider: `https://rpc.example/${KEY}`,
        });
      return Response.json({ jsonrpc: "2.0", id: body.id, error: { code: -32601, message: "Method not found" } });
    },
  });
});
afterAll(async () => {
  await provider.stop(true);
});
afterEach(async () => {
  providerMode = "ok";
  received.length = 0;
  while (services.length) await services.pop()!.cleanup();
});

function service(env: Record<string, string> = {}, now?: () => number): TestService {
  const svc = testService(
    { PUBLIC_URL: SITE, RPC_URL: `http://127.0.0.1:${provider.port}/${KEY}`, RATE_LIMIT: "0", ...env },
    { chain: stubChain(), now },
  );
  services.push(svc);
  return svc;
}

const rpc = (svc: TestService, method: string, params: unknown[] = [], origin: string | null = SITE) =>
  svc.json("/api/rpc", jsonPost({ jsonrpc: "2.0", id: 7, method, params }, origin ? { origin } : {}));

function encodedTx(
  instructions: TransactionInstruction[],
  payer: Keypair,
  encoding: "base58" | "base64" = "base64",
): string {
  const message = new TransactionMessage({
    payerKey: payer.publicKey,
    recentBlockhash: bs58.encode(new Uint8Array(32).fill(4)),
    instructions,
  }).compileToV0Message();
  const tx = new VersionedTransaction(message);
  tx.sign([payer]);
  const bytes = tx.serialize();
  return encoding === "base64" ? Buffer.from(bytes).toString("base64") : bs58.encode(bytes);
}

const launchIx = (payer: Keypair) =>
  new TransactionInstruction({
    programId: new PublicKey(PUMP_PROGRAM_ID),
    keys: [{ pubkey: payer.publicKey, isSigner: true, isWritable: true }],
    data: Buffer.from([1]),
  });
const transferIx = (payer: Keypair) =>
  SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1 });

describe("POST /api/rpc", () => {
  test("forwards an allowed method and answers only its JSON-RPC fields, never the provider's address", async () => {
    const svc = service();
    const res = await rpc(svc, "getBalance", [Keypair.generate().publicKey.toBase58()]);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.body).toEqual({ jsonrpc: "2.0", id: 7, result: { context: { slot: 5 }, value: 42 } });
    expect(JSON.stringify(res.body)).not.toContain(KEY);
    expect(received[0]!.path).toBe(`/${KEY}`);
  });

  test("a JSON-RPC error from the provider comes back as its answer", async () => {
    const svc = service();
    const res = await rpc(svc, "getGenesisHash");
    expect(res.status).toBe(200);
    expect(res.body.error.code).toBe(-32601);
  });

  test("refuses methods off the list, batches and malformed requests with 400, before the provider sees them", async () => {
    const svc = service();
    for (const method of [
      "getProgramAccounts",
      "requestAirdrop",
      "getSignaturesForAddress",
      "getTransaction",
      "constructor",
    ]) {
      const res = await rpc(svc, method);
      expect({ method, status: res.status }).toEqual({ method, status: 400 });
      expect(Object.keys(res.body)).toEqual(["error"]);
    }
    expect(
      (await svc.json("/api/rpc", jsonPost([{ jsonrpc: "2.0", id: 1, method: "getSlot" }], { origin: SITE }))).status,
    ).toBe(400);
    expect((await svc.json("/api/rpc", jsonPost({ id: 1, method: "getSlot" }, { origin: SITE }))).status).toBe(400);
    expect(received).toHaveLength(0);
  });

  test("403 for another site's page and for a request with no Origin", async () => {
    const svc = service();
    expect((await rpc(svc, "getBalance", [], "https://evil.example")).status).toBe(403);
    expect((await rpc(svc, "getBalance", [], "https://launch.example.evil.example")).status).toBe(403);
    expect((await rpc(svc, "getBalance", [], null)).status).toBe(403);
    expect(received).toHaveLength(0);
  });

  test("sends and simulates only transactions that call the launch program", async () => {
    const svc = service();
    const payer = Keypair.generate();
    for (const method of ["sendTransaction", "simulateTransaction"]) {
      const plain = await rpc(svc, method, [encodedTx([transferIx(payer)], payer), { encoding: "base64" }]);
      expect({ method, status: plain.status }).toEqual({ method, status: 400 });
      const plain58 = await rpc(svc, method, [encodedTx([transferIx(payer)], payer, "base58")]);
      expect(plain58.status).toBe(400);
    }
    expect((await rpc(svc, "sendTransaction", ["%%%not a transaction%%%"])).status).toBe(400);
    // A launch-program instruction is not enough: it must be the create of a launch prepared here.
    expect(
      (
        await rpc(svc, "sendTransaction", [
          encodedTx([launchIx(payer), transferIx(payer)], payer),
          { encoding: "base64" },
        ])
      ).status,
    ).toBe(400);
    expect(received).toHaveLength(0);
  });

  test("502 when the provider fails or cannot be reached, without its address", async () => {
    const svc = service();
    providerMode = "error";
    const failed = await rpc(svc, "getBalance", [Keypair.generate().publicKey.toBase58()]);
    expect(failed.status).toBe(502);
    expect(JSON.stringify(failed.body)).not.toContain(KEY);

    const unreachable = service({ RPC_URL: `http://127.0.0.1:1/${KEY}` });
    const res = await rpc(unreachable, "getBalance", [Keypair.generate().publicKey.toBase58()]);
    expect(res.status).toBe(502);
    expect(JSON.stringify(res.body)).not.toContain(KEY);
    expect(JSON.stringify(res.body)).not.toContain("127.0.0.1");
  });

  test("120 a minute per IP", async () => {
    const svc = testService(
      { PUBLIC_URL: SITE, RPC_URL: `http://127.0.0.1:${provider.port}/${KEY}` },
      { chain: stubChain() },
    );
    services.push(svc);
    for (let i = 0; i < 120; i++)
      await svc.call("/api/rpc", {
        ...jsonPost({ jsonrpc: "2.0", id: 1, method: "nope" }, { origin: SITE }),
        ip: "198.51.100.3",
      });
    const limited = await svc.call("/api/rpc", {
      ...jsonPost({ jsonrpc: "2.0", id: 1, method: "getSlot" }, { origin: SITE }),
      ip: "198.51.100.3",
    });
    expect(limited.status).toBe(429);
  });
});

// Pump discriminators (PUMP.md): create_v2, buy_exact_sol_in, sell.
const CREATE_V2 = "d6904cec5f8b31b4";
const BUY_EXACT_SOL_IN = "38fc74089edfcd5f";
const SELL = "33e685a4017f83ad";
const pumpIx = (disc: string, keys: PublicKey[], solLamports = 0n) => {
  // buy_exact_sol_in: spendable_sol_in u64 then min_tokens_out u64.
  const args = Buffer.alloc(16);
  args.writeBigUInt64LE(solLamports, 0);
  return new TransactionInstruction({
    programId: new PublicKey(PUMP_PROGRAM_ID),
    keys: keys.map((pubkey, i) => ({ pubkey, isSigner: i === 0, isWritable: true })),
    data: Buffer.concat([Buffer.from(disc, "hex"), args]),
  });
};
/** create_v2: account 0 is the mint; buy/sell: account 2 is the mint. */
const createOf = (mint: PublicKey, user: PublicKey) =>
  pumpIx(CREATE_V2, [
    mint,
    Keypair.generate().publicKey,
    Keypair.generate().publicKey,
    Keypair.generate().publicKey,
    Keypair.generate().publicKey,
    user,
  ]);
const FIRST_BUY = 250_000_000n;
const buyOf = (mint: PublicKey, user: PublicKey, disc = BUY_EXACT_SOL_IN, solLamports = FIRST_BUY) =>
  pumpIx(
    disc,
    [
      Keypair.generate().publicKey,
      Keypair.generate().publicKey,
      mint,
      Keypair.generate().publicKey,
      Keypair.generate().publicKey,
      Keypair.generate().publicKey,
      user,
    ],
    solLamports,
  );

describe("POST /api/rpc: only the create and first buy of an open launch of this site", () => {
  async function openLaunch(svc: TestService) {
    const wallet = Keypair.generate();
    const mint = Keypair.generate();
    const image = await png();
    const intent = await prepare(svc, wallet, mint, image, draft({ firstBuyLamports: FIRST_BUY.toString() }));
    expect(intent.status).toBe(200);
    const metadata = await upload(svc, intent.body, wallet, image);
    expect(metadata.status).toBe(200);
    return { wallet, mint, intent: intent.body };
  }

  test("the intent's create (with its first buy) is relayed; an ordinary pump buy or sell is refused", async () => {
    let now = Date.now();
    const svc = service({}, () => now);
    const { wallet, mint } = await openLaunch(svc);
    const create = await rpc(svc, "sendTransaction", [
      encodedTx([createOf(mint.publicKey, wallet.publicKey), buyOf(mint.publicKey, wallet.publicKey)], wallet),
      { encoding: "base64", preflightCommitment: "confirmed" },
    ]);
    expect(create.status).toBe(200);
    expect(create.body.result).toBe("SiGnAtUrE");
    expect(received.map((r) => r.body.method)).toEqual(["sendTransaction"]);

    // Somebody else's buy of the very mint, a buy of an unknown mint, a sell: never relayed.
    const trader = Keypair.generate();
    const other = Keypair.generate().publicKey;
    for (const [label, tx] of [
      ["buy by another wallet", encodedTx([buyOf(mint.publicKey, trader.publicKey)], trader)],
      ["buy of a mint with no intent", encodedTx([buyOf(other, wallet.publicKey)], wallet)],
      ["sell by the deployer", encodedTx([buyOf(mint.publicKey, wallet.publicKey, SELL)], wallet)],
      [
        "create plus a buy of another mint",
        encodedTx([createOf(mint.publicKey, wallet.publicKey), buyOf(other, wallet.publicKey)], wallet),
      ],
    ] as const) {
      for (const method of ["sendTransaction", "simulateTransaction"]) {
        const refused = await rpc(svc, method, [tx, { encoding: "base64" }]);
        expect({ label, method, status: refused.status }).toEqual({ label, method, status: 400 });
        expect(Object.keys(refused.body)).toEqual(["error"]);
      }
    }
    expect(received).toHaveLength(1);

    // Past the intent's ten-minute window, even its own create is refused.
    now += 10 * 60_000 + 1;
    const late = await rpc(svc, "sendTransaction", [
      encodedTx([createOf(mint.publicKey, wallet.publicKey)], wallet),
      { encoding: "base64" },
    ]);
    expect(late.status).toBe(400);
    expect(received).toHaveLength(1);
  });

  test("a prepared intent without its metadata step opens nothing; a confirmed one only its first buy, within the window", async () => {
    let now = Date.now();
    const svc = service({}, () => now);
    const wallet = Keypair.generate();
    const early = Keypair.generate();
    expect((await prepare(svc, wallet, early, await png())).status).toBe(200);
    expect(
      (
        await rpc(svc, "sendTransaction", [
          encodedTx([createOf(early.publicKey, wallet.publicKey)], wallet),
          { encoding: "base64" },
        ])
      ).status,
    ).toBe(400);

    const { mint, wallet: w } = await openLaunch(svc);
    svc.ctx.db.$client
      .query("UPDATE launch_intents SET status = 'confirmed' WHERE mint = ?")
      .run(mint.publicKey.toBase58());
    // Confirmed: the create again is refused; the first buy (the page sends it after confirm) passes, priced as drafted.
    expect(
      (
        await rpc(svc, "sendTransaction", [
          encodedTx([createOf(mint.publicKey, w.publicKey)], w),
          { encoding: "base64" },
        ])
      ).status,
    ).toBe(400);
    expect(
      (
        await rpc(svc, "sendTransaction", [
          encodedTx([buyOf(mint.publicKey, w.publicKey, BUY_EXACT_SOL_IN, FIRST_BUY * 2n)], w),
          { encoding: "base64" },
        ])
      ).status,
    ).toBe(400);
    expect(
      (await rpc(svc, "sendTransaction", [encodedTx([buyOf(mint.publicKey, w.publicKey)], w), { encoding: "base64" }]))
        .status,
    ).toBe(200);
    // After the window and the landing grace, not even that.
    now += 16 * 60_000;
    expect(
      (await rpc(svc, "sendTransaction", [encodedTx([buyOf(mint.publicKey, w.publicKey)], w), { encoding: "base64" }]))
        .status,
    ).toBe(400);
    expect(received).toHaveLength(1);
  });

  test("only the programs a launch needs ride along: any other program's instruction is refused", async () => {
    // Issue 43, finding 2: the intent's own create and first buy with anything else bundled
    // (another DEX, a memo, an unknown program) was relayed through the operator's provider key.
    const svc = service();
    const { wallet, mint } = await openLaunch(svc);
    const launchIxs = () => [createOf(mint.publicKey, wallet.publicKey), buyOf(mint.publicKey, wallet.publicKey)];
    const foreign = (programId: string) =>
      new TransactionInstruction({
        programId: new PublicKey(programId),
        keys: [{ pubkey: wallet.publicKey, isSigner: true, isWritable: true }],
        data: Buffer.from([9, 9, 9]),
      });
    for (const [label, extra] of [
      ["another DEX", foreign("JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4")],
      ["a memo", foreign("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr")],
      ["an unknown program", foreign(Keypair.generate().publicKey.toBase58())],
    ] as const) {
      for (const method of ["sendTransaction", "simulateTransaction"]) {
        const refused = await rpc(svc, method, [encodedTx([...launchIxs(), extra], wallet), { encoding: "base64" }]);
        expect({ label, method, status: refused.status }).toEqual({ label, method, status: 400 });
        expect(Object.keys(refused.body)).toEqual(["error"]);
      }
    }
    expect(received).toHaveLength(0);
    // What a wallet adds (a compute budget) and what a launch uses (System, SPL Token, Token-2022,
    // Associated Token) pass with the launch program's instructions.
    const withBudget = [
      ComputeBudgetProgram.setComputeUnitLimit({ units: 300_000 }),
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000 }),
      createAssociatedTokenAccountIdempotentInstruction(
        wallet.publicKey,
        getAssociatedTokenAddressSync(mint.publicKey, wallet.publicKey, true, TOKEN_2022_PROGRAM_ID),
        wallet.publicKey,
        mint.publicKey,
        TOKEN_2022_PROGRAM_ID,
      ),
      ...launchIxs(),
    ];
    const sent = await rpc(svc, "sendTransaction", [encodedTx(withBudget, wallet), { encoding: "base64" }]);
    expect(sent.status).toBe(200);
    expect(received).toHaveLength(1);
  });

  test("a launch without a first buy opens no buy at all", async () => {
    const svc = service();
    const wallet = Keypair.generate();
    const mint = Keypair.generate();
    const image = await png();
    const intent = await prepare(svc, wallet, mint, image);
    expect((await upload(svc, intent.body, wallet, image)).status).toBe(200);
    expect(
      (
        await rpc(svc, "sendTransaction", [
          encodedTx([createOf(mint.publicKey, wallet.publicKey), buyOf(mint.publicKey, wallet.publicKey)], wallet),
          { encoding: "base64" },
        ])
      ).status,
    ).toBe(400);
    expect(
      (
        await rpc(svc, "sendTransaction", [
          encodedTx([createOf(mint.publicKey, wallet.publicKey)], wallet),
          { encoding: "base64" },
        ])
      ).status,
    ).toBe(200);
  });

  test("only the parameter shapes the page uses: no simulate `accounts`, no extra options or params", async () => {
    const svc = service();
    const { wallet, mint } = await openLaunch(svc);
    const tx = encodedTx([createOf(mint.publicKey, wallet.publicKey)], wallet);
    const address = Keypair.generate().publicKey.toBase58();
    const signature = bs58.encode(new Uint8Array(64).fill(9));
    for (const [method, params] of [
      ["simulateTransaction", [tx, { encoding: "base64", accounts: { encoding: "base64", addresses: [address] } }]],
      ["simulateTransaction", [tx, { encoding: "base64", innerInstructions: true }]],
      ["sendTransaction", [tx, { encoding: "jsonParsed" }]],
      ["sendTransaction", [tx, { encoding: "base64" }, "extra"]],
      ["getBalance", [address, { commitment: "confirmed", encoding: "base64" }]],
      ["getBalance", ["not-an-address"]],
      ["getBalance", []],
      ["getSignatureStatuses", [[]]],
      ["getSignatureStatuses", [Array(11).fill(signature)]],
      ["getSignatureStatuses", [["nope"]]],
      ["getGenesisHash", [1]],
      ["getAccountInfo", [address]],
      ["getLatestBlockhash", []],
    ] as const) {
      const res = await rpc(svc, method, params as unknown as unknown[]);
      expect({ method, params, status: res.status }).toEqual({ method, params, status: 400 });
    }
    expect(received).toHaveLength(0);
    // What the page sends passes, and the provider sees exactly the checked values.
    expect((await rpc(svc, "getBalance", [address, { commitment: "confirmed" }])).status).toBe(200);
    expect((await rpc(svc, "getSignatureStatuses", [[signature]])).status).toBe(200);
    expect((await rpc(svc, "simulateTransaction", [tx, { encoding: "base64", sigVerify: false }])).status).toBe(200);
    expect(received.map((r) => r.body.params)).toEqual([
      [address, { commitment: "confirmed" }],
      [[signature]],
      [tx, { encoding: "base64", sigVerify: false }],
    ]);
  });
});
