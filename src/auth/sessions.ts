/**
 * Sessions (DESIGN §5): a random 160-bit token lives only in the browser's HttpOnly cookie; the
 * database keeps its SHA-256, so a copy of the database cannot be replayed as a sign-in. A session
 * lasts seven days from sign-in, is refused (and removed) once expired, and logout deletes it.
 */
import { sha256 } from "@oslojs/crypto/sha2";
import { encodeBase32LowerCaseNoPadding, encodeHexLowerCase } from "@oslojs/encoding";
import type { Db } from "../../db/client";
import { sessions } from "../../db/schema";
import { columnsOf, statement, type TableRow } from "../../db/statement";
import type { Config } from "../config";
import { cookiesSecure, readCookie, serializeCookie } from "./cookies";

const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** The __Host- prefix makes the browser refuse the cookie from any subdomain or path; it needs Secure. */
export function sessionCookieName(config: Config): string {
  return cookiesSecure(config) ? "__Host-session" : "session";
}

function sessionId(token: string): string {
  return encodeHexLowerCase(sha256(new TextEncoder().encode(token)));
}

/** 20 random bytes, base32: 32 characters of [a-z2-7]. */
function generateToken(): string {
  const bytes = new Uint8Array(20);
  crypto.getRandomValues(bytes);
  return encodeBase32LowerCaseNoPadding(bytes);
}

const TOKEN_SHAPE = /^[a-z2-7]{32}$/;

const SESSION_FIELDS = ["id", "idpUserId", "expiresAtMs"] as const;
type SessionRow = Pick<TableRow<typeof sessions>, (typeof SESSION_FIELDS)[number]>;

const insertSession = statement<never, [id: string, idpUserId: string, createdAtMs: number, expiresAtMs: number]>(
  "INSERT INTO sessions (id, idp_user_id, created_at_ms, expires_at_ms) VALUES (?, ?, ?, ?)",
);
const findSession = statement<SessionRow, [id: string]>(
  `SELECT ${columnsOf(sessions, { only: SESSION_FIELDS })} FROM sessions WHERE id = ?`,
);
const deleteSession = statement<never, [id: string]>("DELETE FROM sessions WHERE id = ?");
const deleteExpired = statement<never, [nowMs: number]>("DELETE FROM sessions WHERE expires_at_ms <= ?");

export interface Session {
  id: string;
  idpUserId: string;
  expiresAtMs: number;
}

export function createSession(db: Db, idpUserId: string, nowMs: number): { token: string; session: Session } {
  const token = generateToken();
  const session: Session = { id: sessionId(token), idpUserId, expiresAtMs: nowMs + SESSION_TTL_MS };
  insertSession(db).run(session.id, idpUserId, nowMs, session.expiresAtMs);
  return { token, session };
}

/** The live session for a token, or null (unknown, tampered or expired; an expired row is removed). */
function validateSessionToken(db: Db, token: string, nowMs: number): Session | null {
  if (!TOKEN_SHAPE.test(token)) return null;
  const id = sessionId(token);
  const row = findSession(db).get(id);
  if (!row) return null;
  const expiresAtMs = Number(row.expiresAtMs);
  if (nowMs >= expiresAtMs) {
    deleteSession(db).run(id);
    return null;
  }
  return { id: row.id, idpUserId: row.idpUserId, expiresAtMs };
}

export function deleteSessionToken(db: Db, token: string): void {
  if (!TOKEN_SHAPE.test(token)) return;
  deleteSession(db).run(sessionId(token));
}

/** Housekeeping for a job or the sign-in path: expired rows are useless and only grow the table. */
export function deleteExpiredSessions(db: Db, nowMs: number): number {
  return deleteExpired(db).run(nowMs).changes;
}

export function sessionFromRequest(db: Db, config: Config, request: Request, nowMs: number): Session | null {
  const token = readCookie(request, sessionCookieName(config));
  return token ? validateSessionToken(db, token, nowMs) : null;
}

export function sessionCookie(config: Config, token: string, expiresAtMs: number, nowMs: number): string {
  return serializeCookie(sessionCookieName(config), token, {
    secure: cookiesSecure(config),
    path: "/",
    maxAgeSec: Math.floor((expiresAtMs - nowMs) / 1000),
  });
}

export function clearedSessionCookie(config: Config): string {
  return serializeCookie(sessionCookieName(config), "", { secure: cookiesSecure(config), path: "/", maxAgeSec: 0 });
}
