/** `GET /api/idp/:handle`: the public record of one identity-provider account. */
import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { CACHE } from "../http/cache";
import { documentedString, HandleParams } from "../http/params";
import { errors, handleKey } from "../http/public-schemas";
import { jsonBody, readMemo } from "../http/read-memo";
import { AppError } from "../lib/errors";
import { accountOwnerOf, accountRecord, accountTokensPage, payoutsPage } from "./record";
import { PAGE_LIMIT, pageLimit, parsePayoutCursor, parseTokenCursor } from "./pages";
import { AccountRecordSchema, AccountTokensPageSchema, PayoutsPageSchema } from "./schemas";

const PageQuerySchema = t.Object({
  // The shape of the cursors issued (src/accounts/pages.ts), base64url.
  cursor: documentedString({
    type: "string",
    pattern: "^[A-Za-z0-9_-]+$",
    minLength: 1,
    maxLength: 200,
    description: "the nextCursor (or the record's tokensNextCursor/payoutsNextCursor) of the previous page",
  }),
  limit: PAGE_LIMIT.schema,
});

/** The handle of a path, as its lowercase key. */
function handleOf(raw: string): string {
  const handle = handleKey(raw);
  if (!handle) throw new AppError("HANDLE_INVALID");
  return handle;
}

const noRecord = () => new AppError("HANDLE_NOT_NAMED");

export function accountPublicRoutes(ctx: Pick<AppContext, "db">) {
  const memo = readMemo(ctx.db);
  const ownerOf = (raw: string) => {
    const owner = accountOwnerOf(ctx.db, handleOf(raw));
    if (!owner) throw noRecord();
    return owner;
  };
  return new Elysia({ name: "accounts-public" })
    .get(
      "/api/idp/:handle",
      ({ params, set }) => {
        set.headers["cache-control"] = CACHE.publicRead;
        const handle = handleOf(params.handle);
        const key = `idp\u0000${handle}`;
        const hit = memo.get(key);
        if (hit) return jsonBody(hit.body, set);
        // The stamp and every read of the record in one read transaction: one snapshot (the figures
        // and the tokens' credits agree even while the jobs commit), taken once instead of per statement.
        const { version, record } = ctx.db.$client
          .transaction(() => ({ version: memo.version(), record: accountRecord(ctx.db, handle) }))
          .deferred();
        if (!record) throw noRecord();
        const body = JSON.stringify(record);
        return jsonBody(memo.set(key, version, body), set);
      },
      {
        params: HandleParams,
        response: { 200: AccountRecordSchema, ...errors(400, 404, 429) },
        detail: {
          tags: ["public"],
          summary: "Public record of an identity-provider account",
          description: "Once a handle is pinned, the figures cover every handle pinned to the same user id.",
        },
      },
    )
    .get(
      "/api/idp/:handle/tokens",
      ({ params, query, set }) => {
        set.headers["cache-control"] = CACHE.publicRead;
        const limit = pageLimit(query.limit);
        const owner = ownerOf(params.handle);
        const after = parseTokenCursor(query.cursor);
        return accountTokensPage(ctx.db, owner, after, limit);
      },
      {
        params: HandleParams,
        query: PageQuerySchema,
        response: { 200: AccountTokensPageSchema, ...errors(400, 404, 429) },
        detail: {
          tags: ["public"],
          summary: "More tokens of an account record",
          description: "Pages after the record's first 100 tokens, newest launch first.",
        },
      },
    )
    .get(
      "/api/idp/:handle/payouts",
      ({ params, query, set }) => {
        set.headers["cache-control"] = CACHE.publicRead;
        const limit = pageLimit(query.limit);
        const owner = ownerOf(params.handle);
        const beforeId = parsePayoutCursor(query.cursor);
        if (!owner.idpUserId) return { payouts: [], nextCursor: null };
        return payoutsPage(ctx.db, owner.idpUserId, beforeId, limit);
      },
      {
        params: HandleParams,
        query: PageQuerySchema,
        response: { 200: PayoutsPageSchema, ...errors(400, 404, 429) },
        detail: {
          tags: ["public"],
          summary: "More payouts of an account record",
          description: "Pages after the record's first 100 payouts, newest first.",
        },
      },
    );
}
