/**
 * One row per error code (issue #66 item 11): each code's kind, sentence and context type sit
 * together in src/lib/errors.ts, and the headers a route's refusals carry travel in a typed field
 * of the error, not under a context key.
 */
import { describe, expect, test } from "bun:test";
import { appErrorResponse, STATUS_BY_KIND, withResponseHeaders } from "../../src/http/errors";
import { AppError, type ContextOf, ERROR_CODES, ERROR_MESSAGES, isAppError } from "../../src/lib/errors";

/** The codes thrown with the sentence of the check that failed, so their row has no template. */
const OWN_SENTENCE_CODES = [
  "INVALID_INPUT",
  "INTERNAL",
  "CONFIG_INVALID",
  "LEDGER_INVARIANT",
  "LIABILITY_TREE_INVALID",
];

describe("every code is one row", () => {
  test("every code has a kind the edge maps, and a template unless it says its own sentence", () => {
    const codes = Object.keys(ERROR_CODES);
    expect(codes.length).toBeGreaterThan(250);
    const withoutStatus = codes.filter((code) => !Object.hasOwn(STATUS_BY_KIND, ERROR_CODES[code as never]));
    expect(withoutStatus).toEqual([]);
    const withoutTemplate = codes.filter((code) => !Object.hasOwn(ERROR_MESSAGES, code));
    expect(withoutTemplate.sort()).toEqual([...OWN_SENTENCE_CODES].sort());
    const emptyTemplate = Object.entries(ERROR_MESSAGES).filter(([, message]) => message.trim() === "");
    expect(emptyTemplate).toEqual([]);
    expect(Object.keys(ERROR_MESSAGES).filter((code) => !Object.hasOwn(ERROR_CODES, code))).toEqual([]);
  });

  test("no public sentence names a setting, a URL or SQL", () => {
    const publicSentences = Object.entries(ERROR_MESSAGES).filter(
      ([code]) => ERROR_CODES[code as keyof typeof ERROR_CODES] !== "internal",
    );
    expect(publicSentences.length).toBeGreaterThan(150);
    const leaks = publicSentences.filter(([, message]) =>
      [
        /\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/, // an environment setting's name
        /\b[a-z][a-z0-9+.-]*:\/\/[\w-]/i, // a URL with a host
        /\b(SELECT|INSERT|UPDATE|DELETE|PRAGMA)\b/, // SQL, whose keywords the service writes in capitals
        /sqlite/i,
      ].some((pattern) => pattern.test(message)),
    );
    expect(leaks).toEqual([]);
  });

  test("the compiler holds each code to its row's context", () => {
    // @ts-expect-error a context of the wrong type
    void new AppError("LEASE_LOST", { job: 1 });
    // @ts-expect-error a context of another code
    void new AppError("WORKER_HANDLER_MISSING", { job: "sweep" });
    // @ts-expect-error a code no row has
    void new AppError("NO_SUCH_CODE", "text");
    // @ts-expect-error response headers are strings
    void new AppError("SESSION_REQUIRED", {}, { responseHeaders: { "retry-after": 5 } });
    const error: unknown = new AppError("LAUNCH_FIELD_LENGTH", { field: "name", minimum: 1, maximum: 32 });
    if (!isAppError(error, "LAUNCH_FIELD_LENGTH")) throw error;
    const field: "name" | "symbol" | "description" = error.context.field;
    const context: ContextOf<"LAUNCH_FIELD_LENGTH"> = error.context;
    // @ts-expect-error the row's field type is narrower than string
    const widened: ContextOf<"LAUNCH_FIELD_LENGTH"> = { field: "website", minimum: 1, maximum: 2 };
    expect([field, context.maximum, String(widened.field)]).toEqual(["name", 32, "website"]);
  });
});

describe("a route's headers travel in a typed field", () => {
  test("an error's response headers reach its answer, the edge's own headers and retry-after after them", () => {
    const refusal = new AppError(
      "LAUNCH_UPLOAD_ALLOWANCE_USED",
      { retryAfterSeconds: 2.5 },
      { responseHeaders: { "cache-control": "private, no-store", "retry-after": "99", "x-request-id": "theirs" } },
    );
    expect(refusal.responseHeaders).toEqual({
      "cache-control": "private, no-store",
      "retry-after": "99",
      "x-request-id": "theirs",
    });
    expect(refusal.context).toEqual({ retryAfterSeconds: 2.5 });
    const response = appErrorResponse(refusal, { "x-request-id": "edge" });
    expect(response?.status).toBe(429);
    expect(response?.headers.get("cache-control")).toBe("private, no-store");
    expect(response?.headers.get("retry-after")).toBe("3");
    expect(response?.headers.get("x-request-id")).toBe("theirs");
  });

  test("withResponseHeaders keeps the refusal's code, sentence, context and status; its own headers win", async () => {
    const inner = new AppError("SESSION_REQUIRED", {}, { responseHeaders: { "set-cookie": "inner=1" } });
    const wrapped = withResponseHeaders(inner, { "set-cookie": "route=1", "cache-control": "private, no-store" });
    if (!isAppError(wrapped, "SESSION_REQUIRED")) throw wrapped;
    expect(wrapped.cause).toBe(inner);
    expect(wrapped.message).toBe(inner.message);
    expect(wrapped.context).toEqual({});
    expect(wrapped.responseHeaders).toEqual({ "set-cookie": "inner=1", "cache-control": "private, no-store" });
    const response = appErrorResponse(wrapped, {});
    expect(response?.status).toBe(401);
    expect(await response?.json()).toEqual({ error: inner.message });
    expect(response?.headers.get("cache-control")).toBe("private, no-store");
  });

  test("a context value named responseHeaders is context, not headers", () => {
    const refusal = new AppError("REASON_REQUIRED", { responseHeaders: { "set-cookie": "session=stolen" } });
    const response = appErrorResponse(refusal, {});
    expect(response?.status).toBe(400);
    expect(response?.headers.get("set-cookie")).toBeNull();
    expect(response?.headers.get("cache-control")).toBe("no-store");
  });

  test("an internal failure passes through unwrapped and has no answer of its own", () => {
    const failure = new AppError("LEASE_LOST", { job: "sweep" });
    expect(withResponseHeaders(failure, { "cache-control": "private, no-store" })).toBe(failure);
    expect(appErrorResponse(failure, {})).toBeNull();
  });
});
