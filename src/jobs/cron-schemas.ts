/** The operator answers of the cron routes, for route validation and the operator document. */
import { type Static, t } from "elysia";
import { Int, IsoTimeSchema, NullableIsoTime } from "../http/public-schemas";
import { DISCRIMINATED_BY } from "../http/params";

/** The OpenAPI tag of the routes behind an operator's bearer secret (cron, admin, webhooks). */
export const OPERATOR_TAG = "operator";

/** JOB_NAMES (src/jobs/names.ts), as literals a client's types can use; test/openapi.test.ts compares them. */
const JobNameSchema = t.Union(
  [t.Literal("sweep"), t.Literal("payouts"), t.Literal("burns"), t.Literal("launches"), t.Literal("market")],
  { description: "one of the scheduled jobs" },
);

const count = (description: string) => Int({ minimum: 0, description });

/** Program upgrades nobody acknowledged stop the jobs that build their instructions (GET /api/admin/programs). */
const pausedByProgramChange = t.Boolean({
  description: "true when an unacknowledged program upgrade kept the job from running: nothing was tried",
});

const SweepReportSchema = t.Object(
  {
    job: t.Literal("sweep"),
    pausedByProgramChange,
    held: t.Boolean({
      description: "true when nothing was read or sent because the books wait for their check against the chain",
    }),
    tokensRead: count("tokens whose fee vaults were read"),
    tokensSwept: count("tokens a sweep was sent for"),
    transactionsSent: count("sweep transactions sent"),
    confirmed: count("sweeps that confirmed in this run"),
    failed: count("sweeps that failed in this run"),
    pending: count("sweeps still waiting on the chain"),
    sendErrors: count("sends that failed before reaching the chain"),
    reread: count("swept tokens whose stored reading disagreed with the chain and was read again"),
    heldBack: count("tokens not tried: set aside after repeated failures, or stopped"),
  },
  { title: "SweepRunReport" },
);

const WithdrawalsReportSchema = t.Object({
  sent: count("platform withdrawals sent"),
  confirmed: count("platform withdrawals confirmed"),
  failed: count("platform withdrawals failed"),
  requeued: count("platform withdrawals queued again after their transaction expired"),
  pending: count("platform withdrawals still waiting on the chain"),
});

const PayoutsReportSchema = t.Object(
  {
    job: t.Literal("payouts"),
    reconciliation: t.Union(
      [t.Literal("clean"), t.Literal("waiting"), t.Literal("applying"), t.Literal("done"), t.Literal("blocked")],
      {
        description:
          "the step of the books' reconciliation with the treasury's history that ran first; clean: nothing to reconcile",
      },
    ),
    held: t.Boolean({
      description: "true when nothing was queued or sent because a reconciliation or the start's check holds money",
    }),
    autopayQueued: count("autopay payouts queued"),
    sent: count("payouts sent"),
    transactions: count("payout transactions sent"),
    confirmed: count("payouts confirmed"),
    failed: count("payouts failed"),
    replaced: count("payouts whose transaction expired, replaced by a new one"),
    pending: count("payouts still waiting on the chain"),
    sendErrors: count("sends that failed before reaching the chain"),
    paused: t.Boolean({ description: "claims and payouts are paused by an operator" }),
    halted: t.Boolean({ description: "a custody breaker is open (or tripped in this run): nothing new was sent" }),
    withdrawals: WithdrawalsReportSchema,
  },
  { title: "PayoutsRunReport" },
);

const BurnsReportSchema = t.Object(
  {
    job: t.Literal("burns"),
    pausedByProgramChange,
    held: t.Boolean({ description: "true when nothing was bought because a reconciliation holds money" }),
    buysSent: count("buy transactions sent"),
    bought: count("buys that landed"),
    burnsSent: count("burn transactions sent"),
    burned: count("burns that landed"),
    failed: count("buys or burns that failed"),
    skipped: count("mints not bought this run"),
    parts: count("buys that took only a part of their mint's orders (the rest over the price-impact bound)"),
  },
  { title: "BurnsRunReport" },
);

const LaunchesReportSchema = t.Object(
  {
    job: t.Literal("launches"),
    confirmed: count("launches recorded as confirmed"),
    failed: count("launches recorded as failed"),
    expired: count("launch intents expired"),
    bonded: count("tokens newly marked bonded"),
  },
  { title: "LaunchesRunReport" },
);

const MarketReportSchema = t.Object(
  {
    job: t.Literal("market"),
    configured: t.Boolean({ description: "false when no market data source is set: nothing was asked" }),
    updated: count("tokens whose market figures were refreshed"),
    failedBatches: count("batches the market data source did not answer"),
  },
  { title: "MarketRunReport" },
);

/** What a run did, by job; clients switch on `job`. */
const JobReportSchema = t.Union(
  [SweepReportSchema, PayoutsReportSchema, BurnsReportSchema, LaunchesReportSchema, MarketReportSchema],
  { title: "JobRunReport", [DISCRIMINATED_BY]: "job" },
);

export type JobReport = Static<typeof JobReportSchema>;
export type SweepJobReport = Static<typeof SweepReportSchema>;
export type PayoutsJobReport = Static<typeof PayoutsReportSchema>;
export type BurnsJobReport = Static<typeof BurnsReportSchema>;

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
    report: t.Union([JobReportSchema, t.Null()], {
      description:
        "what the run did (its `job` says which report it is); null while running, when it failed or did not run",
    }),
  },
  { title: "CronRun" },
);
