/**
 * Every statement of the one query path (db/statement.ts's `statement()`, `query()` and
 * `ownStatement()`) names tables and columns the migrated schema has: each SQL text written in the
 * service's source is prepared on a freshly migrated database, and preparing fails on a missing
 * table or column. The texts are read from the source with the TypeScript compiler, so a statement
 * no test happens to run is checked too. A text built at its call is checked when its pieces are
 * known where it is written (string constants, `columnsOf(table, { alias, only })`); the rest are
 * listed by file and line, and their count is pinned so a new one is a decision.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import ts from "typescript";
import { closeDatabase, openDatabase } from "../../db/client";
import * as schema from "../../db/schema";
import { columnsOf } from "../../db/statement";

const ROOT = join(import.meta.dir, "../..");
const SCANNED = ["src", "db", "indexer", "scripts"];
/** The query path's functions and which argument is the SQL. */
const SQL_ARGUMENT: Record<string, number> = { statement: 0, query: 1, ownStatement: 1 };

interface Found {
  where: string;
  /** every text the call can run (one, or each variant of a conditional), or null when not known here */
  sql: string[] | null;
}

function sourceFiles(): string[] {
  return SCANNED.flatMap((folder) =>
    readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && /\.ts$/.test(entry.name) && !entry.name.endsWith(".d.ts"))
      .map((entry) => relative(ROOT, join(entry.parentPath, entry.name))),
  );
}

/** What a file's names mean: the query path's functions, db/schema.ts's tables, its constants and imports. */
interface Scope {
  file: string;
  path: Map<string, string>;
  tables: Map<string, string>;
  constants: Map<string, ts.Expression>;
  /** other names imported from the service's own files: local name to [file, exported name] */
  imported: Map<string, [string, string]>;
}

const scopes = new Map<string, Scope | null>();

/** The scope of a repository file read from disk (for a constant another file imports), or null. */
function scopeOfFile(path: string): Scope | null {
  if (!scopes.has(path)) {
    const candidates = [`${path}.ts`, join(path, "index.ts"), path];
    const found = candidates.find((candidate) => existsSync(join(ROOT, candidate)) && candidate.endsWith(".ts"));
    const source = found ? readFileSync(join(ROOT, found), "utf8") : null;
    scopes.set(
      path,
      found && source ? scopeOf(ts.createSourceFile(found, source, ts.ScriptTarget.Latest, true)) : null,
    );
  }
  return scopes.get(path)!;
}

function scopeOf(file: ts.SourceFile): Scope {
  const scope: Scope = {
    file: file.fileName,
    path: new Map(),
    tables: new Map(),
    constants: new Map(),
    imported: new Map(),
  };
  for (const node of file.statements) {
    if (!ts.isImportDeclaration(node) || !ts.isStringLiteral(node.moduleSpecifier)) continue;
    const bindings = node.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    const target = node.moduleSpecifier.text.startsWith(".")
      ? normalize(join(dirname(file.fileName), node.moduleSpecifier.text))
      : null;
    for (const element of bindings.elements) {
      const imported = (element.propertyName ?? element.name).text;
      if (target === join("db", "statement")) scope.path.set(element.name.text, imported);
      else if (target === join("db", "schema")) scope.tables.set(element.name.text, imported);
      else if (target) scope.imported.set(element.name.text, [target, imported]);
    }
  }
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclarationList(node) && node.flags & ts.NodeFlags.Const) {
      for (const declaration of node.declarations)
        if (ts.isIdentifier(declaration.name) && declaration.initializer)
          scope.constants.set(declaration.name.text, declaration.initializer);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return scope;
}

/** An expression without `as const`, `satisfies` and parentheses around it. */
function bare(expression: ts.Expression): ts.Expression {
  while (
    ts.isParenthesizedExpression(expression) ||
    ts.isAsExpression(expression) ||
    ts.isSatisfiesExpression(expression)
  )
    expression = expression.expression;
  return expression;
}

/** The expression a name stands for in `scope` (a constant of the file, or one it imports), with its scope. */
function definition(name: string, scope: Scope): [ts.Expression, Scope] | null {
  const local = scope.constants.get(name);
  if (local) return [local, scope];
  const imported = scope.imported.get(name);
  const other = imported ? scopeOfFile(imported[0]) : null;
  return imported && other ? definition(imported[1], other) : null;
}

/** More variants than this of one text are not worth checking one by one: left to the tests that run it. */
const VARIANTS_MAX = 16;

type Value = string | number;

/**
 * Every value an expression can take, when each is known from the source (both branches of a
 * `cond ? a : b`, so each variant of a text is prepared), or null when it depends on anything else.
 */
function evaluate(expression: ts.Expression, scope: Scope, depth = 0): Value[] | null {
  if (depth > 8) return null;
  const next = (e: ts.Expression, within = scope) => evaluate(e, within, depth + 1);
  expression = bare(expression);
  if (ts.isStringLiteral(expression) || ts.isNoSubstitutionTemplateLiteral(expression)) return [expression.text];
  if (ts.isNumericLiteral(expression)) return [Number(expression.text)];
  if (ts.isTemplateExpression(expression)) {
    let texts: Value[] | null = [expression.head.text];
    for (const span of expression.templateSpans)
      texts = combine(texts, next(span.expression), (a, b) => `${a}${b}${span.literal.text}`);
    return texts;
  }
  if (ts.isBinaryExpression(expression) && expression.operatorToken.kind === ts.SyntaxKind.PlusToken)
    return combine(next(expression.left), next(expression.right), (a, b) =>
      typeof a === "number" && typeof b === "number" ? a + b : `${a}${b}`,
    );
  if (ts.isConditionalExpression(expression)) {
    const whenTrue = next(expression.whenTrue);
    const whenFalse = next(expression.whenFalse);
    return whenTrue && whenFalse ? [...whenTrue, ...whenFalse] : null;
  }
  if (ts.isPropertyAccessExpression(expression) && expression.name.text === "length") {
    const of = next(expression.expression);
    return of?.every((value) => typeof value === "string") ? of.map((value) => `${value}`.length) : null;
  }
  if (ts.isIdentifier(expression)) {
    const found = definition(expression.text, scope);
    return found ? next(found[0], found[1]) : null;
  }
  if (ts.isCallExpression(expression) && ts.isIdentifier(expression.expression)) {
    if (scope.path.get(expression.expression.text) === "columnsOf") {
      const columns = columnsCall(expression, scope, depth);
      return columns === null ? null : [columns];
    }
  }
  return null;
}

/** Each pair of `left` and `right` joined, or null when either is unknown or there are too many. */
function combine(left: Value[] | null, right: Value[] | null, join: (a: Value, b: Value) => Value): Value[] | null {
  if (!left || !right || left.length * right.length > VARIANTS_MAX) return null;
  return [...new Set(left.flatMap((a) => right.map((b) => join(a, b))))];
}

/** The one string an expression always is, or null. */
function evaluateOne(expression: ts.Expression, scope: Scope, depth: number): string | null {
  const values = evaluate(expression, scope, depth);
  return values?.length === 1 && typeof values[0] === "string" ? values[0] : null;
}

/** The strings of an array literal (through constants), or null. */
function stringList(expression: ts.Expression, scope: Scope, depth: number): string[] | null {
  expression = bare(expression);
  if (ts.isIdentifier(expression)) {
    const found = definition(expression.text, scope);
    return found && depth < 8 ? stringList(found[0], found[1], depth + 1) : null;
  }
  if (!ts.isArrayLiteralExpression(expression)) return null;
  const names = expression.elements.map((element) => evaluateOne(element, scope, depth + 1));
  return names.some((name) => name === null) ? null : (names as string[]);
}

/** `columnsOf(table, { alias: "t", only: FIELDS })` with arguments known from the source, run for real. */
function columnsCall(call: ts.CallExpression, scope: Scope, depth: number): string | null {
  const [tableArgument, optionsArgument] = call.arguments;
  if (!tableArgument || !ts.isIdentifier(tableArgument)) return null;
  const tableName = scope.tables.get(tableArgument.text);
  const table = tableName ? (schema as Record<string, unknown>)[tableName] : undefined;
  if (!table) return null;
  const options: { alias?: string; only?: string[] } = {};
  if (optionsArgument) {
    const literal = bare(optionsArgument);
    if (!ts.isObjectLiteralExpression(literal)) return null;
    for (const property of literal.properties) {
      if (!ts.isPropertyAssignment(property) || !ts.isIdentifier(property.name)) return null;
      if (property.name.text === "alias") {
        const alias = evaluateOne(property.initializer, scope, depth + 1);
        if (alias === null) return null;
        options.alias = alias;
      } else if (property.name.text === "only") {
        const only = stringList(property.initializer, scope, depth);
        if (only === null) return null;
        options.only = only;
      } else return null;
    }
  }
  return columnsOf(table as Parameters<typeof columnsOf>[0], options as Parameters<typeof columnsOf>[1]);
}

/** Every call of the query path in `path`, with its SQL when it is known from the source. */
function statementsIn(path: string, source = readFileSync(join(ROOT, path), "utf8")): Found[] {
  const file = ts.createSourceFile(path, source, ts.ScriptTarget.Latest, true);
  const scope = scopeOf(file);
  const found: Found[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression)) {
      const name = scope.path.get(node.expression.text);
      const at = name === undefined ? undefined : SQL_ARGUMENT[name];
      const argument = at === undefined ? undefined : node.arguments[at];
      if (argument) {
        const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
        const values = evaluate(argument, scope);
        const texts = values?.every((value) => typeof value === "string") ? (values as string[]) : null;
        found.push({ where: `${path}:${line}`, sql: texts });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Why SQLite refuses to prepare `sql` on `db`, or null when it prepares. */
function refusal(db: ReturnType<typeof openDatabase>, sql: string): string | null {
  try {
    db.$client.prepare(sql).finalize();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Calls whose text is built from values known only at the call, by file: checked by the tests that
 * run them, not here. A placeholder list or an `IN` list per call (custody/incidents, launches/intents),
 * SQL handed in by the caller (stats, custody/outflow), a page's filters and order (tokens/queries,
 * accounts/record), a pragma's number (db/), a benchmark's generated statements, the columns an
 * audit row brought back from the store shares with the restored file's own version of the table
 * (backup/audit-offsite). Add one only with a reason; take one out when its text becomes known from
 * the source.
 */
const BUILT_AT_CALL: Record<string, number> = {
  "db/busy-timeout.ts": 2,
  "db/write-without-waiting.ts": 1,
  "scripts/bench-queries.ts": 1,
  "src/accounts/record.ts": 1,
  "src/backup/audit-offsite.ts": 1,
  "src/custody/incidents.ts": 1,
  "src/custody/outflow.ts": 1,
  "src/launches/intents.ts": 1,
  "src/tokens/queries.ts": 1,
};

describe("every statement of the query path prepares on the migrated schema", () => {
  const db = openDatabase(":memory:");
  afterAll(() => closeDatabase(db));
  const found = sourceFiles().flatMap((path) => statementsIn(path));
  const known = found.flatMap(({ where, sql }) => (sql ?? []).map((text) => ({ where, sql: text })));
  const builtAtCall = found.filter((f) => f.sql === null).map((f) => f.where);

  test("the scan finds the query path's statements", () => {
    console.log(`${known.length} statements prepared; ${builtAtCall.length} built at the call, not checked here:`);
    for (const where of builtAtCall) console.log(`  ${where}`);
    expect(known.length).toBeGreaterThan(200);
  });

  test("each names only tables and columns the schema has", () => {
    const refused = known.flatMap(({ where, sql }) => {
      const why = refusal(db, sql);
      return why ? [`${where}: ${why}`] : [];
    });
    expect(refused).toEqual([]);
  });

  test("texts built at the call are the few listed", () => {
    const byFile: Record<string, number> = {};
    for (const where of builtAtCall) {
      const file = where.slice(0, where.lastIndexOf(":"));
      byFile[file] = (byFile[file] ?? 0) + 1;
    }
    expect(byFile).toEqual(BUILT_AT_CALL);
  });

  test("a misspelt column is caught, in a literal and through columnsOf's list", () => {
    const source = [
      'import { columnsOf, query, statement } from "../../db/statement";',
      'import { tokens } from "../../db/schema";',
      'const COLUMNS = columnsOf(tokens, { alias: "t", only: ["mint"] });',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text with a template in it, parsed and not run
      "const good = statement<{ mint: string }, []>(`SELECT ${COLUMNS} FROM tokens t`);",
      'const bad = statement<{ mint: string }, []>("SELECT mintt FROM tokens");',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text with a template in it, parsed and not run
      "const built = (db, n) => query(db, `SELECT mint FROM tokens WHERE id IN (${placeholders(n)})`);",
    ].join("\n");
    const statements = statementsIn("src/example/example.ts", source);
    expect(statements.map((s) => s.where)).toEqual([
      "src/example/example.ts:4",
      "src/example/example.ts:5",
      "src/example/example.ts:6",
    ]);
    expect(statements[0]!.sql).toEqual(["SELECT t.mint FROM tokens t"]);
    expect(refusal(db, statements[0]!.sql![0]!)).toBeNull();
    expect(refusal(db, statements[1]!.sql![0]!)).toContain("no such column: mintt");
    expect(statements[2]!.sql).toBeNull();
  });
});
