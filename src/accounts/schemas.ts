/**
 * The public account record's contract (SPEC Account record): the TypeBox schemas feed route
 * validation and the OpenAPI document, and the TypeScript types of src/accounts are derived from
 * them, so a field is written once.
 */
import { type Static, t } from "elysia";
import { Int, IsoTimeSchema, LamportsSchema, NullableIsoTime, NullableString } from "../http/public-schemas";

/**
 * A figure of the account that a reconciliation with the chain is still changing (after a
 * restore): null then, never a number on its way to the right one.
 */
const AccountLamports = t.Union([LamportsSchema, t.Null()], {
  description: "whole lamports as a decimal string; null while `reconciling`",
});

/** Present, and true, only while the books are reconciled with the chain after a restore. */
const ReconcilingSchema = t.Optional(
  t.Literal(true, {
    description:
      "present only while the books are reconciled with the chain (after a restore): the account's figures are null until it is done, then return",
  }),
);
import { PayoutStatusSchema } from "../ledger";
import { RoutingSchema } from "../tokens";

const PayoutSchema = t.Object(
  {
    id: Int(),
    lamports: LamportsSchema,
    wallet: t.String(),
    kind: t.Union([t.Literal("claim"), t.Literal("autopay")]),
    status: PayoutStatusSchema,
    signature: t.Union([t.String(), t.Null()], { description: "present once sent" }),
    createdAt: IsoTimeSchema,
    confirmedAt: NullableIsoTime,
  },
  { title: "Payout" },
);

const AccountTokenSchema = t.Object(
  {
    mint: t.String(),
    name: t.String(),
    symbol: t.String(),
    imageUrl: NullableString,
    bps: Int({ minimum: 1, maximum: 10_000 }),
    creditedLamports: AccountLamports,
  },
  { title: "AccountToken" },
);

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
    creditedLamports: AccountLamports,
    paidLamports: AccountLamports,
    burnedLamports: AccountLamports,
    balanceLamports: AccountLamports,
    reconciling: ReconcilingSchema,
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
    reconciling: ReconcilingSchema,
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

export type Payout = Static<typeof PayoutSchema>;
export type AccountToken = Static<typeof AccountTokenSchema>;
export type AccountRecord = Static<typeof AccountRecordSchema>;
export type AccountTokensPage = Static<typeof AccountTokensPageSchema>;
export type PayoutsPage = Static<typeof PayoutsPageSchema>;
