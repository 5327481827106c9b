/**
 * The admin and webhook routes of the operator document (`/api/openapi-operator.json`, composed in
 * src/openapi.ts). Their handlers read their bodies themselves (a wrong secret must answer 404
 * before a body is read), so they carry no route schemas to generate from; they are described
 * here, every body and answer to the field, and test/openapi-operator.test.ts checks each answer
 * of a populated service against them (no field missing, none undocumented) and test/openapi.test.ts
 * this list against the routes the app serves. The cron routes come from their own route schemas
 * (src/jobs/cron-schemas.ts).
 */
import type { IncidentKind, WithdrawalStatus } from "./custody";
import { ADDRESS_PATTERN } from "./http/params";
import { OPERATOR_TAG } from "./jobs/cron-schemas";
import type { ProgramJob, SetAsideJob } from "./jobs";
import { JOB_NAMES } from "./jobs/names";
import { HealthSchema } from "./jobs/routes";
import type { HeldPayout as HeldPayoutRow } from "./payouts";
import type { Reconciliation as ReconciliationRow } from "./reconcile";
import { EVENT_TYPES } from "./webhooks/service";

type Json = Record<string, unknown>;

/**
 * The members of a string union, listed once: the Record makes the compiler refuse a list that
 * misses a member or names one that does not exist, so an enum here cannot drift from the code.
 */
const membersOf = <T extends string>(all: Record<T, true>): T[] => Object.keys(all) as T[];

const INCIDENT_KINDS = membersOf<IncidentKind>({
  shortfall: true,
  audit: true,
  "outflow-hour": true,
  "outflow-day": true,
  reconciling: true,
  "unknown-transaction": true,
  "reserve-low": true,
  "token-anomaly": true,
  "program-changed": true,
  "backup-missed": true,
});
const WITHDRAWAL_STATUSES = membersOf<WithdrawalStatus>({ queued: true, sent: true, confirmed: true, failed: true });
const PAYOUT_KINDS = membersOf<HeldPayoutRow["kind"]>({ claim: true, autopay: true });
const SET_ASIDE_JOBS = membersOf<SetAsideJob>({ sweep: true, burns: true });
const PROGRAM_JOBS = membersOf<ProgramJob>({ sweep: true, burns: true, launches: true });
const RECONCILIATION_STATUSES = membersOf<ReconciliationRow["status"]>({
  scanning: true,
  applying: true,
  done: true,
  blocked: true,
});

const lamports = { type: "string", pattern: "^[0-9]+$", description: "whole lamports as a decimal string" };
const isoTime = { type: "string", format: "date-time" };
const nullableIsoTime = { type: ["string", "null"], format: "date-time" };
const nullableString = { type: ["string", "null"] };
const address = { type: "string", pattern: ADDRESS_PATTERN, description: "base58 address" };
const count = { type: "integer", minimum: 0 };
const positiveId = { type: "integer", minimum: 1 };
const enumOf = (values: readonly string[], description?: string) => ({
  type: "string",
  enum: [...values],
  ...(description ? { description } : {}),
});
const reason = { type: ["string", "null"], maxLength: 500, description: "written to the audit log with the action" };
const requiredReason = { type: "string", minLength: 1, maxLength: 500, description: "written to the audit log" };
const mintParam = {
  name: "mint",
  in: "path",
  required: true,
  schema: { type: "string", pattern: ADDRESS_PATTERN, description: "base58 token address" },
};
const payoutIdParam = {
  name: "id",
  in: "path",
  required: true,
  schema: { type: "string", pattern: "^[1-9][0-9]{0,15}$", description: "payout id" },
};
const webhookIdParam = {
  name: "id",
  in: "path",
  required: true,
  schema: { type: "string", pattern: "^wh_[0-9a-f]{24}$" },
};
const object = (properties: Json, required: string[] = Object.keys(properties), title?: string): Json => ({
  ...(title ? { title } : {}),
  type: "object",
  required,
  properties,
});
const arrayOf = (items: Json) => ({ type: "array", items });
const json = (schema: Json) => ({ "application/json": { schema } });

interface Operation {
  summary: string;
  description?: string;
  parameters?: Json[];
  body?: Json;
  ok: Json;
  errors: number[];
}

const operation = (id: string, o: Operation): Json => ({
  tags: [OPERATOR_TAG],
  operationId: id,
  summary: o.summary,
  ...(o.description ? { description: o.description } : {}),
  ...(o.parameters ? { parameters: o.parameters } : {}),
  // A body with a required field is required; one whose fields are all optional may be left out.
  ...(o.body
    ? { requestBody: { required: ((o.body.required as string[]) ?? []).length > 0, content: json(o.body) } }
    : {}),
  responses: {
    200: { description: "Success", content: json(o.ok) },
    ...Object.fromEntries(o.errors.map((status) => [status, {}])),
  },
});

const actionDone = (action: string) =>
  object({ ok: { type: "boolean", const: true }, action: { type: "string", const: action } });

const adminAction = (id: string, action: string, summary: string, body: Json, parameters?: Json[]) =>
  operation(id, { summary, body, parameters, ok: actionDone(action), errors: [400, 404, 429] });

const reasonOnly = object({ reason }, []);
const idList = { type: "array", items: positiveId, maxItems: 100_000 };
const waitingRow = object({ id: positiveId, lamports });
const mintBody = object({ mint: { type: "string", pattern: ADDRESS_PATTERN }, reason }, ["mint"]);
const lamportsBody = object({ lamports: { ...lamports, pattern: "^[0-9]{1,19}$" }, reason }, ["lamports"]);

const AuditEntry = object(
  {
    id: positiveId,
    at: isoTime,
    actor: {
      type: "string",
      description:
        "who: a named operator's name (ADMIN_OPERATORS_FILE, by Basic credential or the /admin page), or for the shared ADMIN_SECRET admin-api (the bearer) or admin-page (the page's session)",
    },
    action: { type: "string" },
    subject: nullableString,
    reason: nullableString,
    requestId: nullableString,
    clientIp: nullableString,
  },
  undefined,
  "AuditEntry",
);

const FeeSharingItem = object(
  {
    mint: address,
    symbol: { type: "string" },
    checkedAt: isoTime,
    status: enumOf(["distributing", "stopped"]),
    currentCreator: { ...address, description: "the creator the launch program pays now" },
    isSharingConfig: { type: "boolean" },
    serviceShareBps: { type: "integer", minimum: 0, maximum: 10_000 },
    reason: { ...nullableString, description: "why the service's share cannot be credited; null while it is" },
    since: isoTime,
  },
  undefined,
  "FeeSharingItem",
);

const setAsideJob = enumOf(SET_ASIDE_JOBS, "the money job that set the token aside");
const SetAsideItem = object(
  {
    mint: address,
    symbol: nullableString,
    job: setAsideJob,
    reason: { type: "string" },
    failures: count,
    since: isoTime,
    retryAt: {
      ...nullableIsoTime,
      description: "when the job tries the token again; null: stopped, waiting for an operator",
    },
  },
  undefined,
  "SetAsideItem",
);

/** A ProgramData reading: its slot, or why there is none. */
const programReading = {
  slot: { type: ["string", "null"], pattern: "^[0-9]+$", description: "the ProgramData's deploy slot" },
  missing: { ...nullableString, description: "why no ProgramData could be read; null when it was" },
};
const WatchedProgram = object({ name: { type: "string" }, address, ...programReading }, undefined, "WatchedProgram");
const ProgramChange = object(
  {
    name: { type: "string" },
    address,
    pauses: { ...arrayOf(enumOf(PROGRAM_JOBS)), description: "the jobs that stand still until it is acknowledged" },
    from: object(programReading),
    to: object(programReading),
    at: isoTime,
  },
  undefined,
  "ProgramChange",
);

const JobRun = object(
  {
    id: positiveId,
    job: enumOf(JOB_NAMES),
    startedAt: isoTime,
    finishedAt: { ...nullableIsoTime, description: "null while running" },
    ok: { type: ["boolean", "null"], description: "null while running" },
    error: nullableString,
  },
  undefined,
  "JobRun",
);

const Incident = object(
  {
    id: positiveId,
    kind: enumOf(INCIDENT_KINDS),
    detail: { type: "string" },
    halts: { type: "boolean", description: "payouts, burn buys and withdrawals stop until it is resolved" },
    at: isoTime,
    resolvedAt: nullableIsoTime,
    resolvedBy: nullableString,
    resolveReason: nullableString,
  },
  undefined,
  "Incident",
);

const Reconciliation = object(
  {
    status: enumOf(RECONCILIATION_STATUSES),
    reason: enumOf(membersOf<ReconciliationRow["reason"]>({ restore: true, start: true })),
    scanned: count,
    total: count,
    applied: count,
    unknown: { ...count, description: "treasury transactions nobody can account for" },
    startedAt: isoTime,
    finishedAt: nullableIsoTime,
  },
  undefined,
  "Reconciliation",
);

const HeldPayout = object(
  {
    payoutId: positiveId,
    idpUserId: { type: "string" },
    lamports,
    wallet: address,
    kind: enumOf(PAYOUT_KINDS),
    createdAtMs: { ...count, description: "createdAt in unix milliseconds" },
    createdAt: isoTime,
  },
  undefined,
  "HeldPayout",
);

const Withdrawal = object(
  {
    id: positiveId,
    lamports,
    wallet: address,
    reason: { type: "string" },
    actor: { type: "string" },
    status: enumOf(WITHDRAWAL_STATUSES),
    signature: nullableString,
    error: nullableString,
    createdAt: isoTime,
    confirmedAt: nullableIsoTime,
  },
  undefined,
  "Withdrawal",
);

const webhookId = { type: "string", pattern: "^wh_[0-9a-f]{24}$" };
const webhookUrl = { type: "string", format: "uri" };
const eventTypes = {
  type: ["array", "null"],
  items: enumOf(EVENT_TYPES),
  description: "the event types sent (`incident`: custody incidents, sent to webhooks only); null for all",
};
const Webhook = {
  ...object(
    {
      id: webhookId,
      url: webhookUrl,
      types: eventTypes,
      enabled: { type: "boolean" },
      createdAt: isoTime,
      failingSince: nullableIsoTime,
    },
    ["id", "url", "types", "enabled", "createdAt", "failingSince"],
    "Webhook",
  ),
  description: "A webhook endpoint. Fields may be added.",
};

const WebhookDelivery = object(
  {
    eventId: {
      type: "string",
      description: "the event's id: the `webhook-id` header of the delivery, the stream's `id:`, the feed's cursor",
    },
    attempt: positiveId,
    status: enumOf(["pending", "delivered", "failed"]),
    httpStatus: { type: ["integer", "null"], description: "the receiver's answer; null when none came" },
    at: isoTime,
    nextAttemptAt: { ...nullableIsoTime, description: "when a pending delivery is tried next" },
    error: nullableString,
  },
  undefined,
  "WebhookDelivery",
);

/** The overview's health: the public one, but with the off-site backups' whole state (the store's last error too). */
const overviewHealth: Json & { properties: Json } = JSON.parse(JSON.stringify(HealthSchema));
overviewHealth.properties.backup = object(
  {
    ok: { type: "boolean" },
    missedGenerations: count,
    lastOkAt: nullableIsoTime,
    lastRunAt: nullableIsoTime,
    lastError: nullableString,
    running: { type: "boolean" },
    failuresTotal: count,
    consecutiveFailures: count,
    lastSizeBytes: { type: ["integer", "null"], minimum: 0 },
  },
  undefined,
  "BackupStatus",
);

const AdminOverview = object(
  {
    health: overviewHealth,
    runs: { ...arrayOf(JobRun), description: "the newest runs of every job, newest first" },
    settings: object({
      minClaimLamports: lamports,
      autopayMinLamports: lamports,
      claimsPaused: { type: "boolean", description: "whether a claim is refused now: the operator's pause or a halt" },
      claimsPausedByOperator: {
        type: "boolean",
        description: "the operator's own pause (claims/pause, claims/resume)",
      },
      claimsPausedReason: { ...nullableString, description: "the sentence a refused claim answers with" },
      launchesPaused: { type: "boolean" },
      platformTokenMint: { ...nullableString, pattern: ADDRESS_PATTERN },
    }),
  },
  undefined,
  "AdminOverview",
);

export const OPERATOR_PATHS: Record<string, Record<string, Json>> = {
  "/api/admin/tokens/{mint}/hide": {
    post: adminAction("hideToken", "hide_token", "Hide a token from the Explore list", reasonOnly, [mintParam]),
  },
  "/api/admin/tokens/{mint}/unhide": {
    post: adminAction("unhideToken", "unhide_token", "Show a hidden token again", reasonOnly, [mintParam]),
  },
  "/api/admin/claims/pause": {
    post: adminAction("pauseClaims", "pause_claims", "Pause claims and payouts", reasonOnly),
  },
  "/api/admin/claims/resume": { post: adminAction("resumeClaims", "resume_claims", "Resume claims", reasonOnly) },
  "/api/admin/launches/pause": { post: adminAction("pauseLaunches", "pause_launches", "Pause launches", reasonOnly) },
  "/api/admin/launches/resume": {
    post: adminAction("resumeLaunches", "resume_launches", "Resume launches", reasonOnly),
  },
  "/api/admin/platform-token": {
    post: adminAction("setPlatformToken", "set_platform_token", "Publish the platform token (GET /api/ca)", mintBody),
  },
  "/api/admin/min-claim": {
    post: adminAction("setMinClaim", "set_min_claim", "Set the claim threshold", lamportsBody),
  },
  "/api/admin/autopay-min": {
    post: adminAction("setAutopayMin", "set_autopay_min", "Set the autopay threshold", lamportsBody),
  },
  "/api/admin/audit": {
    get: operation("listAudit", {
      summary: "The audit log, newest first",
      parameters: [
        {
          name: "limit",
          in: "query",
          required: false,
          schema: { type: "integer", minimum: 1, maximum: 500, default: 50 },
        },
      ],
      ok: object({ entries: arrayOf(AuditEntry) }),
      errors: [400, 404, 429],
    }),
  },
  "/api/admin/fee-sharing": {
    get: operation("listFeeSharing", {
      summary: "Tokens whose launch-program creator is no longer their own creator key",
      ok: object({ items: arrayOf(FeeSharingItem) }),
      errors: [404, 429],
    }),
  },
  "/api/admin/set-aside": {
    get: operation("listSetAside", {
      summary: "Tokens the money jobs set aside or stopped",
      ok: object({ items: arrayOf(SetAsideItem) }),
      errors: [404, 429],
    }),
  },
  "/api/admin/set-aside/{mint}/clear": {
    post: operation("clearSetAside", {
      summary: "Clear a set-aside token (a stopped one is re-checked first; 409 while it still disagrees)",
      parameters: [mintParam],
      body: object(
        {
          job: {
            ...setAsideJob,
            type: ["string", "null"],
            enum: [...SET_ASIDE_JOBS, null],
            description: "clear only this job's set-aside; absent or null: every job's",
          },
          reason,
        },
        [],
      ),
      ok: object({
        ok: { type: "boolean", const: true },
        action: { type: "string", const: "clear_set_aside" },
        mint: address,
        cleared: { ...arrayOf(setAsideJob), description: "the jobs whose set-aside was cleared" },
      }),
      errors: [400, 404, 409, 429, 503],
    }),
  },
  "/api/admin/programs": {
    get: operation("listWatchedPrograms", {
      summary:
        "The launch programs' ProgramData slots the jobs run on, and the upgrades seen since that pause the jobs building their instructions",
      ok: object({
        programs: arrayOf(WatchedProgram),
        changes: { ...arrayOf(ProgramChange), description: "oldest first, until an operator acknowledges them" },
        checkedAt: { ...nullableIsoTime, description: "the last check; null before the first" },
      }),
      errors: [404, 429],
    }),
  },
  "/api/admin/programs/acknowledge": {
    post: operation("acknowledgeProgramChanges", {
      summary:
        "Acknowledge the program upgrades seen (a reason is required): their slots become what the jobs run on, and the paused jobs go on",
      body: object({ reason: requiredReason }),
      ok: object({
        ok: { type: "boolean", const: true },
        action: { type: "string", const: "acknowledge_program_change" },
        acknowledged: arrayOf(ProgramChange),
      }),
      errors: [400, 404, 429],
    }),
  },
  "/api/admin/session": {
    get: operation("getAdminSession", {
      summary: "Whether the /admin page's session cookie is signed in",
      ok: object({ signedIn: { type: "boolean" } }),
      errors: [404],
    }),
    post: operation("signInAdminPage", {
      summary: "Sign the /admin page in with the admin key (same origin only); sets its session cookie",
      body: object({ secret: { type: "string", minLength: 1, maxLength: 1024 } }),
      ok: object({ ok: { type: "boolean", const: true } }),
      errors: [400, 401, 403, 404, 429],
    }),
    delete: operation("signOutAdminPage", {
      summary: "Sign the /admin page out",
      ok: object({ ok: { type: "boolean", const: true } }),
      errors: [403, 404],
    }),
  },
  "/api/admin/sessions": {
    delete: operation("signOutAllAdminPages", {
      summary: "End every /admin page session",
      body: reasonOnly,
      ok: object({ ok: { type: "boolean", const: true }, signedOut: count }),
      errors: [400, 404, 429],
    }),
  },
  "/api/admin/overview": {
    get: operation("getAdminOverview", {
      summary: "What the /admin page shows first: job health, recent runs, settings in force",
      ok: AdminOverview,
      errors: [404, 429],
    }),
  },
  "/api/admin/tokens": {
    get: operation("listAdminTokens", {
      summary: "Tokens, hidden ones included, to hide or unhide",
      parameters: [{ name: "q", in: "query", required: false, schema: { type: "string", maxLength: 64 } }],
      ok: object({
        tokens: {
          type: "array",
          items: object({
            mint: address,
            name: { type: "string" },
            symbol: { type: "string" },
            hidden: { type: "boolean" },
            launchedAt: isoTime,
          }),
        },
      }),
      errors: [400, 404, 429],
    }),
  },
  "/api/admin/incidents": {
    get: operation("listIncidents", {
      summary:
        "Custody incidents, newest first, the one halting money movements if any, and the newest reconciliation with the chain",
      ok: object({
        halted: {
          anyOf: [Incident, { type: "null" }],
          description: "the open incident that halts money movements; null when money moves",
        },
        waiting: {
          anyOf: [
            object({
              payouts: arrayOf(waitingRow),
              withdrawals: arrayOf(waitingRow),
              burnOrders: arrayOf(waitingRow),
              totalLamports: lamports,
            }),
            { type: "null" },
          ],
          description: "while halted, the rows waiting to leave: what a resume releases; null when money moves",
        },
        incidents: { ...arrayOf(Incident), description: "the newest 100, newest first" },
        reconciliation: {
          anyOf: [Reconciliation, { type: "null" }],
          description: "the newest reconciliation with the chain and its progress; null when there never was one",
        },
      }),
      errors: [404, 429],
    }),
  },
  "/api/admin/resume": {
    post: operation("resumeMoney", {
      summary: "Resolve the incidents that halted money movements and release what was waiting (a reason is required)",
      description:
        "Releases exactly the rows that wait to leave (queued payouts, queued withdrawals, pending burn orders) beyond the outflow caps, once; everything that leaves after it counts against the caps. " +
        "Name the rows you were shown (`waiting` of GET /api/admin/incidents) in `payoutIds`, `withdrawalIds` and `burnOrderIds` (an absent list is empty): when they are not exactly what waits now, nothing changes and the answer is 409. " +
        "A body with the reason alone releases what waits at that moment. 409 as well when money is not halted (nothing is granted for later) and while the reconciliation with the chain holds it (only the reconciliation lifts that).",
      body: object(
        {
          reason: requiredReason,
          payoutIds: idList,
          withdrawalIds: idList,
          burnOrderIds: idList,
        },
        ["reason"],
      ),
      ok: object({
        ok: { type: "boolean", const: true },
        action: { type: "string", const: "resume_money" },
        resolved: { type: "integer", minimum: 0 },
        released: object({
          payoutIds: idList,
          withdrawalIds: idList,
          burnOrderIds: idList,
          totalLamports: lamports,
        }),
      }),
      errors: [400, 404, 409, 429],
    }),
  },
  "/api/admin/payouts/held": {
    get: operation("listHeldPayouts", {
      summary: "Payouts above the review amount, waiting for an operator",
      ok: object({ payouts: { ...arrayOf(HeldPayout), description: "oldest first" } }),
      errors: [404, 429],
    }),
  },
  "/api/admin/payouts/{id}/approve": {
    post: operation("approveHeldPayout", {
      summary: "Approve a held payout: it is queued for the next payout run",
      parameters: [payoutIdParam],
      body: reasonOnly,
      ok: object({
        ok: { type: "boolean", const: true },
        action: { type: "string", const: "approve_payout" },
        payoutId: { type: "integer", minimum: 1 },
      }),
      errors: [400, 404, 429],
    }),
  },
  "/api/admin/payouts/{id}/refuse": {
    post: operation("refuseHeldPayout", {
      summary: "Refuse a held payout (a reason is required): its amount returns to the balance",
      parameters: [payoutIdParam],
      body: object({ reason: requiredReason }),
      ok: object({
        ok: { type: "boolean", const: true },
        action: { type: "string", const: "refuse_payout" },
        payoutId: { type: "integer", minimum: 1 },
      }),
      errors: [400, 404, 429],
    }),
  },
  "/api/admin/withdrawals": {
    get: operation("listWithdrawals", {
      summary: "Platform withdrawals to PLATFORM_WALLET and what may be withdrawn now",
      ok: object({
        configured: { type: "boolean", description: "false while no PLATFORM_WALLET is set" },
        withdrawableLamports: {
          ...lamports,
          type: ["string", "null"],
          description: "what may be withdrawn now; null when the treasury could not be read",
        },
        withdrawals: { ...arrayOf(Withdrawal), description: "the newest 100, newest first" },
      }),
      errors: [404, 429],
    }),
    post: operation("requestWithdrawal", {
      summary: "Withdraw platform lamports to PLATFORM_WALLET (a reason is required)",
      body: object({
        lamports: { ...lamports, pattern: "^[1-9][0-9]{0,18}$" },
        reason: requiredReason,
      }),
      ok: object({
        ok: { type: "boolean", const: true },
        action: { type: "string", const: "withdraw" },
        withdrawal: Withdrawal,
      }),
      errors: [400, 404, 429, 503],
    }),
  },
  "/api/admin/webhooks": {
    get: operation("listWebhooks", {
      summary: "Registered webhook endpoints",
      ok: object({ webhooks: arrayOf(Webhook) }),
      errors: [404, 429],
    }),
    post: operation("createWebhook", {
      summary: "Register a webhook endpoint",
      description:
        "The answer carries the endpoint's signing secret once (Standard Webhooks: webhook-id, webhook-timestamp, " +
        "webhook-signature headers). The URL is resolved and checked before it is stored.",
      body: object({ url: webhookUrl, types: eventTypes, reason }, ["url"]),
      ok: object(
        {
          id: webhookId,
          url: webhookUrl,
          types: eventTypes,
          secret: { type: "string", description: "whsec_…, shown once" },
        },
        undefined,
        "CreatedWebhook",
      ),
      errors: [400, 404, 413, 429],
    }),
  },
  "/api/admin/webhooks/{id}": {
    delete: operation("deleteWebhook", {
      summary: "Remove a webhook endpoint",
      parameters: [webhookIdParam],
      body: reasonOnly,
      ok: object({ ok: { type: "boolean", const: true } }),
      errors: [404, 429],
    }),
  },
  "/api/admin/webhooks/{id}/deliveries": {
    get: operation("listWebhookDeliveries", {
      summary: "Recent deliveries of a webhook endpoint, newest first",
      parameters: [
        webhookIdParam,
        {
          name: "limit",
          in: "query",
          required: false,
          schema: { type: "integer", minimum: 1, maximum: 500, default: 100 },
        },
      ],
      ok: object({ deliveries: { ...arrayOf(WebhookDelivery), description: "newest first" } }),
      errors: [400, 404, 429],
    }),
  },
  "/api/admin/webhooks/{id}/replay": {
    post: operation("replayWebhook", {
      summary: "Queue every event since a time again for one endpoint",
      parameters: [webhookIdParam],
      body: object(
        {
          since: { type: "string", description: "ISO 8601 (or an event id); events at or after it are queued" },
          reason,
        },
        ["since"],
      ),
      ok: object({ queued: { ...count, description: "events queued for the endpoint" } }),
      errors: [400, 404, 413, 429],
    }),
  },
};
