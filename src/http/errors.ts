/**
 * The one error shape of SPEC: `{error: sentence}` with the status. Services throw `AppError`
 * (src/lib/errors.ts), the routes included, and its kind picks the status here. Anything else
 * becomes a 500 whose details go only to the log.
 */
import { AppError, type ErrorKind } from "../lib/errors";
import { isCorsHeader } from "./cors";

export function errorResponse(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ error: message }), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
  });
}

/**
 * The headers set before a failure that its error answer keeps: the rate limit's, the request id,
 * HSTS and a public read's CORS headers (a page must be able to read why it was refused).
 */
export function carriedHeaders(headers: Record<string, unknown>): Record<string, string> {
  const carried: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const kept =
      name.startsWith("x-ratelimit-") ||
      name === "x-request-id" ||
      name === "strict-transport-security" ||
      isCorsHeader(name);
    if (kept) carried[name] = String(value);
  }
  return carried;
}

/** The HTTP status of each error kind: the one place a domain failure becomes HTTP. */
export const STATUS_BY_KIND: Record<ErrorKind, number> = {
  input: 400,
  auth: 401,
  forbidden: 403,
  missing: 404,
  conflict: 409,
  gone: 410,
  tooLarge: 413,
  unsupported: 415,
  limited: 429,
  upstream: 502,
  unavailable: 503,
  internal: 500,
};

/** The response for an AppError, or null when it is internal (the caller logs it and answers 500). */
export function appErrorResponse(error: AppError, headers: Record<string, string>): Response | null {
  if (error.kind === "internal") return null;
  const retryAfter = error.context.retryAfterSeconds;
  const extra: Record<string, string> =
    retryAfter === undefined ? {} : { "retry-after": String(Math.max(1, Math.ceil(retryAfter))) };
  return errorResponse(STATUS_BY_KIND[error.kind], error.message, {
    ...headers,
    ...error.responseHeaders,
    ...extra,
  });
}

/**
 * A refusal carrying response headers of the route that refused it, for the routes whose every
 * answer has them (the session routes' private cache header, the sign-in callback's cleared
 * cookie). Headers the refusal already carries win. The code, sentence and status stay the
 * refusal's own; an AppError comes back wrapped (the original is its cause). Anything that is not
 * a public refusal passes through unchanged.
 */
export function withResponseHeaders(error: unknown, headers: Record<string, string>): unknown {
  if (error instanceof AppError && error.kind !== "internal") {
    const responseHeaders = { ...headers, ...error.responseHeaders };
    return new AppError(error.code, error.message, error.context, { cause: error, responseHeaders });
  }
  return error;
}
