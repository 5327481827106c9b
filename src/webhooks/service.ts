/**
 * Webhook endpoints, their outbox and attempts: the plain functions behind the admin routes and
 * the dispatcher. Every write is one synchronous transaction.
 */
import { randomBytes } from "node:crypto";
import type { Db } from "../../db/client";
import { feedEvents, webhookAttempts, webhookDeliveries, webhooks } from "../../db/schema";
import { columnsOf, statement, type TableRow } from "../../db/statement";
import { immediate } from "../../db/transaction";
import { isoMicros, renderFeedRows } from "../ledger";
import { isoMs } from "../http/public-schemas";
import { AppError } from "../lib/errors";
import { webhookSecret } from "./key";

/** The ledger feed's event types, and `incident` (custody incidents: operator-only, src/custody). */
export const EVENT_TYPES = ["launch", "sweep", "payout", "payoutStatus", "burn", "incident"] as const;
const MAX_WEBHOOKS = 20;
/** events one replay call may queue; a longer history is replayed in several calls */
const MAX_REPLAY = 10_000;

export interface WebhookView {
  id: string;
  url: string;
  types: string[] | null;
  enabled: boolean;
  createdAt: string;
  failingSince: string | null;
}

export interface DeliveryView {
  eventId: string;
  attempt: number;
  status: "pending" | "delivered" | "failed";
  httpStatus: number | null;
  at: string;
  nextAttemptAt: string | null;
  error: string | null;
}

export function parseTypes(raw: unknown): string[] | null {
  if (raw === undefined || raw === null) return null;
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > EVENT_TYPES.length) {
    throw new AppError("WEBHOOK_TYPES_EMPTY", { types: EVENT_TYPES.join(", ") });
  }
  const out: string[] = [];
  for (const value of raw) {
    if (typeof value !== "string" || !(EVENT_TYPES as readonly string[]).includes(value)) {
      throw new AppError("WEBHOOK_TYPES_UNKNOWN", { types: EVENT_TYPES.join(", ") });
    }
    if (!out.includes(value)) out.push(value);
  }
  return out;
}

const countWebhooks = statement<{ n: bigint }, []>("SELECT COUNT(*) AS n FROM webhooks");
const insertWebhook = statement<never, [id: string, url: string, types: string | null, createdAtMs: number]>(
  "INSERT INTO webhooks (id, url, types, enabled, created_at_ms, failing_since_ms) VALUES (?, ?, ?, 1, ?, NULL)",
);

export function createWebhook(
  db: Db,
  input: { url: string; types: string[] | null; nowMs: number; signingKey: Buffer },
) {
  const id = `wh_${randomBytes(12).toString("hex")}`;
  const secret = webhookSecret(input.signingKey, id);
  immediate(db, () => {
    const count = countWebhooks(db).get();
    if (Number(count?.n ?? 0) >= MAX_WEBHOOKS) throw new AppError("WEBHOOK_LIMIT_REACHED", { maximum: MAX_WEBHOOKS });
    insertWebhook(db).run(id, input.url, input.types ? JSON.stringify(input.types) : null, input.nowMs);
  });
  return { id, url: input.url, types: input.types, secret };
}

type WebhookRow = TableRow<typeof webhooks>;

const allWebhooks = statement<WebhookRow, []>(`SELECT ${columnsOf(webhooks)} FROM webhooks ORDER BY created_at_ms, id`);
const webhookById = statement<{ one: bigint }, [id: string]>("SELECT 1 AS one FROM webhooks WHERE id = ?");
const deleteAttemptsOf = statement<never, [webhookId: string]>(
  "DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE webhook_id = ?)",
);
const deleteDeliveriesOf = statement<never, [webhookId: string]>("DELETE FROM webhook_deliveries WHERE webhook_id = ?");
const deleteWebhookRow = statement<never, [id: string]>("DELETE FROM webhooks WHERE id = ?");

const view = (r: WebhookRow): WebhookView => ({
  id: r.id,
  url: r.url,
  types: r.types === null ? null : (JSON.parse(r.types) as string[]),
  enabled: Number(r.enabled) === 1,
  createdAt: isoMs(r.createdAtMs),
  failingSince: r.failingSinceMs === null ? null : isoMs(r.failingSinceMs),
});

export function listWebhooks(db: Db): WebhookView[] {
  return allWebhooks(db).all().map(view);
}

function webhookExists(db: Db, id: string): boolean {
  return webhookById(db).get(id) !== null;
}

/** Removes the endpoint with its outbox and attempts; false when there is no such webhook. */
export function deleteWebhook(db: Db, id: string): boolean {
  return immediate(db, () => {
    if (webhookById(db).get(id) === null) return false;
    deleteAttemptsOf(db).run(id);
    deleteDeliveriesOf(db).run(id);
    deleteWebhookRow(db).run(id);
    return true;
  });
}

const DELIVERY_FIELDS = ["id", "atUs", "status", "attempts", "nextAttemptAtMs"] as const;
type DeliveryRow = Pick<TableRow<typeof webhookDeliveries>, (typeof DELIVERY_FIELDS)[number]>;
const latestDeliveries = statement<DeliveryRow, [webhookId: string, limit: number]>(
  `SELECT ${columnsOf(webhookDeliveries, { only: DELIVERY_FIELDS })} FROM webhook_deliveries
   WHERE webhook_id = ? ORDER BY id DESC LIMIT ?`,
);

const ATTEMPT_FIELDS = ["attempt", "atMs", "ok", "httpStatus", "error"] as const;
type AttemptRow = Pick<TableRow<typeof webhookAttempts>, (typeof ATTEMPT_FIELDS)[number]>;
const latestAttempts = statement<AttemptRow, [deliveryId: bigint, limit: number]>(
  `SELECT ${columnsOf(webhookAttempts, { only: ATTEMPT_FIELDS })} FROM webhook_attempts
   WHERE delivery_id = ? ORDER BY id DESC LIMIT ?`,
);

/**
 * The newest deliveries' attempts, newest first, and for a delivery still waiting, the attempt it
 * waits for (status `pending`). Null when there is no such webhook.
 */
export function listDeliveries(db: Db, id: string, limit: number, nowMs: number): DeliveryView[] | null {
  if (!webhookExists(db, id)) return null;
  const deliveries = latestDeliveries(db).all(id, limit);
  const attemptsOf = latestAttempts(db);
  const out: DeliveryView[] = [];
  for (const d of deliveries) {
    const attempts = attemptsOf.all(d.id, limit);
    if (d.status === "pending") out.push(waitingAttempt(d, attempts[0], nowMs));
    const eventId = isoMicros(Number(d.atUs));
    for (const a of attempts) out.push(attemptView(eventId, a));
    if (out.length >= limit) break;
  }
  return out.slice(0, limit);
}

/** The attempt a pending delivery waits for: due now at the earliest. */
function waitingAttempt(d: DeliveryRow, latest: AttemptRow | undefined, nowMs: number): DeliveryView {
  return {
    eventId: isoMicros(Number(d.atUs)),
    attempt: Number(d.attempts) + 1,
    status: "pending",
    httpStatus: null,
    at: isoMs(latest ? latest.atMs : Math.floor(Number(d.atUs) / 1000)),
    nextAttemptAt: isoMs(Math.max(Number(d.nextAttemptAtMs), nowMs)),
    error: null,
  };
}

function attemptView(eventId: string, a: AttemptRow): DeliveryView {
  return {
    eventId,
    attempt: Number(a.attempt),
    status: Number(a.ok) === 1 ? "delivered" : "failed",
    httpStatus: a.httpStatus === null ? null : Number(a.httpStatus),
    at: isoMs(a.atMs),
    nextAttemptAt: null,
    error: a.error,
  };
}

/**
 * Queues again every event at or after `sinceUs` (of the endpoint's types) that is not already
 * waiting: under the same webhook-id and the same body, so a receiver that already has an event
 * can tell (Standard Webhooks' resend). Re-enables a disabled endpoint: a replay is the operator's
 * sign that the receiver is back. Null when there is no such webhook.
 */
const webhookTypes = statement<{ types: string | null }, [id: string]>("SELECT types FROM webhooks WHERE id = ?");
const enableWebhook = statement<never, [id: string]>(
  "UPDATE webhooks SET enabled = 1, failing_since_ms = NULL WHERE id = ?",
);
const queueReplay = statement<never, [{ id: string; since: number; types: string | null; max: number }]>(
  `INSERT INTO webhook_deliveries (webhook_id, at_us, status, attempts, next_attempt_at_ms)
   SELECT $id, f.at_us, 'pending', 0, 0 FROM feed_events f
   WHERE f.at_us >= $since AND ($types IS NULL OR EXISTS (SELECT 1 FROM json_each($types) WHERE value = f.type))
     AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = $id AND d.at_us = f.at_us AND d.status = 'pending')
   ORDER BY f.at_us LIMIT $max
   ON CONFLICT (webhook_id, at_us) DO UPDATE SET status = 'pending', next_attempt_at_ms = 0, first_attempt_at_ms = NULL`,
);

export function replayWebhook(db: Db, id: string, sinceUs: number): number | null {
  return immediate(db, () => {
    const hook = webhookTypes(db).get(id);
    if (!hook) return null;
    enableWebhook(db).run(id);
    const result = queueReplay(db).run({ id, since: sinceUs, types: hook.types, max: MAX_REPLAY });
    return result.changes;
  });
}

// ---------------------------------------------------------------- dispatcher queries

export interface DueDelivery {
  id: number;
  webhookId: string;
  atUs: number;
  attempts: number;
  firstAttemptAtMs: number | null;
  payload: string | null;
  url: string;
}

interface DueRow {
  id: bigint;
  webhookId: string;
  atUs: bigint;
  attempts: bigint;
  firstAttemptAtMs: bigint | null;
  payload: string | null;
  url: string;
}

const dueRows = statement<DueRow, [nowMs: number, limit: number]>(
  `SELECT d.id, d.webhook_id AS webhookId, d.at_us AS atUs, d.attempts, d.first_attempt_at_ms AS firstAttemptAtMs,
     d.payload, w.url
   FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
   WHERE d.status = 'pending' AND d.next_attempt_at_ms <= ? AND w.enabled = 1
   ORDER BY d.next_attempt_at_ms, d.id LIMIT ?`,
);

export function dueDeliveries(db: Db, nowMs: number, limit: number): DueDelivery[] {
  const rows = dueRows(db).all(nowMs, limit);
  return rows.map((r) => ({
    id: Number(r.id),
    webhookId: r.webhookId,
    atUs: Number(r.atUs),
    attempts: Number(r.attempts),
    firstAttemptAtMs: r.firstAttemptAtMs === null ? null : Number(r.firstAttemptAtMs),
    payload: r.payload,
    url: r.url,
  }));
}

const publicFeedEvent = statement<TableRow<typeof feedEvents>, [atUs: number]>(
  `SELECT ${columnsOf(feedEvents, { alias: "f" })} FROM feed_events f WHERE f.at_us = ?
     AND NOT (f.type = 'launch' AND EXISTS (SELECT 1 FROM tokens t WHERE t.id = f.ref_id AND t.hidden = 1))`,
);

/** The body every attempt of this delivery sends, or null when the event is no longer public. */
export function renderPayload(db: Db, atUs: number): string | null {
  const row = publicFeedEvent(db).get(atUs);
  if (!row) return null;
  const [rendered] = renderFeedRows(db, [row]);
  if (!rendered) return null;
  return JSON.stringify({ type: rendered.event.type, at: rendered.event.at, data: rendered.event });
}

const fixPayload = statement<never, [payload: string, nowMs: number, deliveryId: number]>(
  "UPDATE webhook_deliveries SET payload = COALESCE(payload, ?), first_attempt_at_ms = COALESCE(first_attempt_at_ms, ?) WHERE id = ?",
);

/** Fixes the body and the start of the retry window at the first attempt. */
export function startDelivery(db: Db, deliveryId: number, payload: string, nowMs: number): void {
  fixPayload(db).run(payload, nowMs, deliveryId);
}

export interface AttemptOutcome {
  deliveryId: number;
  webhookId: string;
  attempt: number;
  ok: boolean;
  httpStatus: number | null;
  error: string | null;
  nowMs: number;
  /** null: no more retries, the delivery has failed */
  nextAttemptAtMs: number | null;
  /** the endpoint has failed for so long it is switched off */
  disableAfterMs: number;
}

const deliveryStatus = statement<{ status: string }, [deliveryId: number]>(
  "SELECT status FROM webhook_deliveries WHERE id = ?",
);
const insertAttempt = statement<
  never,
  [deliveryId: number, attempt: number, atMs: number, ok: number, httpStatus: number | null, error: string | null]
>("INSERT INTO webhook_attempts (delivery_id, attempt, at_ms, ok, http_status, error) VALUES (?, ?, ?, ?, ?, ?)");
const markDelivered = statement<never, [attempts: number, deliveryId: number]>(
  "UPDATE webhook_deliveries SET status = 'delivered', attempts = ? WHERE id = ?",
);
const clearFailing = statement<never, [webhookId: string]>("UPDATE webhooks SET failing_since_ms = NULL WHERE id = ?");
const markFailed = statement<never, [attempts: number, deliveryId: number]>(
  "UPDATE webhook_deliveries SET status = 'failed', attempts = ? WHERE id = ?",
);
const scheduleRetry = statement<never, [attempts: number, nextAttemptAtMs: number, deliveryId: number]>(
  "UPDATE webhook_deliveries SET attempts = ?, next_attempt_at_ms = ? WHERE id = ?",
);
const markFailing = statement<never, [nowMs: number, webhookId: string]>(
  "UPDATE webhooks SET failing_since_ms = COALESCE(failing_since_ms, ?) WHERE id = ?",
);
const disableFailing = statement<never, [webhookId: string, failingSinceMs: number]>(
  "UPDATE webhooks SET enabled = 0 WHERE id = ? AND enabled = 1 AND failing_since_ms <= ?",
);
const failPending = statement<never, [webhookId: string]>(
  "UPDATE webhook_deliveries SET status = 'failed' WHERE webhook_id = ? AND status = 'pending'",
);
const insertDroppedAttempt = statement<never, [deliveryId: number, attempt: number, atMs: number, error: string]>(
  "INSERT INTO webhook_attempts (delivery_id, attempt, at_ms, ok, http_status, error) VALUES (?, ?, ?, 0, NULL, ?)",
);

/** Records one attempt and its consequence for the delivery and the endpoint, in one transaction. */
export function recordAttempt(db: Db, o: AttemptOutcome): void {
  immediate(db, () => {
    // Deleted meanwhile: nothing to record.
    const current = deliveryStatus(db).get(o.deliveryId);
    if (!current) return;
    insertAttempt(db).run(o.deliveryId, o.attempt, o.nowMs, o.ok ? 1 : 0, o.httpStatus, o.error);
    if (o.ok) {
      markDelivered(db).run(o.attempt, o.deliveryId);
      clearFailing(db).run(o.webhookId);
      return;
    }
    if (o.nextAttemptAtMs === null) markFailed(db).run(o.attempt, o.deliveryId);
    else scheduleRetry(db).run(o.attempt, o.nextAttemptAtMs, o.deliveryId);
    markFailing(db).run(o.nowMs, o.webhookId);
    const disabled = disableFailing(db).run(o.webhookId, o.nowMs - o.disableAfterMs);
    // A disabled endpoint keeps nothing waiting; a replay queues its events again.
    if (disabled.changes > 0) failPending(db).run(o.webhookId);
  });
}

/** A delivery whose event is no longer public (its token was hidden) is closed without a send. */
export function dropDelivery(db: Db, deliveryId: number, attempt: number, nowMs: number): void {
  immediate(db, () => {
    insertDroppedAttempt(db).run(deliveryId, attempt, nowMs, "The event is no longer public; not sent.");
    markFailed(db).run(attempt, deliveryId);
  });
}
