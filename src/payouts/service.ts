/**
 * Payout states (DESIGN §5): queued -> sent -> confirmed | failed | replaced; a payout above the
 * review amount starts `held` and is queued once an operator approves it. The amount leaves the
 * balance when the payout is queued; a failed payout puts it back; a payout that provably expired
 * is replaced by a new queued payout that owes the same amount. One live (queued or sent) payout
 * per account at a time.
 */
import type { Db } from "../../db/client";
import { confirmPayout, failPayout, replacePayout, reservePayout } from "../ledger";
import { appendFeedEvent, appendPayoutStatusEvent } from "../ledger";
import { accounts, balanceOf } from "../ledger";
import { recordSignedTransaction, type SignedTransaction } from "../landing";
import { payouts } from "../../db/schema";
import { columnsOf, statement, type TableRow } from "../../db/statement";
import { immediate } from "../../db/transaction";
import { AppError } from "../lib/errors";

type PayoutKind = "claim" | "autopay";

export interface PayoutRequest {
  idpUserId: string;
  /** null: the whole balance */
  lamports: bigint | null;
  wallet: string;
  kind: PayoutKind;
  /** smallest amount accepted */
  minLamports: bigint;
  atMs: number;
  /**
   * Above this, counted over the account's payouts of the rolling REVIEW_WINDOW_MS (this one
   * included), the payout waits as `held` until an operator approves it (src/custody); absent:
   * never held
   */
  reviewLamports?: bigint;
}

/**
 * The window the review amount applies over, per account: a day, like the daily outflow cap. Per
 * payout, an amount above review went out unreviewed as a few claims under it in a row.
 */
const REVIEW_WINDOW_MS = 86_400_000;

/** What an account took out in payouts since `sinceMs`: held, waiting, sent or paid (not failed, not replaced). */
const recentPayoutLamports = statement<{ n: bigint }, [idpUserId: string, sinceMs: number]>(
  `SELECT COALESCE(SUM(lamports), 0) AS n FROM payouts
    WHERE idp_user_id = ? AND status IN ('held', 'queued', 'sent', 'confirmed') AND created_at_ms > ?`,
);

function needsReview(db: Db, request: PayoutRequest, lamports: bigint): boolean {
  if (request.reviewLamports === undefined) return false;
  if (lamports > request.reviewLamports) return true;
  const recent = BigInt(recentPayoutLamports(db).get(request.idpUserId, request.atMs - REVIEW_WINDOW_MS)?.n ?? 0);
  return recent + lamports > request.reviewLamports;
}

export interface QueuedPayout {
  payoutId: number;
  lamports: bigint;
  status: "queued" | "held";
}

const livePayoutOf = statement<{ id: bigint }, [idpUserId: string]>(
  "SELECT id FROM payouts WHERE idp_user_id = ? AND status IN ('held', 'queued', 'sent') LIMIT 1",
);

const insertPayout = statement<
  { id: bigint },
  [idpUserId: string, lamports: bigint, wallet: string, kind: PayoutKind, status: string, atMs: number]
>(
  `INSERT INTO payouts (idp_user_id, lamports, wallet, kind, status, created_at_ms)
   VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
);

/** Queues a payout and reserves its amount, atomically. Concurrent requests serialise here. */
export function queuePayout(db: Db, request: PayoutRequest, assertHeld?: () => void): QueuedPayout {
  return immediate(db, () => {
    assertHeld?.();
    const live = livePayoutOf(db).get(request.idpUserId);
    if (live) throw new AppError("PAYOUT_IN_FLIGHT", { payoutId: live.id });
    const balance = balanceOf(db, accounts.user(request.idpUserId));
    const lamports = request.lamports ?? balance;
    if (lamports <= 0n || balance <= 0n || lamports > balance || lamports < request.minLamports) {
      throw new AppError("INSUFFICIENT_BALANCE", {
        lamports,
        balanceLamports: balance,
        minimumLamports: request.minLamports,
      });
    }
    const status = needsReview(db, request, lamports) ? "held" : "queued";
    const row = insertPayout(db).get(request.idpUserId, lamports, request.wallet, request.kind, status, request.atMs);
    const payoutId = Number(row!.id);
    reservePayout(db, payoutId, request.idpUserId, lamports, request.atMs);
    appendFeedEvent(db, "payout", payoutId, request.atMs);
    return { payoutId, lamports, status };
  });
}

const markSent = statement<never, [signature: string, lastValidBlockHeight: bigint, atMs: number, payoutId: number]>(
  "UPDATE payouts SET status = 'sent', signature = ?, last_valid_block_height = ?, sent_at_ms = ? WHERE id = ? AND status = 'queued'",
);

/** Saved before the transaction is sent: signature and expiry height for every payout in the batch. */
export function markPayoutsSent(
  db: Db,
  batch: {
    payoutIds: readonly number[];
    signature: string;
    lastValidBlockHeight: bigint;
    atMs: number;
    /** the signed transaction, journalled in the same write (landing: rebroadcast, fee steps) */
    signed?: SignedTransaction;
  },
  assertHeld?: () => void,
): void {
  immediate(db, () => {
    assertHeld?.();
    if (batch.signed) recordSignedTransaction(db, batch.signed, batch.atMs);
    for (const id of batch.payoutIds) {
      const result = markSent(db).run(batch.signature, batch.lastValidBlockHeight, batch.atMs, id);
      if (result.changes !== 1) throw new AppError("LEDGER_INVARIANT", `payout ${id} is not queued; it cannot be sent`);
      appendPayoutStatusEvent(db, id, batch.atMs);
    }
  });
}

const SENT_FIELDS = ["id", "idpUserId", "lamports", "wallet", "kind"] as const;
type SentRow = Pick<TableRow<typeof payouts>, (typeof SENT_FIELDS)[number]>;
const sentWithSignature = statement<SentRow, [signature: string]>(
  `SELECT ${columnsOf(payouts, { only: SENT_FIELDS })} FROM payouts WHERE signature = ? AND status = 'sent'`,
);

function sentWith(db: Db, signature: string): SentRow[] {
  return sentWithSignature(db).all(signature);
}

const markConfirmed = statement<never, [atMs: number, payoutId: bigint]>(
  "UPDATE payouts SET status = 'confirmed', confirmed_at_ms = ? WHERE id = ?",
);
const markFailed = statement<never, [error: string, payoutId: bigint | number]>(
  "UPDATE payouts SET status = 'failed', error = ? WHERE id = ?",
);

/** The batch landed: every payout in it is confirmed and counted as paid. Idempotent. */
export function confirmPayouts(db: Db, signature: string, atMs: number, assertHeld?: () => void): number {
  return immediate(db, () => {
    assertHeld?.();
    const rows = sentWith(db, signature);
    for (const row of rows) {
      confirmPayout(db, Number(row.id), BigInt(row.lamports), atMs);
      markConfirmed(db).run(atMs, row.id);
      appendPayoutStatusEvent(db, Number(row.id), atMs);
    }
    return rows.length;
  });
}

/** The batch failed on chain: every payout in it is failed and its amount is back in the balance. */
export function failPayouts(db: Db, signature: string, error: string, atMs: number, assertHeld?: () => void): number {
  return immediate(db, () => {
    assertHeld?.();
    const rows = sentWith(db, signature);
    for (const row of rows) {
      failPayout(db, Number(row.id), row.idpUserId, BigInt(row.lamports), atMs);
      markFailed(db).run(error.slice(0, 300), row.id);
      appendPayoutStatusEvent(db, Number(row.id), atMs);
    }
    return rows.length;
  });
}

const insertReplacement = statement<
  { id: bigint },
  [idpUserId: string, lamports: bigint, wallet: string, kind: PayoutKind, replacesId: bigint, atMs: number]
>(
  `INSERT INTO payouts (idp_user_id, lamports, wallet, kind, status, replaces_id, created_at_ms)
   VALUES (?, ?, ?, ?, 'queued', ?, ?) RETURNING id`,
);
const markReplaced = statement<never, [payoutId: bigint]>("UPDATE payouts SET status = 'replaced' WHERE id = ?");

/**
 * The batch provably expired (block height past lastValidBlockHeight, no trace in history): each
 * payout is `replaced` by a new queued payout owing the same amount to the same wallet.
 */
export function replaceExpiredPayouts(db: Db, signature: string, atMs: number, assertHeld?: () => void): number[] {
  return immediate(db, () => {
    assertHeld?.();
    const rows = sentWith(db, signature);
    return rows.map((row) => {
      const inserted = insertReplacement(db).get(row.idpUserId, row.lamports, row.wallet, row.kind, row.id, atMs);
      const newId = Number(inserted!.id);
      replacePayout(db, Number(row.id), newId, BigInt(row.lamports), atMs);
      markReplaced(db).run(row.id);
      appendPayoutStatusEvent(db, Number(row.id), atMs, newId);
      appendFeedEvent(db, "payout", newId, atMs);
      return newId;
    });
  });
}

const approveHeld = statement<never, [payoutId: number]>(
  "UPDATE payouts SET status = 'queued' WHERE id = ? AND status = 'held'",
);

/**
 * An operator approves a held payout: it is queued and the next payouts run sends it. Call inside
 * the audit's transaction. False when the payout is not held (approved already, or never held).
 */
export function approveHeldPayout(db: Db, payoutId: number, atMs: number): boolean {
  if (approveHeld(db).run(payoutId).changes !== 1) return false;
  appendPayoutStatusEvent(db, payoutId, atMs);
  return true;
}

const HELD_AMOUNT_FIELDS = ["idpUserId", "lamports"] as const;
type HeldAmountRow = Pick<TableRow<typeof payouts>, (typeof HELD_AMOUNT_FIELDS)[number]>;
const heldAmount = statement<HeldAmountRow, [payoutId: number]>(
  `SELECT ${columnsOf(payouts, { only: HELD_AMOUNT_FIELDS })} FROM payouts WHERE id = ? AND status = 'held'`,
);

/** An operator refuses a held payout: it fails and its amount is back in the balance. Call inside a transaction. */
export function refuseHeldPayout(db: Db, payoutId: number, reason: string, atMs: number): boolean {
  const row = heldAmount(db).get(payoutId);
  if (!row) return false;
  failPayout(db, payoutId, row.idpUserId, BigInt(row.lamports), atMs);
  markFailed(db).run(`refused by an operator: ${reason}`.slice(0, 300), payoutId);
  appendPayoutStatusEvent(db, payoutId, atMs);
  return true;
}

export interface HeldPayout {
  payoutId: number;
  idpUserId: string;
  lamports: bigint;
  wallet: string;
  kind: PayoutKind;
  createdAtMs: number;
}

const HELD_FIELDS = ["id", "idpUserId", "lamports", "wallet", "kind", "createdAtMs"] as const;
type HeldRow = Pick<TableRow<typeof payouts>, (typeof HELD_FIELDS)[number]>;
const heldOldestFirst = statement<HeldRow, [limit: number]>(
  `SELECT ${columnsOf(payouts, { only: HELD_FIELDS })} FROM payouts WHERE status = 'held' ORDER BY id LIMIT ?`,
);

/** Payouts waiting for an operator's approval, oldest first. */
export function heldPayouts(db: Db, limit = 200): HeldPayout[] {
  return heldOldestFirst(db)
    .all(limit)
    .map((r) => ({
      payoutId: Number(r.id),
      idpUserId: r.idpUserId,
      lamports: BigInt(r.lamports),
      wallet: r.wallet,
      kind: r.kind,
      createdAtMs: Number(r.createdAtMs),
    }));
}
