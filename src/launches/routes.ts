/**
 * The launch routes (SPEC Launch routes): intent, metadata, confirm, the RPC proxy, and the locally
 * stored metadata and images when no IPFS account is configured. They change with the launch page,
 * so the OpenAPI document lists them under the `launch` tag, marked unstable.
 */
import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { CACHE } from "../http/cache";
import { badRequest, notFound } from "../http/errors";
import { errors, IsoTimeSchema } from "../http/public-schemas";
import { limitKeyOf } from "../http/client-ip";
import { requestMeta } from "../http/request-meta";
import { TokenDetailSchema } from "../tokens";
import { DraftSchema } from "./draft";
import { proxyRpc } from "./rpc-proxy";
import { confirmLaunch, prepareLaunch, uploadMetadata } from "./service";
import { LOCAL_OBJECTS_PATH, readLocalObject } from "./storage";

export const LAUNCH_TAG = {
  name: "launch",
  description:
    "Unstable. Built for the launch page and liable to change with it; not an integration surface. " +
    "Flow: prepare an intent, upload the image and metadata with the wallet's message signature, sign and send the " +
    "returned transactions, then confirm with the create transaction's signature (poll while 202).",
  "x-unstable": true,
};

const detail = (summary: string, description?: string) => ({
  tags: [LAUNCH_TAG.name],
  summary,
  description: description ? `Unstable. ${description}` : "Unstable.",
  "x-unstable": true,
});

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
    platformBps: t.Integer({ description: "platform share recorded for this token" }),
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

const MetadataBodySchema = t.Object(
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

/** Elysia hands multipart fields over as strings and File objects; anything else is a bad request. */
async function bytesOf(value: unknown): Promise<Uint8Array | null> {
  if (value instanceof Blob) return new Uint8Array(await value.arrayBuffer());
  return null;
}

export function launchRoutes(ctx: AppContext) {
  return new Elysia({ name: "launches" })
    .post(
      "/api/launch/intent",
      async ({ body, set }) => {
        set.headers["cache-control"] = CACHE.private;
        return prepareLaunch(ctx, body);
      },
      {
        body: IntentRequestSchema,
        response: { 200: IntentResponseSchema, ...errors(400, 409, 410, 429, 503) },
        detail: detail(
          "Prepare a launch",
          "Validates the draft, allocates the token's creator address, opens a 10-minute window.",
        ),
      },
    )
    .post(
      "/api/launch/metadata",
      async ({ body, set, request }) => {
        set.headers["cache-control"] = CACHE.private;
        const b = (body ?? {}) as Record<string, unknown>;
        const image = await bytesOf(b.image);
        const thumbnail = b.thumbnail === undefined || b.thumbnail === "" ? null : await bytesOf(b.thumbnail);
        if (typeof b.intent !== "string" || typeof b.signature !== "string" || !image) {
          throw badRequest("Send multipart parts intent, signature and image.");
        }
        if (b.thumbnail !== undefined && b.thumbnail !== "" && !thumbnail)
          throw badRequest("The thumbnail part must be a file.");
        const ip = requestMeta(request)?.ip;
        return uploadMetadata(ctx, {
          intent: b.intent,
          signature: b.signature,
          image,
          thumbnail,
          clientKey: ip ? limitKeyOf(ip) : undefined,
        });
      },
      {
        // Parsed but not validated by schema: a wrong image must answer 413/415, not a generic 400.
        parse: "multipart/form-data",
        response: { 200: MetadataResponseSchema, ...errors(400, 401, 404, 409, 410, 413, 415, 429, 502, 503) },
        detail: {
          ...detail(
            "Upload the launch image and metadata",
            "Verifies the wallet's signature of the intent message, stores a WebP preview, pins the image and the metadata " +
              "JSON (extensions.split lists the recipients and bps) and returns the unsigned create transaction. 20 per hour per IP.",
          ),
          requestBody: {
            required: true,
            content: { "multipart/form-data": { schema: MetadataBodySchema } },
          },
        },
      },
    )
    .post(
      "/api/launch/confirm",
      async ({ body, set }) => {
        set.headers["cache-control"] = CACHE.private;
        const outcome = await confirmLaunch(ctx, body);
        set.status = outcome.httpStatus;
        return outcome.body;
      },
      {
        body: ConfirmRequestSchema,
        response: { 200: ConfirmDoneSchema, 202: ConfirmPendingSchema, ...errors(400, 404, 409, 410, 429, 502, 503) },
        detail: detail(
          "Confirm a launch",
          "202 pending until the transaction is confirmed (poll again); 200 failed with error when it failed on chain; " +
            "200 confirmed with the token's record once recorded. Idempotent.",
        ),
      },
    )
    .post(
      "/api/rpc",
      async ({ body, request, set }) => {
        set.headers["cache-control"] = CACHE.noStore;
        return proxyRpc(ctx, request, body);
      },
      {
        parse: "application/json",
        detail: {
          ...detail(
            "JSON-RPC proxy for the launch page",
            "Forwards the few chain methods the launch page uses (getGenesisHash, getBalance, getSignatureStatuses, " +
              "sendTransaction, simulateTransaction), with only the parameters the page sends. This site's pages only (403 " +
              "otherwise). Sends or simulates only the create or first buy of a launch prepared here, paid by its wallet, " +
              "within its window. 120 a minute per IP. 502 when the provider fails.",
          ),
          responses: {
            200: { description: "the provider's JSON-RPC answer (result or error)" },
            400: {
              description:
                "not an allowed method or parameter shape, or not the create/first buy of an open launch of this site",
            },
            403: { description: "request from another site" },
            429: { description: "rate limited" },
            502: { description: "the provider failed" },
          },
        },
      },
    )
    .get(
      `${LOCAL_OBJECTS_PATH}/:cid`,
      ({ params, set }) => {
        if (!/^[0-9a-f]{64}$/.test(params.cid)) throw badRequest("Not an object address.");
        const object = readLocalObject(ctx.db, params.cid);
        if (!object) throw notFound("No such object.");
        // Content-addressed: the bytes under a name never change.
        const headers = {
          "content-type": object.contentType,
          "cache-control": CACHE.immutable,
          "x-content-type-options": "nosniff",
          "content-security-policy": "default-src 'none'",
        };
        Object.assign(set.headers, headers);
        return new Response(new Uint8Array(object.body), { headers });
      },
      {
        params: t.Object({ cid: t.String() }),
        detail: detail("Locally stored launch metadata or image", "Used when no IPFS account is configured."),
      },
    );
}
