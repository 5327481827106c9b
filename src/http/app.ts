/**
 * The HTTP API: one Elysia app, one onError that maps every failure to SPEC's `{error}` envelope,
 * per-IP rate limits on the routes of SPEC's Limits table, and the feature route plugins.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { adminRoutes } from "../admin/routes";
import { setAsideRoutes } from "../admin/set-aside-routes";
import { metricsRoutes } from "../metrics/routes";
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

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Per-request bookkeeping for logs and metrics, keyed by the Request object itself. */
const started = new WeakMap<Request, { atMs: number; id: string }>();

export function createApp(ctx: AppContext) {
  return new Elysia({ normalize: true })
    .onRequest(({ request, server, set }) => {
      // An incoming id is kept only when well-formed, so a client cannot inject into the logs.
      const incoming = request.headers.get("x-request-id");
      const id = incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
      started.set(request, { atMs: performance.now(), id });
      set.headers["x-request-id"] = id;
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
        Object.entries(set.headers).filter(([k]) => k.startsWith("x-ratelimit-") || k === "x-request-id"),
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
          log.error("request failed", { requestId: started.get(request)?.id, method: request.method, path: new URL(request.url).pathname, error });
          return errorResponse(500, "Something went wrong on our side; try again later.", headers);
        }
      }
    })
    .onAfterResponse({ as: "global" }, ({ request, route, set, response }) => {
      const info = started.get(request);
      if (!info) return;
      const status = response instanceof Response ? response.status : typeof set.status === "number" ? set.status : 200;
      const seconds = (performance.now() - info.atMs) / 1000;
      // Label by the matched pattern, never the raw path: bounded series.
      const pattern = route || "unmatched";
      ctx.metrics.requests.inc({ route: pattern, method: request.method, status: String(status) });
      ctx.metrics.requestSeconds.observe({ route: pattern }, seconds);
      log.debug("request", { requestId: info.id, method: request.method, route: pattern, status, ms: Math.round(seconds * 1000) });
    })
    .use(openapiPlugin())
    .use(metricsRoutes(ctx))
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
    .use(setAsideRoutes(ctx))
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
