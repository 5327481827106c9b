/**
 * Whether claims are paused, and why, in the words a signed-in user reads: the operator's pause,
 * or a halt the service put itself in (SPEC's `claimsPaused` is true for both).
 */
import type { Db } from "../../db/client";
import { messageOf } from "../lib/errors";
import { getClaimsPaused } from "../settings";
import { moneyHalt, type IncidentKind } from "./incidents";

/** The refusal of a claim while a halt of each kind holds; its sentence is in ERROR_MESSAGES. */
const HALT_CODES = {
  shortfall: "PAYOUTS_HELD_SHORTFALL",
  audit: "PAYOUTS_HELD_AUDIT",
  "outflow-hour": "PAYOUTS_HELD_OUTFLOW_HOUR",
  "outflow-day": "PAYOUTS_HELD_OUTFLOW_DAY",
  "reserve-low": "PAYOUTS_HELD_RESERVE_LOW",
  "token-anomaly": "PAYOUTS_HELD_RESERVE_LOW", // a warning never halts: the generic sentence, never shown
  "program-changed": "PAYOUTS_HELD_RESERVE_LOW", // a warning too: it pauses the jobs building its instructions
  "backup-missed": "PAYOUTS_HELD_RESERVE_LOW", // a warning too: off-site backups failing never stop money
  reconciling: "PAYOUTS_HELD_RECONCILING",
  "unknown-transaction": "PAYOUTS_HELD_UNKNOWN_TRANSACTION",
} as const satisfies Record<IncidentKind, string>;

export type ClaimsPausedCode = "CLAIMS_PAUSED" | (typeof HALT_CODES)[IncidentKind];

/** null when claims are open; otherwise the code of the refusal that says why they are not. */
export function claimsPausedCode(db: Db): ClaimsPausedCode | null {
  if (getClaimsPaused(db)) return "CLAIMS_PAUSED";
  const halt = moneyHalt(db);
  return halt ? HALT_CODES[halt.kind] : null;
}

/** null when claims are open; otherwise the sentence that says why they are not. */
export function claimsPausedReason(db: Db): string | null {
  const code = claimsPausedCode(db);
  return code === null ? null : messageOf(code);
}
