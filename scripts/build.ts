/**
 * `npm run build`: the service as one executable, dist/fee-ledger (Bun's `--compile`: the runtime,
 * the code, its native addons and every file it reads at run time in one file).
 *
 *   npm run build                              for this machine (linux-x64 or linux-arm64)
 *   npm run build -- --target linux-arm64      cross-compiled; see "Other targets" below
 *   npm run build -- --outfile /tmp/fl         another output path
 *   npm run build -- --entry F --outfile X     another program of the checkout, built the same way
 *                                              (the money tests' job process, test/helpers/executable.ts)
 *
 * Embedded besides the code (scripts/cli.ts and the two worker threads' entries): the web page's
 * bundle, built here (src/web/prebuilt.ts); the migrations; the OpenAPI viewer's two files; and
 * libvips, which sharp's addon needs beside it (src/lib/native-libraries.ts). Each file keeps its
 * path in the checkout, which is how src/lib/app-files.ts finds it inside the executable.
 *
 * The commit is the checkout's (`git rev-parse`, "+changes" when the tree differs from it), or
 * GIT_COMMIT when set (a container build has no .git).
 *
 * Other targets: the runtime for another platform is Bun's own package (bun-linux-aarch64, fetched
 * from the npm registry once into Bun's cache), and the native addons must be the target's:
 * `npm install --os=linux --cpu=arm64 --no-save` adds them beside this machine's. The build refuses
 * when one is missing rather than make an executable that fails later; for linux-arm64 that is
 * the case today (see TARGETS).
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import type { BunPlugin } from "bun";
import { setLogLevel } from "../src/lib/log";

const ROOT = join(import.meta.dir, "..");

type Target = "linux-x64" | "linux-arm64";
const TARGETS: Record<Target, { bun: "bun-linux-x64" | "bun-linux-arm64"; libvips: string; addons: string[] }> = {
  "linux-x64": {
    bun: "bun-linux-x64",
    libvips: "@img/sharp-libvips-linux-x64",
    addons: ["@img/sharp-linux-x64", "litesvm-linux-x64-gnu", "@triton-one/yellowstone-grpc-napi-linux-x64-gnu"],
  },
  "linux-arm64": {
    bun: "bun-linux-arm64",
    libvips: "@img/sharp-libvips-linux-arm64",
    // Neither litesvm 0.8.0 nor Yellowstone's client (napi 0.2.1, loaded as the indexer's module
    // loads) publishes a linux-arm64 addon today, so the build refuses: the service could not
    // start on arm64 from a checkout either.
    addons: ["@img/sharp-linux-arm64", "litesvm-linux-arm64-gnu", "@triton-one/yellowstone-grpc-napi-linux-arm64-gnu"],
  },
};

/** The native addon packages of every platform, as the addons' loaders name them. */
const PLATFORM_PACKAGE =
  /^(@img\/sharp-(libvips-)?|litesvm-|@triton-one\/yellowstone-grpc-napi-|yellowstone-grpc-napi-)(linux|linuxmusl|darwin|win32|freebsd|android|wasm32)[-\w]*(\/.*)?$/;

export interface BuildResult {
  outfile: string;
  target: Target;
  commit: string;
  bytes: number;
  seconds: number;
}

function hostTarget(): Target {
  if (process.platform === "linux" && process.arch === "x64") return "linux-x64";
  if (process.platform === "linux" && process.arch === "arm64") return "linux-arm64";
  throw new Error(`no build for ${process.platform}-${process.arch}; build on Linux (x64 or arm64)`);
}

function commitOf(): string {
  if (process.env.GIT_COMMIT) return process.env.GIT_COMMIT;
  const git = (...args: string[]) => Bun.spawnSync(["git", ...args], { cwd: ROOT, stderr: "ignore" });
  try {
    const head = git("rev-parse", "--short=12", "HEAD");
    if (head.exitCode !== 0) return "unknown";
    const changed = git("status", "--porcelain", "--untracked-files=no").stdout.toString().trim() !== "";
    return `${head.stdout.toString().trim()}${changed ? "+changes" : ""}`;
  } catch {
    return "unknown"; // no git here
  }
}

function packageDir(name: string): string | null {
  const dir = join(ROOT, "node_modules", name);
  return existsSync(join(dir, "package.json")) ? dir : null;
}

/** The files read at run time, by absolute path (each is embedded under its path in the checkout). */
async function runTimeFiles(target: Target): Promise<string[]> {
  const files: string[] = [];

  // The page's bundle, built now with the code that would build it at start.
  const { webBundle, serializeBundle, PREBUILT_BUNDLE_PATH } = await import("../src/web/index");
  setLogLevel("warn");
  const bundlePath = join(ROOT, ...PREBUILT_BUNDLE_PATH);
  mkdirSync(dirname(bundlePath), { recursive: true });
  writeFileSync(bundlePath, serializeBundle(await webBundle()));
  files.push(bundlePath);

  // The migrations, as drizzle's migrator reads them: the journal and each entry's SQL.
  const migrations = join(ROOT, "db", "migrations");
  const journalPath = join(migrations, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { tag: string }[] };
  files.push(journalPath, ...journal.entries.map((e) => join(migrations, `${e.tag}.sql`)));

  // The OpenAPI viewer's files (src/web/docs.ts), at the path it looks for them inside the executable.
  const swagger = packageDir("swagger-ui-dist");
  if (!swagger) throw new Error("swagger-ui-dist is not installed; run npm install");
  files.push(join(swagger, "swagger-ui.css"), join(swagger, "swagger-ui-bundle.js"));

  const libvipsDir = packageDir(TARGETS[target].libvips);
  const libvips = libvipsDir
    ? (await Array.fromAsync(new Bun.Glob("lib/libvips-cpp.so*").scan({ cwd: libvipsDir, absolute: true })))[0]
    : undefined;
  if (!libvips) throw missingAddon(target, TARGETS[target].libvips);
  files.push(libvips);

  for (const file of files) if (!existsSync(file)) throw new Error(`missing run-time file ${relative(ROOT, file)}`);
  return files;
}

function missingAddon(target: Target, names: string): Error {
  const [os, cpu] = target.split("-");
  return new Error(
    `the ${target} native packages are not installed (${names}); add them with npm install --os=${os} --cpu=${cpu} --no-save, where their versions are published for ${target}`,
  );
}

/**
 * - The run-time JSON files (the migration journal, the page's bundle) are embedded as files, which
 *   is what their readers open, not bundled as modules.
 * - Native addon packages of other platforms are left out: their loaders try them in turn and would
 *   otherwise carry every installed platform's addon (the musl build of Yellowstone's, 8 MB).
 * - sharp's ES module entry loads its addon through `createRequire`, which the bundler cannot
 *   follow; its CommonJS entry names the addon with plain `require`s, so that one is bundled.
 * - bigint-buffer (spl-token's u64 fields) takes its JavaScript path, the one it falls back to when
 *   its addon does not load: the same numbers, with no native code. The addon exists only where an
 *   install ran its build script, which `bun install` (the image's) skips, and an executable built
 *   there printed "Failed to load bindings" once per thread at every start; the native code is
 *   also what advisory GHSA-3gc7-fjrx-p6mg (a buffer overflow, no fixed release) is about.
 * - `@coral-xyz/anchor` (the pump SDKs' and the pump adapter's) is bundled from its CommonJS build,
 *   the one Node runs: its ES module entry assigns to CommonJS's `exports`, which the bundler
 *   rewrote into a name it never declared, so the executable exited at start with `CHAIN=pump`
 *   (`ReferenceError: exports_esm is not defined`; test/binary/pump-start.test.ts).
 */
function plugins(target: Target, jsonFiles: Set<string>): BunPlugin[] {
  const wanted = new Set([TARGETS[target].libvips, ...TARGETS[target].addons]);
  return [
    {
      name: "fee-ledger-executable",
      setup(build) {
        build.onLoad({ filter: /\.json$/ }, async (args) =>
          jsonFiles.has(args.path) ? { contents: await Bun.file(args.path).text(), loader: "file" } : undefined,
        );
        build.onResolve({ filter: /^sharp$/ }, () => {
          const dir = packageDir("sharp");
          return dir ? { path: join(dir, "dist", "index.cjs") } : undefined;
        });
        build.onResolve({ filter: /^@coral-xyz\/anchor$/ }, () => {
          const dir = packageDir("@coral-xyz/anchor");
          return dir ? { path: join(dir, "dist", "cjs", "index.js") } : undefined;
        });
        build.onResolve({ filter: PLATFORM_PACKAGE }, (args) => {
          const parts = args.path.split("/");
          const pkg = args.path.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
          if (wanted.has(pkg)) return undefined;
          return { path: args.path, namespace: "other-platform" };
        });
        build.onLoad({ filter: /.*/, namespace: "other-platform" }, (args) => ({
          contents: `throw new Error(${JSON.stringify(`${args.path} is not in this ${target} build`)});`,
          loader: "js",
        }));
        build.onLoad({ filter: /[\\/]bigint-buffer[\\/]dist[\\/]node\.js$/ }, async (args) => {
          const source = await Bun.file(args.path).text();
          const jsOnly = source.replace("require('bindings')('bigint_buffer')", "undefined");
          if (jsOnly === source) throw new Error("bigint-buffer changed: its addon is no longer loaded as expected");
          return { contents: jsOnly, loader: "js" };
        });
      },
    },
  ];
}

/** The Bun package-lock.json pins: the one every test runs on, so the one an executable carries. */
function lockedBun(): string | null {
  try {
    const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8"));
    return lock.packages?.["node_modules/bun"]?.version ?? null;
  } catch {
    return null;
  }
}

export async function buildExecutable(
  options: { target?: Target; outfile?: string; quiet?: boolean; entry?: string } = {},
): Promise<BuildResult> {
  const started = performance.now();
  const locked = lockedBun();
  if (locked && locked !== Bun.version)
    throw new Error(`this is Bun ${Bun.version}, the lockfile pins ${locked} (the one tested): run npm run build`);
  const target = options.target ?? hostTarget();
  const outfile =
    options.outfile ?? join(ROOT, "dist", target === hostTarget() ? "fee-ledger" : `fee-ledger-${target}`);
  const missing = TARGETS[target].addons.filter((name) => !packageDir(name));
  if (missing.length > 0) throw missingAddon(target, missing.join(", "));
  const commit = commitOf();
  const files = await runTimeFiles(target);
  mkdirSync(dirname(outfile), { recursive: true });
  const result = await Bun.build({
    entrypoints: [
      ...(options.entry
        ? [resolve(options.entry)]
        : [
            join(ROOT, "scripts", "cli.ts"),
            // Worker threads are entries of their own (src/workers/threads.ts starts them by these paths).
            join(ROOT, "src", "workers", "chain-thread.ts"),
            join(ROOT, "src", "workers", "jobs-thread.ts"),
          ]),
      ...files,
    ],
    root: ROOT,
    // Nothing from the working folder is read as Bun's own configuration: in the image that folder
    // is the data volume, and a planted bunfig.toml's preload ran code beside the treasury key, a
    // planted .env set the service's settings (test/binary/pump-start.test.ts). Settings come from
    // the process's environment only.
    compile: {
      target: TARGETS[target].bun,
      outfile,
      autoloadBunfig: false,
      autoloadDotenv: false,
      autoloadTsconfig: false,
      autoloadPackageJson: false,
    },
    naming: { asset: "[dir]/[name].[ext]" },
    // NODE_ENV is fixed: the bundler would otherwise inline the building shell's (a build run under
    // `bun test` made an executable whose log was silenced, src/lib/log.ts).
    define: { FEE_LEDGER_COMMIT: JSON.stringify(commit), "process.env.NODE_ENV": JSON.stringify("production") },
    // Names are kept: LiteSVM's errors are told apart by their class names (packages/localnet).
    minify: { syntax: true, whitespace: true },
    sourcemap: "none",
    // Compiled ahead: the service answers in ~0.5 s instead of ~1.1 s, for 14 MB more file.
    bytecode: true,
    format: "esm",
    // The code the three threads share is stored once: 19 MB smaller, ~13 MB less resident.
    splitting: true,
    plugins: plugins(target, new Set(files.filter((file) => file.endsWith(".json")))),
  });
  if (!result.success) throw new Error(`build failed: ${result.logs.map((l) => l.message).join("; ")}`);
  const built: BuildResult = {
    outfile,
    target,
    commit,
    bytes: statSync(outfile).size,
    seconds: (performance.now() - started) / 1000,
  };
  if (!options.quiet)
    process.stdout.write(
      `${relative(process.cwd(), outfile) || outfile}: ${target}, commit ${commit}, ${(built.bytes / 1_048_576).toFixed(0)} MB, built in ${built.seconds.toFixed(1)} s\n`,
    );
  return built;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const option = (name: string) => {
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const target = option("--target");
  if (target !== undefined && !(target in TARGETS)) {
    process.stderr.write(`build: --target is one of ${Object.keys(TARGETS).join(", ")}\n`);
    process.exit(2);
  }
  try {
    await buildExecutable({
      target: target as Target | undefined,
      outfile: option("--outfile"),
      entry: option("--entry"),
    });
  } catch (error) {
    process.stderr.write(`build: ${(error as Error).message}\n`);
    process.exit(1);
  }
}
