/**
 * Platform withdrawals: the operator's revenue leaves the treasury through this bounded, audited
 * path, never by hand with the treasury key. A withdrawal goes only to PLATFORM_WALLET (set in the
 * environment; no API changes it), takes at most the platform's balance and at most the treasury's
 * surplus less the reserve for fees and rent, so the proof of reserves stays solvent by
 * construction. States: queued (amount reserved from the platform) -> sent -> confirmed, or failed
 * (back to the platform); a send that provably expired goes back to queued and is sent again with a
 * new transaction, never while an earlier one may still land.
 */
import type { Db } from "../../db/client";
import { immediate } from "../../db/transaction";
import { recordSignedTransaction, type SignedTransaction } from "../landing";
import { accounts, balanceOf, confirmWithdrawal, failWithdrawal, reserveWithdrawal } from "../ledger";
import { AppError } from "../lib/errors";
import { withdrawals } from "../../db/schema";
import { columnsOf, query, type TableRow } from "../../db/statement";

export type WithdrawalStatus = "queued" | "sent" | "confirmed" | "failed";

export interface Withdrawal {
  id: number;
  lamports: bigint;
  wallet: string;
  reason: string;
  actor: string;
  status: WithdrawalStatus;
  signature: string | null;
  lastValidBlockHeight: bigint | null;
  attempt: number;
  error: string | null;
  createdAtMs: number;
  sentAtMs: number | null;
  confirmedAtMs: number | null;
}

type WithdrawalRow = TableRow<typeof withdrawals>;

const COLUMNS = columnsOf(withdrawals);

function toWithdrawal(r: WithdrawalRow): Withdrawal {
  return {
    id: Number(r.id),
    lamports: BigInt(r.lamports),
    wallet: r.wallet,
    reason: r.reason,
    actor: r.actor,
    status: r.status,
    signature: r.signature,
    lastValidBlockHeight: r.lastValidBlockHeight === null ? null : BigInt(r.lastValidBlockHeight),
    attempt: Number(r.attempt),
    error: r.error,
    createdAtMs: Number(r.createdAtMs),
    sentAtMs: r.sentAtMs === null ? null : Number(r.sentAtMs),
    confirmedAtMs: r.confirmedAtMs === null ? null : Number(r.confirmedAtMs),
  };
}

const MAX_WITHDRAWAL_REASON_CHARS = 500;
/** Rent-exempt minimum of an account with no data (mainnet's and the local chain's rent). */
const RENT_EXEMPT_MINIMUM_LAMPORTS = 890_880n;

/** Withdrawals queued or sent: reserved from the platform, still in the treasury until they land. */
export function pendingWithdrawalLamports(db: Db): bigint {
  const row = query<{ s: bigint }, []>(
    db,
    "SELECT COALESCE(SUM(lamports), 0) AS s FROM withdrawals WHERE status IN ('queued', 'sent')",
  ).get()!;
  return BigInt(row.s);
}

/**
 * The most a withdrawal may take now: the platform's balance, and the treasury's surplus over what
 * is owed less the reserve and less withdrawals already on their way (still in the treasury).
 */
export function withdrawableLamports(
  db: Db,
  reading: { treasuryLamports: bigint; owedLamports: bigint; reserveLamports: bigint },
): bigint {
  const platform = balanceOf(db, accounts.platform());
  const surplus =
    reading.treasuryLamports - reading.owedLamports - pendingWithdrawalLamports(db) - reading.reserveLamports;
  // biome-ignore lint/complexity/useMathMinMax: bigint lamports; Math.min takes numbers only
  const most = platform < surplus ? platform : surplus;
  return most > 0n ? most : 0n;
}

/**
 * Queues a withdrawal of `lamports` to `wallet` and reserves it from the platform's balance, in one
 * write with the audit row the caller adds (`withAudit`). Refused with a sentence when it is more
 * than may be withdrawn now.
 */
export function requestWithdrawal(
  db: Db,
  request: {
    lamports: bigint;
    reason: string;
    actor: string;
    wallet: string;
    treasuryLamports: bigint;
    /** what the proof of reserves counts as owed, read inside the write (src/proof's owedForReserves) */
    owedLamports: () => bigint;
    reserveLamports: bigint;
    atMs: number;
  },
  withAudit: (withdrawalId: number) => void,
): Withdrawal {
  if (request.lamports <= 0n) throw new AppError("WITHDRAWAL_AMOUNT_INVALID");
  // Below it a transfer to a wallet that does not exist yet fails on chain (the system program
  // refuses to leave a new account under rent), paying a fee each time it is tried.
  if (request.lamports < RENT_EXEMPT_MINIMUM_LAMPORTS)
    throw new AppError("WITHDRAWAL_BELOW_RENT", { minimumLamports: RENT_EXEMPT_MINIMUM_LAMPORTS });
  const reason = request.reason.trim();
  if (reason === "") throw new AppError("REASON_REQUIRED");
  if (reason.length > MAX_WITHDRAWAL_REASON_CHARS)
    throw new AppError("REASON_TOO_LONG", { maximum: MAX_WITHDRAWAL_REASON_CHARS });
  return immediate(db, () => {
    const most = withdrawableLamports(db, {
      treasuryLamports: request.treasuryLamports,
      owedLamports: request.owedLamports(),
      reserveLamports: request.reserveLamports,
    });
    if (request.lamports > most) {
      throw new AppError("WITHDRAWAL_OVER_LIMIT", { mostLamports: most });
    }
    const row = query<WithdrawalRow, [lamports: bigint, wallet: string, reason: string, actor: string, atMs: number]>(
      db,
      `INSERT INTO withdrawals (lamports, wallet, reason, actor, status, created_at_ms)
         VALUES (?, ?, ?, ?, 'queued', ?) RETURNING ${COLUMNS}`,
    ).get(request.lamports, request.wallet, reason, request.actor, request.atMs)!;
    const withdrawal = toWithdrawal(row);
    reserveWithdrawal(db, withdrawal.id, withdrawal.lamports, request.atMs);
    withAudit(withdrawal.id);
    return withdrawal;
  });
}

export function listWithdrawals(db: Db, limit: number): Withdrawal[] {
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new AppError("LIST_LIMIT_INVALID");
  return query<WithdrawalRow, [limit: number]>(db, `SELECT ${COLUMNS} FROM withdrawals ORDER BY id DESC LIMIT ?`)
    .all(limit)
    .map(toWithdrawal);
}

export function withdrawalsIn(db: Db, status: "queued" | "sent", limit = 100): Withdrawal[] {
  return query<WithdrawalRow, [status: string, limit: number]>(
    db,
    `SELECT ${COLUMNS} FROM withdrawals WHERE status = ? ORDER BY id LIMIT ?`,
  )
    .all(status, limit)
    .map(toWithdrawal);
}

/** Saved before the transaction is sent, with the signed transaction journalled in the same write. */
export function markWithdrawalSent(
  db: Db,
  sent: { id: number; signature: string; lastValidBlockHeight: bigint; atMs: number; signed?: SignedTransaction },
  assertHeld?: () => void,
): void {
  immediate(db, () => {
    assertHeld?.();
    if (sent.signed) recordSignedTransaction(db, sent.signed, sent.atMs);
    const changed = query<never, [signature: string, lvbh: bigint, atMs: number, id: number]>(
      db,
      "UPDATE withdrawals SET status = 'sent', signature = ?, last_valid_block_height = ?, sent_at_ms = ? WHERE id = ? AND status = 'queued'",
    ).run(sent.signature, sent.lastValidBlockHeight, sent.atMs, sent.id).changes;
    if (changed !== 1) throw new AppError("LEDGER_INVARIANT", `withdrawal ${sent.id} is not queued`);
  });
}

/** The withdrawal landed. Idempotent. */
export function confirmWithdrawalSent(db: Db, id: number, atMs: number, assertHeld?: () => void): boolean {
  return immediate(db, () => {
    assertHeld?.();
    const row = query<{ lamports: bigint }, [id: number]>(
      db,
      "SELECT lamports FROM withdrawals WHERE id = ? AND status = 'sent'",
    ).get(id);
    if (!row) return false;
    confirmWithdrawal(db, id, BigInt(row.lamports), atMs);
    query<never, [atMs: number, id: number]>(
      db,
      "UPDATE withdrawals SET status = 'confirmed', confirmed_at_ms = ? WHERE id = ?",
    ).run(atMs, id);
    return true;
  });
}

/**
 * The withdrawal failed on chain, or may not go any more (the surplus fell under it): its amount
 * is the platform's again. Idempotent; `from` is the state it must be in.
 */
export function failWithdrawalWith(
  db: Db,
  failed: { id: number; from: "queued" | "sent"; error: string; atMs: number },
  assertHeld?: () => void,
): boolean {
  return immediate(db, () => {
    assertHeld?.();
    const row = query<{ lamports: bigint }, [id: number, from: string]>(
      db,
      "SELECT lamports FROM withdrawals WHERE id = ? AND status = ?",
    ).get(failed.id, failed.from);
    if (!row) return false;
    failWithdrawal(db, failed.id, BigInt(row.lamports), failed.atMs);
    query<never, [error: string, id: number]>(
      db,
      "UPDATE withdrawals SET status = 'failed', error = ? WHERE id = ?",
    ).run(failed.error.slice(0, 300), failed.id);
    return true;
  });
}

/** The send provably expired (never landed, never can): queued again for a new transaction. */
export function requeueExpiredWithdrawal(db: Db, id: number, assertHeld?: () => void): boolean {
  return immediate(db, () => {
    assertHeld?.();
    return (
      query<never, [id: number]>(
        db,
        `UPDATE withdrawals SET status = 'queued', signature = NULL, last_valid_block_height = NULL,
                  sent_at_ms = NULL, attempt = attempt + 1 WHERE id = ? AND status = 'sent'`,
      ).run(id).changes === 1
    );
  });
}
