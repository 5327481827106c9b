/**
 * Builds dist/: the package as JavaScript for Node 20 and later (and Bun, which may also load the
 * TypeScript sources through the "bun" export condition). Plain Node and esbuild, so `npm pack`
 * and an install from a path (npm runs `prepare` for both) need no Bun. One ESM bundle per entry,
 * shared code split into chunks; dependencies stay imports, resolved from the installing project.
 */
import { chmodSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// --outdir: a build elsewhere (the packaging test builds and packs a copy, leaving dist/ alone)
const { values } = parseArgs({ options: { outdir: { type: "string" } } });
const dist = values.outdir ? resolve(values.outdir) : join(root, "dist");
const BIN = join(dist, "bin", "localnet.js");

// A production install (the Docker stage's `bun install --production`) has no devDependencies and
// needs no dist/: the service runs on Bun, which loads the sources. Say so instead of failing it.
const esbuild = await import("esbuild").catch(() => null);
if (esbuild === null) {
  process.stderr.write(
    "localnet: esbuild is not installed, so dist/ (the JavaScript Node runs) was not built; Bun uses the sources\n",
  );
  process.exit(0);
}
/**
 * pump's SDKs and Anchor load in Node only through their CommonJS builds: Node finds no named BN
 * in Anchor's, and pump-sdk 2.0.0's ES module build imports @pump-fun/agent-payments-sdk by names
 * its CommonJS build does not declare, which Node's loader refuses (Bun accepts both, and Bun runs
 * the sources). Each import of them becomes a module
 * that requires the CommonJS build and re-exports its names, read here from that build.
 */
const COMMONJS_ONLY = ["@coral-xyz/anchor", "@pump-fun/pump-sdk", "@pump-fun/pump-swap-sdk"];
const requireHere = createRequire(join(root, "package.json"));
const commonJsOnly = {
  name: "commonjs-only",
  setup(build) {
    const filter = new RegExp(`^(${COMMONJS_ONLY.map((p) => p.replace(/[/.]/g, "\\$&")).join("|")})$`);
    build.onResolve({ filter }, (args) => ({ path: args.path, namespace: "commonjs-only" }));
    build.onLoad({ filter: /.*/, namespace: "commonjs-only" }, (args) => {
      const names = Object.keys(requireHere(args.path)).filter((n) => /^[A-Za-z_$][\w$]*$/.test(n) && n !== "default");
      return {
        contents: [
          'import { createRequire } from "node:module";',
          `const pkg = createRequire(import.meta.url)(${JSON.stringify(args.path)});`,
          "export default pkg;",
          `export const { ${names.join(", ")} } = pkg;`,
        ].join("\n"),
        loader: "js",
      };
    });
  },
};

rmSync(dist, { recursive: true, force: true });
await esbuild.build({
  plugins: [commonJsOnly],
  absWorkingDir: root,
  entryPoints: {
    index: "src/index.ts",
    address: "src/address.ts",
    "fast-keypair": "src/fast-keypair.ts",
    program: "src/program.ts",
    upgradeable: "src/upgradeable.ts",
    "bin/localnet": "bin/localnet.ts",
  },
  outdir: dist,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  chunkNames: "chunks/[name]-[hash]",
  logLevel: "warning",
});
// The source's hashbang names Bun (it runs the .ts); the built command is Node's.
const bin = readFileSync(BIN, "utf8").replace(/^#!.*\n/, "");
writeFileSync(BIN, `#!/usr/bin/env node\n${bin}`);
chmodSync(BIN, 0o755);
