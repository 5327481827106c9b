/**
 * `/api/admin/webhooks...`: register, list and remove webhook endpoints, see their deliveries and
 * replay events. Behind the admin guard like every admin route (404 without the secret); the
 * guard runs before the body is read.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { CACHE } from "../http/cache";
import { badRequest, HttpError, notFound } from "../http/errors";
import { bearerMatches } from "../http/bearer";
import { parseBefore } from "../ledger";
import { checkDestination, DestinationError, parseDestination } from "./destination";
import { webhookSigningKey } from "./key";
import {
  createWebhook,
  deleteWebhook,
  listDeliveries,
  listWebhooks,
  parseTypes,
  replayWebhook,
  WebhookInputError,
} from "./service";

const MAX_BODY_BYTES = 16 * 1024;
const ID_SHAPE = /^wh_[0-9a-f]{24}$/;

async function readJsonObject(request: Request): Promise<Record<string, unknown>> {
  const text = await request.text();
  if (text.length > MAX_BODY_BYTES) throw new HttpError(413, "The request body is too large.");
  let body: unknown;
  try {
    body = text === "" ? {} : JSON.parse(text);
  } catch {
    throw badRequest("The request body could not be read; send a JSON object.");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw badRequest("The body must be a JSON object.");
  return body as Record<string, unknown>;
}

export function webhookRoutes(ctx: AppContext) {
  const guard = (request: Request) => {
    if (!bearerMatches(request.headers.get("authorization"), ctx.config.adminSecret)) throw notFound();
  };
  const knownId = (id: string) => {
    if (!ID_SHAPE.test(id)) throw notFound("No such webhook.");
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
        const body = await readJsonObject(request);
        try {
          const url = parseDestination(body.url);
          const types = parseTypes(body.types);
          await checkDestination(url, ctx.config.webhooksAllowPrivate);
          return createWebhook(ctx.db, {
            url: url.href,
            types,
            nowMs: ctx.now(),
            signingKey: webhookSigningKey(ctx.config),
          });
        } catch (error) {
          if (error instanceof DestinationError || error instanceof WebhookInputError) throw badRequest(error.message);
          throw error;
        }
      },
      { parse: "none", detail: { hide: true } },
    )
    .delete(
      "/api/admin/webhooks/:id",
      ({ request, params }) => {
        guard(request);
        if (!deleteWebhook(ctx.db, knownId(params.id))) throw notFound("No such webhook.");
        return { ok: true };
      },
      { detail: { hide: true } },
    )
    .get(
      "/api/admin/webhooks/:id/deliveries",
      ({ request, params, query }) => {
        guard(request);
        const raw = (query as Record<string, string | undefined>).limit ?? "100";
        if (!/^\d{1,3}$/.test(raw) || Number(raw) < 1 || Number(raw) > 500)
          throw badRequest("limit must be a whole number from 1 to 500.");
        const deliveries = listDeliveries(ctx.db, knownId(params.id), Number(raw), ctx.now());
        if (deliveries === null) throw notFound("No such webhook.");
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
        if (sinceUs === null) throw badRequest("since is required: an ISO 8601 time.");
        const queued = replayWebhook(ctx.db, id, sinceUs);
        if (queued === null) throw notFound("No such webhook.");
        return { queued };
      },
      { parse: "none", detail: { hide: true } },
    );
}
