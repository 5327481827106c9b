/**
 * Who may use `/api/admin/*`: the one place that decides it, called by the front door before any
 * body is read and by the admin routes themselves: `Authorization: Bearer <ADMIN_SECRET>` (scripts,
 * curl) or the /admin page's session cookie.
 */
import type { AppContext } from "../context";
import { bearerMatches } from "../http/bearer";
import { requestMeta } from "../http/request-meta";
import { AppError } from "../lib/errors";
import { pageSessionAuthorized } from "./session";

/** The credential an admin action came with, as the audit table records it. */
export const ADMIN_API_ACTOR = "admin-api";
export const ADMIN_PAGE_ACTOR = "admin-page";

/** Who did an admin action and from where: what every audit row carries beside the action and reason. */
export interface AdminOrigin {
  actor: typeof ADMIN_API_ACTOR | typeof ADMIN_PAGE_ACTOR;
  requestId: string | null;
  clientIp: string | null;
}

/** The page's sign-in takes the key in its body (and has its own limit): the one admin route reached without a credential. */
export const ADMIN_SIGN_IN_PATH = "/api/admin/session";

/** Whether admin routes exist on this deployment at all; without, every admin path is a 404. */
export function adminEnabled(ctx: Pick<AppContext, "config">): boolean {
  return ctx.config.adminSecret !== null;
}

export function adminAuthorized(ctx: Pick<AppContext, "config" | "db" | "now">, request: Request): boolean {
  return (
    bearerMatches(request.headers.get("authorization"), ctx.config.adminSecret) || pageSessionAuthorized(ctx, request)
  );
}

/** A route's own check: every admin answer is 404 to a caller without the credential, as if the route did not exist. */
export function adminGuard(ctx: Pick<AppContext, "config" | "db" | "now">): (request: Request) => void {
  return (request) => {
    if (!adminAuthorized(ctx, request)) throw new AppError("ROUTE_HIDDEN");
  };
}

/**
 * The credential of an authorized admin request (the bearer when it carries one, else the page's
 * session), with the request id and client IP the front door recorded.
 */
export function adminOriginOf(ctx: Pick<AppContext, "config">, request: Request): AdminOrigin {
  const meta = requestMeta(request);
  const bearer = bearerMatches(request.headers.get("authorization"), ctx.config.adminSecret);
  return {
    actor: bearer ? ADMIN_API_ACTOR : ADMIN_PAGE_ACTOR,
    requestId: meta?.id ?? null,
    clientIp: meta?.ip ?? null,
  };
}
