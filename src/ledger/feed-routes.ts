/** `GET /api/ledger`: launches, confirmed sweeps, payouts and completed burns, newest first. */
import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { CACHE } from "../http/cache";
import { badRequest } from "../http/errors";
import { errors, Int, IsoTimeSchema, LamportsSchema } from "../http/public-schemas";
import { jsonBody, readMemo } from "../http/read-memo";
import { feedPage, parseBefore } from "./feed-queries";

export const DEFAULT_FEED_LIMIT = 50;

const common = { at: IsoTimeSchema, mint: t.String(), signature: t.String() };

export const LaunchEventSchema = t.Object(
  { type: t.Literal("launch"), ...common, symbol: t.String(), recipients: Int({ minimum: 1 }) },
  {
    title: "LaunchEvent",
    description:
      "A confirmed launch; launches of hidden tokens are left out. `at` is the create transaction's block time",
  },
);
export const SweepEventSchema = t.Object(
  {
    type: t.Literal("sweep"),
    ...common,
    symbol: t.String(),
    totalLamports: LamportsSchema,
    platformLamports: LamportsSchema,
  },
  { title: "SweepEvent", description: "A confirmed sweep; `at` is when it confirmed" },
);
export const PayoutEventSchema = t.Object(
  {
    type: t.Literal("payout"),
    at: IsoTimeSchema,
    handle: t.String({ description: "the handle the account signed in with most recently" }),
    lamports: LamportsSchema,
    kind: t.Union([t.Literal("claim"), t.Literal("autopay")]),
    status: t.String({ description: "queued, sent, confirmed, failed or replaced" }),
    signature: t.Union([t.String(), t.Null()], { description: "present once sent" }),
  },
  { title: "PayoutEvent", description: "A payout in any status; `at` is when it was queued" },
);
export const BurnEventSchema = t.Object(
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

export const FeedPageSchema = t.Object(
  {
    events: t.Array(t.Union([LaunchEventSchema, SweepEventSchema, PayoutEventSchema, BurnEventSchema])),
    nextBefore: t.Union([t.String({ description: "ISO 8601 with microseconds" }), t.Null()], {
      description: "pass as `before` for the next page; null when nothing is older",
    }),
  },
  { title: "LedgerPage" },
);

export function feedRoutes(ctx: AppContext) {
  const memo = readMemo(ctx.db);
  return new Elysia({ name: "ledger-feed" }).get(
    "/api/ledger",
    ({ query, set }) => {
      set.headers["cache-control"] = CACHE.ledger;
      let beforeUs: number | null = null;
      if (query.before !== undefined) {
        beforeUs = parseBefore(query.before);
        if (beforeUs === null)
          throw badRequest("The 'before' parameter must be an ISO 8601 time, as given in nextBefore.");
      }
      const limit = query.limit ?? DEFAULT_FEED_LIMIT;
      const key = `ledger\u0000${limit}\u0000${beforeUs ?? ""}`;
      const version = memo.version();
      const hit = memo.get(key, version);
      if (hit) return jsonBody(hit.body, set.headers);
      const body = JSON.stringify(feedPage(ctx.db, beforeUs, limit));
      memo.set(key, version, body);
      return jsonBody(body, set.headers);
    },
    {
      query: t.Object({
        limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, description: "1 to 100, default 50" })),
        before: t.Optional(
          t.String({ description: "the previous page's nextBefore, as it came (ISO 8601 with microseconds)" }),
        ),
      }),
      response: { 200: FeedPageSchema, ...errors(400, 429) },
      detail: { tags: ["public"], summary: "The public ledger feed", description: "Clients switch on `type`." },
    },
  );
}
