/**
 * The operator page's API: its sign-in (`/api/admin/session`) and the reads the page shows beside
 * the admin actions. Like every admin route these answer 404 when neither ADMIN_SECRET nor
 * ADMIN_OPERATORS_FILE is set and are not part of the public API; the reads take the bearer, an
 * operator's Basic credential or the page's session (adminAuthorized).
 */
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import type { JobRunner, SchedulingContext } from "../jobs";
import { appendSetCookie } from "../auth";
import { jsonObject } from "../auth";
import { CACHE } from "../http/cache";
import { limitKeyOf } from "../http/client-ip";
import { ADMIN_SIGN_IN_FAILURES } from "../http/rate-limit";
import { requestMeta } from "../http/request-meta";
import { AppError } from "../lib/errors";
import { adminOverview, adminTokens, auditPageEvent } from "./page-service";
import {
  ADMIN_SESSION_TTL_MS,
  adminCookie,
  adminSessionActor,
  adminSessionValid,
  createAdminSession,
  deleteAdminSession,
  deleteAllAdminSessions,
  type SessionKey,
  sameOriginWrite,
  secretMatches,
  sharedSessionKey,
} from "./session";
import { type AdminOrigin, adminEnabled, adminGuard, adminOriginOf } from "./authorized";
import { operatorsOf, verifyOperator } from "./operators";

const notFound = () => new AppError("ROUTE_HIDDEN");
/** Signing in or out from another site's page would plant or drop an operator session. */
const crossSite = () => new AppError("CROSS_SITE_REFUSED");

const MAX_REASON = 500;

/** `{reason?}` of a write whose body is optional; a reason is audited with the action. */
async function optionalReason(request: Request): Promise<string | null> {
  const text = await request.text();
  if (text.trim() === "") return null;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new AppError("BODY_NOT_OBJECT", {}, { cause: error });
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new AppError("BODY_NOT_OBJECT");
  const { reason } = body as Record<string, unknown>;
  if (reason === undefined || reason === null) return null;
  if (typeof reason !== "string") throw new AppError("REASON_NOT_STRING");
  if (reason.length > MAX_REASON) throw new AppError("REASON_TOO_LONG", { maximum: MAX_REASON });
  return reason;
}

/** The page's own sign-in and sign-out: who, with the request's id and IP. */
function pageOrigin(request: Request, actor: string): AdminOrigin {
  const meta = requestMeta(request);
  return { actor, requestId: meta?.id ?? null, clientIp: meta?.ip ?? null };
}

/** Whether the address has failed sign-ins left (a password hash is not spent past the limit). */
function signInsLeft(ctx: AppContext, origin: AdminOrigin): boolean {
  if (!ctx.config.rateLimit || origin.clientIp === null) return true;
  return ctx.limiter.peek(ADMIN_SIGN_IN_FAILURES, limitKeyOf(origin.clientIp)).allowed;
}

/**
 * A wrong key counts against its address; past the limit, wrong keys are 429 (the shared secret
 * and a named operator's password already verified in this process never are).
 */
function refuseAfterTooManyFailures(ctx: AppContext, origin: AdminOrigin): void {
  if (!ctx.config.rateLimit || origin.clientIp === null) return;
  const decision = ctx.limiter.hit(ADMIN_SIGN_IN_FAILURES, limitKeyOf(origin.clientIp));
  if (!decision.allowed)
    throw new AppError("ADMIN_KEY_GUESSES_LIMITED", {
      retryAfterSeconds: Number(decision.headers["retry-after"]),
    });
}

/** The credential the sign-in names: a named operator's password, or (no name given) ADMIN_SECRET; null when wrong. */
function sessionKeyFor(
  ctx: AppContext,
  origin: AdminOrigin,
  operator: string | null,
  secret: string,
): SessionKey | null {
  if (operator === null) return secretMatches(secret, ctx.config.adminSecret) ? sharedSessionKey(secret) : null;
  const operators = operatorsOf(ctx.config);
  const name = verifyOperator(operators, operator, secret, () => signInsLeft(ctx, origin));
  return name === null ? null : { actor: name, key: operators.get(name)!, named: true };
}

function operatorNameOf(input: Record<string, unknown>): string | null {
  const value = input.operator;
  if (value === undefined || value === null || value === "") return null;
  if (typeof value !== "string" || value.length > 64) throw new AppError("ADMIN_KEY_REQUIRED");
  return value.trim().toLowerCase();
}

/** `POST /api/admin/session`: the admin key for a page session cookie. */
function signIn(ctx: AppContext, request: Request, body: unknown, headers: Record<string, unknown>) {
  // Signing in from another site's form would plant an operator session: same origin only.
  if (!sameOriginWrite(request, ctx.config)) throw crossSite();
  const input = jsonObject(request, body);
  if (typeof input.secret !== "string" || input.secret.length === 0 || input.secret.length > 1024) {
    throw new AppError("ADMIN_KEY_REQUIRED");
  }
  const operator = operatorNameOf(input);
  const unknown = pageOrigin(request, operator ?? "");
  const by = sessionKeyFor(ctx, unknown, operator, input.secret);
  if (by === null) {
    refuseAfterTooManyFailures(ctx, unknown);
    throw new AppError("ADMIN_KEY_WRONG");
  }
  const nowMs = ctx.now();
  const { token } = createAdminSession(ctx.db, by, nowMs);
  auditPageEvent(ctx.db, "admin_sign_in", pageOrigin(request, by.actor), nowMs);
  appendSetCookie(headers, adminCookie(ctx.config, token, ADMIN_SESSION_TTL_MS));
  return { ok: true as const };
}

export function adminPageRoutes(ctx: SchedulingContext<JobRunner>) {
  const configured = () => {
    if (!adminEnabled(ctx)) throw notFound();
  };
  const guard = adminGuard(ctx);
  return new Elysia({ name: "admin-page" })
    .onAfterHandle(({ set }) => {
      set.headers["cache-control"] = CACHE.noStore;
    })
    .get(
      "/api/admin/session",
      ({ request }) => {
        configured();
        return { signedIn: adminSessionValid(ctx.db, ctx.config, request, ctx.now()) };
      },
      { detail: { hide: true } },
    )
    .post(
      "/api/admin/session",
      ({ request, body, set }) => {
        configured();
        return signIn(ctx, request, body, set.headers);
      },
      { parse: "text", detail: { hide: true } },
    )
    .delete(
      "/api/admin/session",
      ({ request, set }) => {
        configured();
        if (!sameOriginWrite(request, ctx.config)) throw crossSite();
        const actor = adminSessionActor(ctx.db, ctx.config, request, ctx.now());
        if (actor !== null) {
          deleteAdminSession(ctx.db, ctx.config, request);
          auditPageEvent(ctx.db, "admin_sign_out", pageOrigin(request, actor), ctx.now());
        }
        appendSetCookie(set.headers, adminCookie(ctx.config, "", 0));
        return { ok: true as const };
      },
      { detail: { hide: true } },
    )
    .delete(
      "/api/admin/sessions",
      async ({ request, set }) => {
        // "Sign out all sessions": every page session ends, this one included; the bearer is unaffected.
        guard(request);
        const reason = await optionalReason(request);
        // Who, read before their own session ends with the rest.
        const origin = adminOriginOf(ctx, request);
        const nowMs = ctx.now();
        const signedOut = deleteAllAdminSessions(ctx.db, nowMs);
        auditPageEvent(ctx.db, "admin_sign_out_all", origin, nowMs, {
          subject: String(signedOut),
          reason,
        });
        appendSetCookie(set.headers, adminCookie(ctx.config, "", 0));
        return { ok: true as const, signedOut };
      },
      { parse: "none", detail: { hide: true } },
    )
    .get(
      "/api/admin/overview",
      ({ request }) => {
        guard(request);
        return adminOverview(ctx);
      },
      { detail: { hide: true } },
    )
    .get(
      "/api/admin/tokens",
      ({ request, query }) => {
        guard(request);
        const q = (query.q ?? "").trim();
        if (q.length > 64) throw new AppError("ADMIN_SEARCH_TOO_LONG", { maximum: 64 });
        return { tokens: adminTokens(ctx.db, q || null) };
      },
      { detail: { hide: true } },
    );
}
