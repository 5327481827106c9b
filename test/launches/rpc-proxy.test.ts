/**
 * `/api/rpc` against a JSON-RPC provider stand-in on loopback whose URL carries a key, as hosted
 * providers' URLs do: only listed methods, only this site's pages, only launch transactions, and
 * the provider's URL never comes back.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { Keypair, PublicKey, SystemProgram, TransactionInstruction, TransactionMessage, VersionedTransaction } from "@solana/web3.js";
import bs58 from "bs58";
import { testService, type TestService } from "../helpers/service";
import { jsonPost, PUMP_PROGRAM_ID, stubChain } from "./support";

const SITE = "https://launch.example";
const KEY = "provider-key-5f1b2c";
let provider: ReturnType<typeof Bun.serve>;
let providerMode: "ok" | "error" = "ok";
const received: { path: string; body: any }[] = [];
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
      if (body.method === "getBalance") return Response.json({ jsonrpc: "2.0", id: body.id, result: { context: { slot: 5 }, value: 42 }, provider: `https://rpc.example/${KEY}` });
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

function service(env: Record<string, string> = {}): TestService {
  const svc = testService({ PUBLIC_URL: SITE, RPC_URL: `http://127.0.0.1:${provider.port}/${KEY}`, RATE_LIMIT: "0", ...env }, { chain: stubChain() });
  services.push(svc);
  return svc;
}

const rpc = (svc: TestService, method: string, params: unknown[] = [], origin: string | null = SITE) =>
  svc.json("/api/rpc", jsonPost({ jsonrpc: "2.0", id: 7, method, params }, origin ? { origin } : {}));

function encodedTx(instructions: TransactionInstruction[], payer: Keypair, encoding: "base58" | "base64" = "base64"): string {
  const message = new TransactionMessage({ payerKey: payer.publicKey, recentBlockhash: bs58.encode(new Uint8Array(32).fill(4)), instructions }).compileToV0Message();
  const tx = new VersionedTransaction(message);
  tx.sign([payer]);
  const bytes = tx.serialize();
  return encoding === "base64" ? Buffer.from(bytes).toString("base64") : bs58.encode(bytes);
}

const launchIx = (payer: Keypair) =>
  new TransactionInstruction({ programId: new PublicKey(PUMP_PROGRAM_ID), keys: [{ pubkey: payer.publicKey, isSigner: true, isWritable: true }], data: Buffer.from([1]) });
const transferIx = (payer: Keypair) => SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1 });

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
    const res = await rpc(svc, "getSlot");
    expect(res.status).toBe(200);
    expect(res.body.error.code).toBe(-32601);
  });

  test("refuses methods off the list, batches and malformed requests with 400, before the provider sees them", async () => {
    const svc = service();
    for (const method of ["getProgramAccounts", "requestAirdrop", "getSignaturesForAddress", "getTransaction", "constructor"]) {
      const res = await rpc(svc, method);
      expect({ method, status: res.status }).toEqual({ method, status: 400 });
      expect(Object.keys(res.body)).toEqual(["error"]);
    }
    expect((await svc.json("/api/rpc", jsonPost([{ jsonrpc: "2.0", id: 1, method: "getSlot" }], { origin: SITE }))).status).toBe(400);
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
    expect(received).toHaveLength(0);

    const sent = await rpc(svc, "sendTransaction", [encodedTx([launchIx(payer), transferIx(payer)], payer), { encoding: "base64" }]);
    expect(sent.status).toBe(200);
    expect(sent.body.result).toBe("SiGnAtUrE");
    const sent58 = await rpc(svc, "sendTransaction", [encodedTx([launchIx(payer)], payer, "base58")]);
    expect(sent58.status).toBe(200);
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
    const svc = testService({ PUBLIC_URL: SITE, RPC_URL: `http://127.0.0.1:${provider.port}/${KEY}` }, { chain: stubChain() });
    services.push(svc);
    for (let i = 0; i < 120; i++) await svc.call("/api/rpc", { ...jsonPost({ jsonrpc: "2.0", id: 1, method: "nope" }, { origin: SITE }), ip: "198.51.100.3" });
    const limited = await svc.call("/api/rpc", { ...jsonPost({ jsonrpc: "2.0", id: 1, method: "getSlot" }, { origin: SITE }), ip: "198.51.100.3" });
    expect(limited.status).toBe(429);
  });
});
