export { WebhookDispatcher } from "./dispatcher";
export { webhookSigningKey } from "./key";
export { enqueueWebhookDeliveries } from "./outbox";
export { webhookRoutes } from "./routes";
