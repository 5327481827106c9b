/** `Authorization: Bearer <secret>` for the operator routes (cron, metrics, admin, webhooks), compared in constant time. */
import { timingSafeEqual } from "node:crypto";

export function bearerMatches(header: string | null, secret: string | null): boolean {
  if (!secret || !header) return false;
  const match = /^Bearer (.+)$/.exec(header);
  if (!match) return false;
  const given = Buffer.from(match[1]!);
  const expected = Buffer.from(secret);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
