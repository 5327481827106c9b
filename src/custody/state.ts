/**
 * Whether claims are paused, and why, in the words a signed-in user reads: the operator's pause,
 * or a halt the service put itself in (SPEC's `claimsPaused` is true for both).
 */
import type { Db } from "../../db/client";
import { getClaimsPaused } from "../settings";
import { moneyHalt, type IncidentKind } from "./incidents";

const HALT_WORDS: Record<IncidentKind, string> = {
  shortfall:
    "Payouts are on hold while the operator checks the treasury: it held less than the books say is owed. Your balance is untouched.",
  audit: "Payouts are on hold while the operator checks the books. Your balance is untouched.",
  "outflow-hour":
    "Payouts are on hold: more than the hourly limit would have left the treasury, and the operator is checking. Your balance is untouched.",
  "outflow-day":
    "Payouts are on hold: more than the daily limit would have left the treasury, and the operator is checking. Your balance is untouched.",
  "reserve-low": "Payouts are on hold. Your balance is untouched.",
  reconciling:
    "Payouts are on hold for a few minutes while the service checks its books against the chain. Your balance is untouched.",
  "unknown-transaction":
    "Payouts are on hold while the operator checks a treasury transaction the service did not make. Your balance is untouched.",
};

export const OPERATOR_PAUSE_WORDS = "Claims are paused for now; your balance is untouched. Try again later.";

/** null when claims are open; otherwise the sentence that says why they are not. */
export function claimsPausedReason(db: Db): string | null {
  if (getClaimsPaused(db)) return OPERATOR_PAUSE_WORDS;
  const halt = moneyHalt(db);
  return halt ? HALT_WORDS[halt.kind] : null;
}
