/**
 * Cookie reading and writing for the session and the sign-in round trip. Written by hand rather
 * than through Elysia's cookie jar so every attribute (Secure, SameSite, Max-Age, the __Host-
 * prefix) is exactly what DESIGN §5 asks for and visible in one place.
 */
import type { Config } from "../config";

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** Secure is dropped only when the site itself is served from this machine over plain http. */
export function cookiesSecure(config: Config): boolean {
  const url = new URL(config.publicUrl);
  return !(LOOPBACK_HOSTS.has(url.hostname) || url.hostname.endsWith(".localhost"));
}

export function readCookie(request: Request, name: string): string | null {
  const header = request.headers.get("cookie");
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    const raw = part.slice(eq + 1).trim();
    try {
      return decodeURIComponent(raw);
    } catch {
      return null;
    }
  }
  return null;
}

export interface CookieOptions {
  secure: boolean;
  path: string;
  maxAgeSec: number;
}

export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  const parts = [
    `${name}=${encodeURIComponent(value)}`,
    `Path=${options.path}`,
    `Max-Age=${Math.max(0, Math.floor(options.maxAgeSec))}`,
    "HttpOnly",
    "SameSite=Lax",
  ];
  if (options.maxAgeSec <= 0) parts.push("Expires=Thu, 01 Jan 1970 00:00:00 GMT");
  if (options.secure) parts.push("Secure");
  return parts.join("; ");
}

/** Adds Set-Cookie lines to Elysia's `set.headers`, keeping any already there. */
export function appendSetCookie(headers: Record<string, unknown>, ...cookies: string[]): void {
  const existing = headers["set-cookie"];
  const list = Array.isArray(existing) ? existing : typeof existing === "string" ? [existing] : [];
  headers["set-cookie"] = [...list, ...cookies];
}
