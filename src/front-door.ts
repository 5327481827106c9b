/**
 * What every request goes through before routing and before any body is read: its id, the client
 * IP (TRUST_PROXY only from TRUSTED_PROXIES; IPv6 limited per /64), HSTS, the Content-Length and
 * streaming body limits, the operator routes' secrets (404 when not configured or wrong, 429 after
 * too many failures), and the per-IP rate limits (HEAD counted as GET).
 */
import type { BlockList } from "node:net";
import type { AppContext } from "./context";
import { ADMIN_SIGN_IN_PATH, adminAuthorized, adminEnabled } from "./admin/authorized";
import { bearerMatches } from "./http/bearer";
import { bodyLimitFor, withBodyLimit } from "./http/body-limit";
import { clientIp, limitKeyOf, untrustedPeerWarning } from "./http/client-ip";
import { parseTrustedProxies } from "./lib/trusted-proxies";
import { errorResponse } from "./http/errors";
import { screenCors } from "./http/cors";
import { limitRuleFor, operatorFailureRule } from "./http/rate-limit";
import { setRequestMeta } from "./http/request-meta";

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
const HSTS_VALUE = "max-age=63072000; includeSubDomains";

type OperatorKind = "admin" | "cron" | "metrics";

/** The operator routes by path, decoded and with repeated slashes folded so no spelling slips past. */
function operatorKindOf(pathname: string): OperatorKind | null {
  let path = pathname;
  try {
    path = decodeURIComponent(pathname);
  } catch {
    // a malformed escape routes nowhere; the raw path is checked as is
  }
  path = path.replace(/\/{2,}/g, "/");
  if (path === "/metrics" || path.startsWith("/metrics/")) return "metrics";
  if (path === "/api/admin" || path.startsWith("/api/admin/")) return "admin";
  if (path.startsWith("/api/cron/") && !/^\/api\/cron\/health\/?$/.test(path)) return "cron";
  return null;
}

/** What the front door needs of the service: its settings, the admin sessions and the limiter. */
export type FrontDoorOptions = Pick<AppContext, "config" | "db" | "now" | "limiter">;

function operatorCheck(
  ctx: FrontDoorOptions,
  kind: OperatorKind,
  request: Request,
): { enabled: boolean; authorized: boolean } {
  switch (kind) {
    case "admin":
      return { enabled: adminEnabled(ctx), authorized: adminAuthorized(ctx, request) };
    case "cron":
      return {
        enabled: ctx.config.cronSecret !== null,
        authorized: bearerMatches(request.headers.get("authorization"), ctx.config.cronSecret),
      };
    case "metrics":
      return {
        enabled: ctx.config.metricsSecret !== null,
        authorized: bearerMatches(request.headers.get("authorization"), ctx.config.metricsSecret),
      };
  }
}

interface Context {
  request: Request;
  server: { requestIP(request: Request): { address: string } | null } | null;
  set: { headers: Record<string, string | number> };
}

/** An early answer in the `{error}` envelope, with the headers set so far (request id, HSTS, limits). */
type Refuse = (status: number, message: string, headers?: Record<string, string>) => Response;

const TOO_MANY = "Too many requests; retry after the time in retry-after.";

/**
 * The front door as an `onRequest` hook: answers early (404, 413, 429) or returns undefined and
 * lets the request through, with its id and client IP recorded and its body limited.
 */
export function createFrontDoor(ctx: FrontDoorOptions) {
  const trusted: BlockList = parseTrustedProxies(ctx.config.trustedProxies);
  const ipOptions = {
    trustProxyHeader: ctx.config.trustProxyHeader,
    trustedProxies: trusted,
    onUntrustedPeer: untrustedPeerWarning(ctx.config.trustProxyHeader ?? ""),
  };

  /** Before the body: an operator route that is off, or asked with the wrong secret, does not exist. */
  function screenOperator(request: Request, path: string, key: string, refuse: Refuse): Response | undefined {
    const kind = operatorKindOf(path);
    if (!kind) return undefined;
    const check = operatorCheck(ctx, kind, request);
    if (!check.enabled) return refuse(404, "No such route.");
    // The right secret passes before the failure count is looked at: guesses from an address the
    // operator shares must not lock the operator out. The page's sign-in counts its own failures.
    const signIn = kind === "admin" && path.replace(/\/$/, "") === ADMIN_SIGN_IN_PATH;
    if (check.authorized || signIn) return undefined;
    const rule = operatorFailureRule(kind);
    const before = ctx.limiter.peek(rule, key);
    if (!before.allowed) return refuse(429, TOO_MANY, { "retry-after": before.headers["retry-after"]! });
    ctx.limiter.hit(rule, key);
    return refuse(404, "No such route.");
  }

  /** The per-IP limit of SPEC's Limits table; its headers go on every answer of the route. */
  function screenRate(c: Context, path: string, key: string, refuse: Refuse): Response | undefined {
    if (!ctx.config.rateLimit) return undefined;
    const rule = limitRuleFor(c.request.method, path);
    if (!rule) return undefined;
    const decision = ctx.limiter.hit(rule, key);
    Object.assign(c.set.headers, decision.headers);
    return decision.allowed ? undefined : refuse(429, TOO_MANY, decision.headers);
  }

  return function screenRequest(c: Context): Response | undefined {
    const { request, server, set } = c;
    // An incoming id is kept only when well-formed, so a client cannot inject into the logs.
    const incoming = request.headers.get("x-request-id");
    const id = incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    set.headers["x-request-id"] = id;
    if (ctx.config.hsts) set.headers["strict-transport-security"] = HSTS_VALUE;
    const socket = server?.requestIP(request)?.address ?? null;
    const ip = clientIp(request, socket, ipOptions);
    const meta = { id, ip, atMs: performance.now() };
    setRequestMeta(request, meta);
    const key = limitKeyOf(ip);
    const refuse: Refuse = (status, message, headers = {}) =>
      errorResponse(status, message, { ...stringHeaders(set.headers), ...headers });
    const path = new URL(request.url).pathname;
    // Before the limits: a preflight costs nothing to answer, and a refusal of a public read must
    // carry its CORS headers too, or the page cannot read why it was refused.
    const preflight = screenCors(request.method, path, set.headers);
    if (preflight) return preflight;

    const operatorRefusal = screenOperator(request, path, key, refuse);
    if (operatorRefusal) return operatorRefusal;

    const maxBytes = bodyLimitFor(request.method, path, ctx.config);
    const length = request.headers.get("content-length");
    if (length !== null && Number(length) > maxBytes) return refuse(413, "The request body is too large.");

    const rateRefusal = screenRate(c, path, key, refuse);
    if (rateRefusal) return rateRefusal;

    if (request.body) {
      const limited = withBodyLimit(request, maxBytes);
      setRequestMeta(limited, meta);
      c.request = limited;
    }
    return undefined;
  };
}

/** The headers set so far, as the strings a Response takes. */
function stringHeaders(headers: Record<string, string | number>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)]));
}
