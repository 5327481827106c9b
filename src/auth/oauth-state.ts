/**
 * The sign-in round trip's state and PKCE verifier (DESIGN §5: short-lived HttpOnly cookies).
 *
 * The cookie carries state, verifier, issue time and the return path, MACed with a key held only
 * in this process, so a state the service did not issue ("foreign") or a cookie older than ten
 * minutes is refused. Each state is accepted once: a replayed callback, even with the original
 * cookie, is refused. Both stores are in memory because the service is one process; a restart
 * only means a sign-in that was in progress starts again.
 */
import { hmac } from "@oslojs/crypto/hmac";
import { SHA256 } from "@oslojs/crypto/sha2";
import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from "@oslojs/encoding";
import { timingSafeEqual } from "node:crypto";

export const OAUTH_COOKIE = "idp_oauth";
export const OAUTH_COOKIE_PATH = "/api/auth/idp";
export const OAUTH_TTL_MS = 10 * 60 * 1000;
const MAX_REMEMBERED = 100_000;

export interface OAuthRoundTrip {
  state: string;
  codeVerifier: string;
  returnTo: string;
  issuedAtMs: number;
}

export type OAuthCheck =
  | { ok: true; trip: OAuthRoundTrip }
  | { ok: false; reason: "missing" | "mismatch" | "expired" | "replayed" };

const B64URL = /^[A-Za-z0-9_-]+$/;

export class OAuthStateStore {
  private readonly key = crypto.getRandomValues(new Uint8Array(32));
  /** used state -> when its cookie stops being valid anyway */
  private readonly used = new Map<string, number>();

  seal(trip: OAuthRoundTrip): string {
    const returnTo = encodeBase64urlNoPadding(new TextEncoder().encode(trip.returnTo));
    const payload = `${trip.state}.${trip.codeVerifier}.${trip.issuedAtMs}.${returnTo}`;
    return `${payload}.${this.mac(payload)}`;
  }

  /** Checks the callback's `state` against the cookie and consumes it. */
  open(cookie: string | null, state: string | null, nowMs: number): OAuthCheck {
    if (!cookie || !state) return { ok: false, reason: "missing" };
    const parts = cookie.split(".");
    if (parts.length !== 5 || !parts.every((p) => B64URL.test(p))) return { ok: false, reason: "mismatch" };
    const [cookieState, codeVerifier, issued, returnTo, mac] = parts as [string, string, string, string, string];
    const expected = Buffer.from(this.mac(parts.slice(0, 4).join(".")));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { ok: false, reason: "mismatch" };
    const a = Buffer.from(cookieState);
    const b = Buffer.from(state);
    if (a.length !== b.length || !timingSafeEqual(a, b)) return { ok: false, reason: "mismatch" };
    const issuedAtMs = Number(issued);
    if (!Number.isSafeInteger(issuedAtMs) || nowMs - issuedAtMs > OAUTH_TTL_MS || issuedAtMs > nowMs + 60_000) {
      return { ok: false, reason: "expired" };
    }
    this.forgetExpired(nowMs);
    if (this.used.has(cookieState)) return { ok: false, reason: "replayed" };
    this.used.set(cookieState, issuedAtMs + OAUTH_TTL_MS);
    let path: string;
    try {
      path = new TextDecoder("utf-8", { fatal: true }).decode(decodeBase64urlIgnorePadding(returnTo));
    } catch {
      return { ok: false, reason: "mismatch" };
    }
    return { ok: true, trip: { state: cookieState, codeVerifier, returnTo: path, issuedAtMs } };
  }

  private mac(payload: string): string {
    return encodeBase64urlNoPadding(hmac(SHA256, this.key, new TextEncoder().encode(payload)));
  }

  private forgetExpired(nowMs: number): void {
    for (const [state, until] of this.used) {
      if (until >= nowMs && this.used.size <= MAX_REMEMBERED) break;
      // Insertion order is issue order, so the oldest entries come first.
      this.used.delete(state);
    }
  }
}

/**
 * `returnTo` may only name a path on this site: one leading slash, no scheme, no authority, no
 * backslash (browsers read `/\evil` as `//evil`), no control characters. Null when refused.
 * The rules hold for what is stored as well as for what was given: dot segments can collapse
 * `/..//evil` into `//evil`, which a browser reads as another site.
 */
export function safeReturnTo(raw: string | null | undefined, publicUrl: string): string | null {
  if (raw === null || raw === undefined || raw === "") return "/";
  if (raw.length > 512) return null;
  if (!onThisSite(raw)) return null;
  const base = new URL(publicUrl);
  let resolved: URL;
  try {
    resolved = new URL(raw, base);
  } catch {
    return null;
  }
  if (resolved.origin !== base.origin) return null;
  const path = `${resolved.pathname}${resolved.search}${resolved.hash}`;
  return onThisSite(path) ? path : null;
}

/** One leading slash (not `//`, a scheme-relative address), no backslash, no control character. */
function onThisSite(path: string): boolean {
  return path.startsWith("/") && !path.startsWith("//") && !path.includes("\\") && !hasControlCharacter(path);
}

/** C0 controls and DEL: a header or log line could be split by them. */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code <= 0x1f || code === 0x7f) return true;
  }
  return false;
}
