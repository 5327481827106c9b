/**
 * The public JSON of the ledger feed: what `GET /api/ledger` pages, what the live stream and the
 * webhooks send. The TypeScript types of the events are derived from these schemas.
 */
import { t, type Static } from "elysia";
import { DISCRIMINATED_BY } from "../http/params";
import { Int, IsoTimeSchema, LamportsSchema } from "../http/public-schemas";

/** DESIGN §5's payout statuses; the payout record (src/accounts/schemas.ts) has the same ones. */
export const PayoutStatusSchema = t.Union([
  // above the review amount, waiting for an operator (src/custody)
  t.Literal("held"),
  t.Literal("queued"),
  t.Literal("sent"),
  t.Literal("confirmed"),
  t.Literal("failed"),
  t.Literal("replaced"),
]);

/**
 * Every event's id: the event's time with microseconds, unique, the same string `/api/ledger` takes
 * as `before`, the stream's `id:` line and a webhook delivery's `webhook-id`.
 */
const EventIdSchema = t.String({
  pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}Z$",
  description:
    "the event's id, never shared with another event: its cursor (the `before` that pages past it), the stream's `id:` line and the webhook-id of its deliveries",
});

const common = { id: EventIdSchema, at: IsoTimeSchema, mint: t.String(), signature: t.String() };

const LaunchEventSchema = t.Object(
  { type: t.Literal("launch"), ...common, symbol: t.String(), recipients: Int({ minimum: 1 }) },
  {
    title: "LaunchEvent",
    description:
      "A confirmed launch; launches of hidden tokens are left out. `at` is the create transaction's block time",
  },
);
const SweepEventSchema = t.Object(
  {
    type: t.Literal("sweep"),
    ...common,
    symbol: t.String(),
    totalLamports: LamportsSchema,
    platformLamports: LamportsSchema,
  },
  { title: "SweepEvent", description: "A confirmed sweep; `at` is when it confirmed" },
);
const payoutFields = {
  payoutId: Int({ description: "the payout's id, as the account record and the claim's answer show it" }),
  handle: t.String({
    description: "the handle the account had signed in with most recently when the event was published",
  }),
  lamports: LamportsSchema,
  kind: t.Union([t.Literal("claim"), t.Literal("autopay")]),
};

const PayoutEventSchema = t.Object(
  {
    type: t.Literal("payout"),
    id: EventIdSchema,
    at: IsoTimeSchema,
    ...payoutFields,
    status: PayoutStatusSchema,
    signature: t.Union([t.String(), t.Null()], { description: "present once sent" }),
  },
  {
    title: "PayoutEvent",
    description:
      "A payout was queued (or held for review); `at` is when. `status` and `signature` are the payout's as the event was published and never change: each later status is a PayoutStatusEvent",
  },
);
const PayoutStatusEventSchema = t.Object(
  {
    type: t.Literal("payoutStatus"),
    id: EventIdSchema,
    at: IsoTimeSchema,
    ...payoutFields,
    status: PayoutStatusSchema,
    signature: t.Union([t.String(), t.Null()], { description: "the transaction's signature once sent" }),
    replacementPayoutId: t.Union([Int(), t.Null()], {
      description: "on `replaced`: the payout (announced by its own payout event) that owes the amount now",
    }),
  },
  {
    title: "PayoutStatusEvent",
    description:
      "A payout's status changed: `sent` (with its signature), `confirmed`, `failed`, `replaced`, or a held one `queued`; `at` is when, never before the payout's earlier events",
  },
);
const BurnEventSchema = t.Object(
  {
    type: t.Literal("burn"),
    ...common,
    symbol: t.Union([t.String(), t.Null()], { description: "null when the token was not launched here" }),
    lamports: LamportsSchema,
    tokenAmount: t.String({ pattern: "^[0-9]+$", description: "tokens burned, base units" }),
    source: t.Union([t.Literal("recipient"), t.Literal("platform")]),
  },
  { title: "BurnEvent", description: "A completed burn, one per source of a buy; `at` is when it landed" },
);

/** One entry of the feed: clients switch on `type`. */
const LedgerEventSchema = t.Union(
  [LaunchEventSchema, SweepEventSchema, PayoutEventSchema, PayoutStatusEventSchema, BurnEventSchema],
  { title: "LedgerEvent", [DISCRIMINATED_BY]: "type" },
);

export const FeedPageSchema = t.Object(
  {
    events: t.Array(LedgerEventSchema),
    nextBefore: t.Union([t.String({ description: "ISO 8601 with microseconds" }), t.Null()], {
      description: "pass as `before` for the next page; null when nothing is older",
    }),
  },
  { title: "LedgerPage" },
);

type LaunchEvent = Static<typeof LaunchEventSchema>;
type SweepEvent = Static<typeof SweepEventSchema>;
export type PayoutEvent = Static<typeof PayoutEventSchema>;
type PayoutStatusEvent = Static<typeof PayoutStatusEventSchema>;
type BurnEvent = Static<typeof BurnEventSchema>;
export type FeedEvent = LaunchEvent | SweepEvent | PayoutEvent | PayoutStatusEvent | BurnEvent;
export type FeedPage = Static<typeof FeedPageSchema>;
