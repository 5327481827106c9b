/**
 * Job health (public) and the cron trigger route (DESIGN §5): `POST /api/cron/:job` with
 * `Authorization: Bearer <CRON_SECRET>` runs one job now under the same lease as the schedule.
 * Without the secret, or with a wrong one, the route does not exist (404).
 */
import { Elysia, t } from "elysia";
import { bearerMatches } from "../http/bearer";
import { CACHE } from "../http/cache";
import { Int } from "../http/public-schemas";
import { conflict, notFound, unavailable } from "../http/errors";
import { indexerStateOf } from "./indexer-state";
import { jobHealth } from "./health";
import { jobSetup, type SchedulingContext } from "./setup";
import { isJobName, JOB_NAMES } from "./names";

const JobHealthSchema = t.Object({
  job: t.String(),
  lastRunAt: t.Union([t.String({ format: "date-time" }), t.Null()]),
  lastOkAt: t.Union([t.String({ format: "date-time" }), t.Null()]),
  secondsSinceOk: t.Union([Int(), t.Null()]),
  stale: t.Boolean(),
  running: t.Boolean(),
  runs: Int(),
  lastError: t.Union([t.String(), t.Null()]),
  configured: t.Boolean(),
  nextRunAt: t.Union([t.String({ format: "date-time" }), t.Null()]),
});

/** Additive (SPEC versioning rule 2): present when this process runs the indexer. */
const IndexerHealthSchema = t.Object({
  mode: t.Union([t.Literal("grpc"), t.Literal("poll"), t.Literal("standby"), t.Literal("stopped")]),
  connected: t.Boolean(),
  lastSlot: t.Union([Int(), t.Null()]),
  headSlot: t.Union([Int(), t.Null()]),
  lagSlots: t.Union([Int(), t.Null()]),
  lastUpdateAt: t.Union([t.String({ format: "date-time" }), t.Null()]),
  reconnects: Int(),
  lastError: t.Union([t.String(), t.Null()]),
  tokens: Int(),
});

export const HealthSchema = t.Object({
  ok: t.Boolean(),
  staleAfterSec: Int(),
  jobs: t.Array(JobHealthSchema),
  checkedAt: t.String({ format: "date-time" }),
  indexer: t.Optional(IndexerHealthSchema),
  /** Additive: tokens the money jobs set aside, and those stopped on a credit mismatch (then ok is false). */
  setAside: t.Optional(t.Object({ tokens: Int(), stopped: Int() })),
  /**
   * Additive: signed transactions neither seen landing nor proven expired 10 minutes after they
   * were signed (no node that keeps their history answered); their items wait, never re-signed,
   * and ok is false until one does.
   */
  undecided: t.Optional(
    t.Object({ transactions: Int(), oldestSignedAt: t.Union([t.String({ format: "date-time" }), t.Null()]) }),
  ),
});

export function jobRoutes(ctx: SchedulingContext) {
  return new Elysia({ name: "jobs" })
    .get(
      "/api/cron/health",
      ({ set }) => {
        set.headers["cache-control"] = CACHE.noStore;
        const indexer = indexerStateOf(ctx);
        const health = jobHealth(ctx.db, ctx.now(), jobSetup(ctx));
        return indexer ? { ...health, indexer } : health;
      },
      { response: { 200: HealthSchema }, detail: { tags: ["public"], summary: "Scheduled job health" } },
    )
    .post(
      "/api/cron/:job",
      async ({ params, request, set }) => {
        if (!bearerMatches(request.headers.get("authorization"), ctx.config.cronSecret)) throw notFound();
        if (!isJobName(params.job)) throw notFound();
        set.headers["cache-control"] = CACHE.noStore;
        const result = await ctx.scheduler.runNow(params.job);
        if (!result.ran && result.reason === "busy")
          throw conflict("That job is running already; try again when it finishes.");
        if (!result.ran && result.reason === "not_registered")
          throw unavailable("That job is not available on this deployment yet.");
        if (!result.ran) throw unavailable("The service is shutting down.");
        return { job: params.job, ok: result.ok, error: result.error, durationMs: result.durationMs };
      },
      { detail: { hide: true } },
    );
}

export { JOB_NAMES };
