/**
 * The server's response types as the web page (public/src) reads them: the page's one door into
 * the server, so the page and the API cannot drift apart, and nothing else of the server is coupled
 * to it (test/import-graph.test.ts holds the page to this file).
 *
 * Types only, each through its feature's index.ts: the bundler erases type-only imports, so not a
 * byte of the server reaches the bundle. A root file of src because it gathers several features'
 * types and belongs to none of them; nothing in the server imports it.
 */
export type { AccountRecord, AccountToken, Payout, SignedIn, SignedOut } from "./accounts";
export type { AdminOverview, AdminToken, AuditRow } from "./admin";
export type { HandleHistoryEntry, SolvencyPoint, TokenHistoryPoint } from "./history";
export type { HealthReport } from "./jobs";
export type { DraftInput } from "./launches";
export type { FeedEvent } from "./ledger";
export type { InclusionProofJson } from "./liabilities";
export type { Stats } from "./stats";
export type { Recipient, Token, TokenDetail } from "./tokens";
export type { DeliveryView, WebhookView } from "./webhooks";
