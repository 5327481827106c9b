/**
 * The launch routes (SPEC Launch routes): intent, metadata, confirm, the RPC proxy, and the locally
 * stored metadata and images when no IPFS account is configured. They change with the launch page,
 * so the OpenAPI document lists them under the `launch` tag, marked unstable.
 */
import type { TObject, TSchema } from "@sinclair/typebox";
import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { CACHE } from "../http/cache";
import { AppError } from "../lib/errors";
import { errors, Int } from "../http/public-schemas";
import { limitKeyOf } from "../http/client-ip";
import { requestMeta } from "../http/request-meta";
import { ALLOWED_METHODS, LOCAL_CHAIN_ONLY_METHODS, proxyRpc } from "./rpc-proxy";
import {
  ConfirmDoneSchema,
  ConfirmPendingSchema,
  ConfirmRequestSchema,
  IntentRequestSchema,
  IntentResponseSchema,
  MetadataBodySchema,
  MetadataResponseSchema,
} from "./schemas";
import { confirmLaunch, type MetadataRequest, prepareLaunch, uploadMetadata } from "./service";
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

/** Elysia hands multipart fields over as strings and File objects; anything else is a bad request. */
async function bytesOf(value: unknown): Promise<Uint8Array | null> {
  if (value instanceof Blob) return new Uint8Array(await value.arrayBuffer());
  return null;
}

/** The metadata step's multipart parts, checked by hand: a wrong image must answer 413/415, not a generic 400. */
async function metadataRequest(body: unknown, request: Request): Promise<MetadataRequest> {
  const b = (body ?? {}) as Record<string, unknown>;
  const image = await bytesOf(b.image);
  const thumbnail = b.thumbnail === undefined || b.thumbnail === "" ? null : await bytesOf(b.thumbnail);
  if (typeof b.intent !== "string" || typeof b.signature !== "string" || !image) {
    throw new AppError("LAUNCH_PARTS_MISSING");
  }
  if (b.thumbnail !== undefined && b.thumbnail !== "" && !thumbnail) throw new AppError("LAUNCH_THUMBNAIL_NOT_FILE");
  const ip = requestMeta(request)?.ip;
  return {
    intent: b.intent,
    signature: b.signature,
    image,
    thumbnail,
    clientKey: ip ? limitKeyOf(ip) : undefined,
  };
}

const rpcId = () =>
  t.Union([t.String(), t.Number(), t.Null()], {
    description: "the request's id, echoed in the answer (null when the request had none)",
  });

/** What the proxy reads of a request (rpc-proxy.ts `parseRequest`); one request, never a batch. */
const RpcRequestSchema = t.Object(
  {
    jsonrpc: t.Literal("2.0"),
    id: t.Optional(rpcId()),
    method: t.Union(
      [...ALLOWED_METHODS, ...LOCAL_CHAIN_ONLY_METHODS].map((method) => t.Literal(method)),
      { description: "requestAirdrop only on the embedded local chain" },
    ),
    params: t.Optional(
      t.Array(t.Unknown(), { description: "the method's parameters, as the chain's JSON-RPC takes them" }),
    ),
  },
  { title: "RpcRequest" },
);

/** The proxy's answer: only the JSON-RPC fields of the provider's answer, with the request's id. */
const RpcResponseSchema = t.Union(
  [
    t.Object(
      {
        jsonrpc: t.Literal("2.0"),
        id: rpcId(),
        result: t.Unknown({ description: "the method's result, as the chain's JSON-RPC answers it" }),
      },
      { title: "RpcResult", additionalProperties: false },
    ),
    t.Object(
      {
        jsonrpc: t.Literal("2.0"),
        id: rpcId(),
        error: t.Object(
          { code: Int(), message: t.String(), data: t.Optional(t.Unknown()) },
          { description: "the provider's JSON-RPC error (a failed simulation, a bad parameter)" },
        ),
      },
      { title: "RpcError", additionalProperties: false },
    ),
  ],
  { title: "RpcResponse" },
);

/**
 * A schema for `detail`, whose type is OpenAPI 3.0's: these are JSON Schema 2020-12 (OpenAPI 3.1,
 * the document's version), with null as a type, which 3.0's type cannot name. The proxy checks
 * its body by hand (rpc-proxy.ts), so the route declares no body schema of its own.
 */
const documented = (schema: TSchema) => schema as unknown as TObject;

/** A fresh object per app: the OpenAPI plugin may annotate what it is given. */
const rpcProxyDocs = () => ({
  ...detail(
    "JSON-RPC proxy for the launch page",
    "Forwards the few chain methods the launch page uses (getGenesisHash, getBalance, getSignatureStatuses, " +
      "sendTransaction, simulateTransaction), with only the parameters the page sends. This site's pages only (403 " +
      "otherwise). Sends or simulates only the create or first buy of a launch prepared here, paid by its wallet, " +
      "within its window. 120 a minute per IP. 502 when the provider fails.",
  ),
  requestBody: { required: true, content: { "application/json": { schema: documented(RpcRequestSchema) } } },
  responses: {
    200: {
      description: "the provider's JSON-RPC answer (result or error)",
      content: { "application/json": { schema: documented(RpcResponseSchema) } },
    },
    400: {
      description:
        "not an allowed method or parameter shape, or not the create/first buy of an open launch of this site",
    },
    403: { description: "request from another site" },
    413: { description: "the request body is too large" },
    429: { description: "rate limited" },
    502: { description: "the provider failed" },
  },
});

/** A fresh object per app, as rpcProxyDocs. */
const metadataDocs = () => ({
  ...detail(
    "Upload the launch image and metadata",
    "Verifies the wallet's signature of the intent message, stores a WebP preview, pins the image and the metadata " +
      "JSON (extensions.split lists the recipients and bps) and returns the unsigned create transaction. 20 per hour per IP.",
  ),
  requestBody: {
    required: true,
    content: { "multipart/form-data": { schema: MetadataBodySchema } },
  },
});

/** A locally stored object by its content address. */
function localObjectResponse(ctx: AppContext, cid: string, setHeaders: Record<string, unknown>): Response {
  if (!/^[0-9a-f]{64}$/.test(cid)) throw new AppError("LAUNCH_OBJECT_ADDRESS_INVALID");
  const object = readLocalObject(ctx.db, cid);
  if (!object) throw new AppError("LAUNCH_OBJECT_NOT_FOUND");
  // Content-addressed: the bytes under a name never change.
  const headers = {
    "content-type": object.contentType,
    "cache-control": CACHE.immutable,
    "x-content-type-options": "nosniff",
    "content-security-policy": "default-src 'none'",
  };
  Object.assign(setHeaders, headers);
  return new Response(new Uint8Array(object.body), { headers });
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
        response: { 200: IntentResponseSchema, ...errors(400, 409, 410, 413, 429, 503) },
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
        return uploadMetadata(ctx, await metadataRequest(body, request));
      },
      {
        // Parsed but not validated by schema: a wrong image must answer 413/415, not a generic 400.
        parse: "multipart/form-data",
        response: { 200: MetadataResponseSchema, ...errors(400, 401, 404, 409, 410, 413, 415, 429, 502, 503) },
        detail: metadataDocs(),
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
        response: {
          200: ConfirmDoneSchema,
          202: ConfirmPendingSchema,
          ...errors(400, 404, 409, 410, 413, 429, 502, 503),
        },
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
        detail: rpcProxyDocs(),
      },
    )
    .get(`${LOCAL_OBJECTS_PATH}/:cid`, ({ params, set }) => localObjectResponse(ctx, params.cid, set.headers), {
      params: t.Object({ cid: t.String() }),
      detail: detail("Locally stored launch metadata or image", "Used when no IPFS account is configured."),
    });
}
