/**
 * Prepare and metadata steps through the HTTP routes, against a chain stub (these steps need no
 * chain beyond the creator address and a blockhash) and the fake IPFS pinning API on loopback.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { Keypair, VersionedTransaction } from "@solana/web3.js";
import sharp from "sharp";
import { publishLaunchObjects } from "../../src/launches/uploads";
import { setLaunchesPaused } from "../../src/settings/service";
import { recordConfirmedLaunch } from "../../src/tokens/launch-record";
import { startFakeIpfs, type FakeIpfs } from "../fakes/ipfs";
import { testService, type TestService } from "../helpers/service";
import { draft, jsonPost, metadataForm, png, prepare, sha256hex, signMessage, stubChain, upload } from "./support";

let ipfs: FakeIpfs;
const services: TestService[] = [];

beforeAll(() => {
  ipfs = startFakeIpfs();
});
afterAll(async () => {
  await ipfs.stop();
});
afterEach(async () => {
  ipfs.down = false;
  while (services.length) await services.pop()!.cleanup();
});

function service(env: Record<string, string> = {}, options: Parameters<typeof testService>[1] = {}): TestService {
  const svc = testService({ RATE_LIMIT: "0", ...env }, { chain: stubChain(), ...options });
  services.push(svc);
  return svc;
}

describe("POST /api/launch/intent", () => {
  test("prepares a launch: its own creator address, a message naming site, intent, mint, image and expiry, 10 minutes", async () => {
    let now = Date.parse("2026-11-21T12:00:00Z");
    const svc = service({ PUBLIC_URL: "https://launch.example" }, { now: () => now });
    const wallet = Keypair.generate();
    const image = await png();
    const a = await prepare(svc, wallet, Keypair.generate(), image);
    expect(a.status).toBe(200);
    expect(a.headers.get("cache-control")).toBe("private, no-store");
    expect(a.body.expiresAt).toBe("2026-11-21T12:10:00.000Z");
    expect(a.body.platformBps).toBe(1000);
    for (const part of ["launch.example", a.body.intent, a.body.mint, sha256hex(image), "2026-11-21T12:10:00.000Z"]) {
      expect(a.body.message).toContain(part);
    }
    now += 1000;
    const b = await prepare(svc, wallet, Keypair.generate(), image);
    expect(b.status).toBe(200);
    expect(b.body.creator).not.toBe(a.body.creator);
    const counter = svc.ctx.db.$client.query("SELECT value FROM settings WHERE key = 'next_creator_index'").get() as {
      value: string;
    };
    expect(counter.value).toBe("2");
  });

  test("refuses drafts that break a rule with 400", async () => {
    const svc = service({ MAX_RECIPIENTS: "3", MAX_FIRST_BUY_LAMPORTS: "1000000000" });
    const image = await png();
    const four = [1, 2, 3, 4].map((i) => ({ handle: `user${i}`, bps: 2500 }));
    const cases: Record<string, unknown> = {
      "bps not summing to 10000": draft({
        recipients: [
          { handle: "a", bps: 5000 },
          { handle: "b", bps: 4000 },
        ],
      }),
      "no recipients": draft({ recipients: [] }),
      "more than maxRecipients": draft({ recipients: four }),
      "handle too long": draft({ recipients: [{ handle: "abcdefghijklmnop", bps: 10000 }] }),
      "handle with a dash": draft({ recipients: [{ handle: "a-b", bps: 10000 }] }),
      "same handle twice, other casing": draft({
        recipients: [
          { handle: "Bob", bps: 5000 },
          { handle: "@bob", bps: 5000 },
        ],
      }),
      "http link": draft({ website: "http://example.com" }),
      "javascript link": draft({ twitter: "javascript:alert(1)" }),
      "first buy above the maximum": draft({ firstBuyLamports: "1000000001" }),
      "name too long": draft({ name: "x".repeat(33) }),
      "empty symbol": draft({ symbol: "  " }),
      "symbol with a space": draft({ symbol: "A B" }),
    };
    for (const [why, d] of Object.entries(cases)) {
      const res = await prepare(svc, Keypair.generate(), Keypair.generate(), image, d);
      expect({ why, status: res.status }).toEqual({ why, status: 400 });
      expect(Object.keys(res.body)).toEqual(["error"]);
    }
    const badWallet = await svc.json(
      "/api/launch/intent",
      jsonPost({
        draft: draft(),
        wallet: "not-a-wallet",
        mint: Keypair.generate().publicKey.toBase58(),
        digest: sha256hex(image),
      }),
    );
    expect(badWallet.status).toBe(400);
    const badDigest = await svc.json(
      "/api/launch/intent",
      jsonPost({
        draft: draft(),
        wallet: Keypair.generate().publicKey.toBase58(),
        mint: Keypair.generate().publicKey.toBase58(),
        digest: "abc",
      }),
    );
    expect(badDigest.status).toBe(400);
    // The largest first buy and the largest recipient count are allowed.
    const edge = await prepare(
      svc,
      Keypair.generate(),
      Keypair.generate(),
      image,
      draft({
        firstBuyLamports: "1000000000",
        recipients: four.slice(0, 3).map((r, i) => ({ ...r, bps: i === 0 ? 3334 : 3333 })),
      }),
    );
    expect(edge.status).toBe(200);
  });

  test("409 when the token address is already used: by a launch, by another intent, or on chain", async () => {
    const onChain = Keypair.generate().publicKey.toBase58();
    const svc = service({}, { chain: stubChain({ mintsOnChain: [onChain] }) });
    const image = await png();
    const mint = Keypair.generate();
    expect((await prepare(svc, Keypair.generate(), mint, image)).status).toBe(200);
    const again = await prepare(svc, Keypair.generate(), mint, image);
    expect(again.status).toBe(409);

    const launched = Keypair.generate().publicKey.toBase58();
    recordConfirmedLaunch(
      svc.ctx.db,
      {
        mint: launched,
        name: "L",
        symbol: "L",
        description: "",
        website: null,
        twitter: null,
        telegram: null,
        metadataUri: "https://x/m",
        imageUri: null,
        creatorIndex: 500,
        creator: Keypair.generate().publicKey.toBase58(),
        creatorVault: Keypair.generate().publicKey.toBase58(),
        deployer: Keypair.generate().publicKey.toBase58(),
        launchSignature: "sig",
        launchedAtMs: Date.now(),
        platformBps: 1000,
        recipients: [{ handle: "a", bps: 10000 }],
      },
      Date.now(),
    );
    const used = await svc.json(
      "/api/launch/intent",
      jsonPost({
        draft: draft(),
        wallet: Keypair.generate().publicKey.toBase58(),
        mint: launched,
        digest: sha256hex(image),
      }),
    );
    expect(used.status).toBe(409);
    const chainUsed = await svc.json(
      "/api/launch/intent",
      jsonPost({
        draft: draft(),
        wallet: Keypair.generate().publicKey.toBase58(),
        mint: onChain,
        digest: sha256hex(image),
      }),
    );
    expect(chainUsed.status).toBe(409);

    // The creator index counter never hands out an index a recorded token holds.
    const next = await prepare(svc, Keypair.generate(), Keypair.generate(), image);
    const row = svc.ctx.db.$client
      .query("SELECT creator_index AS i FROM launch_intents WHERE id = ?")
      .get(next.body.intent) as { i: bigint };
    expect(row.i).toBe(501n);
  });

  test("a mint whose earlier intent expired before any transaction was handed out can be prepared again", async () => {
    let now = Date.now();
    const svc = service({}, { now: () => now });
    const image = await png();
    const mint = Keypair.generate();
    expect((await prepare(svc, Keypair.generate(), mint, image)).status).toBe(200);
    now += 10 * 60_000 + 1;
    expect((await prepare(svc, Keypair.generate(), mint, image)).status).toBe(200);
  });

  test("503 while launches are paused, and when no chain is configured", async () => {
    const svc = service();
    setLaunchesPaused(svc.ctx.db, true);
    const image = await png();
    const paused = await prepare(svc, Keypair.generate(), Keypair.generate(), image);
    expect(paused.status).toBe(503);
    expect(paused.body.error).toMatch(/paused/i);
    setLaunchesPaused(svc.ctx.db, false);
    expect((await prepare(svc, Keypair.generate(), Keypair.generate(), image)).status).toBe(200);

    const noChain = service({}, { chain: null });
    expect((await prepare(noChain, Keypair.generate(), Keypair.generate(), image)).status).toBe(503);
  });
});

describe("POST /api/launch/metadata", () => {
  test("pins the image and the metadata (with extensions.split) and returns the unsigned create transaction", async () => {
    const svc = service(ipfs.env());
    const wallet = Keypair.generate();
    const mint = Keypair.generate();
    const image = await png(300, 200);
    const intent = (await prepare(svc, wallet, mint, image)).body;
    const res = await upload(svc, intent, wallet, image);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    expect(res.body.metadataUri.startsWith(`${ipfs.gatewayUrl}/`)).toBe(true);
    const metadata = ipfs.json(res.body.metadataUri.split("/").pop());
    expect(metadata).toMatchObject({
      name: "Split Coin",
      symbol: "SPLIT",
      description: "Fees go to the people named here.",
      image: res.body.imageUri,
      website: "https://example.com/split",
      extensions: {
        split: [
          { handle: "Alice_1", bps: 6000 },
          { handle: "bob", bps: 4000 },
        ],
      },
    });
    const pinnedImage = ipfs.pins.get(res.body.imageUri.split("/").pop())!;
    expect(sha256hex(pinnedImage.body)).toBe(sha256hex(image));
    expect(pinnedImage.contentType).toBe("image/png");

    expect(res.body.transactions).toHaveLength(1);
    const tx = VersionedTransaction.deserialize(Buffer.from(res.body.transactions[0], "base64"));
    expect(tx.message.staticAccountKeys[0]!.toBase58()).toBe(wallet.publicKey.toBase58());
    expect(tx.signatures.every((s) => s.every((b) => b === 0))).toBe(true);
    expect(Buffer.from(tx.message.compiledInstructions[0]!.data).toString()).toBe(res.body.metadataUri);
  });

  test("without IPFS settings the metadata and image are stored here, and served once the launch is confirmed", async () => {
    const svc = service({ PUBLIC_URL: "http://localhost" });
    const wallet = Keypair.generate();
    const image = await png();
    const intent = (await prepare(svc, wallet, Keypair.generate(), image)).body;
    const res = await upload(svc, intent, wallet, image);
    expect(res.status).toBe(200);
    const path = new URL(res.body.metadataUri).pathname;
    // Pending until confirm (the site is no file host for launches that never happen).
    expect((await svc.call(path)).status).toBe(404);
    publishLaunchObjects(svc.ctx.db, [res.body.imageUri, res.body.metadataUri]);
    const served = await svc.call(path);
    expect(served.status).toBe(200);
    expect(served.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const metadata = await served.json();
    expect(metadata.extensions.split).toEqual([
      { handle: "Alice_1", bps: 6000 },
      { handle: "bob", bps: 4000 },
    ]);
    const img = await svc.call(new URL(metadata.image).pathname);
    expect(img.headers.get("content-type")).toBe("image/png");
    expect(sha256hex(new Uint8Array(await img.arrayBuffer()))).toBe(sha256hex(image));
  });

  test("401 when the signature is not the wallet's signature of this intent's message", async () => {
    const svc = service(ipfs.env());
    const wallet = Keypair.generate();
    const image = await png();
    const intent = (await prepare(svc, wallet, Keypair.generate(), image)).body;
    const otherKey = await svc.json(
      "/api/launch/metadata",
      metadataForm({ intent: intent.intent, signature: signMessage(Keypair.generate(), intent.message), image }),
    );
    expect(otherKey.status).toBe(401);
    const otherText = await svc.json(
      "/api/launch/metadata",
      metadataForm({ intent: intent.intent, signature: signMessage(wallet, `${intent.message}\n`), image }),
    );
    expect(otherText.status).toBe(401);
    const garbage = await svc.json(
      "/api/launch/metadata",
      metadataForm({ intent: intent.intent, signature: "not a signature", image }),
    );
    expect(garbage.status).toBe(401);
    expect(ipfs.pins.size === 0 || [...ipfs.pins.values()].every((p) => p.name !== `${intent.mint}.json`)).toBe(true);
  });

  test("413 for an image over the limit and for a decompression bomb; 415 for what is not PNG, JPEG, GIF or WebP", async () => {
    const svc = service({ ...ipfs.env(), MAX_IMAGE_BYTES: "20000" });
    const wallet = Keypair.generate();

    const noisy = new Uint8Array(
      await sharp(Buffer.from(crypto.getRandomValues(new Uint8Array(120 * 120 * 3))), {
        raw: { width: 120, height: 120, channels: 3 },
      })
        .png()
        .toBuffer(),
    );
    expect(noisy.length).toBeGreaterThan(20000);
    const big = (await prepare(svc, wallet, Keypair.generate(), noisy)).body;
    expect((await upload(svc, big, wallet, noisy)).status).toBe(413);

    // 10000 x 10000 of one colour: well under the default byte limit, 100 megapixels once decoded.
    const roomy = service(ipfs.env());
    const bomb = new Uint8Array(
      await sharp({ create: { width: 10_000, height: 10_000, channels: 3, background: { r: 0, g: 0, b: 0 } } })
        .png({ compressionLevel: 9 })
        .toBuffer(),
    );
    expect(bomb.length).toBeLessThan(roomy.ctx.config.maxImageBytes);
    const bombIntent = (await prepare(roomy, wallet, Keypair.generate(), bomb)).body;
    const bombed = await upload(roomy, bombIntent, wallet, bomb);
    expect(bombed.status).toBe(413);
    expect(bombed.body.error).toMatch(/pixels/);

    const pdf = new TextEncoder().encode("%PDF-1.7\n% not an image at all\n");
    const pdfIntent = (await prepare(svc, wallet, Keypair.generate(), pdf)).body;
    const refused = await svc.json(
      "/api/launch/metadata",
      metadataForm({
        intent: pdfIntent.intent,
        signature: signMessage(wallet, pdfIntent.message),
        image: pdf,
        imageType: "image/png",
      }),
    );
    expect(refused.status).toBe(415);

    // PNG magic with nothing behind it: the type sniffs, the decode does not.
    const truncated = (await png()).slice(0, 40);
    const tIntent = (await prepare(svc, wallet, Keypair.generate(), truncated)).body;
    expect((await upload(svc, tIntent, wallet, truncated)).status).toBe(415);

    // JPEG, GIF and WebP are all accepted.
    for (const format of ["jpeg", "gif", "webp"] as const) {
      const bytes = new Uint8Array(
        await sharp({ create: { width: 32, height: 32, channels: 3, background: { r: 9, g: 99, b: 199 } } })
          [format]()
          .toBuffer(),
      );
      const i = (await prepare(svc, wallet, Keypair.generate(), bytes)).body;
      expect({ format, status: (await upload(svc, i, wallet, bytes)).status }).toEqual({ format, status: 200 });
    }
  });

  test("400 when the image is not the one whose digest was prepared", async () => {
    const svc = service(ipfs.env());
    const wallet = Keypair.generate();
    const intent = (await prepare(svc, wallet, Keypair.generate(), await png())).body;
    const res = await upload(svc, intent, wallet, await png(64, 64, { r: 1, g: 2, b: 3 }));
    expect(res.status).toBe(400);
  });

  test("502 when the IPFS upload fails, and the same intent succeeds once it is back", async () => {
    const svc = service(ipfs.env());
    const wallet = Keypair.generate();
    const image = await png();
    const intent = (await prepare(svc, wallet, Keypair.generate(), image)).body;
    ipfs.down = true;
    const failed = await upload(svc, intent, wallet, image);
    expect(failed.status).toBe(502);
    expect(JSON.stringify(failed.body)).not.toContain("127.0.0.1");
    expect(JSON.stringify(failed.body)).not.toContain(ipfs.jwt);
    ipfs.down = false;
    expect((await upload(svc, intent, wallet, image)).status).toBe(200);
  });

  test("502 when the pinning service refuses the key", async () => {
    const svc = service({ ...ipfs.env(), PINATA_JWT: "wrong" });
    const wallet = Keypair.generate();
    const image = await png();
    const intent = (await prepare(svc, wallet, Keypair.generate(), image)).body;
    expect((await upload(svc, intent, wallet, image)).status).toBe(502);
  });

  test("410 after the 10-minute window", async () => {
    let now = Date.now();
    const svc = service(ipfs.env(), { now: () => now });
    const wallet = Keypair.generate();
    const image = await png();
    const intent = (await prepare(svc, wallet, Keypair.generate(), image)).body;
    now += 10 * 60_000 + 1;
    const res = await upload(svc, intent, wallet, image);
    expect(res.status).toBe(410);
  });

  test("a repeated upload reuses the pinned metadata and hands out a fresh transaction", async () => {
    const svc = service(ipfs.env());
    const wallet = Keypair.generate();
    const image = await png();
    const intent = (await prepare(svc, wallet, Keypair.generate(), image)).body;
    const first = await upload(svc, intent, wallet, image);
    const pins = ipfs.pins.size;
    const second = await upload(svc, intent, wallet, image);
    expect(second.status).toBe(200);
    expect(second.body.metadataUri).toBe(first.body.metadataUri);
    expect(ipfs.pins.size).toBe(pins);
  });

  test("400 when a part is missing; 404 for an unknown intent; 503 while paused", async () => {
    const svc = service(ipfs.env());
    const wallet = Keypair.generate();
    const image = await png();
    const intent = (await prepare(svc, wallet, Keypair.generate(), image)).body;
    const missing = await svc.json(
      "/api/launch/metadata",
      metadataForm({ intent: intent.intent, signature: signMessage(wallet, intent.message), image: null }),
    );
    expect(missing.status).toBe(400);
    const unknown = await svc.json(
      "/api/launch/metadata",
      metadataForm({ intent: crypto.randomUUID(), signature: signMessage(wallet, intent.message), image }),
    );
    expect(unknown.status).toBe(404);
    setLaunchesPaused(svc.ctx.db, true);
    expect((await upload(svc, intent, wallet, image)).status).toBe(503);
  });

  test("20 uploads per hour per IP", async () => {
    const svc = testService({}, { chain: stubChain() });
    services.push(svc);
    const form = () => metadataForm({ intent: "x", signature: "y", image: null });
    for (let i = 0; i < 20; i++)
      expect((await svc.call("/api/launch/metadata", { ...form(), ip: "198.51.100.9" })).status).toBe(400);
    const limited = await svc.call("/api/launch/metadata", { ...form(), ip: "198.51.100.9" });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("x-ratelimit-limit")).toBe("20");
    // The hour's window (not a minute's) ends at the top of the hour, however close that is: a
    // fixed bound here failed in every hour's last minute.
    const hourMs = 3_600_000;
    const nowSec = Math.floor(Date.now() / 1000);
    const untilHourEndSec = Math.ceil(((Math.floor(Date.now() / hourMs) + 1) * hourMs) / 1000) - nowSec;
    expect(Math.abs(Number(limited.headers.get("retry-after")) - untilHourEndSec)).toBeLessThanOrEqual(1);
    expect(Number(limited.headers.get("x-ratelimit-reset"))).toBe(nowSec + untilHourEndSec);
  });
});
