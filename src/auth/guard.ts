/**
 * What the session routes share: the session from the cookie (401 without one), the JSON-object
 * body rule, and errors that keep SPEC's `private, no-store` on every answer of those routes.
 */
import type { AppContext } from "../context";
import { CACHE } from "../http/cache";
import { badRequest, HttpError, unauthorized } from "../http/errors";
import { sessionFromRequest, type Session } from "./sessions";

export function requireSession(ctx: AppContext, request: Request): Session {
  const session = sessionFromRequest(ctx.db, ctx.config, request, ctx.now());
  if (!session) throw unauthorized("Sign in first; there is no session or it has expired.");
  return session;
}

/**
 * The body as a JSON object; anything else (array, text, form, malformed JSON) is 400. Routes using
 * it take the raw text (`parse: "text"`) so the refusal is this one, with the route's headers.
 */
export function jsonObject(request: Request, body: unknown): Record<string, unknown> {
  const type = request.headers.get("content-type") ?? "";
  const refusal = () => badRequest("Send the request body as a JSON object.");
  if (!/^application\/json\s*(;|$)/i.test(type)) throw refusal();
  let parsed: unknown = body;
  if (typeof body === "string") {
    try {
      parsed = JSON.parse(body);
    } catch {
      throw refusal();
    }
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw refusal();
  return parsed as Record<string, unknown>;
}

/** Runs a handler so that its refusals carry the private cache header as its successes do. */
export async function privately<T>(work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof HttpError && !error.headers["cache-control"]) {
      throw new HttpError(error.status, error.message, { ...error.headers, "cache-control": CACHE.private });
    }
    throw error;
  }
}
