/**
 * Dependencies point one way (issue #21). Every relative import, `export … from` and dynamic
 * `import()` in src/, indexer/ and db/ (type-only ones too: they couple the code just the same)
 * becomes an edge between nodes: a folder `src/<name>`, the top folders `indexer` and `db`, and each
 * root file of src (`config`, `context`, `app`, `main`, ...) on its own. Three layers:
 *
 * - the shared bottom: `lib`, `db`, `config`, `chain` (the port), `http` (edge helpers that know no
 *   feature) and `context` (plain values every feature is handed). They import only each other.
 * - the features (every other folder, and `indexer`): one imports another only through the
 *   other's `index.ts`, its small public surface, so a feature's files can be moved, split or
 *   renamed without touching its neighbours. Imports of the shared bottom need no surface: those
 *   folders are the vocabulary everything speaks, and wrapping them in a barrel would say nothing.
 *   `chain` is the one bottom folder with internals: its adapters (`chain/<adapter>/`) are chosen
 *   in `chain/setup.ts` and reached by nobody else, so only its top-level files may be imported.
 * - the composition root: the other root files of src (`app.ts` builds the HTTP app, `main.ts` the
 *   process, `register-jobs.ts` the job bodies, ...) and `src/workers/` (the process's threads). Nothing but the root imports the root, and the
 *   root may import any feature file: route plugins and job registrations are wired there and
 *   nowhere else, so they stay out of the surfaces (an index.ts is loaded whole, and a surface
 *   carrying every route would load Elysia and each route module into every script and worker
 *   that needs one function). A job's single run (`runSweepJob`, ...) is on its feature's surface:
 *   the simulation drives runs one at a time, and a run's file is no route module.
 *
 * And no cycle between nodes at all. `IMPORT_GRAPH=1 bun test test/import-graph.test.ts` prints the node graph.
 *
 * Two folders outside the service are held to the same surfaces (issue #45):
 *
 * - public/ (the web page, bundled for the browser) imports nothing of the server but
 *   `src/api-types.ts`, and that only as types (`import type`, `export type`): the bundler erases
 *   them, so the page shares the API's response shapes without a byte of server code. That file
 *   re-exports types and nothing else, each through a feature's index.ts or from the bottom.
 * - scripts/ (the CLI, seed, benchmarks, the simulation) are entry points as main.ts is, so they may
 *   import the composition root (root files of src, `src/workers/`) and the shared bottom (of
 *   `chain` its top-level files only), but features and the indexer only through their index.ts,
 *   as a feature does: a script reaching into a feature would pin that feature's file layout as
 *   much as a neighbour would. Besides: other scripts, the repository's package.json (the CLI's
 *   name and version) and the suite's fixtures in test/helpers/ (public-responses writes the golden
 *   file the suite compares with, so it builds the suite's own service). Packages are reached only
 *   through their package.json exports (the local chain package's tests below).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const SCANNED = ["src", "indexer", "db"];

/** The shared bottom. Root files of src other than these two are the composition root. */
const BOTTOM = new Set(["lib", "db", "config", "chain", "http", "context"]);

interface Edge {
  from: string;
  to: string;
  fromNode: string;
  toNode: string;
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (name.endsWith(".ts")) out.push(path);
  }
  return out;
}

/** `import x from "./a"`, `import type {…} from`, `import "./a"`, `export … from "./a"`, `import("./a")`. */
const SPECIFIERS = [
  /\b(?:import|export)\s+(?:type\s+)?[^'";]*?\bfrom\s*["']([^"']+)["']/g,
  /\bimport\s*["']([^"']+)["']/g,
  /\bimport\(\s*["']([^"']+)["']\s*\)/g,
];

/** Comment lines out (a doc comment may show an import); a string holding `/*` must not eat code. */
function withoutComments(source: string): string {
  return source
    .split("\n")
    .filter((line) => !/^\s*(\/\/|\/\*|\*)/.test(line))
    .join("\n");
}

function resolveImport(fromFile: string, specifier: string): string | null {
  if (!specifier.startsWith(".")) return null;
  const base = resolve(dirname(fromFile), specifier);
  for (const candidate of [base, `${base}.ts`, join(base, "index.ts")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  throw new Error(`${relative(ROOT, fromFile)}: cannot resolve ${specifier}`);
}

/** The node a file belongs to; null outside the scanned folders (tests, scripts, public/). */
function nodeOf(file: string): string | null {
  const parts = relative(ROOT, file).split("/");
  if (parts[0] === "indexer" || parts[0] === "db") return parts[0];
  if (parts[0] !== "src") return null;
  return parts.length > 2 ? parts[1]! : parts[1]!.replace(/\.ts$/, "");
}

function readGraph(): { edges: Edge[]; nodes: Set<string> } {
  const edges: Edge[] = [];
  const nodes = new Set<string>();
  for (const top of SCANNED) {
    for (const file of walk(join(ROOT, top))) {
      const fromNode = nodeOf(file)!;
      nodes.add(fromNode);
      const source = withoutComments(readFileSync(file, "utf8"));
      const seen = new Set<string>();
      for (const pattern of SPECIFIERS) {
        for (const match of source.matchAll(pattern)) {
          const target = resolveImport(file, match[1]!);
          if (!target || seen.has(target)) continue;
          seen.add(target);
          const toNode = nodeOf(target);
          // The package's own manifest is data, not code: its version is bundled where it is read.
          if (toNode === null && relative(ROOT, target) === "package.json") continue;
          if (toNode === null)
            throw new Error(`${relative(ROOT, file)} imports ${match[1]} outside src/, indexer/, db/`);
          edges.push({ from: relative(ROOT, file), to: relative(ROOT, target), fromNode, toNode });
        }
      }
    }
  }
  return { edges, nodes };
}

function nodeGraph(edges: Edge[]): Map<string, Map<string, Edge>> {
  const graph = new Map<string, Map<string, Edge>>();
  for (const edge of edges) {
    if (edge.fromNode === edge.toNode) continue;
    if (!graph.has(edge.fromNode)) graph.set(edge.fromNode, new Map());
    const targets = graph.get(edge.fromNode)!;
    if (!targets.has(edge.toNode)) targets.set(edge.toNode, edge);
  }
  return graph;
}

/** The first cycle found, as nodes, or null. Iterative-enough DFS over a few dozen nodes. */
function findCycle(graph: Map<string, Map<string, Edge>>): string[] | null {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string): string[] | null => {
    state.set(node, "open");
    stack.push(node);
    for (const next of [...(graph.get(node)?.keys() ?? [])].sort()) {
      if (state.get(next) === "open") return [...stack.slice(stack.indexOf(next)), next];
      if (!state.has(next)) {
        const found = visit(next);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(node, "done");
    return null;
  };
  for (const node of [...graph.keys()].sort()) {
    if (state.has(node)) continue;
    const found = visit(node);
    if (found) return found;
  }
  return null;
}

const { edges, nodes } = readGraph();
const rootFiles = new Set(
  readdirSync(join(ROOT, "src"))
    .filter((name) => name.endsWith(".ts"))
    .map((name) => name.replace(/\.ts$/, "")),
);
const folders = new Set(
  readdirSync(join(ROOT, "src")).filter((name) => statSync(join(ROOT, "src", name)).isDirectory()),
);
/** Folders of the composition root: the process's threads (their entries wire features like main.ts). */
const ROOT_FOLDERS = new Set(["workers"]);
const isCompositionRoot = (node: string) => (rootFiles.has(node) && !BOTTOM.has(node)) || ROOT_FOLDERS.has(node);

/** Why an edge breaks the layering, or null when it is fine. */
function violation(edge: Edge): string | null {
  const { fromNode, toNode, to } = edge;
  if (fromNode === toNode) return null;
  if (BOTTOM.has(fromNode) && !BOTTOM.has(toNode)) return `the shared bottom (${fromNode}) imports ${toNode}`;
  if (isCompositionRoot(toNode) && !isCompositionRoot(fromNode)) return `only the composition root imports ${to}`;
  if (toNode === "chain") {
    // No exceptions: what a feature needs of a launch program is on the port (chain/ports.ts).
    return /^src\/chain\/[^/]+\//.test(to) ? "a chain adapter, reached past chain/setup.ts" : null;
  }
  if (BOTTOM.has(toNode) || isCompositionRoot(fromNode)) return null;
  const surface = toNode === "indexer" ? "indexer/index.ts" : `src/${toNode}/index.ts`;
  return to === surface ? null : `another feature's internals: import ${surface} instead`;
}

describe("import graph", () => {
  test("the parser sees the code (a broken pattern must not pass by seeing nothing)", () => {
    expect(edges.length).toBeGreaterThan(300);
    expect(nodes.has("ledger") && nodes.has("indexer") && nodes.has("db")).toBe(true);
    // A root file named like a folder would merge two nodes.
    for (const name of rootFiles) expect(folders.has(name)).toBe(false);
  });

  test("no cycle between folders", () => {
    const graph = nodeGraph(edges);
    const cycle = findCycle(graph);
    const path = cycle?.slice(1).map((node, i) => {
      const edge = graph.get(cycle[i]!)!.get(node)!;
      return `${cycle[i]} -> ${node}   (${edge.from} -> ${edge.to})`;
    });
    expect(path ?? []).toEqual([]);
  });

  test("no cycle between files either, type-only imports included: two files that need each other share a third", () => {
    const files = nodeGraph(edges.map((edge) => ({ ...edge, fromNode: edge.from, toNode: edge.to })));
    expect(findCycle(files) ?? []).toEqual([]);
  });

  test("features import each other only through index.ts; the bottom imports only the bottom", () => {
    const broken = edges.flatMap((edge) => {
      const why = violation(edge);
      return why ? [`${edge.from} -> ${edge.to}: ${why}`] : [];
    });
    expect(broken).toEqual([]);
  });
});

/** Every import specifier of a file, comments left out. */
function specifiersOf(file: string): string[] {
  const source = withoutComments(readFileSync(file, "utf8"));
  return SPECIFIERS.flatMap((pattern) => [...source.matchAll(pattern)].map((match) => match[1]!));
}

/** `import type {…} from` and `export type {…} from`: erased whole by the bundler. */
const TYPE_ONLY = /\b(?:import|export)\s+type\s+[^'";]*?\bfrom\s*["']([^"']+)["']/g;

interface OutsideEdge {
  from: string;
  to: string;
  specifier: string;
  /** every statement importing it is `import type` / `export type` */
  typeOnly: boolean;
}

/** The relative imports of the files of a folder outside the service's nodes, resolved. */
function outsideEdges(top: string): OutsideEdge[] {
  return walk(join(ROOT, top)).flatMap((file) => {
    const source = withoutComments(readFileSync(file, "utf8"));
    const typeOnlyCount = new Map<string, number>();
    for (const match of source.matchAll(TYPE_ONLY))
      typeOnlyCount.set(match[1]!, (typeOnlyCount.get(match[1]!) ?? 0) + 1);
    const all = specifiersOf(file);
    return [...new Set(all)].flatMap((specifier) => {
      const target = resolveImport(file, specifier);
      if (!target) return [];
      const typeOnly = typeOnlyCount.get(specifier) === all.filter((s) => s === specifier).length;
      return [{ from: relative(ROOT, file), to: relative(ROOT, target), specifier, typeOnly }];
    });
  });
}

const API_TYPES = "src/api-types.ts";

/** Why an import of the page breaks its rule, or null. */
function pageViolation(edge: OutsideEdge): string | null {
  if (edge.to.startsWith("public/")) return null;
  if (edge.to !== API_TYPES) return `the page imports the server only through ${API_TYPES}`;
  return edge.typeOnly ? null : `${API_TYPES} is imported as types only (import type), or its code would be bundled`;
}

/** Why an import of a script breaks its rule, or null. */
function scriptViolation(edge: OutsideEdge): string | null {
  const { to } = edge;
  if (to.startsWith("scripts/") || to === "package.json" || to.startsWith("test/helpers/")) return null;
  const toNode = nodeOf(join(ROOT, to));
  if (toNode === null) return "outside src/, indexer/, db/, scripts/, test/helpers/ and package.json";
  if (isCompositionRoot(toNode)) return null;
  return violation({ from: edge.from, to, fromNode: "scripts", toNode });
}

describe("the page (public/) and the scripts (scripts/)", () => {
  const pageEdges = outsideEdges("public");
  const scriptEdges = outsideEdges("scripts");

  test("the parser sees their code", () => {
    expect(pageEdges.length).toBeGreaterThan(50);
    expect(pageEdges.filter((edge) => edge.to === API_TYPES && edge.typeOnly).length).toBeGreaterThan(3);
    expect(scriptEdges.length).toBeGreaterThan(100);
    expect(scriptEdges.some((edge) => edge.to === "src/service.ts")).toBe(true);
  });

  test("the page imports the server only through src/api-types.ts, as types", () => {
    const broken = pageEdges.flatMap((edge) => {
      const why = pageViolation(edge);
      return why ? [`${edge.from} -> ${edge.specifier}: ${why}`] : [];
    });
    expect(broken).toEqual([]);
  });

  test("src/api-types.ts re-exports types only, each through a feature's index.ts or from the bottom", () => {
    const file = join(ROOT, API_TYPES);
    const source = withoutComments(readFileSync(file, "utf8"));
    const reexport = /\bexport\s+type\s*\{[^}]*\}\s*from\s*["']([^"']+)["'];?/g;
    expect(source.replace(reexport, "").trim()).toBe("");
    const broken: string[] = [];
    for (const match of source.matchAll(reexport)) {
      const to = relative(ROOT, resolveImport(file, match[1]!)!);
      const toNode = nodeOf(join(ROOT, to))!;
      if (BOTTOM.has(toNode) ? /^src\/chain\/[^/]+\//.test(to) : to !== `src/${toNode}/index.ts`)
        broken.push(`${match[1]} (${to})`);
    }
    expect([...source.matchAll(reexport)].length).toBeGreaterThan(3);
    expect(broken).toEqual([]);
  });

  test("scripts import features through index.ts, like the features do; the root and the bottom directly", () => {
    const broken = scriptEdges.flatMap((edge) => {
      const why = scriptViolation(edge);
      return why ? [`${edge.from} -> ${edge.specifier}: ${why}`] : [];
    });
    expect(broken).toEqual([]);
  });
});

describe("the local chain package (packages/localnet)", () => {
  const PACKAGE_DIR = join(ROOT, "packages", "localnet");
  const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8")) as {
    name: string;
    exports: Record<string, string>;
    dependencies: Record<string, string>;
  };
  const surfaces = new Set(Object.keys(manifest.exports).map((key) => manifest.name + key.slice(1)));

  test("the service reaches it only through the surfaces its package.json exports", () => {
    const broken: string[] = [];
    for (const top of [...SCANNED, "scripts"]) {
      for (const file of walk(join(ROOT, top))) {
        for (const specifier of specifiersOf(file)) {
          const intoPackage = specifier.startsWith(".") && resolve(dirname(file), specifier).startsWith(PACKAGE_DIR);
          const byName = specifier === manifest.name || specifier.startsWith(`${manifest.name}/`);
          if (intoPackage || (byName && !surfaces.has(specifier))) broken.push(`${relative(ROOT, file)}: ${specifier}`);
        }
      }
    }
    expect(surfaces.size).toBeGreaterThan(0);
    expect(broken).toEqual([]);
  });

  test("it imports nothing of the service: its own files, node's built-ins, Bun and its declared dependencies", () => {
    const allowed = new Set(Object.keys(manifest.dependencies));
    const broken: string[] = [];
    for (const dir of ["src", "bin", "test"]) {
      if (!existsSync(join(PACKAGE_DIR, dir))) continue;
      for (const file of walk(join(PACKAGE_DIR, dir))) {
        for (const specifier of specifiersOf(file)) {
          if (specifier.startsWith(".")) {
            if (!resolve(dirname(file), specifier).startsWith(PACKAGE_DIR))
              broken.push(`${relative(ROOT, file)}: ${specifier}`);
            continue;
          }
          if (specifier.startsWith("node:") || specifier === "bun" || specifier === "bun:test") continue;
          const name = specifier.startsWith("@")
            ? specifier.split("/").slice(0, 2).join("/")
            : specifier.split("/")[0]!;
          if (!allowed.has(name) && !(dir === "test" && isTestOnly(name)))
            broken.push(`${relative(ROOT, file)}: ${specifier}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});

/** Clients the package's tests drive it with (the package's devDependencies). */
function isTestOnly(name: string): boolean {
  const manifest = JSON.parse(readFileSync(join(ROOT, "packages", "localnet", "package.json"), "utf8")) as {
    devDependencies?: Record<string, string>;
  };
  return name in (manifest.devDependencies ?? {});
}

if (process.env.IMPORT_GRAPH) {
  for (const [from, targets] of [...nodeGraph(edges)].sort(([a], [b]) => a.localeCompare(b)))
    console.log(`${from} -> ${[...targets.keys()].sort().join(" ")}`);
}
