/**
 * The platform token (DESIGN §5: what `/api/ca` shows and what the platform buyback buys). Set by
 * an admin action; every change is written to the audit table in the same transaction.
 */
import type { Db } from "../../db/client";
import { statement } from "../../db/statement";
import { immediate } from "../../db/transaction";
import { isAddress } from "@fee-ledger/localnet/address";
import { AppError } from "../lib/errors";
import { PLATFORM_TOKEN_MINT_KEY, writeSetting } from "../settings";

const auditPlatformToken = statement<
  never,
  [atMs: number, actor: string, mint: string, reason: string | null, requestId: string | null, clientIp: string | null]
>(
  "INSERT INTO admin_audit (at_ms, actor, action, subject, reason, request_id, client_ip) VALUES (?, ?, 'set_platform_token', ?, ?, ?, ?)",
);

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
    writeSetting(db, PLATFORM_TOKEN_MINT_KEY, mint);
    auditPlatformToken(db).run(nowMs, actor, mint, reason, origin.requestId ?? null, origin.clientIp ?? null);
  });
}
