/**
 * The service as `npm run build` makes it (scripts/build.ts): the one executable production runs
 * (the Dockerfile's), which end-to-end tests start instead of `bun run src/main.ts`. Its code is
 * bundled, minified and precompiled to bytecode, so a start costs ~0.6 s of CPU against ~1.5 s for
 * the sources (each of the process's three threads parses its own modules); the suite starts the
 * service about forty times. Tests of `npm start` itself (the README's command, its defaults) still
 * start the sources.
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

let built: Promise<string> | null = null;

function hashInputs(): string {
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
  for (const input of INPUTS) visit(join(ROOT, input));
  return hasher.digest("hex").slice(0, 16);
}

async function build(outfile: string): Promise<void> {
  const partial = `${outfile}.${process.pid}.partial`;
  const child = Bun.spawn([process.execPath, join(ROOT, "scripts", "build.ts"), "--outfile", partial], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`npm run build failed (exit ${code}): ${stderr.slice(-2_000)}`);
  // A rename is atomic: a waiting worker sees no file or the whole executable.
  renameSync(partial, outfile);
}

/** Executables of earlier states of the sources (~170 MB each), left by earlier runs, untouched for an hour. */
function removeOldBuilds(keep: string): void {
  for (const name of readdirSync(tmpdir())) {
    const folder = join(tmpdir(), name);
    if (!name.startsWith("cfl-executable-") || folder === keep) continue;
    const stat = statSync(folder, { throwIfNoEntry: false });
    if (stat && Date.now() - stat.mtimeMs > OLD_BUILD_MS) rmSync(folder, { force: true, recursive: true });
  }
}

async function buildOnce(): Promise<string> {
  const folder = join(tmpdir(), `cfl-executable-${hashInputs()}`);
  const outfile = join(folder, "fee-ledger");
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
      if (Date.now() > deadline)
        throw new Error(`the service's executable was not built within ${BUILD_WAIT_MS_MAX} ms`);
      await Bun.sleep(100);
      continue;
    }
    try {
      if (!existsSync(outfile)) {
        removeOldBuilds(folder);
        await build(outfile);
      }
    } finally {
      rmSync(lock, { force: true, recursive: true });
    }
  }
  return outfile;
}

/** The path of the service's executable for the sources as they are now, built on first use. */
export function serviceExecutable(): Promise<string> {
  built ??= buildOnce().catch((error) => {
    built = null;
    throw error;
  });
  return built;
}
