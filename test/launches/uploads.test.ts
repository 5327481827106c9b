/**
 * Launch uploads stored by the site (no IPFS account): pending, and not served, until the launch is
 * confirmed; deleted with the expired intent; bytes per client per day bounded, IPFS included.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import sharp from "sharp";
import { registerLaunchJobs } from "../../src/launches/jobs";
import { publishLaunchObjects } from "../../src/launches/uploads";
import { startFakeIpfs, type FakeIpfs } from "../fakes/ipfs";
import { testService, type TestService } from "../helpers/service";
import { png, prepare, signMessage, stubChain, upload } from "./support";

let ipfs: FakeIpfs;
const services: TestService[] = [];
beforeAll(() => {
  ipfs = startFakeIpfs();
});
afterAll(async () => {
  await ipfs.stop();
});
afterEach(async () => {
  while (services.length) await services.pop()!.cleanup();
});

function service(env: Record<string, string> = {}, now?: () => number): TestService {
  const svc = testService({ PUBLIC_URL: "http://localhost", RATE_LIMIT: "0", ...env }, { chain: stubChain(), now });
  services.push(svc);
  registerLaunchJobs(svc.ctx.scheduler, svc.ctx);
  return svc;
}

const objects = (svc: TestService) =>
  svc.ctx.db.$client
    .query("SELECT cid, pending FROM local_objects WHERE cid NOT LIKE 'preview:%' ORDER BY cid")
    .all() as { cid: string; pending: number }[];
const pathOf = (uri: string) => new URL(uri).pathname;

async function noisyPng(side: number): Promise<Uint8Array> {
  const raw = Buffer.from(crypto.getRandomValues(new Uint8Array(side * side * 3)));
  return new Uint8Array(
    await sharp(raw, { raw: { width: side, height: side, channels: 3 } })
      .png()
      .toBuffer(),
  );
}

describe("launch objects stored here", () => {
  test("pending (404) until confirm, then served; those of a launch that never completes are deleted with its expired intent", async () => {
    let now = Date.now();
    const svc = service({}, () => now);
    const wallet = Keypair.generate();

    const kept = await png(64, 64, { r: 1, g: 2, b: 3 });
    const keptIntent = (await prepare(svc, wallet, Keypair.generate(), kept)).body;
    const keptUpload = (await upload(svc, keptIntent, wallet, kept)).body;
    const dropped = await png(64, 64, { r: 9, g: 8, b: 7 });
    const droppedIntent = (await prepare(svc, wallet, Keypair.generate(), dropped)).body;
    const droppedUpload = (await upload(svc, droppedIntent, wallet, dropped)).body;
    expect(objects(svc)).toHaveLength(4);
    expect(objects(svc).every((o) => Number(o.pending) === 1)).toBe(true);
    for (const uri of [keptUpload.imageUri, keptUpload.metadataUri, droppedUpload.metadataUri]) {
      const res = await svc.call(pathOf(uri));
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: expect.any(String) });
    }

    // The confirm publishes its own objects (settleIntent calls this once the create is verified).
    publishLaunchObjects(svc.ctx.db, [keptUpload.imageUri, keptUpload.metadataUri]);
    svc.ctx.db.$client.query("UPDATE launch_intents SET status = 'confirmed' WHERE id = ?").run(keptIntent.intent);
    expect((await svc.call(pathOf(keptUpload.metadataUri))).status).toBe(200);
    expect((await svc.call(pathOf(keptUpload.imageUri))).status).toBe(200);

    // Window and landing grace over: the other intent expires and its objects go with it.
    now += 16 * 60_000;
    expect(await svc.ctx.scheduler.runNow("launches")).toMatchObject({ ran: true, ok: true });
    await svc.ctx.scheduler.runNow("launches");
    const left = objects(svc).map((o) => o.cid);
    expect(left).toHaveLength(2);
    expect(left.every((cid) => keptUpload.imageUri.endsWith(cid) || keptUpload.metadataUri.endsWith(cid))).toBe(true);
    expect((await svc.call(pathOf(keptUpload.imageUri))).status).toBe(200);
  });

  test("an image another live launch also names is kept when the first launch expires", async () => {
    let now = Date.now();
    const svc = service({}, () => now);
    const wallet = Keypair.generate();
    const image = await png(48, 48, { r: 5, g: 5, b: 5 });
    const first = (await prepare(svc, wallet, Keypair.generate(), image)).body;
    const firstUpload = (await upload(svc, first, wallet, image)).body;
    now += 12 * 60_000;
    const second = (await prepare(svc, wallet, Keypair.generate(), image)).body;
    const secondUpload = (await upload(svc, second, wallet, image)).body;
    expect(secondUpload.imageUri).toBe(firstUpload.imageUri);
    now += 5 * 60_000;
    await svc.ctx.scheduler.runNow("launches");
    const status = (id: string) =>
      (svc.ctx.db.$client.query("SELECT status FROM launch_intents WHERE id = ?").get(id) as { status: string }).status;
    expect(status(first.intent)).toBe("expired");
    expect(status(second.intent)).toBe("metadata");
    const cids = objects(svc).map((o) => o.cid);
    expect(cids.some((cid) => firstUpload.imageUri.endsWith(cid))).toBe(true);
    expect(cids.some((cid) => firstUpload.metadataUri.endsWith(cid))).toBe(false);
  });
});

describe("bytes stored per client per day", () => {
  test("over the allowance: 429 with retry-after, nothing stored; another client and the next day may upload", async () => {
    let now = Date.UTC(2026, 10, 22, 12, 0, 0);
    const svc = service(
      { UPLOAD_BYTES_PER_IP_DAY: String(200 * 1024), MAX_IMAGE_BYTES: String(120 * 1024) },
      () => now,
    );
    const wallet = Keypair.generate();
    const image = await noisyPng(150);
    expect(image.length).toBeGreaterThan(60 * 1024);
    expect(image.length).toBeLessThan(100 * 1024);
    const send = async (ip: string) => {
      const fresh = await noisyPng(150);
      const intent = (await prepare(svc, wallet, Keypair.generate(), fresh)).body;
      const form = new FormData();
      form.append("intent", intent.intent);
      form.append("signature", signMessage(wallet, intent.message));
      form.append("image", new Blob([new Uint8Array(fresh)], { type: "image/png" }), "image.png");
      return svc.call("/api/launch/metadata", { method: "POST", body: form, ip });
    };
    expect((await send("198.51.100.50")).status).toBe(200);
    expect((await send("198.51.100.50")).status).toBe(200);
    const before = objects(svc).length;
    const refused = await send("198.51.100.50");
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: expect.stringContaining("upload allowance") });
    expect(Number(refused.headers.get("retry-after"))).toBe(12 * 3600);
    expect(objects(svc).length).toBe(before);
    // Per IPv6 /64 like the rate limits; another client is unaffected.
    expect((await send("2001:db8:5:6::1")).status).toBe(200);
    expect((await send("2001:db8:5:6::2")).status).toBe(200);
    expect((await send("2001:db8:5:6:ffff::3")).status).toBe(429);
    expect((await send("198.51.100.51")).status).toBe(200);
    now += 12 * 3600_000;
    expect((await send("198.51.100.50")).status).toBe(200);
  }, 30_000);

  test("IPFS uploads count too, and a failed pin gives its bytes back", async () => {
    const image = await noisyPng(150);
    // Room for this one upload (the image and the metadata's allowance), not for a second.
    const svc = service({ ...ipfs.env(), UPLOAD_BYTES_PER_IP_DAY: String(image.length + 8 * 1024 + 1000) });
    const wallet = Keypair.generate();
    const intent = (await prepare(svc, wallet, Keypair.generate(), image)).body;
    ipfs.down = true;
    expect((await upload(svc, intent, wallet, image)).status).toBe(502);
    ipfs.down = false;
    expect((await upload(svc, intent, wallet, image)).status).toBe(200);
    const other = await noisyPng(150);
    const second = (await prepare(svc, wallet, Keypair.generate(), other)).body;
    expect((await upload(svc, second, wallet, other)).status).toBe(429);
  }, 30_000);
});
