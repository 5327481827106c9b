/**
 * `/api/openapi.json` (OpenAPI 3.1, generated from the route schemas); the interactive docs
 * page at `/api/docs` is src/web/docs.ts. SPEC's public data reads, plus the launch routes under a `launch` tag
 * marked unstable; session, job and admin routes are not an integration surface (SPEC Versioning).
 */
import { openapi } from "@elysiajs/openapi";
import { DOCS_PATH, OPENAPI_PATH } from "./http/openapi";
import { LAUNCH_TAG } from "./launches/routes";

/** Paths the document describes; anything else the app serves is left out. */
const NOT_A_PUBLIC_READ =
  /^(?!\/api\/(tokens|tokens\/:mint|token-images\/:mint|idp\/:handle|idp\/:handle\/payouts|idp\/:handle\/tokens|stats|ledger|ledger\/stream|launch\/config|ca|proof|proof\/liabilities|cron\/health|launch\/intent|launch\/metadata|launch\/confirm|rpc|tokens\/:mint\/history|proof\/history|idp\/:handle\/history)$)/;

export function openapiPlugin() {
  return openapi({
    path: DOCS_PATH,
    specPath: OPENAPI_PATH,
    openapiVersion: "3.1.0",
    // The docs page is served by src/web/docs.ts from a pinned local package, not from a CDN.
    provider: null,
    exclude: { paths: [NOT_A_PUBLIC_READ] },
    documentation: {
      info: {
        title: "Creator-fee ledger: public reads",
        version: "1.0.0",
        description:
          "Public data reads of the creator-fee ledger service. No key and no sign-in; limited per client IP. " +
          "Money is whole lamports as decimal strings; times are ISO 8601 UTC; unknown values are null. " +
          "Every error is `{error}` only. Rate-limited routes answer x-ratelimit-limit, x-ratelimit-remaining and " +
          "x-ratelimit-reset (unix seconds); a 429 adds retry-after.",
      },
      tags: [{ name: "public", description: "Public data reads" }, LAUNCH_TAG],
    },
  });
}
