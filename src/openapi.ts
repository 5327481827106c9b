/**
 * `/api/openapi.json` (OpenAPI 3.1): SPEC's public data reads, plus the launch routes under a
 * `launch` tag marked unstable; and `/api/openapi-operator.json`: the routes behind an operator's
 * bearer secret (cron, admin, webhooks), which SPEC keeps out of the public API. The interactive
 * docs page at `/api/docs` is src/web/docs.ts.
 *
 * The paths come from the route schemas (`@elysiajs/openapi`'s generator), then `refine` makes the
 * document as exact as the code: named schemas under components referenced with $ref, the ledger
 * events as a `oneOf` discriminated by `type`, enums for fixed values, the inputs a handler checks
 * itself (strict integers, path patterns) as the handler checks them, every error status with the
 * `{error}` body, the rate-limit, retry-after and cache-control headers each answer carries, and
 * camelCase operation ids. Integrators generate typed clients from it (docs/integrating.md).
 */
import { AppError } from "./lib/errors";
import { toOpenAPISchema } from "@elysiajs/openapi";
import { type AnyElysia, Elysia } from "elysia";
import { ADMIN_SIGN_IN_PATH } from "./admin/authorized";
import { CACHE } from "./http/cache";
import { OPENAPI_PATH } from "./http/openapi";
import { DISCRIMINATED_BY, DOCUMENT_AS } from "./http/params";
import { limitRuleFor } from "./http/rate-limit";
import { OPERATOR_TAG } from "./jobs/cron-schemas";
import { LAUNCH_TAG } from "./launches/routes";
import { OPERATOR_PATHS } from "./openapi-operator";

const OPERATOR_OPENAPI_PATH = "/api/openapi-operator.json";

type Json = Record<string, unknown>;
// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is walked generically here
type Node = any;

/** The public paths the document describes; anything else the app serves is left out. */
const NOT_PUBLIC =
  /^(?!\/api\/(tokens|tokens\/:mint|token-images\/:mint|idp\/:handle|idp\/:handle\/payouts|idp\/:handle\/tokens|stats|ledger|ledger\/stream|launch\/config|ca|proof|proof\/liabilities|cron\/health|launch\/intent|launch\/metadata|launch\/confirm|rpc|tokens\/:mint\/history|proof\/history|idp\/:handle\/history)$)/;
/** The operator routes generated from their route schemas; the admin and webhook ones are in OPERATOR_PATHS. */
const NOT_GENERATED_OPERATOR = /^(?!\/api\/cron\/(:job|runs\/:runId)$)/;

/**
 * The Cache-Control of each public path's successful answers (SPEC Limits). Error answers are
 * `no-store` on every route. A path missing here fails the document's build: each route decides.
 */
const CACHE_CONTROL_OF: Record<string, string> = {
  "/api/tokens": CACHE.publicRead,
  "/api/tokens/{mint}": CACHE.publicRead,
  "/api/tokens/{mint}/history": CACHE.publicRead,
  "/api/token-images/{mint}": CACHE.immutable,
  "/api/idp/{handle}": CACHE.publicRead,
  "/api/idp/{handle}/tokens": CACHE.publicRead,
  "/api/idp/{handle}/payouts": CACHE.publicRead,
  "/api/idp/{handle}/history": CACHE.publicRead,
  "/api/stats": CACHE.publicRead,
  "/api/ledger": CACHE.ledger,
  "/api/ledger/stream": CACHE.noStore,
  "/api/launch/config": CACHE.publicRead,
  "/api/ca": CACHE.publicRead,
  "/api/proof": CACHE.proof,
  "/api/proof/history": CACHE.proof,
  "/api/proof/liabilities": CACHE.proof,
  "/api/cron/health": CACHE.noStore,
  "/api/launch/intent": CACHE.private,
  "/api/launch/metadata": CACHE.private,
  "/api/launch/confirm": CACHE.private,
  "/api/rpc": CACHE.noStore,
};

/** SPEC Errors: what each status means, for the error answers the routes do not describe further. */
const ERROR_MEANING: Record<number, string> = {
  400: "Malformed request: a bad address, handle, cursor, limit or field",
  401: "Not signed in, or a signature that does not match",
  403: "Request from another site",
  404: "No such resource (or, on an operator route, the route is off or the bearer is wrong)",
  409: "Conflict with the current state",
  410: "The signing window expired; start over",
  413: "The request body or image is too large",
  415: "Not a PNG, JPEG, GIF or WebP image",
  429: "Rate limited; retry after `retry-after` seconds",
  500: "Unexpected failure; details only in the server log. Retry with backoff",
  502: "Upstream failed (the node provider or the IPFS upload). Retry with backoff",
  503: "Not available just now (not configured, paused, or the chain could not be read). Retry later",
};

/** What a 400 also means on an operation with query parameters (src/http/params.ts `repeatedQueryGuard`). */
const REPEATED_QUERY_MEANING = ", or a query parameter given more than once";

/** The description of an error answer the route does not describe itself. */
function errorMeaning(code: number, op: Node): string {
  const meaning = ERROR_MEANING[code] ?? "Error";
  const takesQuery = (op.parameters ?? []).some((p: Node) => p?.in === "query");
  return code === 400 && takesQuery ? `${meaning}${REPEATED_QUERY_MEANING}` : meaning;
}

const GENERIC_DESCRIPTION = /^(Response for status \d+|Every error has this shape only)$/;

const HEADERS: Record<string, Json> = {
  "x-ratelimit-limit": {
    description: "Requests allowed in the current window for this client IP",
    schema: { type: "integer", minimum: 1 },
  },
  "x-ratelimit-remaining": {
    description: "Requests left in the current window",
    schema: { type: "integer", minimum: 0 },
  },
  "x-ratelimit-reset": {
    description: "When the current window ends, in unix seconds (not a duration)",
    schema: { type: "integer", minimum: 0 },
  },
  "retry-after": {
    description: "Seconds to wait before retrying",
    schema: { type: "integer", minimum: 1 },
  },
};
const HEADER_COMPONENT: Record<string, string> = {
  "x-ratelimit-limit": "XRateLimitLimit",
  "x-ratelimit-remaining": "XRateLimitRemaining",
  "x-ratelimit-reset": "XRateLimitReset",
  "retry-after": "RetryAfter",
};

const ERROR_SCHEMA = {
  type: "object",
  required: ["error"],
  properties: { error: { type: "string", description: "a human-readable sentence; match on the status, not on it" } },
  additionalProperties: false,
  description: "Every error has this shape only",
};

/**
 * The generator hands back the routes' own schema objects in places; they are copied before they
 * are reworked, so route validation never sees the document's edits.
 */
const plainCopy = <T>(value: T): T => JSON.parse(JSON.stringify(value));

const ref = (kind: "schemas" | "headers" | "responses", name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** Placeholder values for path parameters, to find a path's rate-limit rule. */
const SAMPLE_PARAMS: Record<string, string> = {
  mint: "11111111111111111111111111111111",
  handle: "someone",
  job: "sweep",
  runId: "run_0",
};

interface RefineOptions {
  /** Cache-Control of a path's successful answers */
  cacheControl(path: string): string;
  /** the security requirement of an operation, when it has one */
  security?(path: string, method: string): Json[] | undefined;
}

/** `getApiToken-imagesByMint` → `getApiTokenImagesByMint`. */
function camelCaseId(id: string): string {
  return id.replace(/[^A-Za-z0-9]+([A-Za-z0-9])/g, (_, c: string) => c.toUpperCase()).replace(/[^A-Za-z0-9]/g, "");
}

/** Makes the generated document exact (see the file's comment); `doc` is changed in place and returned. */
function refine(doc: Node, options: RefineOptions): Node {
  const schemas: Record<string, Json> = { Error: ERROR_SCHEMA };
  const swapDocumented = (node: Node): Node => {
    if (Array.isArray(node)) return node.map(swapDocumented);
    if (!node || typeof node !== "object") return node;
    if (DOCUMENT_AS in node) return structuredClone(node[DOCUMENT_AS]);
    for (const key of Object.keys(node)) node[key] = swapDocumented(node[key]);
    return node;
  };
  doc.paths = swapDocumented(doc.paths);

  for (const [path, item] of Object.entries<Node>(doc.paths)) {
    for (const [method, op] of Object.entries<Node>(item)) {
      if (typeof op !== "object" || !op.responses) continue;
      op.operationId = camelCaseId(op.operationId ?? `${method}${path}`);
      const samplePath = path.replace(/\{([^}]+)\}/g, (_, name: string) => SAMPLE_PARAMS[name] ?? "x");
      const limited = limitRuleFor(method.toUpperCase(), samplePath) !== null;
      const responses: Record<string, Node> = op.responses;
      if (limited || responses["429"]) responses["429"] ??= {};
      responses["500"] ??= {};
      const cacheControl = options.cacheControl(path);
      for (const [status, response] of Object.entries<Node>(responses)) {
        const code = Number(status);
        const described = response.description && !GENERIC_DESCRIPTION.test(response.description);
        const headers: Record<string, Json> = {};
        if (limited)
          for (const name of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"])
            headers[name] = ref("headers", HEADER_COMPONENT[name]!);
        if (code === 429) headers["retry-after"] = ref("headers", HEADER_COMPONENT["retry-after"]!);
        const cache = code >= 400 ? CACHE.noStore : cacheControl;
        headers["cache-control"] = { description: "Cache-Control", schema: { type: "string", enum: [cache] } };
        responses[status] =
          code >= 400
            ? {
                description: described ? response.description : errorMeaning(code, op),
                headers,
                content: { "application/json": { schema: ref("schemas", "Error") } },
              }
            : { ...response, description: described ? response.description : "Success", headers };
      }
      const security = options.security?.(path, method);
      if (security) op.security = security;
    }
  }

  // Named schemas: every titled object (or union) goes under components once, referenced by $ref.
  const hoist = (node: Node): Node => {
    if (Array.isArray(node)) return node.map(hoist);
    if (!node || typeof node !== "object") return node;
    for (const key of Object.keys(node)) {
      if (key === "const" || key === "enum" || key === "default" || key === "examples") continue;
      node[key] = hoist(node[key]);
    }
    asEnum(node);
    if (typeof node[DISCRIMINATED_BY] === "string") discriminate(node, schemas);
    if (typeof node.title !== "string" || !(node.type === "object" || node.anyOf || node.oneOf)) return node;
    const name = node.title;
    const existing = schemas[name];
    if (existing && JSON.stringify(existing) !== JSON.stringify(node))
      throw new AppError("OPENAPI_TITLE_TAKEN", { title: name });
    schemas[name] = node;
    return ref("schemas", name);
  };
  for (const item of Object.values<Node>(doc.paths)) {
    for (const op of Object.values<Node>(item)) {
      if (typeof op !== "object") continue;
      for (const parameter of op.parameters ?? []) parameter.schema = hoist(parameter.schema);
      for (const media of Object.values<Node>(op.requestBody?.content ?? {})) media.schema = hoist(media.schema);
      for (const response of Object.values<Node>(op.responses ?? {}))
        for (const media of Object.values<Node>(response.content ?? {}))
          if (media.schema) media.schema = hoist(media.schema);
    }
  }
  doc.components = {
    ...(doc.components ?? {}),
    schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
    headers: Object.fromEntries(
      Object.entries(HEADER_COMPONENT).map(([name, component]) => [component, HEADERS[name]]),
    ),
  };
  return doc;
}

/** A union of string constants (and null) as the enum generators read: `{type, enum}`. */
function asEnum(node: Node): void {
  const members: Node[] | undefined = node.anyOf;
  if (!Array.isArray(members) || members.length === 0) return;
  const constants = members.filter(
    (m) => typeof m?.const === "string" && Object.keys(m).every((k) => k === "const" || k === "type"),
  );
  const nulls = members.filter((m) => m?.type === "null" && Object.keys(m).length === 1);
  if (constants.length === 0 || constants.length + nulls.length !== members.length) return;
  delete node.anyOf;
  node.type = nulls.length > 0 ? ["string", "null"] : "string";
  node.enum = [...constants.map((m) => m.const), ...(nulls.length > 0 ? [null] : [])];
}

/** A union marked DISCRIMINATED_BY whose members are named schemas: a `oneOf` with its mapping. */
function discriminate(node: Node, schemas: Record<string, Json>): void {
  const property: string = node[DISCRIMINATED_BY];
  delete node[DISCRIMINATED_BY];
  const members: Node[] = node.anyOf ?? node.oneOf;
  const mapping: Record<string, string> = {};
  for (const member of members) {
    const name = typeof member?.$ref === "string" ? member.$ref.replace("#/components/schemas/", "") : null;
    const value = name ? (schemas[name] as Node)?.properties?.[property]?.const : undefined;
    if (typeof value !== "string") throw new AppError("OPENAPI_UNION_MEMBER_UNNAMED", { property });
    mapping[value] = member.$ref;
  }
  delete node.anyOf;
  node.oneOf = members;
  node.discriminator = { propertyName: property, mapping };
}

/** The public document's version: CHANGELOG.md has a section for each. */
export const PUBLIC_DOCUMENT_VERSION = "2.0.0";

const PUBLIC_INFO = {
  title: "Creator-fee ledger: public reads",
  version: PUBLIC_DOCUMENT_VERSION,
  description:
    "Public data reads of the creator-fee ledger service. No key and no sign-in; limited per client IP. " +
    "Money is whole lamports as decimal strings; times are ISO 8601 UTC; unknown values are null; clients ignore " +
    "fields they do not know. Every error is `{error}` only: match on the status. Rate-limited routes answer " +
    "x-ratelimit-limit, x-ratelimit-remaining and x-ratelimit-reset (unix seconds); a 429 adds retry-after. " +
    "The public reads and the stream answer any origin (CORS: Access-Control-Allow-Origin *, never credentials); " +
    "the launch routes answer this site's pages only. A query parameter given twice is a 400; a body over its " +
    "route's limit is a 413. " +
    `The operator routes (cron, admin, webhooks) are described in ${OPERATOR_OPENAPI_PATH}.`,
};

/** The public document of `app`'s routes. */
function publicDocument(app: AnyElysia): Node {
  const generated = toOpenAPISchema(app, { paths: [NOT_PUBLIC] }, undefined, undefined, "3.1.0");
  return refine(
    {
      openapi: "3.1.0",
      info: PUBLIC_INFO,
      tags: [
        { name: "public", description: "Public data reads: stable (see the Versioning section of CHANGELOG.md)" },
        LAUNCH_TAG,
      ],
      paths: plainCopy(generated.paths),
    },
    {
      cacheControl(path) {
        const value = CACHE_CONTROL_OF[path];
        if (!value) throw new AppError("OPENAPI_CACHE_UNDOCUMENTED", { path });
        return value;
      },
    },
  );
}

/** The operator document: the cron routes from their schemas, the admin and webhook routes described here. */
function operatorDocument(app: AnyElysia): Node {
  const generated = toOpenAPISchema(app, { paths: [NOT_GENERATED_OPERATOR] }, undefined, undefined, "3.1.0");
  return refine(
    {
      openapi: "3.1.0",
      info: {
        title: "Creator-fee ledger: operator routes",
        version: PUBLIC_DOCUMENT_VERSION,
        description:
          "Routes behind an operator's bearer secret: the job triggers (CRON_SECRET) and the admin and webhook " +
          "routes (ADMIN_SECRET). Not part of the public API (CHANGELOG.md, Versioning); they may change with the service. " +
          "With the secret unset, missing or wrong, every route answers 404 as if it did not exist; repeated wrong " +
          "secrets from one IP are answered 429.",
      },
      tags: [{ name: OPERATOR_TAG, description: "Operator routes, behind a bearer secret" }],
      paths: { ...plainCopy(generated.paths), ...plainCopy(OPERATOR_PATHS) },
      components: {
        securitySchemes: {
          cronSecret: { type: "http", scheme: "bearer", description: "`Authorization: Bearer <CRON_SECRET>`" },
          adminSecret: { type: "http", scheme: "bearer", description: "`Authorization: Bearer <ADMIN_SECRET>`" },
        },
      },
    },
    {
      cacheControl: () => CACHE.noStore,
      security: (path, method) =>
        // The /admin page signs in with the key in its body, not a bearer.
        path === ADMIN_SIGN_IN_PATH && method === "post"
          ? []
          : [path.startsWith("/api/cron/") ? { cronSecret: [] } : { adminSecret: [] }],
    },
  );
}

/** Serves both documents; each is built once, on its first request, when every route is registered. */
export function openapiPlugin() {
  const plugin = new Elysia({ name: "openapi" });
  let publicDoc: Node = null;
  let operatorDoc: Node = null;
  return plugin
    .get(OPENAPI_PATH, () => (publicDoc ??= publicDocument(plugin)), { detail: { hide: true } })
    .get(OPERATOR_OPENAPI_PATH, () => (operatorDoc ??= operatorDocument(plugin)), { detail: { hide: true } });
}
