/** `GET /api/ledger`: launches, confirmed sweeps, payouts and completed burns, newest first. */
import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { CACHE } from "../http/cache";
import { AppError } from "../lib/errors";
import { integerQuery, isIsoTime, isoTimeQuery } from "../http/params";
import { errors } from "../http/public-schemas";
import { jsonBody, readMemo } from "../http/read-memo";
import { feedPage, parseBefore } from "./feed-queries";
import { FeedPageSchema } from "./feed-schemas";

/** SPEC: `limit` of `/api/ledger` is an integer from 1 to 100, default 50. */
const FEED_LIMIT = integerQuery("limit", { minimum: 1, maximum: 100, default: 50 }, "events per page");

/**
 * The bound of a well-formed `before` outside what the feed's microsecond keys hold (1970 to about
 * 2255): one at or before 1970 has nothing older, one past the range bounds nothing. Every time the
 * document's pattern allows is an answer, not a 400.
 */
const boundBeyondRange = (before: string): number | null => (Number(before.slice(0, 4)) < 2000 ? 1 : null);

export function feedRoutes(ctx: AppContext) {
  const memo = readMemo(ctx.db);
  return new Elysia({ name: "ledger-feed" }).get(
    "/api/ledger",
    ({ query, set }) => {
      set.headers["cache-control"] = CACHE.ledger;
      const limit = FEED_LIMIT.parse(query.limit);
      let beforeUs: number | null = null;
      if (query.before !== undefined) {
        if (!isIsoTime(query.before)) throw new AppError("FEED_BEFORE_INVALID");
        beforeUs = parseBefore(query.before) ?? boundBeyondRange(query.before);
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
        before: isoTimeQuery("the previous page's nextBefore, as it came (ISO 8601 with microseconds)"),
      }),
      response: { 200: FeedPageSchema, ...errors(400, 429) },
      detail: { tags: ["public"], summary: "The public ledger feed", description: "Clients switch on `type`." },
    },
  );
}
