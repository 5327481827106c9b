/**
 * Cross-origin reads (CORS). The public reads and the live stream answer any origin, so a
 * dashboard on another site can read them from a browser: `Access-Control-Allow-Origin: *` and
 * never `Access-Control-Allow-Credentials`, so the browser sends no cookie with such a request
 * and nothing private can be read through it. Every other route (the session routes, sign-in,
 * the launch routes and their RPC proxy, the operator routes) stays same-origin: no CORS header
 * on its answers, and its preflight is the 404 of an unknown route, so the browser never sends
 * the request itself.
 */

/** The public reads of SPEC and the public OpenAPI document, by path; GET and HEAD only. */
const PUBLIC_READS: readonly RegExp[] = [
  /^\/api\/(stats|ledger|ledger\/stream|tokens|launch\/config|ca|proof|proof\/history|proof\/liabilities|cron\/health|openapi\.json)\/?$/,
  /^\/api\/tokens\/[^/]+(\/history)?\/?$/,
  /^\/api\/token-images\/[^/]+\/?$/,
  /^\/api\/idp\/[^/]+(\/tokens|\/payouts|\/history)?\/?$/,
];

export function isPublicRead(path: string): boolean {
  return PUBLIC_READS.some((pattern) => pattern.test(path));
}

/**
 * On every answer of a public read, success or refusal. The rate-limit headers and the request id
 * are exposed so a page can pace itself and quote the id; Cache-Control and Content-Type are
 * readable anyway.
 */
const CORS_HEADERS: Readonly<Record<string, string>> = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers":
    "x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, retry-after, x-request-id",
};

/**
 * The preflight's grant: reads only, and the headers a reader may need to send (`Last-Event-ID`
 * by a fetch-based stream client, a request id, and a JSON content type some generated clients
 * add to every request). Chromium keeps a grant at most two hours.
 */
const PREFLIGHT_HEADERS: Readonly<Record<string, string>> = {
  ...CORS_HEADERS,
  "access-control-allow-methods": "GET, HEAD, OPTIONS",
  "access-control-allow-headers": "last-event-id, x-request-id, content-type",
  "access-control-max-age": "7200",
};

/**
 * For the front door: on a public read, its CORS headers go into `headers` (the answer's, refusals
 * included) and an OPTIONS request is answered here, 204 with the grant. Anything else is left
 * alone: no header, and an OPTIONS there reaches the router, which answers 404.
 */
export function screenCors(
  method: string,
  path: string,
  headers: Record<string, string | number>,
): Response | undefined {
  if (!isPublicRead(path)) return undefined;
  if (method === "OPTIONS") {
    const set = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)]));
    return new Response(null, { status: 204, headers: { ...set, ...PREFLIGHT_HEADERS, allow: "GET, HEAD, OPTIONS" } });
  }
  if (method === "GET" || method === "HEAD") Object.assign(headers, CORS_HEADERS);
  return undefined;
}

/** Whether a response header set before routing is one of the CORS headers, for the error answers. */
export function isCorsHeader(name: string): boolean {
  return name.startsWith("access-control-");
}
