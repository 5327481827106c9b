/** SPEC's Token, Token detail, Recipient and Sweep as schemas: route responses and the OpenAPI document. */
import { type Static, t } from "elysia";
import {
  Int,
  IsoTimeSchema,
  LamportsSchema,
  NullableIsoTime,
  NullableNumber,
  NullableString,
} from "../http/public-schemas";
import { documentedString, integerQuery } from "../http/params";

/** SPEC: `limit` of `/api/tokens` is an integer from 1 to 60, default 24. */
export const TOKENS_LIMIT = integerQuery("limit", { minimum: 1, maximum: 60, default: 24 }, "tokens per page");

export const RoutingSchema = t.Union([t.Literal("hold"), t.Literal("autopay"), t.Literal("burn"), t.Null()]);

const RecipientSchema = t.Object(
  {
    handle: t.String({ description: "lowercase handle" }),
    displayHandle: t.String({ description: "handle with its original casing" }),
    bps: Int({ minimum: 1, maximum: 10_000 }),
    name: t.String(),
    avatarUrl: t.String(),
    claimed: t.Boolean({ description: "the account has signed in at least once" }),
    routing: RoutingSchema,
    declined: t.Boolean(),
    creditedLamports: LamportsSchema,
  },
  { title: "Recipient" },
);

const tokenFields = {
  mint: t.String({ description: "base58 token address" }),
  name: t.String(),
  symbol: t.String(),
  imageUrl: t.Union([t.String(), t.Null()], { description: "stored preview path, else the IPFS image address" }),
  creator: t.String(),
  deployer: t.String(),
  launchedAt: IsoTimeSchema,
  recipients: t.Array(RecipientSchema),
  platformBps: Int({ minimum: 0, maximum: 10_000 }),
  sweptLamports: LamportsSchema,
  vaultLamports: LamportsSchema,
  vaultCheckedAt: IsoTimeSchema,
  bonded: t.Boolean(),
  marketCapUsd: NullableNumber,
  volume24hUsd: NullableNumber,
  lastSweptAt: NullableIsoTime,
  feeSharing: t.Union(
    [
      t.Object(
        {
          status: t.Union([t.Literal("distributing"), t.Literal("stopped")], {
            description:
              "distributing: the service's share of the sharing config reaches the treasury and is credited; stopped: it cannot (see reason), the token no longer accrues here",
          }),
          currentCreator: t.String({ description: "the creator the launch program pays now" }),
          isSharingConfig: t.Boolean({ description: "the current creator is the coin's pump.fun fee-sharing config" }),
          serviceShareBps: Int({
            minimum: 0,
            maximum: 10_000,
            description: "the token's own creator key's share in that config",
          }),
          reason: NullableString,
          since: IsoTimeSchema,
        },
        { title: "FeeSharing" },
      ),
      t.Null(),
    ],
    {
      description:
        "set when the launch program's creator is no longer the token's own creator key (pump.fun fee sharing); null while it is, or before the first reading",
    },
  ),
};

const TokenSchema = t.Object(tokenFields, { title: "Token" });

const SweepSchema = t.Object(
  {
    id: Int(),
    mint: t.String(),
    symbol: t.String(),
    signature: t.String(),
    status: t.Union([t.Literal("sent"), t.Literal("confirmed"), t.Literal("failed")]),
    totalLamports: LamportsSchema,
    platformLamports: LamportsSchema,
    createdAt: IsoTimeSchema,
    confirmedAt: t.Union([IsoTimeSchema, t.Null()], { description: "null until confirmed" }),
  },
  { title: "Sweep" },
);

export const TokenDetailSchema = t.Object(
  {
    ...tokenFields,
    description: t.String(),
    website: NullableString,
    twitter: NullableString,
    telegram: NullableString,
    metadataUri: t.String(),
    launchSignature: t.String(),
    creatorVault: t.String(),
    sweeps: t.Array(SweepSchema, { maxItems: 25, description: "the 25 most recent sweeps, newest first" }),
  },
  { title: "TokenDetail" },
);

export const TokenPageSchema = t.Object(
  {
    tokens: t.Array(TokenSchema),
    nextCursor: t.Union([t.String(), t.Null()], { description: "null on the last page" }),
  },
  { title: "TokenPage" },
);

export const TokenListQuerySchema = t.Object({
  sort: t.Optional(
    t.Union([t.Literal("new"), t.Literal("fees"), t.Literal("mcap")], {
      description:
        "new (default): by launch time; fees: swept plus vault; mcap: market cap, unknown last (by fees). Always descending",
    }),
  ),
  q: t.Optional(
    t.String({
      maxLength: 64,
      description:
        "exact mint or creator address, substring of name or ticker, or the start of a recipient handle with or without @",
    }),
  ),
  limit: TOKENS_LIMIT.schema,
  // The shape of the cursors issued (src/tokens/cursor.ts): a payload, a dot and a 16-byte signature.
  cursor: t.Optional(
    documentedString({
      type: "string",
      pattern: "^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{22}$",
      maxLength: 512,
      description: "the nextCursor of the previous page, as it came; valid only with the same sort",
    }),
  ),
});

export type Recipient = Static<typeof RecipientSchema>;
export type Token = Static<typeof TokenSchema>;
export type TokenDetail = Static<typeof TokenDetailSchema>;
/** The public `feeSharing` field of a token, when there is one. */
export type FeeSharingState = NonNullable<Token["feeSharing"]>;
