/**
 * The admin and webhook routes of the operator document (`/api/openapi-operator.json`, composed in
 * src/openapi.ts). Their handlers read their bodies themselves (a wrong secret must answer 404
 * before a body is read), so they carry no route schemas to generate from; they are described
 * here, and test/openapi.test.ts checks this list against the routes the app serves.
 * The cron routes come from their own route schemas (src/jobs/cron-schemas.ts).
 */
import { ADDRESS_PATTERN } from "./http/params";
import { OPERATOR_TAG } from "./jobs/cron-schemas";

type Json = Record<string, unknown>;

const lamports = { type: "string", pattern: "^[0-9]+$", description: "whole lamports as a decimal string" };
const isoTime = { type: "string", format: "date-time" };
const reason = { type: ["string", "null"], maxLength: 500, description: "written to the audit log with the action" };
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
  ...(o.body ? { requestBody: { required: false, content: json(o.body) } } : {}),
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
const idList = { type: "array", items: { type: "integer", minimum: 1 }, maxItems: 100_000 };
const waitingRow = object({ id: { type: "integer", minimum: 1 }, lamports });
const mintBody = object({ mint: { type: "string", pattern: ADDRESS_PATTERN }, reason }, ["mint"]);
const lamportsBody = object({ lamports: { ...lamports, pattern: "^[0-9]{1,19}$" }, reason }, ["lamports"]);

const AuditEntry = object(
  {
    id: { type: "integer" },
    at: isoTime,
    actor: { type: "string" },
    action: { type: "string" },
    subject: { type: ["string", "null"] },
    reason: { type: ["string", "null"] },
    requestId: { type: ["string", "null"] },
    clientIp: { type: ["string", "null"] },
  },
  undefined,
  "AuditEntry",
);

const webhookId = { type: "string", pattern: "^wh_[0-9a-f]{24}$" };
const webhookUrl = { type: "string", format: "uri" };
const eventTypes = {
  type: ["array", "null"],
  items: { type: "string", enum: ["launch", "sweep", "payout", "burn"] },
  description: "the event types sent; null for all",
};
const Webhook = {
  ...object(
    {
      id: webhookId,
      url: webhookUrl,
      types: eventTypes,
      enabled: { type: "boolean" },
      createdAt: isoTime,
      failingSince: { type: ["string", "null"], format: "date-time" },
    },
    ["id", "url", "types", "enabled", "createdAt"],
    "Webhook",
  ),
  description: "A webhook endpoint. Fields may be added.",
};

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
      ok: object({ entries: { type: "array", items: AuditEntry } }),
      errors: [400, 404, 429],
    }),
  },
  "/api/admin/fee-sharing": {
    get: operation("listFeeSharing", {
      summary: "Tokens whose launch-program creator is no longer their own creator key",
      ok: object({ items: { type: "array", items: { type: "object" } } }),
      errors: [404, 429],
    }),
  },
  "/api/admin/set-aside": {
    get: operation("listSetAside", {
      summary: "Tokens the money jobs set aside or stopped",
      ok: object({ items: { type: "array", items: { type: "object" } } }),
      errors: [404, 429],
    }),
  },
  "/api/admin/set-aside/{mint}/clear": {
    post: operation("clearSetAside", {
      summary: "Clear a set-aside token (a stopped one is re-checked first; 409 while it still disagrees)",
      parameters: [mintParam],
      body: object({ job: { type: "string" }, reason }, []),
      ok: object(
        {
          ok: { type: "boolean", const: true },
          action: { type: "string", const: "clear_set_aside" },
          mint: { type: "string" },
          cleared: {},
        },
        ["ok", "action", "mint"],
      ),
      errors: [400, 404, 409, 429, 503],
    }),
  },
  "/api/admin/programs": {
    get: operation("listWatchedPrograms", {
      summary:
        "The launch programs' ProgramData slots the jobs run on, and the upgrades seen since that pause the jobs building their instructions",
      ok: object({
        programs: { type: "array", items: { type: "object" } },
        changes: { type: "array", items: { type: "object" } },
        checkedAt: { type: ["string", "null"], format: "date-time" },
      }),
      errors: [404, 429],
    }),
  },
  "/api/admin/programs/acknowledge": {
    post: operation("acknowledgeProgramChanges", {
      summary:
        "Acknowledge the program upgrades seen (a reason is required): their slots become what the jobs run on, and the paused jobs go on",
      body: object({ reason: { ...reason, type: "string", minLength: 1 } }),
      ok: object({
        ok: { type: "boolean", const: true },
        action: { type: "string", const: "acknowledge_program_change" },
        acknowledged: { type: "array", items: { type: "object" } },
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
      ok: object({ ok: { type: "boolean", const: true }, signedOut: { type: "integer", minimum: 0 } }),
      errors: [400, 404, 429],
    }),
  },
  "/api/admin/overview": {
    get: operation("getAdminOverview", {
      summary: "What the /admin page shows first: job health, recent runs, settings in force",
      ok: object({ health: { type: "object" }, runs: { type: "array" }, settings: { type: "object" } }, []),
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
            mint: { type: "string" },
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
        halted: { type: ["object", "null"] },
        /** while halted, the rows waiting to leave: what a resume releases (null when money moves) */
        waiting: {
          type: ["object", "null"],
          properties: {
            payouts: { type: "array", items: waitingRow },
            withdrawals: { type: "array", items: waitingRow },
            burnOrders: { type: "array", items: waitingRow },
            totalLamports: lamports,
          },
        },
        incidents: { type: "array", items: { type: "object" } },
        /** the newest reconciliation with the chain (src/reconcile) and its progress; null when there never was one */
        reconciliation: { type: ["object", "null"] },
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
          reason: { type: "string", minLength: 1, maxLength: 500 },
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
      ok: object({ payouts: { type: "array", items: { type: "object" } } }),
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
      body: object({ reason: { type: "string", minLength: 1, maxLength: 500 } }),
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
        configured: { type: "boolean" },
        withdrawableLamports: { ...lamports, type: ["string", "null"] },
        withdrawals: { type: "array", items: { type: "object" } },
      }),
      errors: [404, 429],
    }),
    post: operation("requestWithdrawal", {
      summary: "Withdraw platform lamports to PLATFORM_WALLET (a reason is required)",
      body: object({
        lamports: { ...lamports, pattern: "^[1-9][0-9]{0,18}$" },
        reason: { type: "string", minLength: 1 },
      }),
      ok: object({
        ok: { type: "boolean", const: true },
        action: { type: "string", const: "withdraw" },
        withdrawal: { type: "object" },
      }),
      errors: [400, 404, 429, 503],
    }),
  },
  "/api/admin/webhooks": {
    get: operation("listWebhooks", {
      summary: "Registered webhook endpoints",
      ok: object({ webhooks: { type: "array", items: Webhook } }),
      errors: [404, 429],
    }),
    post: operation("createWebhook", {
      summary: "Register a webhook endpoint",
      description:
        "The answer carries the endpoint's signing secret once (Standard Webhooks: webhook-id, webhook-timestamp, " +
        "webhook-signature headers). The URL is resolved and checked before it is stored.",
      body: object({ url: webhookUrl, types: eventTypes }, ["url"]),
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
      ok: object({ deliveries: { type: "array", items: { type: "object" } } }),
      errors: [400, 404, 429],
    }),
  },
  "/api/admin/webhooks/{id}/replay": {
    post: operation("replayWebhook", {
      summary: "Queue every event since a time again for one endpoint",
      parameters: [webhookIdParam],
      body: object({ since: { ...isoTime, description: "ISO 8601; events at or after it are queued" } }),
      ok: object({ queued: { type: "integer", minimum: 0 } }),
      errors: [400, 404, 413, 429],
    }),
  },
};
