/**
 * The launch routes' request and response shapes: the routes validate with them, and the service's
 * types derive from them.
 */
import { t, type Static } from "elysia";
import { Int, IsoTimeSchema } from "../http/public-schemas";
import { TokenDetailSchema } from "../tokens";
import { DraftSchema } from "./draft";

const Address = t.String({ description: "base58 address" });

export const IntentRequestSchema = t.Object(
  {
    draft: DraftSchema,
    wallet: t.String({ description: "the deployer's wallet: it signs the message, pays for and signs the create" }),
    mint: t.String({ description: "the address of a mint keypair the page generated; it signs the create" }),
    digest: t.String({ description: "hex SHA-256 of the image bytes that will be uploaded" }),
  },
  { title: "LaunchIntentRequest" },
);

export const IntentResponseSchema = t.Object(
  {
    intent: t.String({ description: "intent id, for the metadata and confirm steps" }),
    mint: Address,
    wallet: Address,
    creator: t.String({ description: "this token's own creator address, derived by the service" }),
    platformBps: Int({ minimum: 0, maximum: 10_000, description: "platform share recorded for this token" }),
    message: t.String({ description: "UTF-8 text the wallet signs (signMessage) for the metadata step" }),
    expiresAt: IsoTimeSchema,
  },
  { title: "LaunchIntent" },
);

export const MetadataResponseSchema = t.Object(
  {
    intent: t.String(),
    mint: Address,
    creator: Address,
    metadataUri: t.String({ description: "metadata JSON address; carries the split under extensions.split" }),
    imageUri: t.String(),
    transactions: t.Array(t.String(), {
      minItems: 1,
      description:
        "base64 unsigned transactions; the wallet (and the mint keypair where it is a signer) signs them and sends " +
        "them in order. The first creates the token; a first buy may follow as a second one",
    }),
    lastValidBlockHeight: t.String({ description: "block height after which the transactions can no longer land" }),
    expiresAt: IsoTimeSchema,
  },
  { title: "LaunchMetadata" },
);

export const MetadataBodySchema = t.Object(
  {
    intent: t.String(),
    signature: t.String({ description: "the wallet's ed25519 signature of the intent's message, base58 or base64" }),
    image: t.File({ description: "PNG, JPEG, GIF or WebP; at most maxImageBytes" }),
    thumbnail: t.Optional(
      t.File({ description: "optional; checked like the image, the preview is made from the image" }),
    ),
  },
  { title: "LaunchMetadataUpload" },
);

export const ConfirmRequestSchema = t.Object(
  {
    intent: t.String(),
    signature: t.String({ description: "signature of the create transaction" }),
  },
  { title: "LaunchConfirmRequest" },
);

export const ConfirmPendingSchema = t.Object(
  { status: t.Literal("pending"), intent: t.String(), signature: t.String() },
  { title: "LaunchPending" },
);

export const ConfirmDoneSchema = t.Union(
  [
    t.Object({ status: t.Literal("confirmed"), intent: t.String(), signature: t.String(), token: TokenDetailSchema }),
    t.Object({ status: t.Literal("failed"), intent: t.String(), signature: t.String(), error: t.String() }),
  ],
  { title: "LaunchConfirmResult" },
);

export type IntentResponse = Static<typeof IntentResponseSchema>;
export type MetadataResponse = Static<typeof MetadataResponseSchema>;
export type ConfirmPending = Static<typeof ConfirmPendingSchema>;
export type ConfirmDone = Static<typeof ConfirmDoneSchema>;
