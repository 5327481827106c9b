/**
 * Who may use `/api/admin/*`: the one place that decides it, called by the front door before any
 * body is read and by the admin routes themselves. Today: `Authorization: Bearer <ADMIN_SECRET>`.
 * Another way in (e.g. an operator page's session) belongs here, as one more accepted credential.
 */
import type { AppContext } from "../context";
import { bearerMatches } from "../jobs/routes";

/** Whether admin routes exist on this deployment at all; without, every admin path is a 404. */
export function adminEnabled(ctx: Pick<AppContext, "config">): boolean {
  return ctx.config.adminSecret !== null;
}

export function adminAuthorized(ctx: Pick<AppContext, "config">, request: Request): boolean {
  return bearerMatches(request.headers.get("authorization"), ctx.config.adminSecret);
}
