/**
 * The platform token (DESIGN §5: what `/api/ca` shows and what the platform buyback buys). Set by
 * an admin action; every change is written to the audit table in the same transaction.
 */
import type { Db } from "../../db/client";
import { immediate } from "../../db/transaction";
import { isAddress } from "../chain/address";
import { AppError } from "../lib/errors";
import { PLATFORM_TOKEN_MINT_KEY, writeSetting } from "../settings";

export function setPlatformToken(
  db: Db,
  mint: string,
  actor: string,
  reason: string | null,
  nowMs: number = Date.now(),
  origin: { requestId?: string | null; clientIp?: string | null } = {},
): void {
  if (!isAddress(mint)) throw new AppError("PLATFORM_TOKEN_INVALID");
  if (actor.trim() === "") throw new AppError("ADMIN_ACTOR_REQUIRED");
  immediate(db, () => {
    const c = db.$client;
    writeSetting(db, PLATFORM_TOKEN_MINT_KEY, mint);
    c.query<never, [number, string, string, string | null, string | null, string | null]>(
      "INSERT INTO admin_audit (at_ms, actor, action, subject, reason, request_id, client_ip) VALUES (?, ?, 'set_platform_token', ?, ?, ?, ?)",
    ).run(nowMs, actor, mint, reason, origin.requestId ?? null, origin.clientIp ?? null);
  });
}
