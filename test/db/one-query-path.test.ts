/**
 * One query path (issue #45, docs/queries.md): in a converted folder every statement goes through
 * db/statement.ts's `query()`, `statement()` or `ownStatement()`, so it is typed, cached once per
 * connection and finalized when the connection closes. A direct `.query(` or `.prepare(` on a
 * connection there would bring back a second cache (bun's) or a statement that keeps a closed
 * connection open. CONVERTED names every folder of the service, so a new one is held to it too.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { closeDatabase, openDatabase } from "../../db/client";
import { setAside } from "../../db/schema";
import { columnsOf, query, STATEMENTS_PER_CONNECTION, statement, type TableRow } from "../../db/statement";

const ROOT = join(import.meta.dir, "../..");

/** Every folder of the service's own code: src/'s features, the indexer and db/. */
const CONVERTED = [
  "db",
  "indexer",
  ...readdirSync(join(ROOT, "src"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join("src", entry.name)),
];

/** Where a connection's own `query`/`prepare` is the helper's implementation, not a bypass of it. */
const HELPER = join("db", "statement.ts");

/** Calls named `prepare` that are not SQLite's: building a chain transaction. */
const NOT_SQL = /\bsender\.prepare\(/;

function sourceFiles(folder: string): string[] {
  const dir = join(ROOT, folder);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** `file:line: code` for each direct statement call (`x.query(`, `x.query<`, `x.prepare(`) outside comments. */
function directCalls(path: string, source = readFileSync(join(ROOT, path), "utf8")): string[] {
  const lines = source.split("\n");
  const text = lines.map((line) => (/^\s*(\/\/|\*|\/\*)/.test(line) ? "" : line)).join("\n");
  return [...text.matchAll(/(?<=[\w$)\]]\s*)\.\s*(query|prepare)\s*[<(]/g)]
    .map((match) => {
      const line = text.slice(0, match.index).split("\n").length;
      return { line, code: lines[line - 1]!.trim() };
    })
    .filter(({ code }) => !NOT_SQL.test(code))
    .map(({ line, code }) => `${path}:${line}: ${code}`);
}

describe("one query path in the converted folders", () => {
  const files = CONVERTED.flatMap(sourceFiles).filter((path) => path !== HELPER);

  test("the scan reads the converted folders' sources", () => {
    expect(files.length).toBeGreaterThan(40);
    expect(files).toContain(join("src", "ledger", "ledger.ts"));
  });

  test("no statement compiled on a connection directly: all through db/statement.ts", () => {
    expect(files.flatMap((path) => directCalls(path))).toEqual([]);
  });

  test("the scan finds a direct call where there is one, and not a chain transaction's prepare", () => {
    const source = [
      'const row = db.$client.query<{ id: bigint }, []>("SELECT id FROM tokens").get();',
      "const c = db.$client;",
      "c",
      '  .prepare("DELETE FROM tokens")',
      "  .run();",
      "// db.$client.query(sql) in a comment",
      "const tx = await chain.sender.prepare([instruction], payer, []);",
    ].join("\n");
    expect(directCalls("example.ts", source)).toEqual([
      'example.ts:1: const row = db.$client.query<{ id: bigint }, []>("SELECT id FROM tokens").get();',
      'example.ts:4: .prepare("DELETE FROM tokens")',
    ]);
  });
});

describe("query()", () => {
  test("compiles a text once per connection and hands the same statement back", () => {
    const db = openDatabase(":memory:");
    try {
      const first = query<{ n: bigint }, []>(db, "SELECT 1 AS n");
      expect(query<{ n: bigint }, []>(db, "SELECT 1 AS n")).toBe(first);
      expect(query<{ n: bigint }, []>(db.$client, "SELECT 1 AS n")).toBe(first);
      expect(first.get()).toEqual({ n: 1n });
      const other = openDatabase(":memory:");
      try {
        expect(query<{ n: bigint }, []>(other, "SELECT 1 AS n")).not.toBe(first);
      } finally {
        closeDatabase(other);
      }
    } finally {
      closeDatabase(db);
    }
  });

  test("keeps at most STATEMENTS_PER_CONNECTION texts: past that a text still runs, and the kept ones stay", () => {
    const db = openDatabase(":memory:");
    try {
      for (let n = 0; n < STATEMENTS_PER_CONNECTION; n++) query<{ n: bigint }, []>(db, `SELECT ${n} AS n`);
      const past = `SELECT ${STATEMENTS_PER_CONNECTION} AS n`;
      const once = query<{ n: bigint }, []>(db, past);
      expect(once.get()).toEqual({ n: BigInt(STATEMENTS_PER_CONNECTION) });
      const kept = query<{ n: bigint }, []>(db, "SELECT 0 AS n");
      for (let n = 1; n <= 3; n++) query<{ n: bigint }, []>(db, `SELECT ${STATEMENTS_PER_CONNECTION + n} AS n`);
      expect(query<{ n: bigint }, []>(db, "SELECT 0 AS n")).toBe(kept);
    } finally {
      closeDatabase(db);
    }
  });

  test("closing the connection finalizes its cached statements (none keeps it open)", () => {
    const db = openDatabase(":memory:");
    const kept = query<{ n: bigint }, []>(db, "SELECT 1 AS n");
    const declared = statement<{ n: bigint }, []>("SELECT 2 AS n");
    const declaredKept = declared(db);
    closeDatabase(db);
    expect(kept.isFinalized).toBe(true);
    expect(declaredKept.isFinalized).toBe(true);
  });
});

describe("rows from the schema", () => {
  test("columnsOf() selects a table's columns under the names TableRow gives them", () => {
    const db = openDatabase(":memory:");
    try {
      query<never, []>(
        db,
        "INSERT INTO set_aside (mint, job, reason, failures, since_ms) VALUES ('M', 'sweep', 'r', 1, 5)",
      ).run();
      const row = query<TableRow<typeof setAside>, []>(db, `SELECT ${columnsOf(setAside)} FROM set_aside`).get();
      expect(row).toEqual({
        mint: "M",
        job: "sweep",
        reason: "r",
        failures: 1n,
        sinceMs: 5n,
        setAsideAtMs: null,
        retryAtMs: null,
      });
      expect(columnsOf(setAside, { alias: "s", only: ["mint", "sinceMs"] })).toBe("s.mint, s.since_ms AS sinceMs");
    } finally {
      closeDatabase(db);
    }
  });
});
