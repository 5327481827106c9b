/**
 * The package as another project gets it: built (packages/localnet/scripts/build.mjs), packed with `npm pack`,
 * installed from the tarball into an empty Node project, and used there: the `localnet` command
 * through `npx` under Node, with the project's own web3.js and kit scripts against it, and the
 * library in-process under Node (dist/) and Bun (the "bun" condition: the TypeScript sources).
 * The install asks npm's cache first; CI reaches the registry for whatever the cache lacks.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PACKAGE = join(import.meta.dir, "..");
const REPOSITORY = join(PACKAGE, "..", "..");
const SCRIPTS = join(import.meta.dir, "node-project");
/** npm installs a dozen packages from its cache; slow on a loaded two-core machine, never hung */
const INSTALL_TIMEOUT_MS = 300_000;

/** The version this repository's lockfile installed, so the project's scripts meet the same client */
function installedVersion(name: string): string {
  const manifest = JSON.parse(readFileSync(join(REPOSITORY, "node_modules", name, "package.json"), "utf8"));
  return (manifest as { version: string }).version;
}

let work = "";
let app = "";
let tarball = "";
let localnet: Bun.Subprocess<"ignore", "pipe", "pipe"> | null = null;

async function run(cmd: string[], cwd: string): Promise<string> {
  const proc = Bun.spawn(cmd, { cwd, stdin: "ignore", stdout: "pipe", stderr: "pipe", env: { ...process.env } });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`${cmd.join(" ")} exited ${code}:\n${err.slice(-3_000)}\n${out.slice(-1_000)}`);
  return out;
}

/** The packed tarball: the built dist/ and the sources, as `files` in package.json names them. */
async function packCopy(): Promise<string> {
  const stage = join(work, "stage");
  for (const name of ["package.json", "README.md", "src"])
    cpSync(join(PACKAGE, name), join(stage, name), { recursive: true });
  await run(["node", join(PACKAGE, "scripts", "build.mjs"), "--outdir", join(stage, "dist")], PACKAGE);
  const packed = JSON.parse(
    await run(["npm", "pack", "--ignore-scripts", "--json", "--pack-destination", work], stage),
  );
  return join(work, (packed as { filename: string }[])[0]!.filename);
}

/** `npx localnet` in the project, on free ports; resolves to the URLs it prints. */
async function startCommand(): Promise<{ rpcUrl: string; wsUrl: string }> {
  const proc = Bun.spawn(["npx", "--no-install", "localnet", "--rpc-port", "0", "--ws-port", "0", "--grpc-port", "0"], {
    cwd: app,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  localnet = proc;
  let said = "";
  const stderr = new Response(proc.stderr).text();
  const exited = proc.exited.then(async (code) => {
    throw new Error(`localnet exited ${code}: ${(await stderr).slice(-2_000)}`);
  });
  const announced = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout) {
      said += decoder.decode(chunk, { stream: true });
      const rpcUrl = /^JSON-RPC URL: (\S+)$/m.exec(said)?.[1];
      const wsUrl = /^WebSocket URL: (\S+)$/m.exec(said)?.[1];
      if (rpcUrl && wsUrl) return { rpcUrl, wsUrl };
    }
    throw new Error(`localnet closed its output: ${said}`);
  })();
  return Promise.race([announced, exited]);
}

/** A notified balance: some number of the scripts' 1 SOL airdrops (the first ones may land before the subscription) */
function expectWholeSol(lamports: unknown): void {
  expect(typeof lamports).toBe("number");
  expect(lamports as number).toBeGreaterThan(0);
  expect((lamports as number) % 1_000_000_000).toBe(0);
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "localnet-package-"));
  app = join(work, "app");
  tarball = await packCopy();
  cpSync(SCRIPTS, app, { recursive: true });
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  await run(
    [
      "npm",
      "install",
      tarball,
      `@solana/kit@${installedVersion("@solana/kit")}`,
      `@solana/web3.js@${installedVersion("@solana/web3.js")}`,
      "--no-audit",
      "--no-fund",
      "--prefer-offline",
    ],
    app,
  );
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  localnet?.kill();
  await localnet?.exited;
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the package installed from a tarball into a Node project", () => {
  test("the tarball carries the built JavaScript and no tests", async () => {
    const listed = (await run(["tar", "-tzf", tarball], work)).split("\n");
    expect(listed).toContain("package/dist/index.js");
    expect(listed).toContain("package/dist/bin/localnet.js");
    expect(listed.some((f) => f.startsWith("package/test/"))).toBe(false);
    expect(readdirSync(join(app, "node_modules", ".bin"))).toContain("localnet");
  });

  test("`npx localnet` runs under Node, and the project's web3.js and kit scripts work against it", async () => {
    const { rpcUrl, wsUrl } = await startCommand();
    const web3 = JSON.parse(await run(["node", "web3.mjs", rpcUrl, wsUrl], app));
    expect(web3).toMatchObject({ payeeLamports: 1_234_567, parsedType: "transfer" });
    expectWholeSol(web3.notifiedLamports);
    const kit = JSON.parse(await run(["node", "kit.mjs", rpcUrl, wsUrl], app));
    expect(kit.heardSlot).toBeGreaterThan(0);
    expect(kit.lamports).toBe("2000000000");
  }, 120_000);

  test("the library runs in-process under Node and under Bun", async () => {
    for (const [runtime, bin] of [
      ["node", "node"],
      ["bun", process.execPath],
    ] as const) {
      const out = JSON.parse(await run([bin, "library.mjs"], app));
      expect(out.runtime).toBe(runtime);
      expectWholeSol(out.notifiedLamports);
      expect(BigInt(out.treasuryLamports)).toBeGreaterThan(0n);
    }
  }, 120_000);
});
