/**
 * The operator page's own sign-in (never the users' session): ADMIN_SECRET posted once from the
 * /admin page opens a session whose random token lives only in an HttpOnly, SameSite=Strict cookie
 * scoped to /api/admin; the database keeps its SHA-256. `adminAuthorized` is what every admin
 * route checks: the bearer secret (scripts, curl) or that cookie, and for a write through the
 * cookie an Origin naming this site, so another site cannot drive the operator's browser.
 *
 * A session is bound to the secret it was opened with: the stored id is an HMAC of the token keyed
 * by ADMIN_SECRET, so rotating the secret signs every session out (their ids no longer match),
 * and a leaked database row is useless without the secret.
 */
import { encodeBase32LowerCaseNoPadding } from "@oslojs/encoding";
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Db } from "../../db/client";
import { statement } from "../../db/statement";
import type { Config } from "../config";
import { isOwnOrigin } from "../http/own-origin";
import { cookiesSecure, readCookie } from "../auth";

export const ADMIN_SESSION_TTL_MS = 8 * 60 * 60 * 1000;
export const ADMIN_COOKIE_PATH = "/api/admin";
const TOKEN_SHAPE = /^[a-z2-7]{32}$/;
const READS = new Set(["GET", "HEAD"]);

const deleteExpired = statement<never, [nowMs: number]>("DELETE FROM admin_sessions WHERE expires_at_ms <= ?");
const insertSession = statement<never, [id: string, createdAtMs: number, expiresAtMs: number]>(
  "INSERT INTO admin_sessions (id, created_at_ms, expires_at_ms) VALUES (?, ?, ?)",
);
const sessionExpiry = statement<{ expiresAtMs: bigint }, [id: string]>(
  "SELECT expires_at_ms AS expiresAtMs FROM admin_sessions WHERE id = ?",
);
const deleteSession = statement<never, [id: string]>("DELETE FROM admin_sessions WHERE id = ?");
const countOpen = statement<{ n: bigint }, [nowMs: number]>(
  "SELECT COUNT(*) AS n FROM admin_sessions WHERE expires_at_ms > ?",
);
const deleteAll = statement<never, []>("DELETE FROM admin_sessions");

export function adminCookieName(config: Config): string {
  return cookiesSecure(config) ? "__Secure-admin" : "admin_session";
}

/** The row id of a session: the token's HMAC under the secret in force (64 hex characters). */
const idOf = (secret: string, token: string) => createHmac("sha256", secret).update(token).digest("hex");

export function secretMatches(given: unknown, secret: string | null): boolean {
  if (!secret || typeof given !== "string") return false;
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function createAdminSession(db: Db, secret: string, nowMs: number): { token: string; expiresAtMs: number } {
  const bytes = new Uint8Array(20);
  crypto.getRandomValues(bytes);
  const token = encodeBase32LowerCaseNoPadding(bytes);
  const expiresAtMs = nowMs + ADMIN_SESSION_TTL_MS;
  deleteExpired(db).run(nowMs);
  insertSession(db).run(idOf(secret, token), nowMs, expiresAtMs);
  return { token, expiresAtMs };
}

export function adminSessionValid(db: Db, config: Config, request: Request, nowMs: number): boolean {
  // No secret configured: no admin at all, whatever cookie is left over.
  if (!config.adminSecret) return false;
  const token = readCookie(request, adminCookieName(config));
  if (!token || !TOKEN_SHAPE.test(token)) return false;
  const row = sessionExpiry(db).get(idOf(config.adminSecret, token));
  return row !== null && Number(row.expiresAtMs) > nowMs;
}

export function deleteAdminSession(db: Db, config: Config, request: Request): void {
  const token = readCookie(request, adminCookieName(config));
  if (token && TOKEN_SHAPE.test(token) && config.adminSecret) deleteSession(db).run(idOf(config.adminSecret, token));
}

/** Signs every page session out (the operator's "sign out all sessions"); returns how many were open. */
export function deleteAllAdminSessions(db: Db, nowMs: number): number {
  const open = countOpen(db).get(nowMs);
  deleteAll(db).run();
  return Number(open?.n ?? 0n);
}

/** A write through the cookie must carry an Origin that is this site's own. */
export function sameOriginWrite(request: Request, config: Config): boolean {
  const origin = request.headers.get("origin");
  return origin !== null && origin !== "" && isOwnOrigin(origin, config);
}

export function adminCookie(config: Config, token: string, maxAgeMs: number): string {
  const parts = [
    `${adminCookieName(config)}=${token}`,
    `Path=${ADMIN_COOKIE_PATH}`,
    `Max-Age=${Math.max(0, Math.floor(maxAgeMs / 1000))}`,
    "HttpOnly",
    "SameSite=Strict",
  ];
  if (maxAgeMs <= 0) parts.push("Expires=Thu, 01 Jan 1970 00:00:00 GMT");
  if (cookiesSecure(config)) parts.push("Secure");
  return parts.join("; ");
}

/** The operator page's session cookie (same-origin for writes); the bearer is checked in ./authorized. */
export function pageSessionAuthorized(ctx: { db: Db; config: Config; now: () => number }, request: Request): boolean {
  if (!adminSessionValid(ctx.db, ctx.config, request, ctx.now())) return false;
  return READS.has(request.method) || sameOriginWrite(request, ctx.config);
}
