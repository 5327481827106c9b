/**
 * Job health (public) and the cron trigger route (DESIGN §5): `POST /api/cron/:job` with
 * `Authorization: Bearer <CRON_SECRET>` starts one job now under the same lease as the schedule
 * and answers 202 with a run id; `GET /api/cron/runs/:runId` reports the run. Without the secret,
 * or with a wrong one, the routes do not exist (404).
 */
import { Elysia, t } from "elysia";
import { bearerMatches } from "../http/bearer";
import { CACHE } from "../http/cache";
import { documentedString } from "../http/params";
import { errors, Int } from "../http/public-schemas";
import { CronRunSchema, CronStartedSchema, OPERATOR_TAG } from "./cron-schemas";
import { CronRuns, MAX_RUNS } from "./cron-runs";
import { AppError } from "../lib/errors";
import { indexerStateOf } from "./indexer-state";
import { jobHealth, publicHalted } from "./health";
import { publicBackupStatus } from "./backup-status";
import { jobSetup, type SchedulingContext } from "./setup";
import type { JobRunner } from "./scheduler";
import { isJobName, JOB_NAMES } from "./names";

const JobHealthSchema = t.Object(
  {
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
  },
  { title: "JobHealth" },
);

/** Additive (SPEC versioning rule 2): present when this process runs the indexer. */
const IndexerHealthSchema = t.Object(
  {
    mode: t.Union([t.Literal("grpc"), t.Literal("poll"), t.Literal("standby"), t.Literal("stopped")]),
    connected: t.Boolean(),
    lastSlot: t.Union([Int(), t.Null()]),
    headSlot: t.Union([Int(), t.Null()]),
    lagSlots: t.Union([Int(), t.Null()]),
    lastUpdateAt: t.Union([t.String({ format: "date-time" }), t.Null()]),
    reconnects: Int(),
    lastError: t.Union([t.String(), t.Null()]),
    tokens: Int(),
    /** Additive: the accounts the stream watches (the provider bills filters and their updates). */
    accounts: t.Optional(Int()),
    /** Additive: the stream's bytes received since the indexer started (protobuf payloads). */
    receivedBytes: t.Optional(Int()),
  },
  { title: "IndexerHealth" },
);

export const HealthSchema = t.Object(
  {
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
    /**
     * Additive: a custody breaker (a reserves shortfall, a failed books audit, an outflow cap) that
     * halted payouts, burn buys and withdrawals until an operator resumes; then ok is false. Its
     * `detail` is one fixed sentence here: the figures (amounts, caps) are for operators (/admin).
     */
    halted: t.Optional(
      t.Union([t.Object({ kind: t.String(), detail: t.String(), since: t.String({ format: "date-time" }) }), t.Null()]),
    ),
    /**
     * Additive: JSON-RPC requests the service made to its provider (each call of a batch counts),
     * by every thread: in the previous full clock hour, its response bytes, and so far this hour.
     */
    provider: t.Optional(t.Object({ requestsPerHour: Int(), responseBytesPerHour: Int(), requestsThisHour: Int() })),
    /**
     * Additive: the newest reconciliation of the books with the treasury's history (after a
     * restore, or a start that found a treasury transaction the database did not know) and its
     * progress; absent when there never was one. While it runs money is halted (`halted.kind`
     * `reconciling`); `blocked` means a treasury transaction nobody can account for.
     */
    reconciliation: t.Optional(
      t.Object({
        status: t.Union([t.Literal("scanning"), t.Literal("applying"), t.Literal("done"), t.Literal("blocked")]),
        reason: t.Union([t.Literal("restore"), t.Literal("start")]),
        scanned: Int(),
        total: Int(),
        applied: Int(),
        unknown: Int(),
        startedAt: t.String({ format: "date-time" }),
        finishedAt: t.Union([t.String({ format: "date-time" }), t.Null()]),
      }),
    ),
    /**
     * Additive: an upgrade of a program whose instructions the jobs build (its name, e.g. `pump`)
     * that no operator has acknowledged yet: the jobs named stand still until one does, and ok is
     * false. Absent when nothing waits.
     */
    programChange: t.Optional(
      t.Object({
        programs: t.Array(t.String()),
        pausedJobs: t.Array(t.String()),
        since: t.String({ format: "date-time" }),
      }),
    ),
    /**
     * Additive, only where off-site backups are configured (BACKUP_URL): whether they keep up.
     * `missedGenerations` counts scheduled generations since the last success that did not become
     * one; at two, `ok` is false here and at the top. The store's errors are for operators (/admin).
     */
    backup: t.Optional(
      t.Object({
        ok: t.Boolean(),
        missedGenerations: Int(),
        lastOkAt: t.Union([t.String({ format: "date-time" }), t.Null()]),
      }),
    ),
  },
  { title: "Health" },
);

export function jobRoutes(ctx: SchedulingContext<JobRunner>) {
  const runs = new CronRuns(ctx.db, ctx.scheduler);
  return new Elysia({ name: "jobs" })
    .get(
      "/api/cron/health",
      ({ set }) => {
        set.headers["cache-control"] = CACHE.noStore;
        const indexer = indexerStateOf(ctx);
        const { backup, ...full } = jobHealth(ctx.db, ctx.now(), jobSetup(ctx), ctx.config.backup);
        const health = {
          ...full,
          halted: publicHalted(full.halted),
          ...(backup ? { backup: publicBackupStatus(backup) } : {}),
        };
        return indexer ? { ...health, indexer } : health;
      },
      { response: { 200: HealthSchema }, detail: { tags: ["public"], summary: "Scheduled job health" } },
    )
    .post(
      "/api/cron/:job",
      async ({ params, request, set }) => {
        if (!bearerMatches(request.headers.get("authorization"), ctx.config.cronSecret))
          throw new AppError("ROUTE_HIDDEN");
        if (!isJobName(params.job)) throw new AppError("ROUTE_HIDDEN");
        set.headers["cache-control"] = CACHE.noStore;
        // Answered once the run has started: a scheduler's HTTP timeout must not decide a run's fate.
        const outcome = await runs.start(params.job);
        if ("refused" in outcome && outcome.refused === "busy") throw new AppError("JOB_RUNNING");
        if ("refused" in outcome && outcome.refused === "not_registered") throw new AppError("JOB_NOT_AVAILABLE");
        if ("refused" in outcome) throw new AppError("SERVICE_STOPPING");
        const { runId, job } = outcome.started;
        set.status = 202;
        set.headers.location = `/api/cron/runs/${runId}`;
        return { runId, job };
      },
      {
        // Checked by the handler (an unknown name answers 404, as a route that does not exist).
        params: t.Object({
          job: documentedString({ type: "string", enum: [...JOB_NAMES], description: "the job to start" }),
        }),
        response: { 202: CronStartedSchema, ...errors(404, 409, 429, 503) },
        detail: {
          tags: [OPERATOR_TAG],
          summary: "Start a job now",
          description:
            "Answers 202 as soon as the run has started; read its outcome from GET /api/cron/runs/{runId}. " +
            "409 while a run of that job holds its lease. 404 when CRON_SECRET is unset or the bearer is wrong.",
        },
      },
    )
    .get(
      "/api/cron/runs/:runId",
      ({ params, request, set }) => {
        if (!bearerMatches(request.headers.get("authorization"), ctx.config.cronSecret))
          throw new AppError("ROUTE_HIDDEN");
        set.headers["cache-control"] = CACHE.noStore;
        const run = runs.get(params.runId);
        if (!run) throw new AppError("CRON_RUN_NOT_FOUND");
        return run;
      },
      {
        params: t.Object({ runId: documentedString({ type: "string", pattern: "^run_[0-9a-f]{32}$" }) }),
        response: { 200: CronRunSchema, ...errors(404, 429) },
        detail: {
          tags: [OPERATOR_TAG],
          summary: "A run started by the cron route: its state and report",
          description:
            "`report` says what the run did once it has succeeded (its `job` names the report's shape). " +
            `The last ${MAX_RUNS} runs of this process are kept.`,
        },
      },
    );
}
