/**
 * Every package the code imports is declared in the package.json nearest to the importing file
 * (issue 62): an undeclared one is there only because some other package pulled it in, so an
 * update of that package can remove it or change its major version under the service without a
 * line of the lockfile saying so (`@coral-xyz/anchor` and `@sinclair/typebox` were imported that
 * way). The code the service runs (src/, db/, indexer/, the packages' src/; and scripts/build.ts
 * and scripts/cli.ts, which the Dockerfile's stage runs after `bun install --production` and the
 * executable starts from) imports only `dependencies`; the other scripts (benchmarks, the
 * simulation) may use `devDependencies` too. Every import counts, type-only ones too: the type
 * check needs them as much. The installed version is the declared range's, so declaring a package
 * changes nothing that runs.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { isBuiltin } from "node:module";
import { dirname, join, relative } from "node:path";

const ROOT = join(import.meta.dir, "..");

interface Manifest {
  dir: string;
  name: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

/** The folders read, and whether their files may import devDependencies. */
function scannedFolders(): { dir: string; dev: boolean }[] {
  const packages = readdirSync(join(ROOT, "packages"))
    .map((name) => join(ROOT, "packages", name, "src"))
    .filter((dir) => existsSync(dir));
  return [
    ...["src", "db", "indexer"].map((dir) => ({ dir: join(ROOT, dir), dev: false })),
    { dir: join(ROOT, "scripts"), dev: true },
    ...packages.map((dir) => ({ dir, dev: false })),
  ];
}

/** Shipped even though they sit in scripts/: the Docker stage's build and the executable's entry. */
const SHIPPED_SCRIPTS = new Set(["scripts/build.ts", "scripts/cli.ts"]);

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== "node_modules") walk(path, out);
    } else if (/\.(ts|tsx|js|mjs)$/.test(name) && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

/** Static, type-only and dynamic imports, re-exports, `typeof import()` and `require()`. */
const SPECIFIERS = [
  /\b(?:import|export)\s+(?:type\s+)?[^'";]*?\bfrom\s*["']([^"']+)["']/g,
  /\bimport\s*["']([^"']+)["']/g,
  /\bimport\(\s*["']([^"']+)["']\s*\)/g,
  // Not one quoted as text (scripts/build.ts rewrites bigint-buffer's `require('bindings')` call).
  /(?<!["'`])\brequire\(\s*["']([^"']+)["']\s*\)/g,
];

function specifiersOf(file: string): string[] {
  // Comment lines out: a doc comment may show an import.
  const source = readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => !/^\s*(\/\/|\/\*|\*)/.test(line))
    .join("\n");
  return SPECIFIERS.flatMap((pattern) => [...source.matchAll(pattern)].map((m) => m[1]!));
}

/** A package's name from a bare specifier (`@scope/name/sub` → `@scope/name`), null for files and built-ins. */
function packageOf(specifier: string): string | null {
  if (specifier.startsWith(".") || specifier.startsWith("/")) return null;
  if (specifier === "bun" || specifier.startsWith("bun:") || isBuiltin(specifier)) return null;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

const manifests = new Map<string, Manifest>();
function nearestManifest(file: string): Manifest {
  for (let dir = dirname(file); dir.startsWith(ROOT); dir = dirname(dir)) {
    const cached = manifests.get(dir);
    if (cached) return cached;
    const path = join(dir, "package.json");
    if (!existsSync(path)) continue;
    const json = JSON.parse(readFileSync(path, "utf8"));
    const manifest = {
      dir,
      name: json.name,
      dependencies: json.dependencies ?? {},
      devDependencies: json.devDependencies ?? {},
    };
    manifests.set(dir, manifest);
    return manifest;
  }
  throw new Error(`no package.json above ${relative(ROOT, file)}`);
}

interface Import {
  file: string;
  specifier: string;
  name: string;
  manifest: Manifest;
  dev: boolean;
}

function imports(): Import[] {
  return scannedFolders().flatMap(({ dir, dev }) =>
    walk(dir).flatMap((file) => {
      const manifest = nearestManifest(file);
      const shippedScript = SHIPPED_SCRIPTS.has(relative(ROOT, file));
      return specifiersOf(file).flatMap((specifier) => {
        const name = packageOf(specifier);
        if (name === null || name === manifest.name) return [];
        return [{ file: relative(ROOT, file), specifier, name, manifest, dev: dev && !shippedScript }];
      });
    }),
  );
}

describe("declared dependencies", () => {
  const found = imports();

  test("every package imported by the code is declared in the nearest package.json", () => {
    const undeclared = found.flatMap(({ file, specifier, name, manifest, dev }) => {
      if (name in manifest.dependencies) return [];
      const where = relative(ROOT, join(manifest.dir, "package.json"));
      if (dev && name in manifest.devDependencies) return [];
      const allowed = dev ? "dependencies or devDependencies" : "dependencies";
      return [`${file}: ${specifier} is not in the ${allowed} of ${where}`];
    });
    // The scan sees the imports it is meant to (a broken pattern would find none and pass).
    expect(found.some((i) => i.name === "@solana/web3.js" && i.file.startsWith("src/"))).toBe(true);
    expect(found.some((i) => i.file.startsWith("packages/"))).toBe(true);
    expect(undeclared).toEqual([]);
  });

  test("each declared package imported is installed at a version its declared range allows", () => {
    const mismatched = new Set<string>();
    for (const { name, manifest } of found) {
      const range = manifest.dependencies[name] ?? manifest.devDependencies[name];
      if (range === undefined) continue;
      const installed = [join(manifest.dir, "node_modules", name), join(ROOT, "node_modules", name)].find((dir) =>
        existsSync(join(dir, "package.json")),
      );
      const version = installed ? JSON.parse(readFileSync(join(installed, "package.json"), "utf8")).version : null;
      // `npm:` aliases name another package's range; the rest are plain semver ranges.
      const wanted = range.startsWith("npm:") ? range.slice(range.lastIndexOf("@") + 1) : range;
      if (version === null || !Bun.semver.satisfies(version, wanted))
        mismatched.add(`${name}: installed ${version ?? "nothing"}, declared ${range}`);
    }
    expect([...mismatched]).toEqual([]);
  });
});
