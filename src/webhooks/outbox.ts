/**
 * The webhook outbox: called by `appendFeedEvent` inside the event's own transaction, so a
 * committed event always has its deliveries recorded and a rolled-back one never does.
 */
import type { Db } from "../../db/client";

const ENQUEUE_SQL = `INSERT INTO webhook_deliveries (webhook_id, at_us, status, attempts, next_attempt_at_ms)
  SELECT w.id, $atUs, 'pending', 0, 0 FROM webhooks w
  WHERE w.enabled = 1 AND (w.types IS NULL OR EXISTS (SELECT 1 FROM json_each(w.types) WHERE value = $type))
  ON CONFLICT (webhook_id, at_us) DO NOTHING`;

export function enqueueWebhookDeliveries(db: Db, type: string, atUs: number): void {
  db.$client.query<never, { atUs: number; type: string }>(ENQUEUE_SQL).run({ atUs, type });
}
