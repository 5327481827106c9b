/**
 * The service as `npm run build` makes it (scripts/build.ts): the one executable production runs
 * (the Dockerfile's), which end-to-end tests start instead of `bun run src/main.ts`. Its code is
 * bundled, minified and precompiled to bytecode, so a start costs ~0.6 s of CPU against ~1.5 s for
 * the sources (each of the process's three threads parses its own modules); the suite starts the
 * service about forty times. Tests of `npm start` itself (the README's command, its defaults) still
 * start the sources.
 *
 * The money tests' job process is built the same way (jobWorkerExecutable).
 *
 * Built once per state of the sources and shared by every test worker: the folder is named by a
 * hash of what goes into the build, the first worker to need it builds under a lock directory, the
 * others wait for the file. A change to the code makes a new hash, so no test runs a stale build.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
/** What the build reads: the code, the page, the migrations, the local chain package, the lockfile. */
const INPUTS = ["src", "db", "indexer", "public", "packages/localnet/src", "scripts", "package-lock.json"];
/** A build takes ~3 s alone; a loaded machine with six workers can take many times that. */
const BUILD_WAIT_MS_MAX = 180_000;
/** A lock older than this was left by a worker that died mid-build, and is taken over. */
const LOCK_STALE_MS = BUILD_WAIT_MS_MAX;
const OLD_BUILD_MS = 3_600_000;

/** One executable built from the checkout: its folder prefix in tmpdir, what it reads, how it is built. */
interface Build {
  prefix: string;
  file: string;
  inputs: readonly string[];
  command(outfile: string): string[];
}

const SERVICE: Build = {
  prefix: "cfl-executable-",
  file: "fee-ledger",
  inputs: INPUTS,
  command: (outfile) => [process.execPath, join(ROOT, "scripts", "build.ts"), "--outfile", outfile],
};

/**
 * The money tests' job process (test/jobs/fixtures/job-worker.ts), compiled as the service is: the
 * kill-and-restart and fault tests start it dozens of times (42 in crash.test.ts alone), and each
 * start of the sources spends ~0.25 s of CPU parsing modules where the compiled one spends ~0.05 s.
 */
const JOB_WORKER: Build = {
  prefix: "cfl-job-worker-",
  file: "job-worker",
  inputs: [...INPUTS, "test/jobs/fixtures"],
  command: (outfile) => [
    process.execPath,
    join(ROOT, "scripts", "build.ts"),
    "--entry",
    join(ROOT, "test", "jobs", "fixtures", "job-worker.ts"),
    "--outfile",
    outfile,
  ],
};

const built = new Map<Build, Promise<string>>();

function hashInputs(inputs: readonly string[]): string {
  const hasher = new Bun.CryptoHasher("sha256");
  const visit = (path: string): void => {
    const stat = statSync(path);
    if (stat.isDirectory()) {
      for (const name of readdirSync(path).sort()) if (name !== "node_modules") visit(join(path, name));
      return;
    }
    hasher.update(path.slice(ROOT.length));
    hasher.update(readFileSync(path));
  };
  for (const input of inputs) visit(join(ROOT, input));
  return hasher.digest("hex").slice(0, 16);
}

async function build(spec: Build, outfile: string): Promise<void> {
  const partial = `${outfile}.${process.pid}.partial`;
  const child = Bun.spawn(spec.command(partial), { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`building ${spec.prefix} failed (exit ${code}): ${stderr.slice(-2_000)}`);
  // A rename is atomic: a waiting worker sees no file or the whole executable.
  renameSync(partial, outfile);
}

/** Executables of earlier states of the sources (~150 MB each), left by earlier runs, untouched for an hour. */
function removeOldBuilds(spec: Build, keep: string): void {
  for (const name of readdirSync(tmpdir())) {
    const folder = join(tmpdir(), name);
    if (!name.startsWith(spec.prefix) || folder === keep) continue;
    const stat = statSync(folder, { throwIfNoEntry: false });
    if (stat && Date.now() - stat.mtimeMs > OLD_BUILD_MS) rmSync(folder, { force: true, recursive: true });
  }
}

async function buildOnce(spec: Build): Promise<string> {
  const folder = join(tmpdir(), `${spec.prefix}${hashInputs(spec.inputs)}`);
  const outfile = join(folder, spec.file);
  const lock = join(folder, "building");
  mkdirSync(folder, { recursive: true });
  const deadline = Date.now() + BUILD_WAIT_MS_MAX;
  while (!existsSync(outfile)) {
    try {
      mkdirSync(lock);
    } catch {
      // Another worker builds it.
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > LOCK_STALE_MS) rmSync(lock, { force: true, recursive: true });
      if (Date.now() > deadline) throw new Error(`${spec.prefix} was not built within ${BUILD_WAIT_MS_MAX} ms`);
      await Bun.sleep(100);
      continue;
    }
    try {
      if (!existsSync(outfile)) {
        removeOldBuilds(spec, folder);
        await build(spec, outfile);
      }
    } finally {
      rmSync(lock, { force: true, recursive: true });
    }
  }
  return outfile;
}

function builtOnce(spec: Build): Promise<string> {
  let path = built.get(spec);
  if (!path) {
    path = buildOnce(spec).catch((error) => {
      built.delete(spec);
      throw error;
    });
    built.set(spec, path);
  }
  return path;
}

/** The path of the service's executable for the sources as they are now, built on first use. */
export function serviceExecutable(): Promise<string> {
  return builtOnce(SERVICE);
}

/** The path of the compiled job process (test/jobs/fixtures/job-worker.ts) for the sources as they are now. */
export function jobWorkerExecutable(): Promise<string> {
  return builtOnce(JOB_WORKER);
}

/**
 * Resolves once `url` answers 2xx. A process that exits first says why on stderr, so that is thrown
 * at once (with `stderrTail()`) rather than after the deadline; so is a start that outlasts it.
 */
export async function answering(
  child: Bun.Subprocess,
  url: string,
  stderrTail: () => string,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (child.exitCode !== null || Date.now() > deadline) {
      // The last lines may still be in the pipe.
      await Bun.sleep(200);
      throw new Error(`the service did not start (exit ${child.exitCode}); its stderr ended with:\n${stderrTail()}`);
    }
    await Bun.sleep(100);
  }
}
