/**
 * The operator page's own sign-in (never the users' session): ADMIN_SECRET, or a named operator's
 * name and password (ADMIN_OPERATORS_FILE), posted once from the /admin page opens a session whose
 * random token lives only in an HttpOnly, SameSite=Strict cookie scoped to /api/admin; the
 * database keeps its HMAC. `adminAuthorized` is what every admin route checks: the bearer secret
 * or an operator's Basic credential (scripts, curl) or that cookie, and for a write through the
 * cookie an Origin naming this site, so another site cannot drive the operator's browser.
 *
 * A session is bound to the credential it was opened with: the stored id is an HMAC of the token
 * keyed by ADMIN_SECRET, or by the operator's stored hash (their name before the token in the
 * cookie, `name.token`), so rotating the secret or an operator's password signs those sessions
 * out (their ids no longer match), and a leaked database row is useless without the secret. The
 * table needs no column for who: the cookie names them and the HMAC proves it.
 */
import { encodeBase32LowerCaseNoPadding } from "@oslojs/encoding";
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Db } from "../../db/client";
import { statement } from "../../db/statement";
import type { Config } from "../config";
import { isOwnOrigin } from "../http/own-origin";
import { cookiesSecure, readCookie } from "../auth";
import { ADMIN_PAGE_ACTOR, operatorsOf } from "./operators";

export const ADMIN_SESSION_TTL_MS = 8 * 60 * 60 * 1000;
const ADMIN_COOKIE_PATH = "/api/admin";
const TOKEN_SHAPE = /^[a-z2-7]{32}$/;
const OPERATOR_COOKIE = /^([a-z0-9][a-z0-9_-]{0,31})\.([a-z2-7]{32})$/;
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

function adminCookieName(config: Config): string {
  return cookiesSecure(config) ? "__Secure-admin" : "admin_session";
}

/** The row id of a session: the token's HMAC under the credential in force (64 hex characters). */
const idOf = (key: string, token: string) => createHmac("sha256", key).update(token).digest("hex");

/** What a session is keyed by: the shared secret (actor admin-page) or one operator's stored hash. */
export interface SessionKey {
  actor: string;
  /** the HMAC key: ADMIN_SECRET, or the operator's hash from the file */
  key: string;
  /** an operator's cookie carries their name before the token; the shared secret's carries none */
  named: boolean;
}

export function sharedSessionKey(secret: string): SessionKey {
  return { actor: ADMIN_PAGE_ACTOR, key: secret, named: false };
}

export function secretMatches(given: unknown, secret: string | null): boolean {
  if (!secret || typeof given !== "string") return false;
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Opens a session; returns the cookie's value (never stored) and its expiry. */
export function createAdminSession(db: Db, by: SessionKey, nowMs: number): { token: string; expiresAtMs: number } {
  const bytes = new Uint8Array(20);
  crypto.getRandomValues(bytes);
  const random = encodeBase32LowerCaseNoPadding(bytes);
  const token = by.named ? `${by.actor}.${random}` : random;
  const expiresAtMs = nowMs + ADMIN_SESSION_TTL_MS;
  deleteExpired(db).run(nowMs);
  insertSession(db).run(idOf(by.key, token), nowMs, expiresAtMs);
  return { token, expiresAtMs };
}

/** The stored id the request's cookie stands for, with who opened it; null without a well-formed cookie whose credential is still in force. */
function sessionOf(config: Config, request: Request): { id: string; actor: string } | null {
  const token = readCookie(request, adminCookieName(config));
  if (!token) return null;
  const named = OPERATOR_COOKIE.exec(token);
  if (named) {
    const hash = operatorsOf(config).get(named[1]!);
    return hash === undefined ? null : { id: idOf(hash, token), actor: named[1]! };
  }
  // No secret configured: no shared session, whatever cookie is left over.
  if (!TOKEN_SHAPE.test(token) || !config.adminSecret) return null;
  return { id: idOf(config.adminSecret, token), actor: ADMIN_PAGE_ACTOR };
}

/** Who the request's page session belongs to (`admin-page` for the shared secret), or null. */
export function adminSessionActor(db: Db, config: Config, request: Request, nowMs: number): string | null {
  const session = sessionOf(config, request);
  if (!session) return null;
  const row = sessionExpiry(db).get(session.id);
  return row !== null && Number(row.expiresAtMs) > nowMs ? session.actor : null;
}

export function adminSessionValid(db: Db, config: Config, request: Request, nowMs: number): boolean {
  return adminSessionActor(db, config, request, nowMs) !== null;
}

export function deleteAdminSession(db: Db, config: Config, request: Request): void {
  const session = sessionOf(config, request);
  if (session) deleteSession(db).run(session.id);
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

/** Who the operator page's session cookie speaks for (same-origin for writes), or null; the bearer is checked in ./authorized. */
export function pageSessionActor(ctx: { db: Db; config: Config; now: () => number }, request: Request): string | null {
  const actor = adminSessionActor(ctx.db, ctx.config, request, ctx.now());
  if (actor === null) return null;
  return READS.has(request.method) || sameOriginWrite(request, ctx.config) ? actor : null;
}
