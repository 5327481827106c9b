/**
 * The fee-sharing state of a token (pump.fun can move a coin's creator to its fee-sharing config):
 * written from every vault reading, shown publicly on the token record (`feeSharing`) and listed
 * for admins. SQL owned here; the sweep itself acts on the live reading, never on this record.
 */
import type { Db } from "../../db/client";
import { statement } from "../../db/statement";
import type { FeeSharingReading } from "../chain/ports";
import { log } from "../lib/log";
import type { FeeSharingState } from "./schemas";

/** The public `feeSharing` field of a token; null while the launch program pays the token's own creator key (or it was never read). */
export type { FeeSharingState };

const deleteFeeSharing = statement<never, [number]>("DELETE FROM token_fee_sharing WHERE token_id = ?");

const blockedReasonOf = statement<{ reason: string | null }, [number]>(
  "SELECT blocked_reason AS reason FROM token_fee_sharing WHERE token_id = ?",
);

const upsertFeeSharing = statement<never, [number, string, number, number, string | null, number]>(
  `INSERT INTO token_fee_sharing (token_id, current_creator, is_sharing_config, service_share_bps, blocked_reason, detected_at_ms, checked_at_ms)
   VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)
   ON CONFLICT (token_id) DO UPDATE SET current_creator = ?2, is_sharing_config = ?3, service_share_bps = ?4,
      blocked_reason = ?5, checked_at_ms = ?6`,
);

/**
 * Stores what a reading said (call inside `immediate`). `undefined` means the adapter did not
 * look and changes nothing; `null` means the creator is the derived key (again).
 */
export function recordFeeSharing(
  db: Db,
  tokenId: number,
  reading: FeeSharingReading | null | undefined,
  atMs: number,
): void {
  if (reading === undefined) return;
  if (reading === null) {
    deleteFeeSharing(db).run(tokenId);
    return;
  }
  const before = blockedReasonOf(db).get(tokenId);
  upsertFeeSharing(db).run(
    tokenId,
    reading.currentCreator,
    reading.isSharingConfig ? 1 : 0,
    reading.serviceShareBps,
    reading.blockedReason,
    atMs,
  );
  if (!before || before.reason !== reading.blockedReason) {
    // An operator should hear about this once, not on every reading.
    log.warn("token creator moved off its derived key", {
      tokenId,
      sharingConfig: reading.isSharingConfig,
      reason: reading.blockedReason ?? "distributing",
    });
  }
}

/** SQL for TOKEN_COLUMNS: the row as one JSON text (null when there is none). */
export const FEE_SHARING_COLUMN = `(SELECT json_object('currentCreator', f.current_creator, 'isSharingConfig', f.is_sharing_config,
    'serviceShareBps', f.service_share_bps, 'reason', f.blocked_reason, 'detectedAtMs', f.detected_at_ms)
   FROM token_fee_sharing f WHERE f.token_id = t.id) AS feeSharingJson`;

export function feeSharingFromJson(json: string | null | undefined): FeeSharingState | null {
  if (!json) return null;
  const f = JSON.parse(json) as {
    currentCreator: string;
    isSharingConfig: number;
    serviceShareBps: number;
    reason: string | null;
    detectedAtMs: number;
  };
  return {
    status: f.reason === null ? "distributing" : "stopped",
    currentCreator: f.currentCreator,
    isSharingConfig: Number(f.isSharingConfig) === 1,
    serviceShareBps: Number(f.serviceShareBps),
    reason: f.reason,
    since: new Date(Number(f.detectedAtMs)).toISOString(),
  };
}

export interface FeeSharingAdminItem extends FeeSharingState {
  mint: string;
  symbol: string;
  checkedAt: string;
}

const feeSharingNewestFirst = statement<{ mint: string; symbol: string; checkedAtMs: number; json: string }, [number]>(
  `SELECT t.mint, t.symbol, f.checked_at_ms AS checkedAtMs,
          json_object('currentCreator', f.current_creator, 'isSharingConfig', f.is_sharing_config,
            'serviceShareBps', f.service_share_bps, 'reason', f.blocked_reason, 'detectedAtMs', f.detected_at_ms) AS json
     FROM token_fee_sharing f JOIN tokens t ON t.id = f.token_id
    ORDER BY f.detected_at_ms DESC, f.token_id DESC LIMIT ?`,
);

/** Every token whose creator moved, newest detection first (admins). */
export function listFeeSharing(db: Db, limit = 500): FeeSharingAdminItem[] {
  const rows = feeSharingNewestFirst(db).all(limit);
  return rows.map((r) => ({
    mint: r.mint,
    symbol: r.symbol,
    checkedAt: new Date(Number(r.checkedAtMs)).toISOString(),
    ...feeSharingFromJson(r.json)!,
  }));
}
