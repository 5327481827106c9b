/**
 * The reconciliations' own rows (`reconciliations`, `reconciliation_items`, migration 0018). Every
 * change of state is one immediate write, so a crash at any point leaves a reconciliation that the
 * next run continues: a scan not saved is done again (reading is free of effects), an item is
 * settled in the write that applies it.
 */
import type { Db } from "../../db/client";
import { reconciliationItems, reconciliations } from "../../db/schema";
import { columnsOf, query, statement, type TableRow } from "../../db/statement";
import { immediate } from "../../db/transaction";
import { clearIncidents, holdMoneyAtStart, raiseIncident, releaseStartHold, START_HOLD_KEY } from "../custody";
import { AppError } from "../lib/errors";

type ReconciliationStatus = "scanning" | "applying" | "done" | "blocked";
export type ItemStatus = "pending" | "applied" | "ignored" | "unknown";

export interface Reconciliation {
  id: number;
  reason: "restore" | "start";
  status: ReconciliationStatus;
  startedAtMs: number;
  finishedAtMs: number | null;
  scanned: number;
  total: number;
  applied: number;
  unknown: number;
  detail: string | null;
}

export interface ReconciliationItem {
  signature: string;
  reconciliationId: number;
  position: number;
  slot: bigint;
}

/** Settings key the restore leaves in the restored database: the next start reconciles it whole. */
export const RESTORED_KEY = "restored_at_ms";
/**
 * Settings key holding the journal's last row (`chain_transactions` rowid; rows are never deleted)
 * when money was held: only signatures up to it mark where the backup's history is reached. The
 * sweep job runs during a reconciliation, and its new sweep, known and newer than every
 * transaction made since the backup, would otherwise end the scan (512 slots past it) before them.
 */
const JOURNAL_MARK_KEY = "reconcile_journal_mark";
/** How many unknown signatures an incident's detail names (it is cut at 500 characters anyway). */
const NAMED_UNKNOWN_MAX = 4;

const COLUMNS = columnsOf(reconciliations);

type Row = TableRow<typeof reconciliations>;

function toReconciliation(r: Row): Reconciliation {
  return {
    id: Number(r.id),
    reason: r.reason,
    status: r.status,
    startedAtMs: Number(r.startedAtMs),
    finishedAtMs: r.finishedAtMs === null ? null : Number(r.finishedAtMs),
    scanned: Number(r.scanned),
    total: Number(r.total),
    applied: Number(r.applied),
    unknown: Number(r.unknown),
    detail: r.detail,
  };
}

const activeRow = statement<Row, []>(
  `SELECT ${COLUMNS} FROM reconciliations WHERE status IN ('scanning', 'applying') ORDER BY id DESC LIMIT 1`,
);
const latestRow = statement<Row, []>(`SELECT ${COLUMNS} FROM reconciliations ORDER BY id DESC LIMIT 1`);
const rowById = statement<Row, [id: number]>(`SELECT ${COLUMNS} FROM reconciliations WHERE id = ?`);

/** The reconciliation in progress, or null. */
export function activeReconciliation(db: Db): Reconciliation | null {
  const row = activeRow(db).get();
  return row ? toReconciliation(row) : null;
}

/** The newest reconciliation in any state, or null when there never was one. */
export function latestReconciliation(db: Db): Reconciliation | null {
  const row = latestRow(db).get();
  return row ? toReconciliation(row) : null;
}

const setSetting = statement<never, [key: string, value: string]>(
  "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = ?2",
);
const deleteSetting = statement<never, [key: string]>("DELETE FROM settings WHERE key = ?");
const settingValue = statement<{ value: string }, [key: string]>("SELECT value FROM settings WHERE key = ?");

/**
 * Holds money (a `reconciling` incident) until the reconciliation job has checked the treasury's
 * history: at every start of the jobs, and in a database a restore just put back (with the
 * marker that makes the next check a reconciliation whatever the chain's newest transaction is).
 */
export function holdForReconciliation(db: Db, why: "start" | "restore", atMs: number): void {
  immediate(db, () => {
    // A start after a crash mid-reconciliation keeps the mark its hold took: sweeps sent since are not the backup's.
    markJournal(db, why === "restore");
    if (why === "start") {
      holdMoneyAtStart(db, atMs);
      return;
    }
    setSetting(db).run(RESTORED_KEY, String(atMs));
    raiseIncident(db, {
      kind: "reconciling",
      detail: "restored from a backup: the books are checked against the treasury's history before money moves",
      atMs,
    });
  });
}

function markJournal(db: Db, replace: boolean): void {
  query<never, [key: string]>(
    db,
    `INSERT INTO settings (key, value) SELECT ?1, CAST(COALESCE(MAX(rowid), 0) AS TEXT) FROM chain_transactions
     WHERE true ON CONFLICT (key) DO ${replace ? "UPDATE SET value = excluded.value" : "NOTHING"}`,
  ).run(JOURNAL_MARK_KEY);
}

function clearJournalMark(db: Db): void {
  deleteSetting(db).run(JOURNAL_MARK_KEY);
}

const isAnchor = statement<{ known: bigint | number }, [signature: string, key: string]>(
  `SELECT EXISTS (SELECT 1 FROM chain_transactions WHERE signature = ?1
                    AND rowid <= COALESCE((SELECT CAST(value AS INTEGER) FROM settings WHERE key = ?2), rowid))
       OR EXISTS (SELECT 1 FROM reconciliation_items WHERE signature = ?1) AS known`,
);

/**
 * Whether a treasury signature is one the books knew when money was held: the service signed it
 * then (journal rows up to the mark), or an earlier reconciliation read it.
 */
export function isAnchorSignature(db: Db, signature: string): boolean {
  const row = isAnchor(db).get(signature, JOURNAL_MARK_KEY);
  return Number(row?.known ?? 0) === 1;
}

/** Whether the hold every start takes is still on: the treasury's history has not been checked since. */
export function startHoldTaken(db: Db): boolean {
  return Boolean(settingValue(db).get(START_HOLD_KEY));
}

/** When the database was restored and not yet reconciled; null otherwise. */
export function restoredAtMs(db: Db): number | null {
  const row = settingValue(db).get(RESTORED_KEY);
  return row ? Number(row.value) : null;
}

/** Nothing to reconcile: the hold taken at start is let go. */
export function releaseHold(db: Db, atMs: number): void {
  immediate(db, () => {
    if (activeReconciliation(db)) return;
    releaseStartHold(db);
    clearJournalMark(db);
    clearIncidents(db, ["reconciling"], atMs);
  });
}

const insertReconciliation = statement<Row, [reason: string, atMs: number]>(
  `INSERT INTO reconciliations (reason, status, started_at_ms) VALUES (?, 'scanning', ?) RETURNING ${COLUMNS}`,
);

export function startReconciliation(db: Db, reason: "restore" | "start", atMs: number): Reconciliation {
  return immediate(db, () => {
    const active = activeReconciliation(db);
    if (active) return active;
    markJournal(db, false);
    raiseIncident(db, {
      kind: "reconciling",
      detail: "the books are being reconciled with the treasury's history; money moves again when it is done",
      atMs,
    });
    const row = insertReconciliation(db).get(reason, atMs);
    return toReconciliation(row!);
  });
}

const moveToApplying = statement<never, [scanned: number, total: number, detail: string | null, id: number]>(
  "UPDATE reconciliations SET status = 'applying', scanned = ?, total = ?, detail = ? WHERE id = ? AND status = 'scanning'",
);
const insertItem = statement<never, [signature: string, id: number, position: number, slot: bigint]>(
  `INSERT INTO reconciliation_items (signature, reconciliation_id, position, slot, status)
   VALUES (?, ?, ?, ?, 'pending') ON CONFLICT (signature) DO NOTHING`,
);

/** The scan's result, oldest first: the items to apply. Saved whole or not at all. */
export function saveScan(
  db: Db,
  id: number,
  scan: { scanned: number; unknown: readonly { signature: string; slot: bigint }[]; detail: string | null },
): void {
  immediate(db, () => {
    const moved = moveToApplying(db).run(scan.scanned, scan.unknown.length, scan.detail, id);
    if (moved.changes !== 1) throw new AppError("LEDGER_INVARIANT", `reconciliation ${id} is not scanning`);
    const insert = insertItem(db);
    scan.unknown.forEach((item, position) => {
      insert.run(item.signature, id, position, item.slot);
    });
  });
}

const PENDING_FIELDS = ["signature", "position", "slot"] as const;
const pendingItemRows = statement<
  Pick<TableRow<typeof reconciliationItems>, (typeof PENDING_FIELDS)[number]>,
  [id: number, limit: number]
>(
  `SELECT ${columnsOf(reconciliationItems, { only: PENDING_FIELDS })} FROM reconciliation_items
    WHERE reconciliation_id = ? AND status = 'pending' ORDER BY position LIMIT ?`,
);

export function pendingItems(db: Db, id: number, limit: number): ReconciliationItem[] {
  return pendingItemRows(db)
    .all(id, limit)
    .map((r) => ({ signature: r.signature, reconciliationId: id, position: Number(r.position), slot: BigInt(r.slot) }));
}

const settlePendingItem = statement<
  { reconciliationId: bigint },
  [status: string, kind: string | null, note: string | null, signature: string]
>(
  `UPDATE reconciliation_items SET status = ?, kind = ?, note = ? WHERE signature = ? AND status = 'pending'
   RETURNING reconciliation_id AS reconciliationId`,
);

/**
 * Settles one item. Inside the caller's write when it applies money (the item and its effects are
 * one write); on its own otherwise.
 */
export function settleItem(
  db: Db,
  item: { signature: string; status: Exclude<ItemStatus, "pending">; kind: string | null; note: string | null },
): void {
  const work = () => {
    const row = settlePendingItem(db).get(item.status, item.kind, item.note?.slice(0, 300) ?? null, item.signature);
    if (!row) return;
    const column = item.status === "unknown" ? "unknown" : "applied";
    query<never, [id: bigint]>(db, `UPDATE reconciliations SET ${column} = ${column} + 1 WHERE id = ?`).run(
      row.reconciliationId,
    );
  };
  if (db.$client.inTransaction) work();
  else immediate(db, work);
}

const UNKNOWN_FIELDS = ["signature", "note"] as const;
const unknownItems = statement<
  Pick<TableRow<typeof reconciliationItems>, (typeof UNKNOWN_FIELDS)[number]>,
  [id: number]
>(
  `SELECT ${columnsOf(reconciliationItems, { only: UNKNOWN_FIELDS })} FROM reconciliation_items WHERE reconciliation_id = ? AND status = 'unknown' ORDER BY position`,
);
const finishRow = statement<never, [status: string, atMs: number, id: number]>(
  "UPDATE reconciliations SET status = ?, finished_at_ms = ? WHERE id = ?",
);

/**
 * Every item settled: done, and money may move again; or blocked, with an incident naming the
 * treasury transactions nobody can account for (money stays halted until an operator resumes).
 */
export function finishReconciliation(db: Db, id: number, atMs: number): Reconciliation {
  return immediate(db, () => {
    const unknown = unknownItems(db).all(id);
    const status: ReconciliationStatus = unknown.length > 0 ? "blocked" : "done";
    finishRow(db).run(status, atMs, id);
    deleteSetting(db).run(RESTORED_KEY);
    clearJournalMark(db);
    if (unknown.length > 0) {
      const named = unknown
        .slice(0, NAMED_UNKNOWN_MAX)
        .map((u) => u.signature)
        .join(", ");
      const more = unknown.length > NAMED_UNKNOWN_MAX ? ` and ${unknown.length - NAMED_UNKNOWN_MAX} more` : "";
      // Why, after every signature, as far as the detail's length allows (what could not be rebuilt).
      const why = unknown.map((u) => (u.note ? ` ${u.signature.slice(0, 8)}…: ${u.note}.` : "")).join("");
      raiseIncident(db, {
        kind: "unknown-transaction",
        detail: `treasury transactions the service cannot account for: ${named}${more}.${why}`,
        atMs,
      });
    }
    clearIncidents(db, ["reconciling"], atMs);
    releaseStartHold(db);
    const row = rowById(db).get(id);
    return toReconciliation(row!);
  });
}

const isKnown = statement<{ known: bigint | number }, [signature: string]>(
  `SELECT EXISTS (SELECT 1 FROM chain_transactions WHERE signature = ?1)
       OR EXISTS (SELECT 1 FROM reconciliation_items WHERE signature = ?1)
       OR EXISTS (SELECT 1 FROM treasury_credits WHERE signature = ?1) AS known`,
);
const landedKnown = statement<{ known: bigint | number }, []>(
  `SELECT EXISTS (SELECT 1 FROM chain_transactions WHERE landed_slot IS NOT NULL)
       OR EXISTS (SELECT 1 FROM sweeps WHERE status = 'confirmed')
       OR EXISTS (SELECT 1 FROM payouts WHERE status = 'confirmed')
       OR EXISTS (SELECT 1 FROM withdrawals WHERE status = 'confirmed')
       OR EXISTS (SELECT 1 FROM reconciliation_items WHERE status = 'applied') AS known`,
);

/**
 * Whether the service knows this treasury signature: it signed it (journal), a reconciliation read
 * it, or it is a stranger's credit already booked (credits.ts).
 */
export function isKnownSignature(db: Db, signature: string): boolean {
  const row = isKnown(db).get(signature);
  return Number(row?.known ?? 0) === 1;
}

/**
 * Settings key a synthetic history leaves (scripts/seed.ts): the books' transactions were made on
 * no chain, so no treasury history can reach them, and the check at start does not wait for one
 * that does. Only the seed writes it; a real database never has it.
 */
const HISTORY_OFF_CHAIN_KEY = "books_history_off_chain";

/** Marks a database whose history was made up, not made on the chain the service will run against. */
export function markHistoryOffChain(db: Db): void {
  setSetting(db).run(HISTORY_OFF_CHAIN_KEY, "1");
}

/** Whether the books hold a treasury transaction that landed (the treasury's history must reach it). */
export function knowsLandedTransaction(db: Db): boolean {
  if (settingValue(db).get(HISTORY_OFF_CHAIN_KEY)) return false;
  const row = landedKnown(db).get();
  return Number(row?.known ?? 0) === 1;
}

const lastOtherPosition = statement<{ last: bigint | null }, [id: number, signature: string]>(
  "SELECT MAX(position) AS last FROM reconciliation_items WHERE reconciliation_id = ? AND status = 'pending' AND signature <> ?",
);
const movePendingItem = statement<never, [position: bigint, signature: string]>(
  "UPDATE reconciliation_items SET position = ? WHERE signature = ? AND status = 'pending'",
);

/** Moves a pending item behind every other pending one; false when it is the only one left. */
export function deferItem(db: Db, id: number, signature: string): boolean {
  return immediate(db, () => {
    const others = lastOtherPosition(db).get(id, signature);
    if (others?.last === null || others?.last === undefined) return false;
    movePendingItem(db).run(BigInt(others.last) + 1n, signature);
    return true;
  });
}
