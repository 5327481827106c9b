/**
 * `/api/admin/webhooks...`: register, list and remove webhook endpoints, see their deliveries and
 * replay events. Behind the admin guard like every admin route (the bearer or the /admin page's
 * session; 404 without); the guard runs before the body is read. Registering, removing and
 * replaying are admin actions: each is audited (credential, request id, client IP, reason) in the
 * transaction that does it.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { immediate } from "../../db/transaction";
import { CACHE } from "../http/cache";
import { adminAuthorized, adminOriginOf, audit } from "../admin";
import { isoMicros, parseBefore } from "../ledger";
import { checkDestination, parseDestination } from "./destination";
import { AppError } from "../lib/errors";
import { webhookSigningKey } from "./key";
import { createWebhook, deleteWebhook, listDeliveries, listWebhooks, parseTypes, replayWebhook } from "./service";

const MAX_BODY_BYTES = 16 * 1024;
const ID_SHAPE = /^wh_[0-9a-f]{24}$/;
const MAX_REASON = 500;

const noSuchWebhook = () => new AppError("WEBHOOK_NOT_FOUND");

async function readJsonObject(request: Request): Promise<Record<string, unknown>> {
  const text = await request.text();
  if (text.length > MAX_BODY_BYTES) throw new AppError("BODY_TOO_LARGE");
  let body: unknown;
  try {
    body = text === "" ? {} : JSON.parse(text);
  } catch (error) {
    throw new AppError("BODY_UNREADABLE", {}, { cause: error });
  }
  if (!isPlainObject(body)) throw new AppError("BODY_NOT_OBJECT");
  return body;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function reasonOf(body: Record<string, unknown>): string | null {
  const { reason } = body;
  if (reason === undefined || reason === null) return null;
  if (typeof reason !== "string") throw new AppError("REASON_NOT_STRING");
  if (reason.length > MAX_REASON) throw new AppError("REASON_TOO_LONG", { maximum: MAX_REASON });
  return reason;
}

/**
 * Runs an admin action on webhooks and writes its audit row in the same transaction. `work`
 * answers its result and the audit subject, or null when there was nothing to act on.
 */
function audited<T>(
  ctx: AppContext,
  request: Request,
  reason: string | null,
  action: string,
  work: () => { value: T; subject: string } | null,
): T | null {
  const who = { ...adminOriginOf(ctx, request), reason, nowMs: ctx.now() };
  return immediate(ctx.db, () => {
    const done = work();
    if (done === null) return null;
    audit(ctx.db, who, action, done.subject);
    return done.value;
  });
}

/** `POST /api/admin/webhooks`: the destination is checked (resolved too) before it is stored. */
async function registerWebhook(ctx: AppContext, request: Request) {
  const body = await readJsonObject(request);
  const url = parseDestination(body.url);
  const types = parseTypes(body.types);
  const reason = reasonOf(body);
  await checkDestination(url, ctx.config.webhooksAllowPrivate);
  const created = audited(ctx, request, reason, "create_webhook", () => {
    const hook = createWebhook(ctx.db, {
      url: url.href,
      types,
      nowMs: ctx.now(),
      signingKey: webhookSigningKey(ctx.config),
    });
    return { value: hook, subject: hook.id };
  });
  return created!;
}

function deliveriesLimit(raw = "100"): number {
  if (!/^\d{1,3}$/.test(raw) || Number(raw) < 1 || Number(raw) > 500) {
    throw new AppError("LIMIT_INVALID", { maximum: 500 });
  }
  return Number(raw);
}

export function webhookRoutes(ctx: AppContext) {
  const guard = (request: Request) => {
    if (!adminAuthorized(ctx, request)) throw new AppError("ROUTE_HIDDEN");
  };
  const knownId = (id: string) => {
    if (!ID_SHAPE.test(id)) throw noSuchWebhook();
    return id;
  };
  return new Elysia({ name: "webhooks" })
    .onAfterHandle(({ set }) => {
      set.headers["cache-control"] = CACHE.noStore;
    })
    .get(
      "/api/admin/webhooks",
      ({ request }) => {
        guard(request);
        return { webhooks: listWebhooks(ctx.db) };
      },
      { detail: { hide: true } },
    )
    .post(
      "/api/admin/webhooks",
      async ({ request }) => {
        guard(request);
        return registerWebhook(ctx, request);
      },
      { parse: "none", detail: { hide: true } },
    )
    .delete(
      "/api/admin/webhooks/:id",
      async ({ request, params }) => {
        guard(request);
        const id = knownId(params.id);
        const reason = reasonOf(await readJsonObject(request));
        const deleted = audited(ctx, request, reason, "delete_webhook", () =>
          deleteWebhook(ctx.db, id) ? { value: true, subject: id } : null,
        );
        if (!deleted) throw noSuchWebhook();
        return { ok: true };
      },
      { parse: "none", detail: { hide: true } },
    )
    .get(
      "/api/admin/webhooks/:id/deliveries",
      ({ request, params, query }) => {
        guard(request);
        const limit = deliveriesLimit(query.limit);
        const deliveries = listDeliveries(ctx.db, knownId(params.id), limit, ctx.now());
        if (deliveries === null) throw noSuchWebhook();
        return { deliveries };
      },
      { detail: { hide: true } },
    )
    .post(
      "/api/admin/webhooks/:id/replay",
      async ({ request, params }) => {
        guard(request);
        const id = knownId(params.id);
        const body = await readJsonObject(request);
        const sinceUs = typeof body.since === "string" ? parseBefore(body.since) : null;
        if (sinceUs === null) throw new AppError("WEBHOOK_SINCE_REQUIRED");
        const reason = reasonOf(body);
        const replayed = audited(ctx, request, reason, "replay_webhook", () => {
          const queued = replayWebhook(ctx.db, id, sinceUs);
          return queued === null ? null : { value: queued, subject: `${id} since ${isoMicros(sinceUs)}` };
        });
        if (replayed === null) throw noSuchWebhook();
        return { queued: replayed };
      },
      { parse: "none", detail: { hide: true } },
    );
}
