/**
 * The executable production runs, started the way docs/self-hosting.md tells an operator
 * to (issue 62): `CHAIN=pump`, `RPC_URL` at a separate `npx localnet`, an https `PUBLIC_URL`, the
 * treasury key and master secret in files outside the data folder, and the data folder as its
 * working folder (the image's `WORKDIR /data`). It exited 1 at start whatever `RPC_URL` was, as
 * Bun's bundler broke `@coral-xyz/anchor`'s ES module build (`ReferenceError: exports_esm is not
 * defined at pumpLaunchProgram`; scripts/build.ts now bundles its CommonJS build).
 *
 * The local chain does not host pump's programs yet, so nothing is launched here: the service
 * starts, answers its health route and runs a sweep over the pump adapter, whose program watch
 * records pump's three programs.
 *
 * Anyone who can write to the data folder must not run code with the treasury key or change the
 * service's settings by planting Bun's own configuration there: the executable is built with
 * bunfig.toml and .env autoloading off, so a planted preload does not run and a planted .env sets
 * nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Keypair } from "@solana/web3.js";
import { answering, serviceExecutable } from "../helpers/executable";
import { collect, startLocalnetProcess } from "../helpers/localnet-process";
import type { Json } from "../helpers/service";
import { freePort } from "../helpers/socket";

const CRON_SECRET = "c".repeat(40);
const ADMIN_SECRET = "a".repeat(40);
/** The secret a planted .env sets: were it read, /metrics would answer this bearer. */
const PLANTED_METRICS_SECRET = "m".repeat(40);

let work: string;
let dataDir: string;
let preloadMarker: string;
let base: string;
let localnet: Bun.Subprocess<"ignore", "pipe", "pipe"> | null = null;
let service: Bun.Subprocess<"ignore", "pipe", "pipe"> | null = null;
let output = "";

/** Tests waiting for the service to print something: checked whenever its output grows. */
const outputWaiters: { pattern: RegExp; resolve: () => void }[] = [];

function outputGrew(): void {
  for (const w of [...outputWaiters])
    if (w.pattern.test(output)) {
      outputWaiters.splice(outputWaiters.indexOf(w), 1);
      w.resolve();
    }
}

/** Resolves once the service has printed something matching `pattern` (the test's bound gives up). */
function printed(pattern: RegExp): Promise<void> {
  if (pattern.test(output)) return Promise.resolve();
  return new Promise((resolve) => outputWaiters.push({ pattern, resolve }));
}

/** The data folder as an attacker who can write to it leaves it: Bun's config and a .env. */
function plantBunConfiguration(): void {
  preloadMarker = join(work, "preload-ran");
  writeFileSync(join(dataDir, "bunfig.toml"), 'preload = ["./planted.js"]\n');
  writeFileSync(
    join(dataDir, "planted.js"),
    `require("node:fs").writeFileSync(${JSON.stringify(preloadMarker)}, String(process.pid));\n`,
  );
  writeFileSync(join(dataDir, ".env"), `METRICS_SECRET=${PLANTED_METRICS_SECRET}\n`);
}

const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

async function json(path: string, init?: RequestInit): Promise<{ status: number; headers: Headers; body: Json }> {
  const response = await fetch(`${base}${path}`, init);
  return { status: response.status, headers: response.headers, body: (await response.json()) as Json };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "cfl-pump-start-"));
  dataDir = join(work, "data");
  mkdirSync(dataDir);
  // Outside the data folder, as docs/self-hosting.md asks (mounted read-only in a deployment).
  const treasuryFile = join(work, "treasury.json");
  const masterSecretFile = join(work, "master-secret");
  writeFileSync(treasuryFile, JSON.stringify([...Keypair.generate().secretKey]), { mode: 0o600 });
  writeFileSync(masterSecretFile, Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex"), {
    mode: 0o600,
  });
  plantBunConfiguration();

  const started = startLocalnetProcess({ cwd: work, keypairFile: treasuryFile });
  localnet = started.child;
  const [{ rpcUrl }, binary] = await Promise.all([started.ready, serviceExecutable()]);
  const port = freePort();
  base = `http://127.0.0.1:${port}`;
  service = Bun.spawn([binary], {
    cwd: dataDir,
    env: {
      CHAIN: "pump",
      RPC_URL: rpcUrl,
      PUBLIC_URL: "https://fees.example",
      HOST: "127.0.0.1",
      PORT: String(port),
      DATA_DIR: dataDir,
      TREASURY_KEY_FILE: treasuryFile,
      MASTER_SECRET_FILE: masterSecretFile,
      CRON_SECRET,
      ADMIN_SECRET,
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  collect(service.stdout, (text) => {
    output += text;
    outputGrew();
  });
  collect(service.stderr, (text) => {
    output += text;
    outputGrew();
  });
}, 240_000);

afterAll(() => {
  if (service && service.exitCode === null) service.kill("SIGKILL");
  if (localnet && localnet.exitCode === null) localnet.kill("SIGKILL");
  rmSync(work, { recursive: true, force: true });
});

describe("the executable with CHAIN=pump against npx localnet", () => {
  test("starts and answers its health route, as a production site (HSTS on every answer)", async () => {
    await answering(service!, `${base}/api/cron/health`, () => output.slice(-3_000));
    const health = await json("/api/cron/health");
    expect(health.status).toBe(200);
    expect(health.headers.get("strict-transport-security")).toContain("max-age=");
    expect(health.body.jobs.map((j: { job: string }) => j.job)).toEqual([
      "sweep",
      "payouts",
      "burns",
      "launches",
      "market",
    ]);
    expect(output).not.toContain("ReferenceError");
  }, 90_000);

  test("a sweep run goes through the pump adapter: its program watch records pump's programs", async () => {
    // 409: a scheduled sweep holds the lease, and it reads the programs just the same.
    const started = await fetch(`${base}/api/cron/sweep`, { method: "POST", headers: bearer(CRON_SECRET) });
    expect([202, 409]).toContain(started.status);
    // The watch reads the programs before the sweep runs: once a sweep run is logged, they are recorded.
    await printed(/"msg":"sweep run"/);
    const programs = await json("/api/admin/programs", { headers: bearer(ADMIN_SECRET) });
    expect(programs.status).toBe(200);
    expect(programs.body.checkedAt).not.toBeNull();
    expect(programs.body.programs.map((p: { name: string; address: string }) => [p.name, p.address])).toEqual([
      ["pump", "6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P"],
      ["pump_amm", "pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA"],
      ["pump_fees", "pfeeUxB6jkeY1Hxd7CsFCAjcbHA9rWtchMGdZ6VojVZ"],
    ]);
  }, 60_000);

  test("does not run the preload of a bunfig.toml planted in its working folder (the data volume)", () => {
    // The preload would have run as the process started, before it answered anything.
    expect(existsSync(preloadMarker)).toBe(false);
  });

  test("takes no setting from a .env planted in its working folder", async () => {
    const metrics = await fetch(`${base}/metrics`, { headers: bearer(PLANTED_METRICS_SECRET) });
    expect(metrics.status).toBe(404);
  });

  test("stops on SIGTERM with exit status 0", async () => {
    service!.kill("SIGTERM");
    expect(await service!.exited).toBe(0);
    expect(output).not.toMatch(/"level":"error"/);
  }, 60_000);
});
