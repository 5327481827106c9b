/**
 * The HTTP API: one Elysia app, one onError that maps every failure to SPEC's `{error}` envelope,
 * per-IP rate limits on the routes of SPEC's Limits table, and the feature route plugins.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { adminRoutes } from "../admin/routes";
import { jobRoutes } from "../jobs/routes";
import { accountRoutes } from "../accounts/routes";
import { authRoutes } from "../auth/routes";
import { statsRoutes } from "../stats/routes";
import { accountPublicRoutes } from "../accounts/public-routes";
import { feedRoutes } from "../ledger/feed-routes";
import { launchConfigRoutes } from "../launches/config-routes";
import { launchRoutes } from "../launches/routes";
import { proofRoutes } from "../proof/routes";
import { tokenRoutes } from "../tokens/routes";
import { openapiPlugin } from "./openapi";
import { log } from "../lib/log";
import { webRoutes } from "../web";
import { clientIp } from "./client-ip";
import { errorResponse, HttpError } from "./errors";
import { limitRuleFor } from "./rate-limit";

/** Largest request body any route accepts (the launch image upload is the big one). */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

export function createApp(ctx: AppContext) {
  return new Elysia({ normalize: true })
    .onRequest(({ request, server, set }) => {
      const url = new URL(request.url);
      const length = Number(request.headers.get("content-length") ?? "0");
      if (Number.isFinite(length) && length > MAX_BODY_BYTES) {
        return errorResponse(413, "The request body is too large.");
      }
      if (!ctx.config.rateLimit) return;
      const rule = limitRuleFor(request.method, url.pathname);
      if (!rule) return;
      const socket = server?.requestIP(request)?.address ?? null;
      const ip = clientIp(request, socket, { trustProxyHeader: ctx.config.trustProxyHeader });
      const decision = ctx.limiter.hit(rule, ip);
      Object.assign(set.headers, decision.headers);
      if (!decision.allowed) {
        return errorResponse(429, "Too many requests; retry after the time in retry-after.", decision.headers);
      }
    })
    .onError(({ code, error, set, request }) => {
      const headers = Object.fromEntries(
        Object.entries(set.headers).filter(([k]) => k.startsWith("x-ratelimit-")),
      ) as Record<string, string>;
      if (error instanceof HttpError) return errorResponse(error.status, error.message, { ...headers, ...error.headers });
      switch (code) {
        case "NOT_FOUND":
          return errorResponse(404, "No such route.", headers);
        case "VALIDATION":
          return errorResponse(400, validationMessage(error), headers);
        case "PARSE":
          return errorResponse(400, "The request body could not be read; send a JSON object.", headers);
        default: {
          log.error("request failed", { method: request.method, path: new URL(request.url).pathname, error });
          return errorResponse(500, "Something went wrong on our side; try again later.", headers);
        }
      }
    })
    .use(openapiPlugin())
    .use(statsRoutes(ctx))
    .use(jobRoutes(ctx))
    .use(tokenRoutes(ctx))
    .use(accountPublicRoutes(ctx))
    .use(feedRoutes(ctx))
    .use(launchConfigRoutes(ctx))
    .use(launchRoutes(ctx))
    .use(proofRoutes(ctx))
    .use(authRoutes(ctx))
    .use(accountRoutes(ctx))
    .use(adminRoutes(ctx))
    .use(webRoutes(ctx));
}

export type App = ReturnType<typeof createApp>;

/** A short sentence naming the bad field, never the schema or the value. */
function validationMessage(error: unknown): string {
  const e = error as { type?: string; valueError?: { path?: string } };
  const path = e.valueError?.path?.replace(/^\//, "").replace(/\//g, ".") ?? "";
  const where = e.type === "query" ? "query parameter" : e.type === "params" ? "path parameter" : "field";
  return path ? `The ${where} '${path}' is not valid.` : "The request is not valid.";
}
