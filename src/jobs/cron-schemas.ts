/** The operator answers of the cron routes, for route validation and the operator document. */
import { t } from "elysia";
import { Int, IsoTimeSchema, NullableIsoTime } from "../http/public-schemas";

/** The OpenAPI tag of the routes behind an operator's bearer secret (cron, admin, webhooks). */
export const OPERATOR_TAG = "operator";

/** JOB_NAMES (src/jobs/names.ts), as literals a client's types can use; test/openapi.test.ts compares them. */
const JobNameSchema = t.Union(
  [t.Literal("sweep"), t.Literal("payouts"), t.Literal("burns"), t.Literal("launches"), t.Literal("market")],
  { description: "one of the scheduled jobs" },
);

export const CronStartedSchema = t.Object(
  {
    runId: t.String({ pattern: "^run_[0-9a-f]{32}$", description: "read the run at /api/cron/runs/{runId}" }),
    job: JobNameSchema,
  },
  { title: "CronRunStarted" },
);

export const CronRunSchema = t.Object(
  {
    runId: t.String({ pattern: "^run_[0-9a-f]{32}$" }),
    job: JobNameSchema,
    state: t.Union([t.Literal("running"), t.Literal("succeeded"), t.Literal("failed"), t.Literal("not_run")], {
      description:
        "running until the job finishes; not_run when another run took the job's lease first or the service was stopping",
    }),
    startedAt: IsoTimeSchema,
    finishedAt: { ...NullableIsoTime, description: "null while running" },
    durationMs: t.Union([Int({ minimum: 0 }), t.Null()], { description: "null while running" }),
    error: t.Union([t.String(), t.Null()], {
      description: "why the run failed or did not run, scrubbed of addresses and setting names; null otherwise",
    }),
  },
  { title: "CronRun" },
);
