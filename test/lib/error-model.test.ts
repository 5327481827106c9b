/**
 * One error model (issue #45): everything src/, indexer/ and db/ throw of their own is an AppError
 * whose code is in ERROR_CODES, so its kind (and at the edge its HTTP status) is known. No second
 * error class (`HttpError`), no bare `throw new Error(`; a code only a string names would otherwise
 * reach the edge as an unknown kind. A code with a template (kit's messages table) is thrown with
 * its context alone, and its sentence is the template filled from that context.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { AppError, ERROR_CODES, ERROR_MESSAGES, messageOf } from "../../src/lib/errors";

const ROOT = join(import.meta.dir, "../..");
const FOLDERS = ["src", "indexer", "db"];

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

const files = FOLDERS.flatMap(sourceFiles).map((path) => ({
  path: relative(ROOT, path),
  text: readFileSync(path, "utf8"),
}));

/** `file:line: the line` for every match of `pattern` (global) in the scanned files. */
function sitesOf(pattern: RegExp): string[] {
  return files.flatMap(({ path, text }) =>
    [...text.matchAll(pattern)].map((match) => {
      const line = text.slice(0, match.index).split("\n").length;
      return `${path}:${line}: ${match[0]}`;
    }),
  );
}

describe("one error model in src/, indexer/ and db/", () => {
  test("the scan reads the service's sources", () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.some((f) => f.path === join("src", "lib", "errors.ts"))).toBe(true);
  });

  test("no bare `throw new Error(`: every failure thrown is an AppError with a code", () => {
    expect(sitesOf(/throw\s+(new\s+)?Error\s*\(/g)).toEqual([]);
    // thrown all the same: the other arm of a thrown conditional, and a rejection
    expect(sitesOf(/\bthrow\b[^;\n]*\bnew\s+Error\s*\(/g)).toEqual([]);
    expect(sitesOf(/\breject\(\s*new\s+Error\s*\(/g)).toEqual([]);
  });

  test("no bare `throw new RangeError(` or `TypeError(`: a service's own failure is an AppError too", () => {
    // a broken contract has a code, an internal one where only a caller's bug reaches it
    expect(sitesOf(/\bthrow\s+(new\s+)?(RangeError|TypeError)\s*\(/g)).toEqual([]);
    expect(sitesOf(/\breject\(\s*new\s+(RangeError|TypeError)\s*\(/g)).toEqual([]);
  });

  test("no second error class: HttpError is gone", () => {
    expect(sitesOf(/\bHttpError\b/g)).toEqual([]);
    // nor any other class of failure beside AppError (a subclass of AppError, as ConfigError, is one)
    expect(sitesOf(/\bclass\s+\w+\s+extends\s+(Error|RangeError|TypeError)\b/g)).toEqual([]);
  });

  test("every code an AppError is built or matched with is in ERROR_CODES", () => {
    const named = [
      ...sitesOf(/new\s+AppError\s*(?:<[^>]*>)?\(\s*"([A-Z0-9_]+)"/g),
      ...sitesOf(/isAppError\(\s*[\w.]+\s*,\s*"[A-Z0-9_]+"(?:\s*,\s*"[A-Z0-9_]+")*/g),
      ...sitesOf(/super\(\s*"[A-Z0-9_]+"/g),
    ];
    expect(named.length).toBeGreaterThan(100);
    const unknown = named.filter((site) =>
      [...site.matchAll(/"([A-Z0-9_]+)"/g)].some((m) => !Object.hasOwn(ERROR_CODES, m[1] as string)),
    );
    expect(unknown).toEqual([]);
  });
});

/**
 * Folders whose every AppError takes its sentence from ERROR_MESSAGES, but for the assertion codes:
 * internal failures whose text is the check that failed (a ledger invariant, a liability tree's
 * precondition, a setting's one line, a wiring fault), read only in the log. Append a folder once
 * it is converted; the root files of src/ count as the folder "src".
 */
const CONVERTED = [
  "src",
  "src/accounts",
  "src/admin",
  "src/auth",
  "src/backup",
  "src/burns",
  "src/chain",
  "src/custody",
  "src/demo",
  "src/history",
  "src/http",
  "src/identity",
  "src/jobs",
  "src/landing",
  "src/launches",
  "src/ledger",
  "src/liabilities",
  "src/lib",
  "src/market",
  "src/metrics",
  "src/payouts",
  "src/proof",
  "src/reconcile",
  "src/settings",
  "src/stats",
  "src/sweeps",
  "src/tokens",
  "src/web",
  "src/webhooks",
  "src/workers",
  "indexer",
  "db",
];
const ASSERTION_CODES = new Set(["LEDGER_INVARIANT", "LIABILITY_TREE_INVALID", "CONFIG_INVALID", "INTERNAL"]);

test("converted folders throw templated codes only, but for the assertion codes", () => {
  const folderOf = (path: string) => {
    const parts = path.split("/");
    return parts[0] === "src" && parts.length > 2 ? `src/${parts[1]}` : (parts[0] as string);
  };
  const own = files
    .filter(({ path }) => CONVERTED.includes(folderOf(path)))
    .flatMap(({ path, text }) =>
      [...text.matchAll(/(?:new\s+AppError\s*(?:<[^>]*>)?\(|super\()\s*"([A-Z0-9_]+)"/g)]
        .map((m) => m[1] as string)
        .filter((code) => !Object.hasOwn(ERROR_MESSAGES, code) && !ASSERTION_CODES.has(code))
        .map((code) => `${path}: ${code}`),
    );
  expect(own).toEqual([]);
});

describe("message templates", () => {
  test("a templated code's sentence is its template filled from its typed context", () => {
    const refusal = new AppError("QUERY_INTEGER_INVALID", { name: "limit", minimum: 1, maximum: 100 });
    expect(refusal.message).toBe("The query parameter 'limit' must be an integer from 1 to 100.");
    expect(refusal.context).toEqual({ name: "limit", minimum: 1, maximum: 100 });
    expect(refusal.kind).toBe("input");
    expect(new AppError("ROUTE_HIDDEN").message).toBe("Not found.");
    const cause = new Error("disk");
    expect(new AppError("BACKUP_INTEGRITY_FAILED", { result: "page 3" }, { cause }).cause).toBe(cause);
  });

  test("the compiler holds each code to its form", () => {
    // @ts-expect-error a templated code says its own sentence; it takes no other
    void new AppError("ROUTE_HIDDEN", "Gone away.");
    // @ts-expect-error a template's variables are required
    void new AppError("LEASE_LOST", {});
    // @ts-expect-error a code without a template is thrown with its sentence
    void new AppError("LEDGER_INVARIANT");
    expect(true).toBe(true);
  });

  test("every template names only variables its context fills, and every variable is filled", () => {
    const samples: Record<string, Record<string, unknown>> = {
      QUERY_INTEGER_INVALID: { name: "n", minimum: 0, maximum: 1 },
      QUERY_REPEATED: { name: "limit" },
      START_PORT_UNAVAILABLE: { port: 3000, hostname: "0.0.0.0", reason: "is in use by another process" },
      DATABASE_FROM_NEWER_VERSION: { path: "/data/service.db", unknown: 2, lastKnown: "0023_payout_events" },
      JOB_ALREADY_REGISTERED: { job: "sweep" },
      WEB_BUILD_FAILED: { part: "styles", logs: "x" },
      OPENAPI_TITLE_TAKEN: { title: "T" },
      OPENAPI_UNION_MEMBER_UNNAMED: { property: "type" },
      OPENAPI_CACHE_UNDOCUMENTED: { path: "/p" },
      EVENT_SLOTS_EXHAUSTED: { events: "feed events" },
      BACKUP_NOT_FOUND: { url: "s3://b/p" },
      BACKUP_CHECKSUM_MISMATCH: { url: "s3://b/p/g" },
      BACKUP_INTEGRITY_FAILED: { result: "bad" },
      CHAIN_UNAVAILABLE: { method: "getBalance", detail: "d" },
      CHAIN_TIMEOUT: { method: "getBalance", timeoutMs: 10 },
      CHAIN_RATE_LIMITED: { method: "getBalance" },
      CHAIN_PROVIDER_FAILED: { method: "getBalance", detail: "d" },
      CHAIN_BAD_RESPONSE: { method: "getBalance", detail: "d" },
      CHAIN_REJECTED: { method: "sendTransaction", detail: "d", rpcCode: -32002 },
      CHAIN_HTTP_STATUS: { status: 500, retryAfterMs: null },
      LAUNCH_PROGRAM_ACCOUNT_MISSING: { account: "mint" },
      LAUNCH_PROGRAM_AMOUNT_NOT_POSITIVE: { amount: "burn amount" },
      LAUNCH_PROGRAM_SLIPPAGE_INVALID: { slippageBps: 10_000 },
      LAUNCH_PROGRAM_BUY_TOO_SMALL: { buy: "first buy" },
      CHAIN_KEY_INVALID: { setting: "treasury key", reason: "is empty" },
      CHAIN_ACCOUNT_MALFORMED: { account: "token" },
      CHAIN_ACCOUNT_TOO_SHORT: { account: "BondingCurve", bytes: 8 },
      CHAIN_STRING_TOO_LONG: { bytes: 300, maxBytes: 200 },
      CHAIN_SHAREHOLDERS_TOO_MANY: { count: 65, maximum: 64 },
      MEMO_SIZE_INVALID: { maxBytes: 500 },
      INDEXER_UNANSWERED: { awaited: "the endpoint did not answer", timeoutMs: 10 },
      LEASE_LOST: { job: "sweep" },
      REASON_TOO_LONG: { maximum: 500 },
      WITHDRAWAL_BELOW_RENT: { minimumLamports: 890_880n },
      WITHDRAWAL_OVER_LIMIT: { mostLamports: 1n },
      HANDLE_HELD_ELSEWHERE: { reason: "r" },
      MARKET_UNREACHABLE: { failure: "TimeoutError" },
      MARKET_HTTP_STATUS: { status: 500 },
      MARKET_BATCHES_FAILED: { failed: 2 },
      INDEXER_STREAM_SILENT: { staleMs: 20_000 },
      BACKUP_UPLOAD_TIMEOUT: { timeoutMs: 500 },
      BACKUP_STORE_FAILED: { action: "upload of a/b", storeCode: "SignatureDoesNotMatch" },
      BACKUP_NOT_AUTHENTIC: { url: "s3://b/p/g", advice: "" },
      BACKUP_SCHEMA_DIFFERS: { source: "s3://b/p/g", difference: "an added trigger t" },
      LIMIT_INVALID: { maximum: 500 },
      RECONCILE_PAYOUT_DIFFERS: { payoutId: 1 },
      RECONCILE_REPLACEMENT_DIFFERS: { payoutId: 2, replacedId: 1n },
      RECONCILE_REPLACED_STATUS: { payoutId: 1n, status: "confirmed" },
      RECONCILE_WITHDRAWAL_DIFFERS: { withdrawalId: 1 },
      RECONCILE_BURN_BUY_DIFFERS: { buyId: 1 },
      RECONCILE_BURN_NOT_AWAITED: { buyId: 1, status: "failed" },
      RECONCILE_HISTORY_TOO_LONG: { scannedMax: 10_000 },
      RECONCILE_HISTORY_GAP: { why: "a signature is missing" },
      INSUFFICIENT_BALANCE: { lamports: 5n, balanceLamports: 4n, minimumLamports: 1n },
      CLAIM_BELOW_MINIMUM: { minimumLamports: 1_000_000n },
      LAUNCH_TRANSACTION_REJECTED: { reason: "it pays another wallet" },
      LAUNCH_IMAGE_TOO_LARGE: { maxBytes: 1024 },
      LAUNCH_IMAGE_TOO_MANY_PIXELS: { maxPixels: 4096 },
      LAUNCH_HANDLE_UNKNOWN: { handle: "nobody" },
      LAUNCH_FIELD_LENGTH: { field: "name", minimum: 1, maximum: 32 },
      LAUNCH_FIELD_CONTROL: { field: "symbol" },
      LAUNCH_LINK_NOT_URL: { field: "website" },
      LAUNCH_LINK_NOT_HTTPS: { field: "website" },
      LAUNCH_LINK_CREDENTIALS: { field: "website" },
      LAUNCH_RECIPIENT_COUNT: { maximum: 10 },
      LAUNCH_FIRST_BUY_TOO_LARGE: { maximumLamports: 10n },
      RPC_OPTION_UNAVAILABLE: { option: "accounts" },
      RPC_OPTION_INVALID: { option: "encoding" },
      RPC_PARAMS_COUNT: { count: "1 to 2" },
      RPC_SIGNATURES_INVALID: { maximum: 256 },
      THRESHOLD_BELOW_RENT: { minimumLamports: 890_880n },
      SET_ASIDE_SWEEP_DISAGREES: { reason: "the credit differs" },
      ADMIN_SEARCH_TOO_LONG: { maximum: 64 },
      WEBHOOK_URL_TOO_LONG: { maximum: 2048 },
      WEBHOOK_TYPES_EMPTY: { types: "a, b" },
      WEBHOOK_TYPES_UNKNOWN: { types: "a, b" },
      WEBHOOK_LIMIT_REACHED: { maximum: 20 },
      WORKER_UNANSWERED: { thread: "jobs", request: "run sweep", timeoutMs: 100 },
      WORKER_SILENT: { thread: "jobs", request: "ready", timeoutMs: 100 },
      WORKER_ENDED: { thread: "jobs", request: "run sweep", reason: "it exited with code 3" },
      WORKER_HANDLER_MISSING: { request: "run" },
      MARKET_BATCH_TOO_LARGE: { batchSize: 30 },
      RESUME_WAITING_CHANGED: { expected: "payouts 1, 2", given: "payouts 1" },
    };
    for (const code of Object.keys(ERROR_MESSAGES) as (keyof typeof ERROR_MESSAGES)[]) {
      expect(Object.hasOwn(ERROR_CODES, code)).toBe(true);
      expect({ code, message: messageOf(code, samples[code] ?? {}) }).not.toEqual({
        code,
        message: expect.stringMatching(/\$[A-Za-z_]/),
      });
    }
  });
});
