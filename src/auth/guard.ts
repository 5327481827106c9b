/**
 * What the session routes share: the session from the cookie (401 without one), the JSON-object
 * body rule, and refusals that keep SPEC's `private, no-store` on every answer of those routes.
 */
import type { AppContext } from "../context";
import { CACHE } from "../http/cache";
import { withResponseHeaders } from "../http/errors";
import { AppError } from "../lib/errors";
import { sessionFromRequest, type Session } from "./sessions";

export function requireSession(ctx: AppContext, request: Request): Session {
  const session = sessionFromRequest(ctx.db, ctx.config, request, ctx.now());
  if (!session) throw new AppError("SESSION_REQUIRED");
  return session;
}

/**
 * The body as a JSON object; anything else (array, text, form, malformed JSON) is 400. Routes using
 * it take the raw text (`parse: "text"`) so the refusal is this one, with the route's headers.
 */
export function jsonObject(request: Request, body: unknown): Record<string, unknown> {
  const type = request.headers.get("content-type") ?? "";
  const refusal = (cause?: unknown) => new AppError("BODY_NOT_JSON_OBJECT", {}, { cause });
  if (!/^application\/json\s*(;|$)/i.test(type)) throw refusal();
  let parsed: unknown = body;
  if (typeof body === "string") {
    try {
      parsed = JSON.parse(body);
    } catch (error) {
      throw refusal(error);
    }
  }
  if (!isPlainObject(parsed)) throw refusal();
  return parsed;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Runs a handler so that its refusals carry the private cache header as its successes do. */
export async function privately<T>(work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw withResponseHeaders(error, { "cache-control": CACHE.private });
  }
}
