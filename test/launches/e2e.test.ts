/**
 * End to end on the embedded local chain, through the HTTP routes only: prepare, upload a real PNG,
 * sign the returned create transaction with a test wallet, send it through /api/rpc, poll confirm
 * from 202 to 200, then find the token in /api/tokens, its preview and its launch in the ledger.
 * Also: confirm refuses forged create transactions, reports on-chain failures, is idempotent, and
 * the launches job finishes a launch whose page stopped polling.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  Keypair,
  PublicKey,
  SystemProgram,
  TransactionMessage,
  VersionedTransaction,
  type TransactionInstruction,
} from "@solana/web3.js";
import { getAssociatedTokenAddressSync } from "@solana/spl-token";
import bs58 from "bs58";
import sharp from "sharp";
import { buildCreateOp, MINT_RENT_LAMPORTS, TOKEN_PROGRAM_ID } from "@fee-ledger/localnet/program";
import { runLaunchesJob } from "../../src/launches/jobs";
import { testService, type TestService } from "../helpers/service";
import {
  draft,
  jsonPost,
  localLaunchChain,
  png,
  prepare,
  signReturned,
  upload,
  type LocalLaunchChain,
} from "./support";

const SITE = "http://localhost";
let chain: LocalLaunchChain;
let svc: TestService;

beforeAll(async () => {
  chain = await localLaunchChain();
  svc = testService({ PUBLIC_URL: SITE, RPC_URL: chain.local.rpcUrl, RATE_LIMIT: "0" }, { chain: chain.services });
});
afterAll(async () => {
  await svc.cleanup();
  await chain.stop();
});

function fundedWallet(): Keypair {
  const wallet = Keypair.generate();
  chain.local.node.fund(wallet.publicKey, 20_000_000_000n);
  return wallet;
}

/** The page's sendTransaction, through the service's proxy. */
async function sendThroughProxy(tx: VersionedTransaction): Promise<string> {
  const res = await svc.json(
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
  expect(res.status).toBe(200);
  expect(res.body.error).toBeUndefined();
  return res.body.result as string;
}

const confirm = (intent: string, signature: string) => svc.json("/api/launch/confirm", jsonPost({ intent, signature }));

/** A transaction signed and sent straight to the chain (not through the service), for forgeries. */
async function sendDirect(instructions: TransactionInstruction[], payer: Keypair, signers: Keypair[]): Promise<string> {
  const { blockhash } = chain.local.node.getLatestBlockhash();
  const message = new TransactionMessage({
    payerKey: payer.publicKey,
    recentBlockhash: blockhash,
    instructions,
  }).compileToV0Message();
  const tx = new VersionedTransaction(message);
  const required = new Set(
    message.staticAccountKeys.slice(0, message.header.numRequiredSignatures).map((k) => k.toBase58()),
  );
  tx.sign([payer, ...signers].filter((s) => required.has(s.publicKey.toBase58())));
  chain.local.node.sendWire(tx.serialize(), { skipPreflight: true });
  return bs58.encode(tx.signatures[0]!);
}

async function preparedAndUploaded(d = draft()) {
  const wallet = fundedWallet();
  const mint = Keypair.generate();
  const image = await png(400, 300, { r: 20, g: 180, b: 90 });
  const intent = await prepare(svc, wallet, mint, image, d);
  expect(intent.status).toBe(200);
  const metadata = await upload(svc, intent.body, wallet, image);
  expect(metadata.status).toBe(200);
  return { wallet, mint, intent: intent.body, metadata: metadata.body };
}

describe("launch end to end on the local chain", () => {
  test("intent, metadata, signed create sent through /api/rpc, confirm 202 then 200, then the token is public", async () => {
    const { wallet, mint, intent, metadata } = await preparedAndUploaded();
    expect(metadata.transactions).toHaveLength(1);
    const signature = await sendThroughProxy(signReturned(metadata.transactions[0], [wallet, mint]));

    // Executed in the open slot: processed, not yet confirmed.
    const pending = await confirm(intent.intent, signature);
    expect(pending.status).toBe(202);
    // The stored metadata is not served while the launch is unconfirmed...
    expect((await svc.call(new URL(metadata.metadataUri).pathname)).status).toBe(404);
    expect(pending.body).toEqual({ status: "pending", intent: intent.intent, signature });

    chain.local.node.advanceSlots(1);
    const done = await confirm(intent.intent, signature);
    expect(done.status).toBe(200);
    expect(done.body.status).toBe("confirmed");
    const token = done.body.token;
    // ...and is, with its image, once it is confirmed.
    expect((await svc.call(new URL(metadata.metadataUri).pathname)).status).toBe(200);
    expect((await svc.call(new URL(metadata.imageUri).pathname)).status).toBe(200);
    expect(token).toMatchObject({
      mint: mint.publicKey.toBase58(),
      name: "Split Coin",
      symbol: "SPLIT",
      creator: intent.creator,
      deployer: wallet.publicKey.toBase58(),
      metadataUri: metadata.metadataUri,
      launchSignature: signature,
      platformBps: 1000,
      imageUrl: `/api/token-images/${mint.publicKey.toBase58()}`,
      website: "https://example.com/split",
    });
    expect(
      token.recipients.map((r: { handle: string; displayHandle: string; bps: number }) => [
        r.handle,
        r.displayHandle,
        r.bps,
      ]),
    ).toEqual([
      ["alice_1", "Alice_1", 6000],
      ["bob", "bob", 4000],
    ]);
    const blockTimeSec = chain.local.node.getTransaction(signature)!.blockTimeSec;
    expect(token.launchedAt).toBe(new Date(blockTimeSec * 1000).toISOString());

    // Idempotent: the same answer again; another signature for the same launch is a conflict.
    const again = await confirm(intent.intent, signature);
    expect(again.status).toBe(200);
    expect(again.body.token.mint).toBe(token.mint);
    expect((await confirm(intent.intent, bs58.encode(new Uint8Array(64).fill(9)))).status).toBe(409);

    const list = await svc.json("/api/tokens");
    expect(list.body.tokens.map((t: { mint: string }) => t.mint)).toContain(token.mint);
    // Both creator vaults are recorded as the program derives them: the detail's refresh reads these.
    const vaults = chain.services.launchProgram.vaultAddresses({ mint: token.mint, creator: token.creator });
    expect(
      svc.ctx.db.$client
        .query<{ curve: string; pool: string }, [string]>(
          "SELECT creator_vault AS curve, pool_vault AS pool FROM tokens WHERE mint = ?",
        )
        .get(token.mint),
    ).toEqual({ curve: vaults.curveVault, pool: vaults.poolVault });

    const image = await svc.call(`/api/token-images/${token.mint}`);
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/webp");
    expect(image.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const meta = await sharp(Buffer.from(await image.arrayBuffer())).metadata();
    expect(meta.format).toBe("webp");
    expect([meta.width, meta.height]).toEqual([256, 256]);

    const ledger = await svc.json("/api/ledger");
    const launch = ledger.body.events.find(
      (e: { type: string; mint?: string }) => e.type === "launch" && e.mint === token.mint,
    );
    expect(launch).toMatchObject({
      type: "launch",
      mint: token.mint,
      symbol: "SPLIT",
      signature,
      recipients: 2,
      at: token.launchedAt,
    });

    // A used mint cannot be prepared again.
    const reuse = await prepare(svc, wallet, mint, await png());
    expect(reuse.status).toBe(409);
  });

  test("a first buy comes as a second transaction and leaves the deployer holding tokens", async () => {
    const { wallet, mint, intent, metadata } = await preparedAndUploaded(draft({ firstBuyLamports: "250000000" }));
    expect(metadata.transactions).toHaveLength(2);
    const signature = await sendThroughProxy(signReturned(metadata.transactions[0], [wallet, mint]));
    chain.local.node.advanceSlots(1);
    await sendThroughProxy(signReturned(metadata.transactions[1], [wallet]));
    chain.local.node.advanceSlots(1);
    expect((await confirm(intent.intent, signature)).body.status).toBe("confirmed");
    const ata = getAssociatedTokenAddressSync(mint.publicKey, wallet.publicKey, true);
    expect(chain.local.node.getAccount(ata)).not.toBeNull();
    expect(chain.local.launch.tokenBalance(mint.publicKey.toBase58(), wallet.publicKey)).toBeGreaterThan(0n);
  });

  test("the page may fund a test wallet through /api/rpc on the local chain", async () => {
    const wallet = Keypair.generate();
    const res = await svc.json(
      "/api/rpc",
      jsonPost(
        { jsonrpc: "2.0", id: 3, method: "requestAirdrop", params: [wallet.publicKey.toBase58(), 2_000_000_000] },
        { origin: SITE },
      ),
    );
    expect(res.status).toBe(200);
    expect(typeof res.body.result).toBe("string");
    chain.local.node.advanceSlots(1);
    expect(chain.local.node.getBalance(wallet.publicKey)).toBe(2_000_000_000n);
  });

  test("409 when confirm comes before the metadata step", async () => {
    const wallet = fundedWallet();
    const intent = await prepare(svc, wallet, Keypair.generate(), await png());
    const res = await confirm(intent.body.intent, bs58.encode(new Uint8Array(64).fill(1)));
    expect(res.status).toBe(409);
  });

  test("forged create transactions are refused and the real one still confirms", async () => {
    const keys = chain.local.node.programKeys;
    const forge = async (what: "creator" | "uri" | "program") => {
      const { wallet, mint, intent, metadata } = await preparedAndUploaded();
      let instructions: TransactionInstruction[];
      if (what === "program") {
        // Creates the mint account, but not through the launch program.
        instructions = [
          SystemProgram.createAccount({
            fromPubkey: wallet.publicKey,
            newAccountPubkey: mint.publicKey,
            lamports: Number(MINT_RENT_LAMPORTS),
            space: 82,
            programId: TOKEN_PROGRAM_ID,
          }),
        ];
      } else {
        instructions = buildCreateOp(keys, {
          payer: wallet.publicKey,
          mint: mint.publicKey,
          creator: what === "creator" ? wallet.publicKey : new PublicKey(intent.creator),
          name: "Split Coin",
          symbol: "SPLIT",
          uri: what === "uri" ? "https://evil.example/meta.json" : metadata.metadataUri,
        });
      }
      const signature = await sendDirect(instructions, wallet, [mint]);
      chain.local.node.advanceSlots(1);
      expect(chain.local.node.getTransaction(signature)?.err ?? null).toBeNull();
      const res = await confirm(intent.intent, signature);
      return { res, intent, mint };
    };

    for (const what of ["creator", "uri", "program"] as const) {
      const { res, mint } = await forge(what);
      expect({ what, status: res.status }).toEqual({ what, status: 400 });
      expect((await svc.json(`/api/tokens/${mint.publicKey.toBase58()}`)).status).toBe(404);
    }

    // A signature of an unrelated transaction changes nothing: the real create still confirms.
    const { wallet, mint, intent, metadata } = await preparedAndUploaded();
    const unrelated = await sendDirect(
      [
        SystemProgram.transfer({
          fromPubkey: wallet.publicKey,
          toPubkey: Keypair.generate().publicKey,
          lamports: 1_000_000,
        }),
      ],
      wallet,
      [],
    );
    chain.local.node.advanceSlots(1);
    expect((await confirm(intent.intent, unrelated)).status).toBe(400);
    const signature = await sendThroughProxy(signReturned(metadata.transactions[0], [wallet, mint]));
    chain.local.node.advanceSlots(1);
    expect((await confirm(intent.intent, signature)).body.status).toBe("confirmed");
  });

  test("a create that fails on chain answers 200 failed with the error, every time it is asked", async () => {
    const { wallet, mint, intent, metadata } = await preparedAndUploaded();
    chain.local.faults.failNextSends(1);
    const signature = await sendThroughProxy(signReturned(metadata.transactions[0], [wallet, mint]));
    chain.local.node.advanceSlots(1);
    const res = await confirm(intent.intent, signature);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("failed");
    expect(typeof res.body.error).toBe("string");
    const again = await confirm(intent.intent, signature);
    expect(again.status).toBe(200);
    expect(again.body.status).toBe("failed");
    expect((await svc.json(`/api/tokens/${mint.publicKey.toBase58()}`)).status).toBe(404);
  });

  test("the launches job finishes a launch whose page stopped polling", async () => {
    const { wallet, mint, intent, metadata } = await preparedAndUploaded();
    const signature = await sendThroughProxy(signReturned(metadata.transactions[0], [wallet, mint]));
    expect((await confirm(intent.intent, signature)).status).toBe(202);
    chain.local.node.advanceSlots(1);
    const counts = await runLaunchesJob(svc.ctx, { signal: new AbortController().signal, assertHeld: () => {} });
    expect(counts.confirmed).toBe(1);
    const record = await svc.json(`/api/tokens/${mint.publicKey.toBase58()}`);
    expect(record.status).toBe(200);
    expect(record.body.launchSignature).toBe(signature);
    expect((await svc.call(`/api/token-images/${mint.publicKey.toBase58()}`)).status).toBe(200);
  });

  test("410 once the window and the landing grace have passed and the transaction was never seen", async () => {
    let now = Date.now();
    const late = testService({ PUBLIC_URL: SITE, RATE_LIMIT: "0" }, { chain: chain.services, now: () => now });
    try {
      const wallet = fundedWallet();
      const image = await png();
      const intent = (await prepare(late, wallet, Keypair.generate(), image)).body;
      expect((await upload(late, intent, wallet, image)).status).toBe(200);
      const neverSent = bs58.encode(new Uint8Array(64).fill(5));
      const early = await late.json("/api/launch/confirm", jsonPost({ intent: intent.intent, signature: neverSent }));
      expect(early.status).toBe(202);
      now += 16 * 60_000;
      const res = await late.json("/api/launch/confirm", jsonPost({ intent: intent.intent, signature: neverSent }));
      expect(res.status).toBe(410);
    } finally {
      await late.cleanup();
    }
  });
});
