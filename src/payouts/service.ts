/**
 * Payout states (DESIGN §5): queued -> sent -> confirmed | failed | replaced; a payout above the
 * review amount starts `held` and is queued once an operator approves it. The amount leaves the
 * balance when the payout is queued; a failed payout puts it back; a payout that provably expired
 * is replaced by a new queued payout that owes the same amount. One live (queued or sent) payout
 * per account at a time.
 */
import type { Db } from "../../db/client";
import { confirmPayout, failPayout, replacePayout, reservePayout } from "../ledger";
import { appendFeedEvent } from "../ledger";
import { accounts, balanceOf } from "../ledger";
import { recordSignedTransaction, type SignedTransaction } from "../landing";
import { immediate } from "../../db/transaction";
import { AppError } from "../lib/errors";

export type PayoutKind = "claim" | "autopay";

export interface PayoutRequest {
  idpUserId: string;
  /** null: the whole balance */
  lamports: bigint | null;
  wallet: string;
  kind: PayoutKind;
  /** smallest amount accepted */
  minLamports: bigint;
  atMs: number;
  /** above this the payout waits as `held` until an operator approves it (src/custody); absent: never held */
  reviewLamports?: bigint;
}

export interface QueuedPayout {
  payoutId: number;
  lamports: bigint;
  status: "queued" | "held";
}

/** Queues a payout and reserves its amount, atomically. Concurrent requests serialise here. */
export function queuePayout(db: Db, request: PayoutRequest, assertHeld?: () => void): QueuedPayout {
  return immediate(db, () => {
    assertHeld?.();
    const c = db.$client;
    const live = c
      .query<{ id: bigint }, [idpUserId: string]>(
        "SELECT id FROM payouts WHERE idp_user_id = ? AND status IN ('held', 'queued', 'sent') LIMIT 1",
      )
      .get(request.idpUserId);
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
    const status = request.reviewLamports !== undefined && lamports > request.reviewLamports ? "held" : "queued";
    const row = c
      .query<
        { id: bigint },
        [idpUserId: string, lamports: bigint, wallet: string, kind: PayoutKind, status: string, atMs: number]
      >(
        `INSERT INTO payouts (idp_user_id, lamports, wallet, kind, status, created_at_ms)
         VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
      )
      .get(request.idpUserId, lamports, request.wallet, request.kind, status, request.atMs);
    const payoutId = Number(row!.id);
    reservePayout(db, payoutId, request.idpUserId, lamports, request.atMs);
    appendFeedEvent(db, "payout", payoutId, request.atMs);
    return { payoutId, lamports, status };
  });
}

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
      const result = db.$client
        .query<never, [signature: string, lastValidBlockHeight: bigint, atMs: number, payoutId: number]>(
          "UPDATE payouts SET status = 'sent', signature = ?, last_valid_block_height = ?, sent_at_ms = ? WHERE id = ? AND status = 'queued'",
        )
        .run(batch.signature, batch.lastValidBlockHeight, batch.atMs, id);
      if (result.changes !== 1) throw new AppError("LEDGER_INVARIANT", `payout ${id} is not queued; it cannot be sent`);
    }
  });
}

interface SentRow {
  id: bigint;
  idpUserId: string;
  lamports: bigint;
  wallet: string;
  kind: PayoutKind;
}

function sentWith(db: Db, signature: string): SentRow[] {
  return db.$client
    .query<SentRow, [signature: string]>(
      "SELECT id, idp_user_id AS idpUserId, lamports, wallet, kind FROM payouts WHERE signature = ? AND status = 'sent'",
    )
    .all(signature);
}

/** The batch landed: every payout in it is confirmed and counted as paid. Idempotent. */
export function confirmPayouts(db: Db, signature: string, atMs: number, assertHeld?: () => void): number {
  return immediate(db, () => {
    assertHeld?.();
    const rows = sentWith(db, signature);
    for (const row of rows) {
      confirmPayout(db, Number(row.id), BigInt(row.lamports), atMs);
      db.$client
        .query<never, [atMs: number, payoutId: bigint]>(
          "UPDATE payouts SET status = 'confirmed', confirmed_at_ms = ? WHERE id = ?",
        )
        .run(atMs, row.id);
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
      db.$client
        .query<never, [error: string, payoutId: bigint]>("UPDATE payouts SET status = 'failed', error = ? WHERE id = ?")
        .run(error.slice(0, 300), row.id);
    }
    return rows.length;
  });
}

/**
 * The batch provably expired (block height past lastValidBlockHeight, no trace in history): each
 * payout is `replaced` by a new queued payout owing the same amount to the same wallet.
 */
export function replaceExpiredPayouts(db: Db, signature: string, atMs: number, assertHeld?: () => void): number[] {
  return immediate(db, () => {
    assertHeld?.();
    const c = db.$client;
    const rows = sentWith(db, signature);
    return rows.map((row) => {
      const inserted = c
        .query<
          { id: bigint },
          [idpUserId: string, lamports: bigint, wallet: string, kind: PayoutKind, replacesId: bigint, atMs: number]
        >(
          `INSERT INTO payouts (idp_user_id, lamports, wallet, kind, status, replaces_id, created_at_ms)
           VALUES (?, ?, ?, ?, 'queued', ?, ?) RETURNING id`,
        )
        .get(row.idpUserId, row.lamports, row.wallet, row.kind, row.id, atMs);
      const newId = Number(inserted!.id);
      replacePayout(db, Number(row.id), newId, BigInt(row.lamports), atMs);
      c.query<never, [payoutId: bigint]>("UPDATE payouts SET status = 'replaced' WHERE id = ?").run(row.id);
      appendFeedEvent(db, "payout", newId, atMs);
      return newId;
    });
  });
}

/**
 * An operator approves a held payout: it is queued and the next payouts run sends it. Call inside
 * the audit's transaction. False when the payout is not held (approved already, or never held).
 */
export function approveHeldPayout(db: Db, payoutId: number): boolean {
  return (
    db.$client
      .query<never, [payoutId: number]>("UPDATE payouts SET status = 'queued' WHERE id = ? AND status = 'held'")
      .run(payoutId).changes === 1
  );
}

/** An operator refuses a held payout: it fails and its amount is back in the balance. Call inside a transaction. */
export function refuseHeldPayout(db: Db, payoutId: number, reason: string, atMs: number): boolean {
  const row = db.$client
    .query<{ idpUserId: string; lamports: bigint }, [payoutId: number]>(
      "SELECT idp_user_id AS idpUserId, lamports FROM payouts WHERE id = ? AND status = 'held'",
    )
    .get(payoutId);
  if (!row) return false;
  failPayout(db, payoutId, row.idpUserId, BigInt(row.lamports), atMs);
  db.$client
    .query<never, [error: string, payoutId: number]>("UPDATE payouts SET status = 'failed', error = ? WHERE id = ?")
    .run(`refused by an operator: ${reason}`.slice(0, 300), payoutId);
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

/** Payouts waiting for an operator's approval, oldest first. */
export function heldPayouts(db: Db, limit = 200): HeldPayout[] {
  return db.$client
    .query<
      { id: bigint; idpUserId: string; lamports: bigint; wallet: string; kind: PayoutKind; createdAtMs: bigint },
      [limit: number]
    >(
      `SELECT id, idp_user_id AS idpUserId, lamports, wallet, kind, created_at_ms AS createdAtMs
         FROM payouts WHERE status = 'held' ORDER BY id LIMIT ?`,
    )
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
