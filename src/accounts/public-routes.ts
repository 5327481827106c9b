/** `GET /api/idp/:handle`: the public record of one identity-provider account. */
import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { CACHE } from "../http/cache";
import { badRequest, notFound } from "../http/errors";
import {
  errors,
  Int,
  handleKey,
  IsoTimeSchema,
  LamportsSchema,
  NullableIsoTime,
  NullableString,
} from "../http/public-schemas";
import { jsonBody, readMemo } from "../http/read-memo";
import { RoutingSchema } from "../tokens";
import { accountOwnerOf, accountRecord, accountTokensPage, payoutsPage } from "./record";
import { pageLimit, parsePayoutCursor, parseTokenCursor } from "./pages";

export const PayoutSchema = t.Object(
  {
    id: Int(),
    lamports: LamportsSchema,
    wallet: t.String(),
    kind: t.Union([t.Literal("claim"), t.Literal("autopay")]),
    status: t.Union([
      t.Literal("queued"),
      t.Literal("sent"),
      t.Literal("confirmed"),
      t.Literal("failed"),
      t.Literal("replaced"),
    ]),
    signature: t.Union([t.String(), t.Null()], { description: "present once sent" }),
    createdAt: IsoTimeSchema,
    confirmedAt: NullableIsoTime,
  },
  { title: "Payout" },
);

export const AccountTokenSchema = t.Object({
  mint: t.String(),
  name: t.String(),
  symbol: t.String(),
  imageUrl: NullableString,
  bps: Int(),
  creditedLamports: LamportsSchema,
});

export const AccountRecordSchema = t.Object(
  {
    handle: t.String(),
    displayHandle: t.String(),
    name: t.String(),
    avatarUrl: t.String(),
    followers: Int(),
    claimed: t.Boolean(),
    routing: RoutingSchema,
    declined: t.Boolean(),
    creditedLamports: LamportsSchema,
    paidLamports: LamportsSchema,
    burnedLamports: LamportsSchema,
    balanceLamports: LamportsSchema,
    tokens: t.Array(AccountTokenSchema, {
      description: "newest launch first; the first 100, the rest from /api/idp/{handle}/tokens",
    }),
    payouts: t.Array(PayoutSchema, {
      description: "newest first; the first 100, the rest from /api/idp/{handle}/payouts",
    }),
    tokensNextCursor: t.Union([t.String(), t.Null()], {
      description:
        "cursor of GET /api/idp/{handle}/tokens for the tokens after these; null when tokens is the whole list",
    }),
    payoutsNextCursor: t.Union([t.String(), t.Null()], {
      description:
        "cursor of GET /api/idp/{handle}/payouts for the payouts after these; null when payouts is the whole list",
    }),
  },
  { title: "AccountRecord" },
);

export const AccountTokensPageSchema = t.Object(
  {
    tokens: t.Array(AccountTokenSchema),
    nextCursor: t.Union([t.String(), t.Null()], { description: "null on the last page" }),
  },
  { title: "AccountTokensPage" },
);

export const PayoutsPageSchema = t.Object(
  {
    payouts: t.Array(PayoutSchema),
    nextCursor: t.Union([t.String(), t.Null()], { description: "null on the last page" }),
  },
  { title: "PayoutsPage" },
);

const PageQuerySchema = t.Object({
  cursor: t.String({
    description: "the nextCursor (or the record's tokensNextCursor/payoutsNextCursor) of the previous page",
  }),
  limit: t.Optional(t.String({ description: "1 to 100, default 100" })),
});

export function accountPublicRoutes(ctx: AppContext) {
  const memo = readMemo(ctx.db);
  const ownerOf = (raw: string) => {
    const handle = handleKey(raw);
    if (!handle) throw badRequest("The handle must be 1 to 15 letters, digits or underscores.");
    const owner = accountOwnerOf(ctx.db, handle);
    if (!owner) throw notFound("No token launched here names this handle yet.");
    return owner;
  };
  return new Elysia({ name: "accounts-public" })
    .get(
      "/api/idp/:handle",
      ({ params, set }) => {
        set.headers["cache-control"] = CACHE.publicRead;
        const handle = handleKey(params.handle);
        if (!handle) throw badRequest("The handle must be 1 to 15 letters, digits or underscores.");
        const key = `idp\u0000${handle}`;
        const version = memo.version();
        const hit = memo.get(key, version);
        if (hit) return jsonBody(hit.body, set.headers);
        const record = accountRecord(ctx.db, handle);
        if (!record) throw notFound("No token launched here names this handle yet.");
        const body = JSON.stringify(record);
        memo.set(key, version, body);
        return jsonBody(body, set.headers);
      },
      {
        params: t.Object({ handle: t.String({ description: "1 to 15 letters, digits or underscores, optional @" }) }),
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
        const owner = ownerOf(params.handle);
        const after = parseTokenCursor(query.cursor);
        return accountTokensPage(ctx.db, owner, after, pageLimit(query.limit));
      },
      {
        params: t.Object({ handle: t.String() }),
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
        const owner = ownerOf(params.handle);
        const beforeId = parsePayoutCursor(query.cursor);
        if (!owner.idpUserId) return { payouts: [], nextCursor: null };
        return payoutsPage(ctx.db, owner.idpUserId, beforeId, pageLimit(query.limit));
      },
      {
        params: t.Object({ handle: t.String() }),
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
