/**
 * `/api/docs`: the interactive API reference, rendered by Swagger UI from the pinned
 * `swagger-ui-dist` package and served from this process, so it works offline (the local chain,
 * a locked-down network) and under the same strict content policy as the page: no script,
 * style or font from another host, and no inline script (the start-up code is its own file).
 */
import { Elysia } from "elysia";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { CACHE } from "../http/cache";
import { errorResponse } from "../http/errors";
import { DOCS_PATH, OPENAPI_PATH } from "../http/openapi";
import { appFile, insideExecutable } from "../lib/app-files";
import { log } from "../lib/log";
import swaggerPackage from "swagger-ui-dist/package.json";

const require = createRequire(import.meta.url);
// The single executable carries the two files under their path in the checkout (scripts/build.ts).
const SWAGGER_DIR = insideExecutable
  ? appFile("node_modules", "swagger-ui-dist")
  : dirname(require.resolve("swagger-ui-dist/package.json"));
const SWAGGER_VERSION = swaggerPackage.version;

/** The version is in the asset path: a new pinned release is a new URL, so a year's cache is safe. */
const ASSET_BASE = `${DOCS_PATH}/assets/${SWAGGER_VERSION}`;

const DOCS_HEADERS: Record<string, string> = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-cache",
  // Swagger UI sets element styles through the DOM (allowed); its icons are data: SVGs.
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "font-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "strict-origin-when-cross-origin",
};

const HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>API reference · Fee Ledger</title>
  <link rel="icon" href="/favicon.svg" type="image/svg+xml">
  <link rel="stylesheet" href="${ASSET_BASE}/swagger-ui.css">
  <script src="${ASSET_BASE}/swagger-ui-bundle.js" defer></script>
  <script src="${ASSET_BASE}/start.js" defer></script>
</head>
<body>
  <div id="swagger-ui"><noscript>This page needs JavaScript. The document itself is at <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</noscript></div>
</body>
</html>
`;

/** validatorUrl null: Swagger UI would otherwise send the document to validator.swagger.io. */
const START = `window.ui = SwaggerUIBundle(${JSON.stringify({
  url: OPENAPI_PATH,
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
  tryItOutEnabled: false,
})});
`;

const FILES: Record<string, { file?: string; body?: string; type: string }> = {
  "swagger-ui.css": { file: "swagger-ui.css", type: "text/css; charset=utf-8" },
  "swagger-ui-bundle.js": { file: "swagger-ui-bundle.js", type: "text/javascript; charset=utf-8" },
  "start.js": { body: START, type: "text/javascript; charset=utf-8" },
};

async function docsAsset(name: string): Promise<Response> {
  const entry = FILES[name];
  if (!entry) return errorResponse(404, "No such file.");
  const headers = { "content-type": entry.type, "cache-control": CACHE.immutable, "x-content-type-options": "nosniff" };
  if (entry.body !== undefined) return new Response(entry.body, { headers });
  const file = Bun.file(join(SWAGGER_DIR, entry.file!));
  if (!(await file.exists())) {
    log.error("docs viewer file missing", { file: entry.file });
    return errorResponse(
      503,
      "The API reference page is not available right now; the document is at /api/openapi.json.",
    );
  }
  return new Response(file, { headers });
}

export function docsRoutes() {
  return new Elysia({ name: "docs" })
    .get(DOCS_PATH, () => new Response(HTML, { headers: DOCS_HEADERS }), { detail: { hide: true } })
    .get(
      `${DOCS_PATH}/assets/:version/:file`,
      ({ params }) =>
        params.version === SWAGGER_VERSION ? docsAsset(params.file) : errorResponse(404, "No such file."),
      { detail: { hide: true } },
    );
}
