/**
 * The operator page's API: its sign-in (`/api/admin/session`) and the reads the page shows beside
 * the admin actions. Like every admin route these answer 404 when ADMIN_SECRET is unset and are
 * not part of the public API; the reads take the bearer or the page's session (adminAuthorized).
 */
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { appendSetCookie } from "../auth";
import { jsonObject } from "../auth";
import { CACHE } from "../http/cache";
import { AppError } from "../lib/errors";
import { adminOverview, adminTokens, auditPageEvent } from "./page-service";
import {
  ADMIN_SESSION_TTL_MS,
  adminCookie,
  adminSessionValid,
  createAdminSession,
  deleteAdminSession,
  sameOriginWrite,
  secretMatches,
} from "./session";
import { adminGuard } from "./authorized";

const notFound = () => new AppError("NOT_FOUND", "Not found.");
/** Signing in or out from another site's page would plant or drop an operator session. */
const crossSite = () => new AppError("FORBIDDEN", "Requests from another site are refused.");

export function adminPageRoutes(ctx: AppContext) {
  const configured = () => {
    if (!ctx.config.adminSecret) throw notFound();
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
        // Signing in from another site's form would plant an operator session: same origin only.
        if (!sameOriginWrite(request, ctx.config)) throw crossSite();
        const input = jsonObject(request, body);
        if (typeof input.secret !== "string" || input.secret.length === 0 || input.secret.length > 1024) {
          throw new AppError("INVALID_INPUT", "Enter the admin key.");
        }
        if (!secretMatches(input.secret, ctx.config.adminSecret)) {
          throw new AppError("SIGN_IN_REQUIRED", "That is not the admin key.");
        }
        const nowMs = ctx.now();
        const { token } = createAdminSession(ctx.db, nowMs);
        auditPageEvent(ctx.db, "admin_sign_in", nowMs);
        appendSetCookie(set.headers, adminCookie(ctx.config, token, ADMIN_SESSION_TTL_MS));
        return { ok: true as const };
      },
      { parse: "text", detail: { hide: true } },
    )
    .delete(
      "/api/admin/session",
      ({ request, set }) => {
        configured();
        if (!sameOriginWrite(request, ctx.config)) throw crossSite();
        if (adminSessionValid(ctx.db, ctx.config, request, ctx.now())) {
          deleteAdminSession(ctx.db, ctx.config, request);
          auditPageEvent(ctx.db, "admin_sign_out", ctx.now());
        }
        appendSetCookie(set.headers, adminCookie(ctx.config, "", 0));
        return { ok: true as const };
      },
      { detail: { hide: true } },
    )
    .get(
      "/api/admin/overview",
      ({ request }) => {
        guard(request);
        return adminOverview(ctx.db, ctx.config, ctx.now());
      },
      { detail: { hide: true } },
    )
    .get(
      "/api/admin/tokens",
      ({ request, query }) => {
        guard(request);
        const q = (query.q ?? "").trim();
        if (q.length > 64) throw new AppError("INVALID_INPUT", "The search is longer than 64 characters.");
        return { tokens: adminTokens(ctx.db, q || null) };
      },
      { detail: { hide: true } },
    );
}
