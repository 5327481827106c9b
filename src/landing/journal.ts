/**
 * The journal of signed transactions (`chain_transactions`, migration 0014): every transaction a
 * money job signs, with its exact bytes, saved in the same write that marks its items `sent`, so
 * the rebroadcaster can send those bytes again (also after a restart) and nothing is re-signed
 * before proven expiry. Running totals per job (`chain_transaction_totals`) feed /metrics.
 *
 * `recordSignedTransaction` runs inside the caller's BEGIN IMMEDIATE transaction: a journal row
 * exists exactly when its items were saved `sent` (a row whose items were never saved would be
 * rebroadcast while the items are signed again: paid twice).
 */
import type { Db } from "../../db/client";
import { immediate } from "../../db/transaction";
import { exceededComputeBudget, priorityFeeLamports } from "../chain/landing";
import type { PreparedTransaction, TransactionJob, TransactionOutcome } from "../chain/ports";
import { AppError } from "../lib/errors";
import { query } from "../../db/statement";

export interface SignedTransaction {
  job: TransactionJob;
  prepared: PreparedTransaction;
  attempt: number;
}

/** Journals a signed transaction as sent once (its first send follows at once). Inside the caller's write. */
export function recordSignedTransaction(db: Db, signed: SignedTransaction, atMs: number): void {
  const { prepared, job, attempt } = signed;
  if (!db.$client.inTransaction) {
    throw new AppError("LEDGER_INVARIANT", "a signed transaction is journalled in the write that marks its items sent");
  }
  const inserted = query<
    never,
    [
      signature: string,
      job: string,
      wire: Uint8Array,
      lastValidBlockHeight: bigint,
      sentFromSlot: bigint,
      limit: number,
      price: bigint,
      attempt: number,
      atMs: number,
    ]
  >(
    db,
    `INSERT INTO chain_transactions (signature, job, wire, last_valid_block_height, sent_from_slot, compute_unit_limit,
         compute_unit_price_micro_lamports, attempt, state, send_count, prepared_at_ms, last_sent_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'live', 1, ?, ?9)
       ON CONFLICT (signature) DO NOTHING`,
  ).run(
    prepared.signature,
    job,
    prepared.wire,
    prepared.lastValidBlockHeight,
    prepared.sentFromSlot ?? 0n,
    prepared.computeUnitLimit ?? 0,
    prepared.computeUnitPriceMicroLamports ?? 0n,
    attempt,
    atMs,
  );
  if (inserted.changes === 1) {
    addTotals(db, job, { prepared: 1, sends: 1, replacements: attempt > 0 ? 1 : 0 });
  }
}

type TotalsDelta = Partial<
  Record<"prepared" | "sends" | "rebroadcasts" | "landed" | "failed" | "lapsed" | "replacements", number>
> & { priorityFeeLamports?: bigint };

function addTotals(db: Db, job: string, d: TotalsDelta): void {
  query<never, [job: string, a: number, b: number, c: number, d: number, e: number, f: number, g: number, fee: bigint]>(
    db,
    `INSERT INTO chain_transaction_totals (job, prepared, sends, rebroadcasts, landed, failed, lapsed, replacements, priority_fee_lamports)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
       ON CONFLICT (job) DO UPDATE SET prepared = prepared + ?2, sends = sends + ?3, rebroadcasts = rebroadcasts + ?4,
         landed = landed + ?5, failed = failed + ?6, lapsed = lapsed + ?7, replacements = replacements + ?8,
         priority_fee_lamports = priority_fee_lamports + ?9`,
  ).run(
    job,
    d.prepared ?? 0,
    d.sends ?? 0,
    d.rebroadcasts ?? 0,
    d.landed ?? 0,
    d.failed ?? 0,
    d.lapsed ?? 0,
    d.replacements ?? 0,
    d.priorityFeeLamports ?? 0n,
  );
}

/** The slot a journalled transaction was built from (0n when it was signed before the journal). */
export function sentFromSlotOf(db: Db, signature: string): bigint {
  const row = query<{ slot: bigint }, [signature: string]>(
    db,
    "SELECT sent_from_slot AS slot FROM chain_transactions WHERE signature = ?",
  ).get(signature);
  return row ? BigInt(row.slot) : 0n;
}

/**
 * The attempt number of a transaction replacing these (provably expired) ones: one more than the
 * highest of theirs; 0 when none of them was journalled (a first attempt).
 */
export function attemptAfter(db: Db, signatures: readonly string[]): number {
  let highest = -1;
  for (const signature of signatures.slice(0, 64)) {
    const row = query<{ attempt: number }, [signature: string]>(
      db,
      "SELECT attempt FROM chain_transactions WHERE signature = ?",
    ).get(signature);
    if (row && Number(row.attempt) > highest) highest = Number(row.attempt);
  }
  return highest + 1;
}

/** How far back a too-low unit limit still raises the next limit of its job. */
const BUDGET_MEMORY_MS = 60 * 60_000;

/**
 * The least unit limit the job's next transaction asks for: twice the highest limit of its
 * transactions that failed on chain for running out of units in the last hour (0: none did).
 */
export function computeUnitFloorFor(db: Db, job: TransactionJob, nowMs: number): number {
  const rows = query<{ limit: number; error: string }, [job: string, sinceMs: number]>(
    db,
    `SELECT compute_unit_limit AS "limit", error FROM chain_transactions
        WHERE job = ? AND prepared_at_ms >= ? AND error IS NOT NULL ORDER BY prepared_at_ms DESC LIMIT 50`,
  ).all(job, nowMs - BUDGET_MEMORY_MS);
  let floor = 0;
  for (const row of rows) if (exceededComputeBudget(row.error)) floor = Math.max(floor, Number(row.limit) * 2);
  return floor;
}

export interface LiveTransaction {
  signature: string;
  job: TransactionJob;
  wire: Uint8Array;
  lastValidBlockHeight: bigint;
  lastSentAtMs: number | null;
}

/** The oldest live transactions first, at most `limit`. */
export function liveTransactions(db: Db, limit: number): LiveTransaction[] {
  return query<LiveTransaction, [limit: number]>(
    db,
    `SELECT signature, job, wire, last_valid_block_height AS lastValidBlockHeight, last_sent_at_ms AS lastSentAtMs
         FROM chain_transactions WHERE state = 'live' ORDER BY prepared_at_ms LIMIT ?`,
  )
    .all(limit)
    .map((row) => ({ ...row, lastSentAtMs: row.lastSentAtMs === null ? null : Number(row.lastSentAtMs) }));
}

/** Seen at confirmed or finalized: no more sends; its priority fee counts as spent. Idempotent. */
export function markLanded(db: Db, signature: string, slot: bigint, error: string | null): void {
  immediate(db, () => {
    const row = query<
      { job: string; limit: number; price: bigint },
      [slot: bigint, error: string | null, signature: string]
    >(
      db,
      `UPDATE chain_transactions SET state = 'landed', landed_slot = ?, error = ?, wire = NULL
          WHERE signature = ? AND state IN ('live', 'lapsed')
          RETURNING job, compute_unit_limit AS "limit", compute_unit_price_micro_lamports AS price`,
    ).get(slot, error === null ? null : error.slice(0, 300), signature);
    if (!row) return;
    addTotals(db, row.job, {
      landed: 1,
      failed: error === null ? 0 : 1,
      priorityFeeLamports: priorityFeeLamports(BigInt(row.price), Number(row.limit)),
    });
  });
}

/** Its blockhash is past without it seen landing: sending it again cannot help. Idempotent. */
export function markLapsed(db: Db, signature: string): void {
  immediate(db, () => {
    const row = query<{ job: string }, [signature: string]>(
      db,
      "UPDATE chain_transactions SET state = 'lapsed', wire = NULL WHERE signature = ? AND state = 'live' RETURNING job",
    ).get(signature);
    if (row) addTotals(db, row.job, { lapsed: 1 });
  });
}

/** A job proved it can never land (its history search covered the send). Idempotent. */
function markExpired(db: Db, signature: string): void {
  immediate(db, () => {
    const before = query<{ job: string; state: string }, [signature: string]>(
      db,
      "SELECT job, state FROM chain_transactions WHERE signature = ?",
    ).get(signature);
    if (!before || (before.state !== "live" && before.state !== "lapsed")) return;
    query<never, [signature: string]>(
      db,
      "UPDATE chain_transactions SET state = 'expired', wire = NULL WHERE signature = ?",
    ).run(signature);
    // A lapse the rebroadcaster already counted is not counted again.
    if (before.state === "live") addTotals(db, before.job, { lapsed: 1 });
  });
}

/** How long a transaction may stay undecided past its blockhash before the operator is told. */
export const UNDECIDED_AFTER_MS = 10 * 60_000;

/**
 * Transactions neither seen landing nor proven expired, signed more than `UNDECIDED_AFTER_MS`
 * ago: their items wait (never re-signed) until a node that keeps the history answers, or an
 * operator looks. Health counts them and turns `ok` false.
 */
export function undecidedTransactions(
  db: Db,
  nowMs: number,
): { transactions: number; oldestPreparedAtMs: number | null } {
  const row = query<{ n: bigint; oldest: bigint | null }, [beforeMs: number]>(
    db,
    `SELECT COUNT(*) AS n, MIN(prepared_at_ms) AS oldest FROM chain_transactions
        WHERE state IN ('live', 'lapsed') AND prepared_at_ms < ?`,
  ).get(nowMs - UNDECIDED_AFTER_MS)!;
  return { transactions: Number(row.n), oldestPreparedAtMs: row.oldest === null ? null : Number(row.oldest) };
}

/** Sent again now (`count` endpoints rounds, normally 1). */
export function markRebroadcast(db: Db, signatures: readonly string[], atMs: number): void {
  if (signatures.length === 0) return;
  immediate(db, () => {
    for (const signature of signatures) {
      const row = query<{ job: string }, [atMs: number, signature: string]>(
        db,
        `UPDATE chain_transactions SET send_count = send_count + 1, last_sent_at_ms = ?
            WHERE signature = ? AND state = 'live' RETURNING job`,
      ).get(atMs, signature);
      if (row) addTotals(db, row.job, { sends: 1, rebroadcasts: 1 });
    }
  });
}

export interface LandingTotals {
  job: string;
  prepared: number;
  sends: number;
  rebroadcasts: number;
  landed: number;
  failed: number;
  lapsed: number;
  replacements: number;
  priorityFeeLamports: bigint;
}

export function landingTotals(db: Db): LandingTotals[] {
  return query<LandingTotals, []>(
    db,
    `SELECT job, prepared, sends, rebroadcasts, landed, failed, lapsed, replacements,
              priority_fee_lamports AS priorityFeeLamports
         FROM chain_transaction_totals ORDER BY job`,
  )
    .all()
    .map((t) => ({
      ...t,
      prepared: Number(t.prepared),
      sends: Number(t.sends),
      rebroadcasts: Number(t.rebroadcasts),
      landed: Number(t.landed),
      failed: Number(t.failed),
      lapsed: Number(t.lapsed),
      replacements: Number(t.replacements),
      priorityFeeLamports: BigInt(t.priorityFeeLamports),
    }));
}

/**
 * What a job learned of a journalled transaction: landed (an on-chain error included, which is
 * what raises the next unit limit) or provably expired. Nothing else is an outcome.
 */
export function journalOutcome(db: Db, signature: string, outcome: TransactionOutcome): void {
  if (outcome.kind === "confirmed") markLanded(db, signature, outcome.slot, null);
  else if (outcome.kind === "failed") markLanded(db, signature, outcome.slot, outcome.error);
  else if (outcome.kind === "expired") markExpired(db, signature);
}
