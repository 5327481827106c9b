/**
 * Where the reading of the treasury's history stops (issue 49). The sweep job runs while money is
 * held for a reconciliation, so the newest treasury transaction can be a sweep the restored books
 * signed a minute ago: known, but no sign of where the backup's history is reached. Only what the
 * books knew when money was held ends the scan; everything made since the backup is read.
 */
import { afterEach, expect, test } from "bun:test";
import { closeDatabase, type Db, openDatabase } from "../../db/client";
import { holdForReconciliation } from "../../src/reconcile";
import { scanHistory } from "../../src/reconcile/scan";
import {
  finishReconciliation,
  isAnchorSignature,
  isKnownSignature,
  startReconciliation,
} from "../../src/reconcile/store";

let db: Db | null = null;
afterEach(() => {
  if (db) closeDatabase(db);
  db = null;
});

function journal(d: Db, signature: string, atMs: number): void {
  d.$client
    .query(
      `INSERT INTO chain_transactions (signature, job, wire, last_valid_block_height, sent_from_slot, compute_unit_limit,
         compute_unit_price_micro_lamports, attempt, state, send_count, prepared_at_ms)
       VALUES (?, 'sweep', NULL, 0, 0, 0, 0, 0, 'landed', 1, ?)`,
    )
    .run(signature, atMs);
}

/** The treasury's history, newest first, as getSignaturesForAddress pages it. */
function lister(history: { signature: string; slot: bigint }[]) {
  return async (_address: string, o: { before?: string; limit: number }) => {
    const from = o.before ? history.findIndex((e) => e.signature === o.before) + 1 : 0;
    return history.slice(from, from + o.limit).map((e) => ({ ...e, err: null }));
  };
}

test("a sweep signed during the reconciliation does not end the scan before what was made since the backup", async () => {
  db = openDatabase(":memory:");
  const d = db;
  journal(d, "backup-sweep", 1);
  holdForReconciliation(d, "restore", 2);
  // After the hold: the sweep job runs while money is held.
  journal(d, "sweep-during-hold", 3);
  expect(isKnownSignature(d, "sweep-during-hold")).toBe(true);
  expect(isAnchorSignature(d, "sweep-during-hold")).toBe(false);
  expect(isAnchorSignature(d, "backup-sweep")).toBe(true);

  const history = [
    { signature: "sweep-during-hold", slot: 3_400n },
    // A payout and a burn the lost database made after the backup, over 512 slots older.
    { signature: "payout-after-backup", slot: 2_280n },
    { signature: "burn-after-backup", slot: 2_277n },
    { signature: "backup-sweep", slot: 1_001n },
    { signature: "older-than-the-backup", slot: 100n },
  ];
  const scan = await scanHistory(
    lister(history),
    "treasury",
    (s) => isKnownSignature(d, s),
    { pageLimit: 2, scannedMax: 100, slotsPastKnown: 512n },
    true,
    (s) => isAnchorSignature(d, s),
  );
  // Read back to 512 slots below the backup's own sweep, and no further.
  expect(scan.unknown.map((u) => u.signature)).toEqual(["burn-after-backup", "payout-after-backup"]);

  // Taken for a mark, the new sweep would have hidden both.
  const fooled = await scanHistory(
    lister(history),
    "treasury",
    (s) => isKnownSignature(d, s),
    { pageLimit: 2, scannedMax: 100, slotsPastKnown: 512n },
    true,
  );
  expect(fooled.unknown).toEqual([]);
});

test("a start after a crash mid-reconciliation keeps the mark its hold took; a finished one lets it go", () => {
  db = openDatabase(":memory:");
  const d = db;
  journal(d, "before", 1);
  holdForReconciliation(d, "start", 2);
  journal(d, "during", 3);
  const running = startReconciliation(d, "start", 4);
  // The process dies and starts again: its hold must not count the sweep made meanwhile.
  holdForReconciliation(d, "start", 5);
  expect(isAnchorSignature(d, "during")).toBe(false);
  finishReconciliation(d, running.id, 6);
  // Done: everything the journal holds is the books' own history again.
  expect(isAnchorSignature(d, "during")).toBe(true);
});
