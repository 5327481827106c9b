/**
 * Vault readings as the sweep job and the indexer both store them: one writer for
 * `vaultLamports`, `vaultCheckedAt` and the bonded flag, so a reading means the same thing
 * whichever path took it.
 */
import type { Db } from "../../db/client";
import type { VaultReading } from "../chain/ports";
import { statement } from "../../db/statement";
import { immediate } from "../../db/transaction";
import { recordFeeSharing } from "./fee-sharing";
import { noteActivity, noteQuietReadings } from "./reading-schedule";

/**
 * Unswept fees: both vaults plus what somebody else already collected into the creator address,
 * plus, for a coin whose creator moved to its fee-sharing config, the service key's share of what
 * waits for distribution (nothing when it cannot be distributed to the service).
 */
export function unsweptLamports(reading: VaultReading): bigint {
  const share = reading.feeSharing && reading.feeSharing.blockedReason === null ? reading.feeSharing.shareLamports : 0n;
  return reading.curveLamports + reading.poolLamports + reading.creatorLamports + share;
}

/**
 * What a stored reading tells the reading schedule (src/tokens/reading-schedule.ts): a changed
 * figure is always a sign of activity; `sweep` readings that did not change also back the token
 * off (taken at `readAtMs`, before the node answered).
 */
export type ScheduleNote = { kind: "activity" } | { kind: "sweep"; readAtMs: number; quietMaxIntervalMs: number };

// An unchanged figure writes only the time: naming vault_lamports rewrites the fee ranking's
// index entry (of the generated fees_lamports) even when the value is the same.
const storeReadingTime = statement<never, [atMs: number, bonded: number, tokenId: number, vaultLamports: bigint]>(
  "UPDATE tokens SET vault_checked_at_ms = ?, bonded = CASE WHEN ? THEN 1 ELSE bonded END WHERE id = ? AND vault_lamports = ?",
);
const storeReading = statement<never, [vaultLamports: bigint, atMs: number, bonded: number, tokenId: number]>(
  "UPDATE tokens SET vault_lamports = ?, vault_checked_at_ms = ?, bonded = CASE WHEN ? THEN 1 ELSE bonded END WHERE id = ?",
);

export function storeVaultReadings(
  db: Db,
  readings: readonly { tokenId: number; reading: VaultReading | null }[],
  atMs: number,
  assertHeld?: () => void,
  schedule?: ScheduleNote,
): void {
  immediate(db, () => {
    assertHeld?.();
    const timeOnly = storeReadingTime(db);
    const update = storeReading(db);
    const changed: number[] = [];
    const quiet: number[] = [];
    for (const { tokenId, reading } of readings) {
      if (!reading) continue;
      const vaultLamports = unsweptLamports(reading);
      const bonded = reading.bonded ? 1 : 0;
      if (timeOnly.run(atMs, bonded, tokenId, vaultLamports).changes === 0) {
        update.run(vaultLamports, atMs, bonded, tokenId);
        changed.push(tokenId);
      } else quiet.push(tokenId);
      recordFeeSharing(db, tokenId, reading.feeSharing, atMs);
    }
    if (!schedule) return;
    noteActivity(db, changed, atMs);
    if (schedule.kind === "sweep") noteQuietReadings(db, quiet, schedule.readAtMs, schedule.quietMaxIntervalMs);
  });
}
