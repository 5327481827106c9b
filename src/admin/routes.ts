/**
 * `/api/admin/*` behind `Authorization: Bearer <ADMIN_SECRET>`; with the secret unset, or a wrong
 * one, every admin route answers 404 as if it did not exist. Not part of the public API.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { CACHE } from "../http/cache";
import { badRequest, notFound } from "../http/errors";
import { requestMeta } from "../http/request-meta";
import { adminAuthorized } from "./authorized";
import { listFeeSharing } from "../tokens";
import { AdminInputError, AdminNotFoundError, auditLog, performAdminAction, type AdminAction } from "./service";

function parseBody(body: unknown): { reason: string | null; mint?: string; lamports?: bigint } {
  if (body === undefined || body === null || body === "") return { reason: null };
  if (typeof body !== "object" || Array.isArray(body)) throw badRequest("The body must be a JSON object.");
  const b = body as Record<string, unknown>;
  if (b.reason !== undefined && b.reason !== null && typeof b.reason !== "string")
    throw badRequest("The reason must be a string.");
  if (b.mint !== undefined && typeof b.mint !== "string") throw badRequest("The mint must be a string.");
  let lamports: bigint | undefined;
  if (b.lamports !== undefined) {
    if (typeof b.lamports !== "string" || !/^\d{1,19}$/.test(b.lamports))
      throw badRequest("lamports must be a decimal string of whole lamports.");
    lamports = BigInt(b.lamports);
  }
  return { reason: (b.reason as string | undefined) ?? null, mint: b.mint as string | undefined, lamports };
}

export function adminRoutes(ctx: AppContext) {
  // The front door checked this before the body was read; checked again so no route depends on it.
  const guard = (request: Request) => {
    if (!adminAuthorized(ctx, request)) throw notFound();
  };
  const run = (request: Request, body: unknown, build: (b: ReturnType<typeof parseBody>) => AdminAction) => {
    guard(request);
    const parsed = parseBody(body);
    const action = build(parsed);
    try {
      const meta = requestMeta(request);
      performAdminAction(
        ctx.db,
        {
          actor: "admin-api",
          reason: parsed.reason,
          nowMs: ctx.now(),
          requestId: meta?.id ?? null,
          clientIp: meta?.ip ?? null,
        },
        action,
      );
    } catch (error) {
      if (error instanceof AdminInputError) throw badRequest(error.message);
      if (error instanceof AdminNotFoundError) throw notFound(error.message);
      throw error;
    }
    return { ok: true, action: action.action };
  };
  const needMint = (b: ReturnType<typeof parseBody>, mint?: string) => {
    const value = mint ?? b.mint;
    if (!value) throw badRequest("A mint is required.");
    return value;
  };
  const needLamports = (b: ReturnType<typeof parseBody>) => {
    if (b.lamports === undefined) throw badRequest("lamports is required.");
    return b.lamports;
  };
  return new Elysia({ name: "admin" })
    .onAfterHandle(({ set }) => {
      set.headers["cache-control"] = CACHE.noStore;
    })
    .post(
      "/api/admin/tokens/:mint/hide",
      ({ request, body, params }) =>
        run(request, body, (b) => ({ action: "hide_token", mint: needMint(b, params.mint) })),
      { detail: { hide: true } },
    )
    .post(
      "/api/admin/tokens/:mint/unhide",
      ({ request, body, params }) =>
        run(request, body, (b) => ({ action: "unhide_token", mint: needMint(b, params.mint) })),
      { detail: { hide: true } },
    )
    .post("/api/admin/claims/pause", ({ request, body }) => run(request, body, () => ({ action: "pause_claims" })), {
      detail: { hide: true },
    })
    .post("/api/admin/claims/resume", ({ request, body }) => run(request, body, () => ({ action: "resume_claims" })), {
      detail: { hide: true },
    })
    .post(
      "/api/admin/launches/pause",
      ({ request, body }) => run(request, body, () => ({ action: "pause_launches" })),
      { detail: { hide: true } },
    )
    .post(
      "/api/admin/launches/resume",
      ({ request, body }) => run(request, body, () => ({ action: "resume_launches" })),
      { detail: { hide: true } },
    )
    .post(
      "/api/admin/platform-token",
      ({ request, body }) => run(request, body, (b) => ({ action: "set_platform_token", mint: needMint(b) })),
      { detail: { hide: true } },
    )
    .post(
      "/api/admin/min-claim",
      ({ request, body }) => run(request, body, (b) => ({ action: "set_min_claim", lamports: needLamports(b) })),
      { detail: { hide: true } },
    )
    .post(
      "/api/admin/autopay-min",
      ({ request, body }) => run(request, body, (b) => ({ action: "set_autopay_min", lamports: needLamports(b) })),
      { detail: { hide: true } },
    )
    .get(
      "/api/admin/audit",
      ({ request, query }) => {
        guard(request);
        const raw = (query as Record<string, string | undefined>).limit ?? "50";
        if (!/^\d{1,3}$/.test(raw)) throw badRequest("limit must be a whole number from 1 to 500.");
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
