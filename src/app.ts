/**
 * The HTTP API: one Elysia app, one onError that maps every failure to SPEC's `{error}` envelope,
 * per-IP rate limits on the routes of SPEC's Limits table, and the feature route plugins. Part of
 * the composition root: it knows every feature's routes; no feature knows it.
 */
import { Elysia } from "elysia";
import { accountPublicRoutes } from "./accounts/public-routes";
import { accountRoutes } from "./accounts/routes";
import { adminPageRoutes } from "./admin/page-routes";
import { adminRoutes } from "./admin/routes";
import { setAsideRoutes } from "./admin/set-aside-routes";
import { custodyRoutes } from "./admin/custody-routes";
import { programRoutes } from "./admin/program-routes";
import { authRoutes } from "./auth/routes";
import { createFrontDoor } from "./front-door";
import { historyRoutes } from "./history/routes";
import { bodyWasTooLarge } from "./http/body-limit";
import { appErrorResponse, carriedHeaders, errorResponse } from "./http/errors";
import { repeatedQueryGuard, type RouteQuerySchema } from "./http/params";
import { requestMeta } from "./http/request-meta";
import { JobKicker } from "./jobs/kicker";
import { jobRoutes } from "./jobs/routes";
import type { SchedulingContext } from "./jobs/setup";
import type { JobRunner } from "./jobs/scheduler";
import { launchConfigRoutes } from "./launches/config-routes";
import { launchRoutes } from "./launches/routes";
import { feedRoutes } from "./ledger/feed-routes";
import { feedStreamRoutes } from "./ledger/stream-routes";
import { liabilityRoutes } from "./liabilities/routes";
import { AppError } from "./lib/errors";
import { stopOnBrokenInvariant } from "./lib/invariant";
import { log, logsAt } from "./lib/log";
import { metricsRoutes } from "./metrics/routes";
import { openapiPlugin } from "./openapi";
import { proofRoutes } from "./proof/routes";
import { statsRoutes } from "./stats/routes";
import { tokenRoutes } from "./tokens/routes";
import { webRoutes } from "./web";
import { webhookRoutes } from "./webhooks/routes";
import { noteRequest } from "./workers/pace";

/** A finished request in the metrics (and the debug log), labelled by its route's pattern. */
function recordRequest(
  ctx: SchedulingContext<JobRunner>,
  request: Request,
  route: string,
  setStatus: number,
  response: unknown,
): void {
  const info = requestMeta(request);
  if (!info) return;
  const status = response instanceof Response ? response.status : setStatus;
  const seconds = (performance.now() - info.atMs) / 1000;
  // Label by the matched pattern, never the raw path: bounded series.
  const pattern = route || "unmatched";
  ctx.metrics.requests.inc({ route: pattern, method: request.method, status: String(status) });
  ctx.metrics.requestSeconds.observe({ route: pattern }, seconds);
  if (!logsAt("debug")) return;
  log.debug("request", {
    requestId: info.id,
    method: request.method,
    route: pattern,
    status,
    ms: Math.round(seconds * 1000),
  });
}

export function createApp(ctx: SchedulingContext<JobRunner>) {
  // A claim starts its payouts run at once rather than at the schedule's next minute.
  const payoutsKicker = new JobKicker(ctx.scheduler, "payouts");
  const screenRequest = createFrontDoor(ctx);
  const refuseRepeated = repeatedQueryGuard((): readonly RouteQuerySchema[] => app.routes);
  const app = new Elysia({ normalize: true })
    .onRequest((context) => {
      // Counted for the jobs' thread, which rests while requests come (src/workers/pace.ts).
      noteRequest();
      // The context is never handed to a function whole: Elysia reads this hook's source to learn
      // what routes use, and a context passed on counts as every part used, so every request of
      // every route would parse its cookies, query and headers before any route looks at them.
      const screened = { request: context.request, server: context.server, set: context.set };
      const refusal = screenRequest(screened);
      context.request = screened.request;
      return refusal;
    })
    // Before validation, which would see only the last of the repeated values.
    .onTransform({ as: "global" }, ({ request, route }) => refuseRepeated(request.method, route, request.url))
    .onError(({ code, error, set, request }) => {
      const headers = carriedHeaders(set.headers);
      if (bodyWasTooLarge(request)) return errorResponse(413, "The request body is too large.", headers);
      if (error instanceof AppError) {
        const mapped = appErrorResponse(error, headers);
        if (mapped) {
          // The status the metrics and the request log read: Elysia only knows an error's own `status`.
          set.status = mapped.status;
          return mapped;
        }
      }
      switch (code) {
        case "NOT_FOUND":
          return errorResponse(404, "No such route.", headers);
        case "VALIDATION":
          return errorResponse(400, validationMessage(error), headers);
        case "PARSE":
          return errorResponse(400, "The request body could not be read; send a JSON object.", headers);
        default: {
          log.error("request failed", {
            requestId: requestMeta(request)?.id,
            method: request.method,
            path: new URL(request.url).pathname,
            error,
          });
          stopOnBrokenInvariant(error, "http");
          return errorResponse(500, "Something went wrong on our side; try again later.", headers);
        }
      }
    })
    .onAfterResponse({ as: "global" }, ({ request, route, set, response }) =>
      recordRequest(ctx, request, route, typeof set.status === "number" ? set.status : 200, response),
    )
    .use(openapiPlugin())
    .use(metricsRoutes(ctx))
    .use(statsRoutes(ctx))
    .use(jobRoutes(ctx))
    .use(tokenRoutes(ctx))
    .use(accountPublicRoutes(ctx))
    .use(feedRoutes(ctx))
    .use(feedStreamRoutes(ctx))
    .use(launchConfigRoutes(ctx))
    .use(launchRoutes(ctx))
    .use(proofRoutes(ctx))
    .use(liabilityRoutes(ctx))
    .use(authRoutes(ctx))
    .use(accountRoutes(ctx, { claimQueued: () => payoutsKicker.kick() }))
    .use(adminRoutes(ctx))
    .use(historyRoutes(ctx))
    .use(adminPageRoutes(ctx))
    .use(webhookRoutes(ctx))
    .use(setAsideRoutes(ctx))
    .use(custodyRoutes(ctx))
    .use(programRoutes(ctx))
    .use(webRoutes(ctx));
  return app;
}

/** A short sentence naming the bad field, never the schema or the value. */
function validationMessage(error: unknown): string {
  const e = error as { type?: string; valueError?: { path?: string; value?: unknown } };
  const path = e.valueError?.path?.replace(/^\//, "").replace(/\//g, ".") ?? "";
  const where = e.type === "query" ? "query parameter" : e.type === "params" ? "path parameter" : "field";
  if (!path) return "The request is not valid.";
  // A required value left out is missing, not malformed: the fix is to send it.
  if (e.valueError && e.valueError.value === undefined) return `The ${where} '${path}' is missing.`;
  return `The ${where} '${path}' is not valid.`;
}
