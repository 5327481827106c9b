/**
 * Docs that stay true (issue 66): every repository path named in the README, in docs/, in a
 * package's README and in the comments of the code exists; the README and docs/ link nothing
 * outside the repository (someone who cloned it has nothing else); and no table cell in them holds
 * a story (one of 2,907 characters once did: measurements are prose in a log of their own).
 *
 * The rule, kept short so a false alarm is easy to see:
 * - A path starts with one of the repository's top folders and a slash (`src/`, `db/`, `test/`,
 *   `docs/`, ...) and runs on over letters, digits and `_ . - /`. Right after a letter, digit, `_`,
 *   `-`, dot, slash or `@` it is no path: `/api/docs/...`, `../../db/x`, `@scope/name/src` are not.
 * - It must exist from the repository's root (in a package's README, from the package's folder
 *   too). One that holds a placeholder (`src/<feature>/`) or a glob (`test/ledger/stream*.test.ts`)
 *   must match at least one path, a placeholder standing for one name.
 * - Markdown is read whole (prose, code spans and blocks, links); code only in its comments
 *   (TypeScript's scanner finds them, so strings and regular expressions are not read), and the
 *   Dockerfile and the CI script in their `#` lines.
 * A file of another project is named so that it does not look like one of ours ("yellowstone-grpc-
 * proto's cuckoo module", not the path inside that crate).
 *
 * Issue 64 adds: the README and docs/ cite no "SPEC" (the interface specification is not in the
 * repository: they cite the OpenAPI document or a docs page), the changelog with its versioning
 * policy exists, and docs/integrating.md's rate-limit table is the code's limits, route by route.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import ts from "typescript";
import { ADMIN_SIGN_IN_FAILURES, limitRuleFor, OPERATOR_FAILURE_LIMIT, SPEC_LIMITS } from "../../src/http/rate-limit";

const ROOT = join(import.meta.dir, "..", "..");
const TOP_FOLDERS = ["src", "db", "indexer", "scripts", "test", "packages", "docs", "examples", "public", ".ci"];
const PATH = new RegExp(
  `(?<![\\w./@-])(?:${TOP_FOLDERS.map((f) => f.replace(".", "\\.")).join("|")})/[\\w.*<>/-]*`,
  "g",
);
const SKIPPED = new Set(["node_modules", "data", "dist", "generated", ".git"]);

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIPPED.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else out.push(relative(ROOT, path));
  }
  return out;
}

const FILES = walk(ROOT);
const MARKDOWN = FILES.filter((f) => f.endsWith(".md"));
const CODE = FILES.filter((f) => /\.(ts|tsx)$/.test(f) && !f.endsWith(".d.ts"));
const HASH_COMMENTED = FILES.filter((f) => f === "Dockerfile" || f.startsWith(".ci/"));

/** The comments of a TypeScript file, in order. */
function commentsOf(source: string): string[] {
  const scanner = ts.createScanner(ts.ScriptTarget.ESNext, false, ts.LanguageVariant.Standard, source);
  const comments: string[] = [];
  const templates: number[] = []; // open braces inside each `${` of the templates being scanned
  let previous = ts.SyntaxKind.Unknown;
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia) {
      comments.push(scanner.getTokenText());
      continue;
    }
    if (kind === ts.SyntaxKind.WhitespaceTrivia || kind === ts.SyntaxKind.NewLineTrivia) continue;
    if ((kind === ts.SyntaxKind.SlashToken || kind === ts.SyntaxKind.SlashEqualsToken) && !endsOperand(previous))
      kind = scanner.reScanSlashToken();
    if (kind === ts.SyntaxKind.TemplateHead) templates.push(0);
    else if (kind === ts.SyntaxKind.OpenBraceToken && templates.length > 0) templates[templates.length - 1]!++;
    else if (kind === ts.SyntaxKind.CloseBraceToken && templates.length > 0) {
      if (templates[templates.length - 1] === 0) {
        kind = scanner.reScanTemplateToken(false);
        if (kind === ts.SyntaxKind.TemplateTail) templates.pop();
      } else templates[templates.length - 1]!--;
    }
    previous = kind;
  }
  return comments;
}

/** Whether a `/` after this token divides (else it opens a regular expression). */
function endsOperand(kind: ts.SyntaxKind): boolean {
  return (
    kind === ts.SyntaxKind.Identifier ||
    kind === ts.SyntaxKind.PrivateIdentifier ||
    kind === ts.SyntaxKind.NumericLiteral ||
    kind === ts.SyntaxKind.BigIntLiteral ||
    kind === ts.SyntaxKind.StringLiteral ||
    kind === ts.SyntaxKind.NoSubstitutionTemplateLiteral ||
    kind === ts.SyntaxKind.TemplateTail ||
    kind === ts.SyntaxKind.RegularExpressionLiteral ||
    kind === ts.SyntaxKind.CloseParenToken ||
    kind === ts.SyntaxKind.CloseBracketToken ||
    kind === ts.SyntaxKind.CloseBraceToken ||
    kind === ts.SyntaxKind.PlusPlusToken ||
    kind === ts.SyntaxKind.MinusMinusToken ||
    kind === ts.SyntaxKind.ThisKeyword ||
    kind === ts.SyntaxKind.SuperKeyword ||
    kind === ts.SyntaxKind.TrueKeyword ||
    kind === ts.SyntaxKind.FalseKeyword ||
    kind === ts.SyntaxKind.NullKeyword
  );
}

/** Whether a named path exists, or (with placeholders or globs) matches something, under one of the bases. */
function exists(path: string, bases: string[]): boolean {
  if (!/[<*]/.test(path)) return bases.some((base) => existsSync(join(ROOT, base, path)));
  const pattern = path.replace(/<[^>/]*>/g, "*").replace(/\/$/, "");
  const glob = new Bun.Glob(pattern);
  return bases.some((base) => {
    for (const _ of glob.scanSync({ cwd: join(ROOT, base), onlyFiles: false, dot: true })) return true;
    return false;
  });
}

interface Named {
  file: string;
  line: number;
  path: string;
}

function pathsIn(file: string, text: string, offsetLine = 0): Named[] {
  const named: Named[] = [];
  for (const match of text.matchAll(PATH)) {
    const path = match[0].replace(/[.]+$/, "");
    const line = offsetLine + text.slice(0, match.index).split("\n").length;
    named.push({ file, line, path });
  }
  return named;
}

function namedInMarkdown(file: string): Named[] {
  return pathsIn(file, readFileSync(join(ROOT, file), "utf8"));
}

function namedInComments(file: string): Named[] {
  const source = readFileSync(join(ROOT, file), "utf8");
  const named: Named[] = [];
  let from = 0;
  for (const comment of commentsOf(source)) {
    const at = source.indexOf(comment, from);
    from = at + comment.length;
    named.push(...pathsIn(file, comment, source.slice(0, at).split("\n").length - 1));
  }
  return named;
}

function namedInHashComments(file: string): Named[] {
  const lines = readFileSync(join(ROOT, file), "utf8").split("\n");
  return lines.flatMap((text, i) => (text.trimStart().startsWith("#") ? pathsIn(file, text, i) : []));
}

/** A package's README names its own files from its folder; everything else names them from the root. */
function basesOf(file: string): string[] {
  return /^packages\/[^/]+\/README\.md$/.test(file) ? [dirname(file), "."] : ["."];
}

/** Of `paths`, those git ignores: what a run generates (test/artifacts/, examples/generated/), absent from a clean clone. */
function ignoredByGit(paths: string[]): Set<string> {
  if (paths.length === 0) return new Set();
  const result = Bun.spawnSync(["git", "check-ignore", "--no-index", ...paths], { cwd: ROOT });
  return new Set(new TextDecoder().decode(result.stdout).split("\n").filter(Boolean));
}

function missing(named: Named[]): string[] {
  const absent = named.filter((n) => !exists(n.path, basesOf(n.file)));
  const generated = ignoredByGit([...new Set(absent.map((n) => n.path))]);
  return absent.filter((n) => !generated.has(n.path)).map((n) => `${n.file}:${n.line} names ${n.path}`);
}

describe("repository paths named in docs and comments", () => {
  test("the comments' scanner reads comments only: not strings, templates or regular expressions", () => {
    const source = [
      'const a = "// src/not-a-comment.ts"; // src/one.ts',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source of a template literal, scanned, never run
      "const b = `${a}/* src/inside-template.ts */${`${a}`}`; /* src/two.ts */",
      'const c = /\\/\\/ src\\/x|"/g.test(a) ? 1 / 2 : 3; // src/three.ts',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source of a template literal, scanned, never run
      "const d = { e: `x${{ f: 1 }.f}y` }; // src/four.ts",
    ].join("\n");
    expect(commentsOf(source)).toEqual(["// src/one.ts", "/* src/two.ts */", "// src/three.ts", "// src/four.ts"]);
  });

  test("the rule tells repository paths from URLs, relative imports, placeholders and globs", () => {
    const text =
      "see `src/ledger/verify.ts`, docs/ledger.md. /api/docs/x ../../db/client @a/b/src/c " +
      "src/<feature>/ test/ledger/stream*.test.ts src/nowhere.ts";
    const named = pathsIn("x.md", text).map((n) => n.path);
    expect(named).toEqual([
      "src/ledger/verify.ts",
      "docs/ledger.md",
      "src/<feature>/",
      "test/ledger/stream*.test.ts",
      "src/nowhere.ts",
    ]);
    expect(named.map((path) => exists(path, ["."]))).toEqual([true, true, true, true, false]);
    expect(exists("src/<feature>/nowhere.ts", ["."])).toBe(false);
  });

  test("every path the README, docs/ and the packages' READMEs name exists", () => {
    const named = MARKDOWN.flatMap(namedInMarkdown);
    expect(named.length).toBeGreaterThan(200);
    expect(missing(named)).toEqual([]);
  });

  test("every path a comment in the code, the Dockerfile or the CI script names exists", () => {
    const named = [...CODE.flatMap(namedInComments), ...HASH_COMMENTED.flatMap(namedInHashComments)];
    expect(named.length).toBeGreaterThan(200);
    expect(missing(named)).toEqual([]);
  });
});

describe("the README and docs/ stand alone", () => {
  const pages = MARKDOWN.filter((f) => f === "README.md" || f.startsWith("docs/"));

  test("their links stay inside the repository and point at files that exist; they cite no design notes", () => {
    const broken: string[] = [];
    for (const file of pages) {
      const text = readFileSync(join(ROOT, file), "utf8");
      for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = match[1]!.split("#")[0]!;
        const resolved = relative(ROOT, join(ROOT, dirname(file), target));
        if (/^[a-z]+:/i.test(target) || resolved.startsWith("..") || !existsSync(join(ROOT, resolved)))
          broken.push(`${file} links ${match[1]}`);
      }
      // The design notes (`DESIGN §2`, ...) are not in the repository: a page says what it means instead.
      if (/\.\.\/shared|SPEC\.md|\bDESIGN\b|PUMP\.md/.test(text))
        broken.push(`${file} names a document outside the repository`);
    }
    expect(pages.length).toBeGreaterThan(10);
    expect(broken).toEqual([]);
  });

  test("no table cell runs past 1,000 characters: a long account is prose, and a log has a file of its own", () => {
    const long: string[] = [];
    for (const file of pages) {
      const lines = readFileSync(join(ROOT, file), "utf8").split("\n");
      lines.forEach((line, i) => {
        if (!line.startsWith("|")) return;
        for (const cell of line.split(/(?<!\\)\|/))
          if (cell.length > 1_000) long.push(`${file}:${i + 1} has a cell of ${cell.length} characters`);
      });
    }
    expect(long).toEqual([]);
  });
});

describe("what the README and docs/ cite, and the limits they table", () => {
  const pages = MARKDOWN.filter((f) => f === "README.md" || f.startsWith("docs/") || f === "CHANGELOG.md");

  test('they cite no "SPEC": someone who cloned the repository has the OpenAPI document and docs/, not the specification', () => {
    const cited = pages.flatMap((file) =>
      readFileSync(join(ROOT, file), "utf8")
        .split("\n")
        .flatMap((line, i) => (/\bSPEC\b/.test(line) ? [`${file}:${i + 1}: ${line.trim().slice(0, 80)}`] : [])),
    );
    expect(pages).toContain("README.md");
    expect(cited).toEqual([]);
  });

  test("CHANGELOG.md has a section for the version the public document says it is", async () => {
    const { PUBLIC_DOCUMENT_VERSION } = await import("../../src/openapi");
    const changelog = readFileSync(join(ROOT, "CHANGELOG.md"), "utf8");
    expect(changelog).toContain(`\n## ${PUBLIC_DOCUMENT_VERSION}\n`);
  });

  test("CHANGELOG.md holds the versioning policy: what may change without notice and what needs a new version", () => {
    const changelog = readFileSync(join(ROOT, "CHANGELOG.md"), "utf8");
    for (const heading of ["## Versioning", "### May change without notice", "### Needs a new version"])
      expect(changelog).toContain(heading);
    for (const additive of ["fields", "event types", "routes"])
      expect(changelog.split("### Needs a new version")[0]).toContain(additive);
  });

  test("docs/integrating.md's rate-limit table is the code's: each route's limit and window, every limited route", () => {
    const text = readFileSync(join(ROOT, "docs", "integrating.md"), "utf8");
    const section = text.slice(text.indexOf("## Rate limits"));
    const rows = [...section.matchAll(/^\| (GET|POST) \| `([^`]+)` \| (\d+) \| (minute|hour) \|/gm)].map((m) => ({
      method: m[1]!,
      route: m[2]!,
      limit: Number(m[3]),
      windowMs: m[4] === "hour" ? 3_600_000 : 60_000,
    }));
    expect(rows.length).toBeGreaterThan(20);
    const sample = (route: string) =>
      route
        .replace("{mint}", "11111111111111111111111111111111")
        .replace("{handle}", "someone")
        .replace("{key}", "abc");
    const documented = rows.map((row) => {
      const rule = limitRuleFor(row.method, sample(row.route));
      return { ...row, limit: rule?.limit ?? null, windowMs: rule?.windowMs ?? null };
    });
    expect(documented).toEqual(rows);
    // Every limit in the code is in the table.
    const untabled = SPEC_LIMITS.filter(
      (entry) => !rows.some((row) => row.method === entry.method && entry.pattern.test(sample(row.route))),
    ).map((entry) => `${entry.method} ${entry.pattern}`);
    expect(untabled).toEqual([]);
    // What it says is not limited is not, and the failed-secret limits are the code's.
    for (const [method, path] of [
      ["GET", "/api/ca"],
      ["GET", "/api/cron/health"],
      ["GET", "/api/openapi.json"],
      ["GET", "/api/openapi-operator.json"],
      ["GET", "/api/docs"],
      ["POST", "/api/cron/sweep"],
      ["GET", "/api/cron/runs/run_0"],
      ["GET", "/api/admin/overview"],
    ] as const)
      expect({ method, path, rule: limitRuleFor(method, path) }).toEqual({ method, path, rule: null });
    const prose = section.replace(/\s+/g, " ");
    expect(prose).toContain(`${OPERATOR_FAILURE_LIMIT} failed attempts a minute per IP`);
    expect(prose).toContain(`${ADMIN_SIGN_IN_FAILURES.limit} failed sign-ins a minute per IP`);
    expect(ADMIN_SIGN_IN_FAILURES.windowMs).toBe(60_000);
  });
});
