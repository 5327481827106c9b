/** What others may use of webhooks: the shapes the operator page lists. */
export type { DeliveryView, WebhookView } from "./service";
