/**
 * The README stands alone for someone who cloned the repository and ran `npm install`: it links
 * nothing outside the repository, the configuration table (`docs/configuration.md`) is one table
 * (a paragraph inside it once turned a dozen rows into plain text), every file it names exists,
 * and every command it and docs/ give runs as written (`bun` is not on the PATH after
 * `npm install`; `npm run <script>` and `npx bun` are).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const CONFIGURATION = readFileSync(join(ROOT, "docs", "configuration.md"), "utf8");
const DOCS = readdirSync(join(ROOT, "docs"))
  .filter((name) => name.endsWith(".md"))
  .map((name) => readFileSync(join(ROOT, "docs", name), "utf8"));
const SCRIPTS = Object.keys(
  (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: object }).scripts,
);
const codeSpansOf = (text: string) => [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
const codeSpans = codeSpansOf(README);
const commandLines = [README, ...DOCS]
  .flatMap((text) => [
    ...codeSpansOf(text),
    ...[...text.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split("\n")),
  ])
  .map((line) => line.trim());

describe("README.md", () => {
  test("links nothing outside the repository", () => {
    const links = [...README.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!);
    for (const link of links) expect(link).not.toMatch(/^(https?:|\.\.\/|\/)/);
    expect(README).not.toMatch(/\.\.\/shared|SPEC\.md|DESIGN\.md/);
    const urls = [...README.matchAll(/https?:\/\/[^\s`)|]+/g)].map((m) => m[0]);
    // Addresses of the local service and setting values (an explorer template) only, never a document to read.
    for (const url of urls)
      expect(url).toMatch(
        /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])|^https:\/\/(solscan\.io|explorer\.solana\.com)\/\{kind\}/,
      );
  });

  test("the configuration table is one table: every line from its header to the first blank line is a row", () => {
    const lines = CONFIGURATION.split("\n");
    const header = lines.findIndex((l) => l.startsWith("| variable | default | meaning |"));
    expect(header).toBeGreaterThan(0);
    let end = header;
    while (lines[end + 1]?.startsWith("|")) end++;
    const rows = lines.slice(header + 2, end + 1);
    for (const row of rows) expect(row.split(/(?<!\\)\|/).length - 2).toBe(3);
    // Nothing that looks like a row is stranded after the table.
    const after = lines.slice(end + 1, end + 40);
    expect(after.filter((l) => /^\| `[A-Z_]+`/.test(l))).toEqual([]);
    for (const name of ["PORT", "CRON_SECRET", "PINATA_JWT", "WEBHOOKS_KEY"])
      expect(rows.some((r) => r.includes(`\`${name}\``))).toBe(true);
  });

  test("every command it and docs/ give runs after npm install: npm scripts that exist, no bare bun", () => {
    for (const line of commandLines) expect(line).not.toMatch(/^(bun|bunx) /);
    const scripts = commandLines.flatMap((line) => [...line.matchAll(/npm run ([\w:-]+)/g)].map((m) => m[1]!));
    expect(scripts).toEqual(expect.arrayContaining(["backup", "restore", "admin", "seed"]));
    for (const script of scripts) expect(SCRIPTS).toContain(script);
    // Arguments reach the script only after `--`.
    for (const line of commandLines) expect(line).not.toMatch(/npm run [\w:-]+ (?!--)[^\s|]/);
  });

  test("every repository path it names exists", () => {
    const paths = codeSpans.filter((span) => /^(docs|src|scripts|test|examples|db)\/[\w./-]+$/.test(span));
    expect(paths.length).toBeGreaterThan(10);
    for (const path of paths) expect({ path, exists: existsSync(join(ROOT, path)) }).toEqual({ path, exists: true });
  });
});
