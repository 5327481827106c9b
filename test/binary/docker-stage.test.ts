/**
 * The Dockerfile's build stage, run by hand where there is no Docker engine (here and in CI; issue
 * 62): its instructions are read from the Dockerfile and carried out in order in a fresh folder that
 * stands for the stage's file system (`/src` and `/out` are folders under it), with the build context
 * Docker would send (the checkout less what .dockerignore leaves out). `bun install` runs with this
 * Bun, the one the stage's image carries (test/dockerfile.test.ts keeps them equal), with an empty
 * package cache, so every package comes from the npm registry as in a fresh `docker build` (when
 * the registry cannot be reached, the tests fail with the install's output: they do not skip).
 *
 * The executable it makes is then started the way the final stage starts it (its ENV lines, the data
 * folder as working folder, the build stage's folder deleted first so nothing of the build is beside
 * it) with the production settings of docs/self-hosting.md against `npx localnet`, and asked with
 * the image's own HEALTHCHECK command. Built so, it exited 1 at start with `CHAIN=pump`
 * (`ReferenceError: exports_esm is not defined`; scripts/build.ts now bundles anchor's CommonJS build).
 *
 * Not reproduced: the final stage's user (`USER app`, made by `useradd`: the test does not add users
 * to the machine), `VOLUME` and `EXPOSE`; the base images' own files (the commands run on this
 * machine, with `bun`, and `node` as Bun, first on PATH).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  copyFileSync,
  cpSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { Keypair } from "@solana/web3.js";
import { answering } from "../helpers/executable";
import { collect, type LocalnetProcess, startLocalnetProcess } from "../helpers/localnet-process";
import type { Json } from "../helpers/service";
import { freePort } from "../helpers/socket";

const ROOT = join(import.meta.dir, "..", "..");
const CRON_SECRET = "c".repeat(40);
const ADMIN_SECRET = "a".repeat(40);
/** `docker build --build-arg GIT_COMMIT=…`, as docs/self-hosting.md passes it. */
const BUILD_ARGS: Record<string, string> = { GIT_COMMIT: "d0c4e5a9e1b2" };
/** The stage's base image (oven/bun) runs its commands as root with this PATH and setting. */
const BUILD_IMAGE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
const BUILD_IMAGE_ENV = { BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0" };
/** Settings of the machine Docker hands a build to (its predefined proxy arguments, the CA store). */
const PASSED_THROUGH = [
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "ALL_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "all_proxy",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
];
/** Generous: a cold install downloads ~220 MB, and the machine is shared by six test workers. */
const STAGE_TIMEOUT_MS = 600_000;

// ---------------------------------------------------------------------------------------------
// The Dockerfile, read as Docker reads it

interface Instruction {
  keyword: string;
  args: string;
}

interface Stage {
  image: string;
  name: string | undefined;
  instructions: Instruction[];
}

/** Instructions with their continuation lines joined (comment lines inside one dropped), by stage. */
function parseDockerfile(text: string): Stage[] {
  const instructions: Instruction[] = [];
  let pending = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line.startsWith("#") || (!line && !pending)) continue;
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const whole = (pending + line).trim();
    pending = "";
    const keyword = whole.split(/\s+/, 1)[0] ?? "";
    instructions.push({ keyword: keyword.toUpperCase(), args: whole.slice(keyword.length).trim() });
  }
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === "FROM") {
      const [image = "", as, name] = instruction.args.split(/\s+/);
      stages.push({ image, name: as?.toUpperCase() === "AS" ? name : undefined, instructions: [] });
    } else {
      const stage = stages[stages.length - 1];
      if (!stage) throw new Error(`Dockerfile: ${instruction.keyword} before FROM`);
      stage.instructions.push(instruction);
    }
  }
  return stages;
}

/** `A=1 B="two words"` (ENV, ARG) as pairs; the old `ENV A 1` form too. */
function assignments(args: string): [string, string | undefined][] {
  if (!args.includes("=")) {
    const [name = "", ...value] = args.split(/\s+/);
    return [[name, value.length > 0 ? value.join(" ") : undefined]];
  }
  const pairs: [string, string | undefined][] = [];
  for (const match of args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)(?:=("[^"]*"|'[^']*'|\S*))?/g)) {
    const value = match[2];
    pairs.push([match[1]!, value === undefined ? undefined : value.replace(/^(["'])(.*)\1$/, "$2")]);
  }
  return pairs;
}

/** `["fee-ledger", "health"]` or a shell form, as the argv the instruction runs. */
function commandOf(args: string): string[] {
  return args.startsWith("[") ? (JSON.parse(args) as string[]) : ["/bin/sh", "-c", args];
}

/** `--from=build /out/fee-ledger /usr/local/bin/fee-ledger`: its flags, sources and destination. */
function copyArgs(args: string): { flags: Record<string, string>; sources: string[]; destination: string } {
  const words = args.split(/\s+/);
  const flags: Record<string, string> = {};
  while (words[0]?.startsWith("--")) {
    const [flag = "", value = ""] = words.shift()!.slice(2).split("=");
    flags[flag] = value;
  }
  const destination = words.pop();
  if (!destination || words.length === 0) throw new Error(`COPY ${args}: no source or destination`);
  return { flags, sources: words, destination };
}

// ---------------------------------------------------------------------------------------------
// The build context: the checkout as `docker build .` sends it

/**
 * .dockerignore's rules as Docker applies them: each line a pattern from the context's root (`*`
 * within one path segment, `**` across segments), matching a path or any folder above it; a `!`
 * line takes matches back; the last matching line decides.
 */
function dockerignore(text: string): (path: string) => boolean {
  const rules = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const keep = line.startsWith("!");
      const pattern = (keep ? line.slice(1) : line).trim().replace(/^\/+/, "").replace(/\/+$/, "");
      return { keep, glob: new Bun.Glob(pattern) };
    });
  return (path) => {
    const segments = path.split("/");
    let ignored = false;
    for (const rule of rules) {
      const matches = segments.some((_, i) => rule.glob.match(segments.slice(0, i + 1).join("/")));
      if (matches) ignored = !rule.keep;
    }
    return ignored;
  };
}

/** The paths `docker build .` leaves out of the context sent from this checkout. */
function contextIgnores(): (path: string) => boolean {
  try {
    return dockerignore(readFileSync(join(ROOT, ".dockerignore"), "utf8"));
  } catch {
    return () => false; // no .dockerignore: Docker sends the whole folder
  }
}

/** Copies the checkout into `into` as Docker sends it: less what .dockerignore leaves out. */
function buildContext(into: string): void {
  const ignored = contextIgnores();
  const visit = (relative: string): void => {
    const from = join(ROOT, relative);
    const to = join(into, relative);
    const stat = lstatSync(from);
    if (stat.isDirectory()) {
      mkdirSync(to, { recursive: true });
      for (const name of readdirSync(from)) {
        const child = relative ? `${relative}/${name}` : name;
        if (!ignored(child)) visit(child);
      }
    } else if (stat.isSymbolicLink()) {
      cpSync(from, to, { verbatimSymlinks: true });
    } else {
      copyFileSync(from, to);
    }
  };
  visit("");
}

// ---------------------------------------------------------------------------------------------
// The stages, carried out by hand

/** A stage's file system: a folder standing for `/`, where the stage's absolute paths live. */
interface Filesystem {
  root: string;
  workdir: string;
  env: Record<string, string>;
}

/** Where a path of the stage (absolute, or from its WORKDIR) is on this machine. */
const host = (fs: Filesystem, path: string): string =>
  path.startsWith("/") ? join(fs.root, path) : join(fs.workdir, path);

/** A command's absolute paths (`/out/fee-ledger`) moved under the stage's folder; the shell stays this machine's. */
function commandIn(fs: Filesystem, args: string): string[] {
  const mapped = (text: string) => text.replace(/(^|[\s=])\/(?=[\w.])/g, `$1${fs.root}/`);
  if (!args.startsWith("[")) return ["/bin/sh", "-c", mapped(args)];
  const [program = "", ...rest] = commandOf(args);
  return [program, ...rest.map(mapped)];
}

/** A folder of commands the base image has at /usr/local/bin: `bun`, and `node` as Bun. */
function imageCommands(folder: string): string {
  mkdirSync(folder, { recursive: true });
  for (const name of ["bun", "node"]) symlinkSync(process.execPath, join(folder, name));
  return folder;
}

function copyInto(from: string, to: string, toFolder: boolean): void {
  if (lstatSync(from).isDirectory()) {
    cpSync(from, to, { recursive: true, verbatimSymlinks: true });
    return;
  }
  const target = toFolder ? join(to, basename(from)) : to;
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(from, target);
}

async function run(fs: Filesystem, instruction: Instruction): Promise<void> {
  const argv = commandIn(fs, instruction.args);
  const child = Bun.spawn(argv, { cwd: fs.workdir, env: fs.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  if (code === 0) return;
  const registry = /\bbun install\b/.test(instruction.args)
    ? " The stage installs every package from the npm registry: it must be reachable from here (and is from CI)."
    : "";
  throw new Error(
    `RUN ${instruction.args} exited ${code}.${registry} Its output ended with:\n${(stdout + stderr).slice(-3_000)}`,
  );
}

/** Carries out the build stage's WORKDIR, COPY, ARG, ENV and RUN lines in order, from `context`. */
async function runBuildStage(stage: Stage, fs: Filesystem, context: string): Promise<void> {
  for (const instruction of stage.instructions) {
    switch (instruction.keyword) {
      case "WORKDIR":
        fs.workdir = host(fs, instruction.args);
        mkdirSync(fs.workdir, { recursive: true });
        break;
      case "COPY": {
        const { flags, sources, destination } = copyArgs(instruction.args);
        if (Object.keys(flags).length > 0) throw new Error(`COPY ${instruction.args}: flags are not run by hand here`);
        const toFolder = destination.endsWith("/") || sources.length > 1;
        for (const source of sources) copyInto(join(context, source), host(fs, destination), toFolder);
        break;
      }
      case "ARG":
        for (const [name, fallback] of assignments(instruction.args)) {
          const value = BUILD_ARGS[name] ?? fallback;
          if (value !== undefined) fs.env[name] = value;
        }
        break;
      case "ENV":
        for (const [name, value = ""] of assignments(instruction.args))
          fs.env[name] = value.startsWith("/") ? host(fs, value) : value;
        break;
      case "RUN":
        await run(fs, instruction);
        break;
      default:
        throw new Error(`the build stage's ${instruction.keyword} is not run by hand here`);
    }
  }
}

/** The final stage as far as a process needs it: its files, working folder, ENV, CMD and HEALTHCHECK. */
interface FinalStage {
  fs: Filesystem;
  cmd: string[];
  healthcheck: string[];
  /** The image user's home (`useradd --home`), which Docker sets as HOME. */
  home: string | undefined;
}

function assembleFinalStage(stage: Stage, fs: Filesystem, stages: Map<string, Filesystem>): FinalStage {
  let cmd: string[] = [];
  let healthcheck: string[] = [];
  let home: string | undefined;
  for (const instruction of stage.instructions) {
    switch (instruction.keyword) {
      case "COPY": {
        const { flags, sources, destination } = copyArgs(instruction.args);
        const from = flags.from === undefined ? undefined : stages.get(flags.from);
        if (!from) throw new Error(`COPY ${instruction.args}: only COPY --from a stage is run by hand here`);
        const toFolder = destination.endsWith("/") || sources.length > 1;
        for (const source of sources) copyInto(host(from, source), host(fs, destination), toFolder);
        break;
      }
      case "WORKDIR":
        fs.workdir = host(fs, instruction.args);
        mkdirSync(fs.workdir, { recursive: true });
        break;
      case "ENV":
        for (const [name, value = ""] of assignments(instruction.args))
          fs.env[name] = value.startsWith("/") ? host(fs, value) : value;
        break;
      case "CMD":
        cmd = commandOf(instruction.args);
        break;
      case "HEALTHCHECK":
        healthcheck = commandOf(instruction.args.replace(/^.*?\bCMD\s+/, ""));
        break;
      case "RUN": {
        // The image's user is not made here (the process runs as the test's user); only its home is
        // kept, which Docker sets as HOME for the process.
        const homeFlag = /--home\s+(\S+)/.exec(instruction.args)?.[1];
        if (homeFlag) home = host(fs, homeFlag);
        break;
      }
      case "USER":
      case "VOLUME":
      case "EXPOSE":
        break;
      default:
        throw new Error(`the final stage's ${instruction.keyword} is not run by hand here`);
    }
  }
  return { fs, cmd, healthcheck, home };
}

/** A command of the image, found on the image's PATH (its /usr/local/bin first). */
function inImage(final: FinalStage, argv: string[]): string[] {
  const [name = "", ...rest] = argv;
  const path = Bun.which(name, { PATH: final.fs.env.PATH ?? "" });
  if (!path) throw new Error(`${name} is not on the image's PATH`);
  return [path, ...rest];
}

// ---------------------------------------------------------------------------------------------

let work: string;
let final: FinalStage;
let installed: { checked: number; outside: string[] };
let runEnv: Record<string, string>;
let base: string;
let localnet: LocalnetProcess | null = null;
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

const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

async function json(path: string, init?: RequestInit): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${base}${path}`, init);
  return { status: response.status, body: (await response.json()) as Json };
}

function passedThrough(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of PASSED_THROUGH) if (process.env[name] !== undefined) env[name] = process.env[name]!;
  return env;
}

/**
 * The packages the stage installed (name@version, every copy in any node_modules) that
 * package-lock.json does not hold. Bun lays the tree out differently from npm (and without the dev
 * dependencies), so the same package may sit at another path: only the versions are compared.
 */
function installedNotInLock(fs: Filesystem): { checked: number; outside: string[] } {
  const lock = JSON.parse(readFileSync(join(fs.workdir, "package-lock.json"), "utf8")) as {
    packages: Record<string, { name?: string; version?: string }>;
  };
  const locked = new Set<string>();
  for (const [path, entry] of Object.entries(lock.packages)) {
    const at = path.lastIndexOf("node_modules/");
    if (at >= 0) locked.add(`${entry.name ?? path.slice(at + "node_modules/".length)}@${entry.version}`);
  }
  const outside: string[] = [];
  let checked = 0;
  for (const file of new Bun.Glob("**/node_modules/**/package.json").scanSync({ cwd: fs.workdir, dot: true })) {
    const path = file.slice(file.lastIndexOf("node_modules/") + "node_modules/".length);
    const parts = path.split("/");
    const name = path.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
    if (path !== `${name}/package.json` || name.startsWith(".")) continue;
    const manifest = JSON.parse(readFileSync(join(fs.workdir, file), "utf8")) as { name?: string; version?: string };
    // A package's own nested package.json files (a build folder's `{"type": "module"}`) name none.
    if (manifest.name !== name) continue;
    checked++;
    if (!locked.has(`${name}@${manifest.version}`)) outside.push(`${file} (${manifest.version})`);
  }
  return { checked, outside };
}

/** The build stage by hand, then the final stage's files; the build stage's folder is gone after. */
async function buildImage(): Promise<FinalStage> {
  const stages = parseDockerfile(readFileSync(join(ROOT, "Dockerfile"), "utf8"));
  const last = stages[stages.length - 1]!;
  const fromName = last.instructions
    .filter((i) => i.keyword === "COPY")
    .map((i) => copyArgs(i.args).flags.from)
    .find((name) => name !== undefined);
  const buildStage = stages.find((s) => s.name !== undefined && s.name === fromName);
  if (!buildStage) throw new Error("the final stage copies from no stage of the Dockerfile");

  const context = join(work, "context");
  buildContext(context);

  const buildRoot = join(work, "build-stage");
  const commands = imageCommands(join(work, "build-image-bin"));
  const buildFs: Filesystem = {
    root: buildRoot,
    workdir: buildRoot,
    env: {
      ...passedThrough(),
      ...BUILD_IMAGE_ENV,
      PATH: `${commands}:${BUILD_IMAGE_PATH}`,
      // An empty package cache, as in a fresh image: every package comes from the registry.
      HOME: join(buildRoot, "root"),
    },
  };
  mkdirSync(buildFs.env.HOME!, { recursive: true });
  await runBuildStage(buildStage, buildFs, context);
  installed = installedNotInLock(buildFs);

  const finalRoot = join(work, "final-stage");
  const finalFs: Filesystem = {
    root: finalRoot,
    workdir: finalRoot,
    // debian:bookworm-slim's PATH; its /usr/local/bin is under the stage's folder.
    env: { PATH: `${join(finalRoot, "usr", "local", "bin")}:${BUILD_IMAGE_PATH}` },
  };
  const assembled = assembleFinalStage(last, finalFs, new Map([[buildStage.name!, buildFs]]));
  // Nothing of the build is left beside the executable: no node_modules, no sources.
  rmSync(buildRoot, { recursive: true, force: true });
  rmSync(context, { recursive: true, force: true });
  return assembled;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "cfl-docker-stage-"));
  // Mounted read-only outside the data volume in docs/self-hosting.md's `docker run`.
  const secrets = join(work, "run-secrets");
  mkdirSync(secrets);
  const treasuryFile = join(secrets, "treasury.json");
  const masterSecretFile = join(secrets, "master-secret");
  writeFileSync(treasuryFile, JSON.stringify([...Keypair.generate().secretKey]), { mode: 0o600 });
  writeFileSync(masterSecretFile, Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex"), {
    mode: 0o600,
  });
  localnet = startLocalnetProcess({ cwd: work, keypairFile: treasuryFile });
  const [{ rpcUrl }, built] = await Promise.all([localnet.ready, buildImage()]);
  final = built;

  const port = freePort();
  base = `http://127.0.0.1:${port}`;
  // `docker run --env-file mainnet.env` over the image's ENV; PORT as `-e PORT=` (3000 may be taken here).
  runEnv = {
    ...final.fs.env,
    ...(final.home ? { HOME: final.home } : {}),
    CHAIN: "pump",
    RPC_URL: rpcUrl,
    PUBLIC_URL: "https://fees.example",
    PORT: String(port),
    TREASURY_KEY_FILE: treasuryFile,
    MASTER_SECRET_FILE: masterSecretFile,
    CRON_SECRET,
    ADMIN_SECRET,
  };
  service = Bun.spawn(inImage(final, final.cmd), {
    cwd: final.fs.workdir,
    env: runEnv,
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
}, STAGE_TIMEOUT_MS);

afterAll(() => {
  if (service && service.exitCode === null) service.kill("SIGKILL");
  if (localnet && localnet.child.exitCode === null) localnet.child.kill("SIGKILL");
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the Dockerfile's build stage, run by hand, and its executable as the final stage starts it", () => {
  test("the build context leaves out the checkout's node_modules, .git, data folder and .env", () => {
    // Sent, the checkout's node_modules would overwrite the stage's own install at `COPY . .`, and
    // data/ and .env would carry a developer's database, keys and settings into the build.
    const ignored = contextIgnores();
    const leftOut = [
      "node_modules",
      "node_modules/bun/package.json",
      "packages/localnet/node_modules",
      ".git",
      "data",
      "data/service.db",
      ".env",
    ];
    expect(leftOut.filter((path) => !ignored(path))).toEqual([]);
    expect(ignored("src/main.ts")).toBe(false);
  });

  test("bun install put only versions package-lock.json holds", () => {
    expect(installed.checked).toBeGreaterThan(100);
    expect(installed.outside).toEqual([]);
  });

  test("the executable carries the commit passed as GIT_COMMIT", async () => {
    const version = Bun.spawn(inImage(final, ["fee-ledger", "--version"]), {
      cwd: final.fs.workdir,
      env: final.fs.env,
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, code] = await Promise.all([new Response(version.stdout).text(), version.exited]);
    expect(code).toBe(0);
    expect(stdout).toContain(`(commit ${BUILD_ARGS.GIT_COMMIT};`);
  });

  test("with CHAIN=pump against npx localnet it answers its health route, in the data folder it was given", async () => {
    await answering(service!, `${base}/api/cron/health`, () => output.slice(-3_000));
    const health = await json("/api/cron/health");
    expect(health.status).toBe(200);
    expect(output).not.toContain("ReferenceError");
    expect(readdirSync(runEnv.DATA_DIR!)).toContain("service.db");
  }, 90_000);

  test("the image's HEALTHCHECK command exits 0 against it", async () => {
    const check = Bun.spawn(inImage(final, final.healthcheck), {
      cwd: final.fs.workdir,
      env: runEnv,
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await check.exited).toBe(0);
  }, 30_000);

  test("a sweep run goes through the pump adapter: its program watch records pump's programs", async () => {
    // 409: a scheduled sweep holds the lease, and it reads the programs just the same.
    const started = await fetch(`${base}/api/cron/sweep`, { method: "POST", headers: bearer(CRON_SECRET) });
    expect([202, 409]).toContain(started.status);
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

  test("stops on SIGTERM with exit status 0", async () => {
    service!.kill("SIGTERM");
    expect(await service!.exited).toBe(0);
    expect(output).not.toMatch(/"level":"error"/);
  }, 60_000);
});
