/** `GET /api/ledger`: launches, confirmed sweeps, payouts and completed burns, newest first. */
import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { CACHE } from "../http/cache";
import { AppError } from "../lib/errors";
import { integerQuery } from "../http/params";
import { errors } from "../http/public-schemas";
import { jsonBody, readMemo } from "../http/read-memo";
import { feedPage, parseBefore } from "./feed-queries";
import { FeedPageSchema } from "./feed-schemas";

/** SPEC: `limit` of `/api/ledger` is an integer from 1 to 100, default 50. */
export const FEED_LIMIT = integerQuery("limit", { minimum: 1, maximum: 100, default: 50 }, "events per page");

export function feedRoutes(ctx: AppContext) {
  const memo = readMemo(ctx.db);
  return new Elysia({ name: "ledger-feed" }).get(
    "/api/ledger",
    ({ query, set }) => {
      set.headers["cache-control"] = CACHE.ledger;
      const limit = FEED_LIMIT.parse(query.limit);
      let beforeUs: number | null = null;
      if (query.before !== undefined) {
        beforeUs = parseBefore(query.before);
        if (beforeUs === null) throw new AppError("FEED_BEFORE_INVALID");
      }
      const key = `ledger\u0000${limit}\u0000${beforeUs ?? ""}`;
      const hit = memo.get(key);
      if (hit) return jsonBody(hit.body, set);
      const version = memo.version();
      const body = JSON.stringify(feedPage(ctx.db, beforeUs, limit));
      return jsonBody(memo.set(key, version, body), set);
    },
    {
      query: t.Object({
        limit: FEED_LIMIT.schema,
        before: t.Optional(
          t.String({ description: "the previous page's nextBefore, as it came (ISO 8601 with microseconds)" }),
        ),
      }),
      response: { 200: FeedPageSchema, ...errors(400, 429) },
      detail: { tags: ["public"], summary: "The public ledger feed", description: "Clients switch on `type`." },
    },
  );
}
