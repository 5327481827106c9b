/**
 * What reacts inside the transaction of every new feed event (and custody incident): the webhook outbox. Listeners are
 * module state, so every thread that writes feed events (the request thread, the jobs' thread,
 * the local chain's thread with the demo) connects them once. Part of the composition root; kept
 * apart from service.ts so a worker thread does not load the HTTP app to connect them.
 */
import { onFeedEvent } from "./ledger/feed";
import { enqueueIncidentDeliveries, enqueueWebhookDeliveries } from "./webhooks/outbox";
import { onIncident } from "./custody";

export function connectFeedListeners(): void {
  onFeedEvent(enqueueWebhookDeliveries);
  // Custody incidents go to the operator's webhooks too, in the incident's own transaction.
  onIncident(enqueueIncidentDeliveries);
}
