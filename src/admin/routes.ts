/**
 * `/api/admin/*` behind a named operator's `Authorization: Basic` (ADMIN_OPERATORS_FILE), the shared
 * `Authorization: Bearer <ADMIN_SECRET>`, or the /admin page's session; with neither configured, or
 * a wrong credential, every admin route answers 404 as if it did not exist. Not part of the public
 * API.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { CACHE } from "../http/cache";
import { listFeeSharing } from "../tokens";
import { auditLog, performAdminAction, type AdminAction } from "./service";
import { AppError } from "../lib/errors";
import { adminGuard, adminOriginOf } from "./authorized";
import { operatorsOf } from "./operators";

interface ActionBody {
  reason: string | null;
  mint?: string;
  lamports?: bigint;
}

function parseBody(body: unknown): ActionBody {
  if (body === undefined || body === null || body === "") return { reason: null };
  if (typeof body !== "object" || Array.isArray(body)) throw new AppError("BODY_NOT_OBJECT");
  const { reason, mint, lamports } = body as Record<string, unknown>;
  if (reason !== undefined && reason !== null && typeof reason !== "string") {
    throw new AppError("REASON_NOT_STRING");
  }
  if (mint !== undefined && typeof mint !== "string") throw new AppError("MINT_NOT_STRING");
  if (lamports !== undefined && (typeof lamports !== "string" || !/^\d{1,19}$/.test(lamports))) {
    throw new AppError("LAMPORTS_NOT_DECIMAL");
  }
  return {
    reason: reason ?? null,
    mint,
    lamports: lamports === undefined ? undefined : BigInt(lamports),
  };
}

function needMint(body: ActionBody, mint?: string): string {
  const value = mint ?? body.mint;
  if (!value) throw new AppError("MINT_REQUIRED");
  return value;
}

function needLamports(body: ActionBody): bigint {
  if (body.lamports === undefined) throw new AppError("LAMPORTS_REQUIRED");
  return body.lamports;
}

/** The action routes: path, and the action a parsed body (and the path's mint) asks for. */
const ACTION_ROUTES: { path: string; build: (body: ActionBody, params: { mint?: string }) => AdminAction }[] = [
  { path: "/api/admin/tokens/:mint/hide", build: (b, p) => ({ action: "hide_token", mint: needMint(b, p.mint) }) },
  { path: "/api/admin/tokens/:mint/unhide", build: (b, p) => ({ action: "unhide_token", mint: needMint(b, p.mint) }) },
  { path: "/api/admin/claims/pause", build: () => ({ action: "pause_claims" }) },
  { path: "/api/admin/claims/resume", build: () => ({ action: "resume_claims" }) },
  { path: "/api/admin/launches/pause", build: () => ({ action: "pause_launches" }) },
  { path: "/api/admin/launches/resume", build: () => ({ action: "resume_launches" }) },
  { path: "/api/admin/platform-token", build: (b) => ({ action: "set_platform_token", mint: needMint(b) }) },
  { path: "/api/admin/min-claim", build: (b) => ({ action: "set_min_claim", lamports: needLamports(b) }) },
  { path: "/api/admin/autopay-min", build: (b) => ({ action: "set_autopay_min", lamports: needLamports(b) }) },
];

export function adminRoutes(ctx: AppContext) {
  // Read now, so a bad operators file stops the start rather than the first admin request.
  operatorsOf(ctx.config);
  // The front door checked this before the body was read; checked again so no route depends on it.
  const guard = adminGuard(ctx);
  const run = (request: Request, body: unknown, build: (b: ActionBody) => AdminAction) => {
    guard(request);
    const parsed = parseBody(body);
    const action = build(parsed);
    // Recorded as who sent it: the operator's name, or the shared secret's admin-api / admin-page.
    performAdminAction(ctx.db, { ...adminOriginOf(ctx, request), reason: parsed.reason, nowMs: ctx.now() }, action);
    return { ok: true, action: action.action };
  };
  const app = new Elysia({ name: "admin" }).onAfterHandle(({ set }) => {
    set.headers["cache-control"] = CACHE.noStore;
  });
  for (const route of ACTION_ROUTES) {
    app.post(route.path, ({ request, body, params }) => run(request, body, (b) => route.build(b, params)), {
      detail: { hide: true },
    });
  }
  return app
    .get(
      "/api/admin/audit",
      ({ request, query }) => {
        guard(request);
        const raw = query.limit ?? "50";
        if (!/^\d{1,3}$/.test(raw)) throw new AppError("LIMIT_INVALID", { maximum: 500 });
        return { entries: auditLog(ctx.db, Number(raw)) };
      },
      { detail: { hide: true } },
    )
    .get(
      "/api/admin/fee-sharing",
      ({ request }) => {
        guard(request);
        return { items: listFeeSharing(ctx.db) };
      },
      { detail: { hide: true } },
    );
}
