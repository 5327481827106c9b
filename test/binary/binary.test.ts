/**
 * The single executable (issue #48): `scripts/build.ts` builds it (3-7 s on two cores, offline:
 * the host target's runtime is the running Bun), and the file copied alone into an empty folder
 * starts on the embedded defaults with nothing but PORT and DATA_DIR set: the local chain (LiteSVM
 * in the executable), the demo, the page, the API and its reference, and a launch whose image
 * preview is made by sharp inside it. SIGTERM stops it cleanly; the operator commands are in it too.
 * On its defaults the local chain takes ports 8899, 8900 and 10000: a service already running on
 * them (an `npm start` beside the tests) makes this file fail.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Keypair, type VersionedTransaction } from "@solana/web3.js";
import sharp from "sharp";
import type { Json } from "../helpers/service";
import { draft, sha256hex, signMessage, signReturned } from "../launches/support";
import { serviceExecutable } from "../helpers/executable";
import { freePortsSync } from "../helpers/socket";

const ROOT = join(import.meta.dir, "..", "..");
/** The local chain's JSON-RPC on its default port: the executable is started with its defaults. */
const LOCAL_RPC = "http://127.0.0.1:8899";

let work: string;
let binary: string;
let port: number;
let base: string;
let env: Record<string, string>;
let service: ReturnType<typeof Bun.spawn> | null = null;
let stderr = "";

async function run(args: string[]) {
  const child = Bun.spawn([binary, ...args], { cwd: join(work, "run"), env, stdout: "pipe", stderr: "pipe" });
  const code = await child.exited;
  return { code, stdout: await new Response(child.stdout).text(), stderr: await new Response(child.stderr).text() };
}

async function json(path: string, init?: RequestInit) {
  const response = await fetch(`${base}${path}`, init);
  return { status: response.status, headers: response.headers, body: (await response.json()) as Json };
}

const post = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "cfl-binary-"));
  // `npm run build`'s executable, built once for the suite (test/helpers/executable.ts).
  const built = await serviceExecutable();
  // Alone in an empty folder: nothing of the checkout is beside it.
  mkdirSync(join(work, "run"));
  binary = join(work, "run", "fee-ledger");
  copyFileSync(built, binary);
  Bun.spawnSync(["chmod", "+x", binary]);
  [port] = freePortsSync(1) as [number];
  base = `http://127.0.0.1:${port}`;
  env = { PORT: String(port), DATA_DIR: join(work, "run", "data") };
}, 240_000);

afterAll(() => {
  if (service && service.exitCode === null) service.kill("SIGKILL");
  rmSync(work, { recursive: true, force: true });
});

describe("the executable", () => {
  test("--version prints the version and the commit it was built from", async () => {
    const { code, stdout } = await run(["--version"]);
    expect(code).toBe(0);
    const version = (await Bun.file(join(ROOT, "package.json")).json()).version;
    expect(stdout).toMatch(
      new RegExp(`^fee-ledger ${version.replaceAll(".", "\\.")} \\(commit ([0-9a-f]{7,}|unknown)`),
    );
  });

  test("an unknown command is one line and exit 2", async () => {
    const { code, stderr } = await run(["frobnicate"]);
    expect(code).toBe(2);
    expect(stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(stderr).toContain("unknown command");
  });

  test("starts from an empty folder with only PORT and DATA_DIR, on the local chain with the demo", async () => {
    const started = Date.now();
    service = Bun.spawn([binary], { cwd: join(work, "run"), env, stdout: "ignore", stderr: "pipe" });
    void new Response(service.stderr as ReadableStream).text().then((text) => {
      stderr = text;
    });
    let health: Awaited<ReturnType<typeof json>> | null = null;
    while (Date.now() - started < 30_000 && service.exitCode === null) {
      try {
        health = await json("/api/cron/health");
        break;
      } catch {
        await Bun.sleep(50);
      }
    }
    expect(health?.status).toBe(200);
    expect(health!.body.jobs.map((j: { job: string }) => j.job)).toEqual([
      "sweep",
      "payouts",
      "burns",
      "launches",
      "market",
    ]);
    expect(existsSync(join(env.DATA_DIR!, "service.db"))).toBe(true);
  }, 40_000);

  test("serves the page and its bundle, built into the executable", async () => {
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const app = /src="(\/assets\/app-[^"]+\.js)"/.exec(html)?.[1];
    const styles = /href="(\/assets\/styles-[^"]+\.css)"/.exec(html)?.[1];
    expect(app).toBeDefined();
    expect(styles).toBeDefined();
    for (const asset of [app!, styles!]) {
      const response = await fetch(`${base}${asset}`, { headers: { "accept-encoding": "br" } });
      expect({ asset, status: response.status }).toEqual({ asset, status: 200 });
    }
  });

  test("serves the stats, the OpenAPI document and its viewer's files", async () => {
    const stats = await json("/api/stats");
    expect(stats.status).toBe(200);
    expect(typeof stats.body.tokens).toBe("number");
    expect(typeof stats.body.sweptLamports).toBe("string");
    const openapi = await json("/api/openapi.json");
    expect(openapi.status).toBe(200);
    expect(openapi.body.openapi).toMatch(/^3\./);
    expect(openapi.body.paths["/api/stats"]).toBeDefined();
    const docs = await (await fetch(`${base}/api/docs`)).text();
    for (const file of docs.match(/\/api\/docs\/assets\/[^"]+/g)!) {
      const response = await fetch(`${base}${file}`);
      expect({ file, status: response.status }).toEqual({ file, status: 200 });
    }
  });

  test("launches a token whose image preview sharp makes inside the executable", async () => {
    const wallet = Keypair.generate();
    const mint = Keypair.generate();
    const airdrop = await fetch(
      LOCAL_RPC,
      post({ jsonrpc: "2.0", id: 1, method: "requestAirdrop", params: [wallet.publicKey.toBase58(), 5_000_000_000] }),
    );
    expect((await airdrop.json()).error).toBeUndefined();
    const image = new Uint8Array(
      await sharp({ create: { width: 400, height: 300, channels: 3, background: { r: 20, g: 180, b: 90 } } })
        .png()
        .toBuffer(),
    );

    const intent = await json(
      "/api/launch/intent",
      post({
        draft: draft(),
        wallet: wallet.publicKey.toBase58(),
        mint: mint.publicKey.toBase58(),
        digest: sha256hex(image),
      }),
    );
    expect(intent.status).toBe(200);
    const form = new FormData();
    form.append("intent", intent.body.intent);
    form.append("signature", signMessage(wallet, intent.body.message));
    form.append("image", new Blob([image], { type: "image/png" }), "image.png");
    const metadata = await json("/api/launch/metadata", { method: "POST", body: form });
    expect(metadata.status).toBe(200);

    const tx: VersionedTransaction = signReturned(metadata.body.transactions[0], [wallet, mint]);
    const sent = await json(
      "/api/rpc",
      post(
        {
          jsonrpc: "2.0",
          id: 1,
          method: "sendTransaction",
          params: [Buffer.from(tx.serialize()).toString("base64"), { encoding: "base64" }],
        },
        { origin: base },
      ),
    );
    expect(sent.body.error).toBeUndefined();
    let confirmed: Awaited<ReturnType<typeof json>> | null = null;
    for (let i = 0; i < 100; i++) {
      confirmed = await json("/api/launch/confirm", post({ intent: intent.body.intent, signature: sent.body.result }));
      if (confirmed.status !== 202) break;
      await Bun.sleep(200);
    }
    expect(confirmed?.status).toBe(200);
    expect(confirmed!.body.status).toBe("confirmed");

    const preview = await fetch(`${base}/api/token-images/${mint.publicKey.toBase58()}`);
    expect(preview.status).toBe(200);
    expect(preview.headers.get("content-type")).toBe("image/webp");
    const meta = await sharp(new Uint8Array(await preview.arrayBuffer())).metadata();
    expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({
      format: "webp",
      width: 256,
      height: 256,
    });
  }, 60_000);

  test("its health command (the container's health check) exits 0 while the service answers", async () => {
    expect((await run(["health"])).code).toBe(0);
  });

  test("backs up the running service's database", async () => {
    const file = join(work, "backup.db");
    const backup = await run(["backup", file]);
    expect(backup.stderr).toBe("");
    expect(backup.code).toBe(0);
    expect(backup.stdout).toContain("integrity ok, books balanced");
    expect(existsSync(file)).toBe(true);
  }, 30_000);

  test("stops on SIGTERM with exit status 0", async () => {
    service!.kill("SIGTERM");
    expect(await service!.exited).toBe(0);
    expect(stderr).not.toMatch(/"level":"error"/);
    // bigint-buffer's warning, once a thread, from an executable that tried to load its addon.
    expect(stderr).not.toContain("Failed to load bindings");
  }, 30_000);

  test("the operator commands run from it against the stopped service's data", async () => {
    expect((await run(["health"])).code).toBe(1);
    const audit = await run(["admin", "pause-launches", "--reason", "binary test"]);
    expect(audit).toMatchObject({ code: 0, stdout: "pause_launches: done\n" });
    const restore = await run(["restore", join(work, "backup.db")]);
    expect(restore.code).toBe(0);
    expect(restore.stdout).toContain("the previous database is kept at");
    const junk = join(work, "proof.json");
    writeFileSync(junk, JSON.stringify({ root: "00", totalLamports: "1", leaf: {}, path: [] }));
    const verify = await run(["verify-liabilities", junk]);
    expect(verify.code).toBe(1);
    expect(verify.stderr).toMatch(/^NOT VERIFIED: /);
  }, 30_000);
});
