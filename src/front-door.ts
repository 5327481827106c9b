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
import { clientIp, limitKeyOf } from "./http/client-ip";
import { parseTrustedProxies } from "./lib/trusted-proxies";
import { errorResponse } from "./http/errors";
import { limitRuleFor, operatorFailureRule } from "./http/rate-limit";
import { setRequestMeta } from "./http/request-meta";

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
export const HSTS_VALUE = "max-age=63072000; includeSubDomains";

type OperatorKind = "admin" | "cron" | "metrics";

/** The operator routes by path, decoded and with repeated slashes folded so no spelling slips past. */
export function operatorKindOf(pathname: string): OperatorKind | null {
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

function operatorCheck(
  ctx: AppContext,
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

export function createFrontDoor(ctx: AppContext) {
  const trusted: BlockList = parseTrustedProxies(ctx.config.trustedProxies);
  return function screenRequest(c: Context): Response | undefined {
    const { request, server, set } = c;
    // An incoming id is kept only when well-formed, so a client cannot inject into the logs.
    const incoming = request.headers.get("x-request-id");
    const id = incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    set.headers["x-request-id"] = id;
    if (ctx.config.hsts) set.headers["strict-transport-security"] = HSTS_VALUE;
    const socket = server?.requestIP(request)?.address ?? null;
    const ip = clientIp(request, socket, { trustProxyHeader: ctx.config.trustProxyHeader, trustedProxies: trusted });
    const meta = { id, ip, atMs: performance.now() };
    setRequestMeta(request, meta);
    const key = limitKeyOf(ip);
    const early = (status: number, message: string, headers: Record<string, string> = {}) =>
      errorResponse(status, message, { ...(set.headers as Record<string, string>), ...headers });
    const path = new URL(request.url).pathname;

    // Before the body: an operator route that is off, or asked with the wrong secret, does not exist.
    const kind = operatorKindOf(path);
    if (kind) {
      const check = operatorCheck(ctx, kind, request);
      if (!check.enabled) return early(404, "No such route.");
      const rule = operatorFailureRule(kind);
      const before = ctx.limiter.peek(rule, key);
      if (!before.allowed)
        return early(429, "Too many requests; retry after the time in retry-after.", {
          "retry-after": before.headers["retry-after"]!,
        });
      const signIn = kind === "admin" && path.replace(/\/$/, "") === ADMIN_SIGN_IN_PATH;
      if (!check.authorized && !signIn) {
        ctx.limiter.hit(rule, key);
        return early(404, "No such route.");
      }
    }

    const maxBytes = bodyLimitFor(request.method, path, ctx.config);
    const length = request.headers.get("content-length");
    if (length !== null && Number(length) > maxBytes) {
      return early(413, "The request body is too large.");
    }

    if (ctx.config.rateLimit) {
      const rule = limitRuleFor(request.method, path);
      if (rule) {
        const decision = ctx.limiter.hit(rule, key);
        Object.assign(set.headers, decision.headers);
        if (!decision.allowed)
          return early(429, "Too many requests; retry after the time in retry-after.", decision.headers);
      }
    }

    if (request.body) {
      const limited = withBodyLimit(request, maxBytes);
      setRequestMeta(limited, meta);
      (c as { request: Request }).request = limited;
    }
    return undefined;
  };
}
