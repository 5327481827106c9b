/** `GET /api/ledger`: launches, confirmed sweeps, payouts and completed burns, newest first. */
import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { CACHE } from "../http/cache";
import { badRequest } from "../http/errors";
import { errors } from "../http/public-schemas";
import { jsonBody, readMemo } from "../http/read-memo";
import { feedPage, parseBefore } from "./feed-queries";
import { FeedPageSchema } from "./feed-schemas";

export const DEFAULT_FEED_LIMIT = 50;

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
      const hit = memo.get(key);
      if (hit) return jsonBody(hit.body, set);
      const version = memo.version();
      const body = JSON.stringify(feedPage(ctx.db, beforeUs, limit));
      return jsonBody(memo.set(key, version, body), set);
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
