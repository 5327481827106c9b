/**
 * Admin actions (DESIGN §5): moderation, pauses, thresholds and the platform token. Each action
 * and its audit row (time, actor, action, subject, reason) commit in one transaction, so no action
 * happens unaudited. The HTTP routes and the operator CLI both call these functions.
 */
import { PublicKey } from "@solana/web3.js";
import type { Db } from "../../db/client";
import { adminAudit } from "../../db/schema";
import { columnsOf, statement, type TableRow } from "../../db/statement";
import { immediate } from "../../db/transaction";
import { setPlatformToken } from "./platform-token";
import { setAutopayMinLamports, setClaimsPaused, setLaunchesPaused, setMinClaimLamports } from "../settings";
import { AppError } from "../lib/errors";

export interface AdminActor {
  actor: string;
  reason: string | null;
  nowMs: number;
  /** the API call's x-request-id and client IP, for the audit row (absent from the CLI) */
  requestId?: string | null;
  clientIp?: string | null;
}

export type AdminAction =
  | { action: "hide_token"; mint: string }
  | { action: "unhide_token"; mint: string }
  | { action: "pause_claims" }
  | { action: "resume_claims" }
  | { action: "pause_launches" }
  | { action: "resume_launches" }
  | { action: "set_platform_token"; mint: string }
  | { action: "set_min_claim"; lamports: bigint }
  | { action: "set_autopay_min"; lamports: bigint };

const MAX_REASON = 500;
const I64_MAX = 9_223_372_036_854_775_807n;

const insertAudit = statement<
  never,
  [
    atMs: number,
    actor: string,
    action: string,
    subject: string | null,
    reason: string | null,
    requestId: string | null,
    clientIp: string | null,
  ]
>(
  "INSERT INTO admin_audit (at_ms, actor, action, subject, reason, request_id, client_ip) VALUES (?, ?, ?, ?, ?, ?, ?)",
);
const setHidden = statement<never, [hidden: number, mint: string]>("UPDATE tokens SET hidden = ? WHERE mint = ?");
const latestAudit = statement<TableRow<typeof adminAudit>, [limit: number]>(
  `SELECT ${columnsOf(adminAudit)} FROM admin_audit ORDER BY id DESC LIMIT ?`,
);

export function audit(db: Db, who: AdminActor, action: string, subject: string | null): void {
  insertAudit(db).run(who.nowMs, who.actor, action, subject, who.reason, who.requestId ?? null, who.clientIp ?? null);
}

function checkMint(mint: string): void {
  let valid = false;
  let failure: unknown;
  try {
    valid = new PublicKey(mint).toBase58() === mint;
  } catch (error) {
    failure = error;
  }
  if (!valid) throw new AppError("MINT_NOT_BASE58", {}, { cause: failure });
}

/**
 * A payout below the rent-exempt minimum of a plain account fails on chain when the wallet does
 * not exist yet, so no threshold may go below it.
 */
const RENT_EXEMPT_MINIMUM_LAMPORTS = 890_880n;

function checkLamports(value: bigint): void {
  if (typeof value !== "bigint" || value < 0n || value > I64_MAX) throw new AppError("THRESHOLD_LAMPORTS_INVALID");
  if (value < RENT_EXEMPT_MINIMUM_LAMPORTS) {
    throw new AppError("THRESHOLD_BELOW_RENT", { minimumLamports: RENT_EXEMPT_MINIMUM_LAMPORTS });
  }
}

export function performAdminAction(db: Db, who: AdminActor, request: AdminAction): void {
  if (who.reason !== null && who.reason.length > MAX_REASON)
    throw new AppError("REASON_TOO_LONG", { maximum: MAX_REASON });
  if (who.actor.trim() === "") throw new AppError("ADMIN_ACTOR_REQUIRED");
  switch (request.action) {
    case "set_platform_token":
      checkMint(request.mint);
      // Writes its own audit row in its own transaction.
      setPlatformToken(db, request.mint, who.actor, who.reason, who.nowMs, {
        requestId: who.requestId,
        clientIp: who.clientIp,
      });
      return;
    case "hide_token":
    case "unhide_token": {
      checkMint(request.mint);
      immediate(db, () => {
        const result = setHidden(db).run(request.action === "hide_token" ? 1 : 0, request.mint);
        if (result.changes !== 1) {
          throw new AppError("MINT_NOT_LAUNCHED", { mint: request.mint });
        }
        audit(db, who, request.action, request.mint);
      });
      return;
    }
    case "pause_claims":
    case "resume_claims":
      immediate(db, () => {
        setClaimsPaused(db, request.action === "pause_claims");
        audit(db, who, request.action, null);
      });
      return;
    case "pause_launches":
    case "resume_launches":
      immediate(db, () => {
        setLaunchesPaused(db, request.action === "pause_launches");
        audit(db, who, request.action, null);
      });
      return;
    case "set_min_claim":
    case "set_autopay_min":
      checkLamports(request.lamports);
      immediate(db, () => {
        if (request.action === "set_min_claim") setMinClaimLamports(db, request.lamports);
        else setAutopayMinLamports(db, request.lamports);
        audit(db, who, request.action, request.lamports.toString());
      });
      return;
  }
}

export interface AuditRow {
  id: number;
  at: string;
  actor: string;
  action: string;
  subject: string | null;
  reason: string | null;
  requestId: string | null;
  clientIp: string | null;
}

export function auditLog(db: Db, limit: number): AuditRow[] {
  const rows = latestAudit(db).all(Math.min(Math.max(1, limit), 500));
  return rows.map((r) => ({
    id: Number(r.id),
    at: new Date(Number(r.atMs)).toISOString(),
    actor: r.actor,
    action: r.action,
    subject: r.subject,
    reason: r.reason,
    requestId: r.requestId,
    clientIp: r.clientIp,
  }));
}
