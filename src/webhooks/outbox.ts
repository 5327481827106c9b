/**
 * The webhook outbox: called by `appendFeedEvent` inside the event's own transaction, so a
 * committed event always has its deliveries recorded and a rolled-back one never does.
 */
import { AppError } from "../lib/errors";
import type { Db } from "../../db/client";
import { statement } from "../../db/statement";

const enqueueDeliveries = statement<never, [{ atUs: number; type: string }]>(
  `INSERT INTO webhook_deliveries (webhook_id, at_us, status, attempts, next_attempt_at_ms)
  SELECT w.id, $atUs, 'pending', 0, 0 FROM webhooks w
  WHERE w.enabled = 1 AND (w.types IS NULL OR EXISTS (SELECT 1 FROM json_each(w.types) WHERE value = $type))
  ON CONFLICT (webhook_id, at_us) DO NOTHING`,
);

export function enqueueWebhookDeliveries(db: Db, type: string, atUs: number): void {
  enqueueDeliveries(db).run({ atUs, type });
}

/** A custody incident as its webhook carries it (src/custody). */
export interface IncidentEvent {
  id: number;
  kind: string;
  detail: string;
  halts: boolean;
  atMs: number;
}

/** Bounded: a burst of deliveries in one millisecond this large is not a real workload. */
const MAX_INCIDENT_BUMPS = 100_000;

const eventSlotTaken = statement<{ one: bigint }, [atUs: number]>(
  `SELECT 1 AS one WHERE EXISTS (SELECT 1 FROM feed_events WHERE at_us = ?1)
      OR EXISTS (SELECT 1 FROM webhook_deliveries WHERE at_us = ?1)`,
);
const enqueueIncident = statement<never, [{ atUs: number; payload: string }]>(
  `INSERT INTO webhook_deliveries (webhook_id, at_us, status, attempts, next_attempt_at_ms, payload)
   SELECT w.id, $atUs, 'pending', 0, 0, $payload FROM webhooks w
    WHERE w.enabled = 1 AND (w.types IS NULL OR EXISTS (SELECT 1 FROM json_each(w.types) WHERE value = 'incident'))
   ON CONFLICT (webhook_id, at_us) DO NOTHING`,
);

/**
 * A custody incident goes to every enabled endpoint subscribed to `incident` (or to every type),
 * inside the incident's own transaction. Incidents are not public events: they are not in the
 * ledger feed or the stream, so the body is written now and its message id is a microsecond of
 * the incident's time that no feed event and no other delivery holds.
 */
export function enqueueIncidentDeliveries(db: Db, incident: IncidentEvent): void {
  let atUs = Math.trunc(incident.atMs) * 1000;
  const taken = eventSlotTaken(db);
  for (let bumps = 0; taken.get(atUs); bumps++) {
    if (bumps >= MAX_INCIDENT_BUMPS) throw new AppError("EVENT_SLOTS_EXHAUSTED", { events: "webhook deliveries" });
    atUs++;
  }
  const at = new Date(incident.atMs).toISOString();
  const payload = JSON.stringify({
    type: "incident",
    at,
    data: {
      type: "incident",
      at,
      id: incident.id,
      kind: incident.kind,
      detail: incident.detail,
      halts: incident.halts,
    },
  });
  enqueueIncident(db).run({ atUs, payload });
}
