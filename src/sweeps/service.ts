/**
 * Sweep states (DESIGN §5): `sent` -> `confirmed` (credits written in the same transaction) or
 * `failed` (nothing credited). The sweep job, the indexer and the seed all move sweeps through
 * these functions; each is idempotent, so a confirmation seen twice is a no-op.
 */
import type { Db } from "../../db/client";
import { appendFeedEvent } from "../ledger";
import { recordSignedTransaction, type SignedTransaction } from "../landing";
import { columnsOf, statement, type TableRow } from "../../db/statement";
import { immediate } from "../../db/transaction";
import { sweeps as sweepsTable } from "../../db/schema";
import { creditSweep, orderBurn, type SweepCreditResult, type SweepRecipient } from "../ledger";
import { AppError } from "../lib/errors";

export interface SweepSent {
  tokenId: number;
  signature: string;
  lastValidBlockHeight: bigint;
  atMs: number;
}

const insertSentSweep = statement<
  { id: bigint },
  [tokenId: number, signature: string, lastValidBlockHeight: bigint, atMs: number]
>(
  `INSERT INTO sweeps (token_id, signature, last_valid_block_height, status, total_lamports, platform_lamports, created_at_ms)
   VALUES (?, ?, ?, 'sent', 0, 0, ?)
   ON CONFLICT (signature, token_id) DO UPDATE SET signature = excluded.signature
   RETURNING id`,
);

/** Saved before the transaction is sent, so its signature exists from the moment it leaves. */
export function recordSweepsSent(
  db: Db,
  sweeps: readonly SweepSent[],
  assertHeld?: () => void,
  signed?: SignedTransaction,
): number[] {
  return immediate(db, () => {
    assertHeld?.();
    if (signed && sweeps[0]) recordSignedTransaction(db, signed, sweeps[0].atMs);
    const insert = insertSentSweep(db);
    return sweeps.map((s) => {
      const row = insert.get(s.tokenId, s.signature, s.lastValidBlockHeight, s.atMs);
      return Number(row!.id);
    });
  });
}

export interface BuybackPolicy {
  /** share of each sweep's platform part spent on the platform token (DESIGN §5) */
  platformBuybackBps: number;
  /** the platform token set through /api/ca; no buyback until it is set */
  platformTokenMint: string | null;
}

export interface SweepConfirmation {
  sweepId: number;
  /** what the sweep moved to the treasury for this token (collect events + pre-existing balance) */
  totalLamports: bigint;
  atMs: number;
  buyback: BuybackPolicy;
}

interface RecipientRow {
  handle: string;
  bps: bigint;
  idpUserId: string | null;
  routing: string | null;
  declined: bigint | null;
}

const sweepToConfirm = statement<
  { id: bigint; status: string; tokenId: bigint; mint: string; platformBps: bigint },
  [sweepId: number]
>(
  `SELECT s.id, s.status, s.token_id AS tokenId, t.mint, t.platform_bps AS platformBps
     FROM sweeps s JOIN tokens t ON t.id = s.token_id WHERE s.id = ?`,
);

const recipientsOfToken = statement<RecipientRow, [tokenId: number]>(
  `SELECT r.handle, r.bps, h.idp_user_id AS idpUserId, i.routing, i.declined
     FROM token_recipients r
     LEFT JOIN handles h ON h.handle = r.handle
     LEFT JOIN identities i ON i.idp_user_id = h.idp_user_id
    WHERE r.token_id = ? ORDER BY r.position`,
);

const markConfirmed = statement<
  never,
  [totalLamports: bigint, platformLamports: bigint, atMs: number, sweepId: number]
>(
  "UPDATE sweeps SET status = 'confirmed', total_lamports = ?, platform_lamports = ?, confirmed_at_ms = ? WHERE id = ?",
);

const addSweptToToken = statement<never, [totalLamports: bigint, atMs: number, tokenId: number]>(
  `UPDATE tokens SET swept_lamports = swept_lamports + ?1,
          vault_lamports = CASE WHEN vault_lamports > ?1 THEN vault_lamports - ?1 ELSE 0 END,
          last_swept_at_ms = ?2 WHERE id = ?3`,
);

/** Confirms a sweep and credits its split, routing burn credits to burn orders. Call once per token. */
export function confirmSweep(db: Db, confirmation: SweepConfirmation, assertHeld?: () => void): { applied: boolean } {
  if (confirmation.totalLamports < 0n) throw new AppError("LEDGER_INVARIANT", "a sweep total cannot be negative");
  return immediate(db, () => {
    assertHeld?.();
    const sweep = sweepToConfirm(db).get(confirmation.sweepId);
    if (!sweep) throw new AppError("LEDGER_INVARIANT", `no sweep ${confirmation.sweepId}`);
    if (sweep.status === "confirmed") return { applied: false };
    if (sweep.status === "failed") {
      // A sweep is failed only when it provably cannot land; landing now means that proof was wrong.
      throw new AppError("LEDGER_INVARIANT", `sweep ${confirmation.sweepId} was failed but landed`);
    }
    const tokenId = Number(sweep.tokenId);
    const recipients = recipientsOfToken(db).all(tokenId);
    const credit = creditSweep(db, {
      sweepId: confirmation.sweepId,
      tokenId,
      mint: sweep.mint,
      totalLamports: confirmation.totalLamports,
      platformBps: Number(sweep.platformBps),
      recipients: recipients.map(
        (r): SweepRecipient => ({ handle: r.handle, bps: Number(r.bps), idpUserId: r.idpUserId }),
      ),
      atMs: confirmation.atMs,
    });

    markConfirmed(db).run(confirmation.totalLamports, credit.platformLamports, confirmation.atMs, confirmation.sweepId);
    addSweptToToken(db).run(confirmation.totalLamports, confirmation.atMs, tokenId);

    orderBurnsOfCredit(db, confirmation, sweep.mint, recipients, credit);
    appendFeedEvent(db, "sweep", confirmation.sweepId, confirmation.atMs);
    return { applied: true };
  });
}

const tokenWithMint = statement<{ 1: number }, [mint: string]>("SELECT 1 FROM tokens WHERE mint = ?");

/**
 * The burn orders a credited sweep makes: credits of accounts routed to burn (or declined) for
 * this token, and the platform's buyback share for the platform token.
 */
function orderBurnsOfCredit(
  db: Db,
  confirmation: SweepConfirmation,
  mint: string,
  recipients: readonly RecipientRow[],
  credit: SweepCreditResult,
): void {
  recipients.forEach((r, i) => {
    const lamports = credit.recipientLamports[i]!;
    if (lamports === 0n || !r.idpUserId) return;
    if (r.routing !== "burn" && Number(r.declined ?? 0) !== 1) return;
    const orderId = insertBurnOrder(
      db,
      "recipient",
      r.idpUserId,
      mint,
      lamports,
      confirmation.sweepId,
      confirmation.atMs,
    );
    orderBurn(db, {
      orderId,
      source: "recipient",
      idpUserId: r.idpUserId,
      mint,
      lamports,
      atMs: confirmation.atMs,
    });
  });
  const { platformBuybackBps, platformTokenMint } = confirmation.buyback;
  // Only a token launched here can be bought through the launch-program port; orders for any
  // other mint would wait forever, so none are made and the platform keeps that share.
  const buybackLaunchedHere = platformTokenMint !== null && tokenWithMint(db).get(platformTokenMint) !== null;
  if (platformTokenMint && buybackLaunchedHere && platformBuybackBps > 0) {
    const lamports = (credit.platformLamports * BigInt(platformBuybackBps)) / 10_000n;
    if (lamports > 0n) {
      const orderId = insertBurnOrder(
        db,
        "platform",
        null,
        platformTokenMint,
        lamports,
        confirmation.sweepId,
        confirmation.atMs,
      );
      orderBurn(db, {
        orderId,
        source: "platform",
        idpUserId: null,
        mint: platformTokenMint,
        lamports,
        atMs: confirmation.atMs,
      });
    }
  }
}

const insertPendingBurnOrder = statement<
  { id: bigint },
  [
    source: "recipient" | "platform",
    idpUserId: string | null,
    mint: string,
    lamports: bigint,
    sweepId: number,
    atMs: number,
  ]
>(
  `INSERT INTO burn_orders (source, idp_user_id, mint, lamports, sweep_id, status, created_at_ms)
   VALUES (?, ?, ?, ?, ?, 'pending', ?) RETURNING id`,
);

function insertBurnOrder(
  db: Db,
  source: "recipient" | "platform",
  idpUserId: string | null,
  mint: string,
  lamports: bigint,
  sweepId: number,
  atMs: number,
): number {
  const row = insertPendingBurnOrder(db).get(source, idpUserId, mint, lamports, sweepId, atMs);
  return Number(row!.id);
}

const sweepStatus = statement<{ status: string }, [sweepId: number]>("SELECT status FROM sweeps WHERE id = ?");

const markFailed = statement<never, [error: string, sweepId: number]>(
  "UPDATE sweeps SET status = 'failed', error = ?, confirmed_at_ms = NULL WHERE id = ?",
);

/** An on-chain failure or a proven expiry: nothing is credited. */
export function failSweep(db: Db, sweepId: number, error: string, assertHeld?: () => void): { applied: boolean } {
  return immediate(db, () => {
    assertHeld?.();
    const row = sweepStatus(db).get(sweepId);
    if (!row) throw new AppError("LEDGER_INVARIANT", `no sweep ${sweepId}`);
    if (row.status === "failed") return { applied: false };
    if (row.status === "confirmed")
      throw new AppError("LEDGER_INVARIANT", `sweep ${sweepId} is confirmed; it cannot fail`);
    markFailed(db).run(error.slice(0, 300), sweepId);
    return { applied: true };
  });
}

/** A sweep that provably expired is failed with this error (the job's `failSweeps`). */
export const SWEEP_EXPIRED_ERROR = "expired without landing";

const latestSweepStatus = statement<{ status: string }, [tokenId: number]>(
  "SELECT status FROM sweeps WHERE token_id = ? ORDER BY id DESC LIMIT 1",
);

const OUTCOME_FIELDS = ["status", "error"] as const;
type OutcomeRow = Pick<TableRow<typeof sweepsTable>, (typeof OUTCOME_FIELDS)[number]>;
const latestOutcomes = statement<OutcomeRow, [tokenId: number]>(
  `SELECT ${columnsOf(sweepsTable, { only: OUTCOME_FIELDS })} FROM sweeps WHERE token_id = ? ORDER BY id DESC LIMIT 20`,
);

/**
 * The attempt number of a sweep of these tokens: how many of their sweeps in a row (since the last
 * one that landed) provably expired, the most of any of them; 0 for a first attempt.
 */
export function sweepAttempt(db: Db, tokenIds: readonly number[]): number {
  let highest = 0;
  for (const tokenId of tokenIds.slice(0, 64)) {
    // From the covering sweeps_token index: most tokens' latest sweep landed, and that ends it.
    const latest = latestSweepStatus(db).get(tokenId);
    if (latest?.status !== "failed") continue;
    const rows = latestOutcomes(db).all(tokenId);
    let inARow = 0;
    for (const row of rows) {
      if (row.status !== "failed" || row.error !== SWEEP_EXPIRED_ERROR) break;
      inARow++;
    }
    highest = Math.max(highest, inARow);
  }
  return highest;
}
