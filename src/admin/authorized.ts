/**
 * Who may use `/api/admin/*`, and who they are: the one place that decides it, called by the front
 * door before any body is read and by the admin routes themselves. A named operator
 * (ADMIN_OPERATORS_FILE) sends `Authorization: Basic base64(name:password)` or signs in to the
 * /admin page; the shared `Authorization: Bearer <ADMIN_SECRET>` keeps working for setups that
 * have no operators file, and is audited as `admin-api` (`admin-page` through the page), as before.
 */
import type { AppContext } from "../context";
import { bearerMatches } from "../http/bearer";
import { limitKeyOf } from "../http/client-ip";
import { operatorFailureRule } from "../http/rate-limit";
import { requestMeta } from "../http/request-meta";
import { AppError } from "../lib/errors";
import { ADMIN_API_ACTOR, basicCredential, operatorsOf, verifyOperator } from "./operators";
import { pageSessionActor } from "./session";

/** Who did an admin action and from where: what every audit row carries beside the action and reason. */
export interface AdminOrigin {
  /** the operator's name, or `admin-api`/`admin-page` for the shared ADMIN_SECRET */
  actor: string;
  requestId: string | null;
  clientIp: string | null;
}

/** What deciding who a request comes from needs; the limiter, when given, spares hashing past the failure limit. */
export type AdminAuthContext = Pick<AppContext, "config" | "db" | "now"> & Partial<Pick<AppContext, "limiter">>;

/** The page's sign-in takes the key in its body (and has its own limit): the one admin route reached without a credential. */
export const ADMIN_SIGN_IN_PATH = "/api/admin/session";

/** Whether admin routes exist on this deployment at all; without, every admin path is a 404. */
export function adminEnabled(ctx: Pick<AppContext, "config">): boolean {
  return ctx.config.adminSecret !== null || operatorsOf(ctx.config).size > 0;
}

/** Whether the request's address may still spend a password hash on a credential not seen before. */
function underFailureLimit(ctx: AdminAuthContext, request: Request): boolean {
  const ip = requestMeta(request)?.ip;
  if (!ctx.limiter || !ip) return true;
  return ctx.limiter.peek(operatorFailureRule("admin"), limitKeyOf(ip)).allowed;
}

/** The actor an admin request is authorized as, or null when it carries no valid credential. */
function adminActorOf(ctx: AdminAuthContext, request: Request): string | null {
  const header = request.headers.get("authorization");
  if (bearerMatches(header, ctx.config.adminSecret)) return ADMIN_API_ACTOR;
  const basic = basicCredential(header);
  const operator = basic
    ? verifyOperator(operatorsOf(ctx.config), basic.name, basic.password, () => underFailureLimit(ctx, request))
    : null;
  return operator ?? pageSessionActor(ctx, request);
}

export function adminAuthorized(ctx: AdminAuthContext, request: Request): boolean {
  return adminActorOf(ctx, request) !== null;
}

/** A route's own check: every admin answer is 404 to a caller without the credential, as if the route did not exist. */
export function adminGuard(ctx: AdminAuthContext): (request: Request) => void {
  return (request) => {
    if (!adminAuthorized(ctx, request)) throw new AppError("ROUTE_HIDDEN");
  };
}

/**
 * Who an authorized admin request comes from (the bearer or Basic credential when it carries one,
 * else the page's session), with the request id and client IP the front door recorded.
 */
export function adminOriginOf(ctx: AdminAuthContext, request: Request): AdminOrigin {
  const meta = requestMeta(request);
  const actor = adminActorOf(ctx, request);
  // Routes call this after their guard; a credential gone in between is refused, never recorded as someone.
  if (actor === null) throw new AppError("ROUTE_HIDDEN");
  return { actor, requestId: meta?.id ?? null, clientIp: meta?.ip ?? null };
}
