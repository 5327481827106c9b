/**
 * Applying one treasury transaction the database does not know. The rule is the one a crash after
 * a send already follows: the items the transaction carries are brought to `sent` with its
 * signature (created first when the backup never held them, with the reservation their job made
 * when it queued them), and the job's own resolution of that signature then books the outcome:
 * the payout's confirmation, the sweep's credit through its cross-check, the buy's spend. What the
 * memo says is checked against what the transaction did (transfers, amounts, wallets) before
 * anything is written; a disagreement, or a transaction without a command key, is unknown.
 */
import type { Db } from "../../db/client";
import { payouts, withdrawals } from "../../db/schema";
import { columnsOf, statement, type TableRow } from "../../db/statement";
import { immediate } from "../../db/transaction";
import { type CommandKey, decodeCommandKey } from "../chain/command-key";
import { memoTexts } from "../chain/memo";
import type { ConfirmedTransaction } from "../chain/ports";
import { appendFeedEvent, appendPayoutStatusEvent, replacePayout, reservePayout, reserveWithdrawal } from "../ledger";
import { AppError, type ErrorCode, isAppError } from "../lib/errors";
import { adoptBurnBuy, adoptBurnSent } from "../burns";

const SYSTEM_PROGRAM = "11111111111111111111111111111111";
const TRANSFER = 2;

export type ApplyOutcome =
  /** the effects are written; the job's resolution of the signature decides the rest */
  | { kind: "written"; key: CommandKey }
  /** nothing of the service's to do: not signed by the treasury, or it moved nothing of its own */
  | { kind: "ignored"; note: string }
  /** a treasury transaction the service cannot account for */
  | { kind: "unknown"; note: string; balanceShort?: boolean };

interface Transfer {
  to: string;
  lamports: bigint;
}

/** Top-level system transfers out of `from`, in instruction order. */
function transfersFrom(tx: ConfirmedTransaction, from: string): Transfer[] {
  const out: Transfer[] = [];
  for (const ix of tx.instructions) {
    if (ix.programId !== SYSTEM_PROGRAM || ix.data.length !== 12 || ix.accounts[0] !== from) continue;
    const view = new DataView(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength);
    if (view.getUint32(0, true) !== TRANSFER) continue;
    out.push({ to: ix.accounts[1]!, lamports: view.getBigUint64(4, true) });
  }
  return out;
}

/** The command key of a transaction: the one memo of ours the treasury signed, or why there is none. */
function commandKeyOf(tx: ConfirmedTransaction, treasury: string): CommandKey | string {
  const keys: CommandKey[] = [];
  for (const memo of memoTexts(tx)) {
    if (!memo.signers.includes(treasury)) continue;
    let key: CommandKey | null;
    try {
      key = decodeCommandKey(memo.text);
    } catch {
      return "its memo looks like a command key but does not decode";
    }
    if (key) keys.push(key);
  }
  if (keys.length === 0) return "it carries no command key of this service";
  if (keys.length > 1) return "it carries more than one command key";
  return keys[0]!;
}

/** Whether the treasury signed or paid for the transaction (what it received alone is no command). */
export function treasuryActed(tx: ConfirmedTransaction, treasury: string): boolean {
  const i = tx.accountKeys.indexOf(treasury);
  if (i < 0) return false;
  if (i === 0) return true;
  return (tx.postBalances[i] ?? 0n) < (tx.preBalances[i] ?? 0n);
}

/**
 * Writes what one transaction did, in one immediate write, or says why it cannot. Throws only what
 * the database throws; a ledger invariant the effects would break is an unknown transaction.
 */
export function applyTransaction(db: Db, tx: ConfirmedTransaction, treasury: string, atMs: number): ApplyOutcome {
  if (!treasuryActed(tx, treasury)) return { kind: "ignored", note: "the treasury only received" };
  const key = commandKeyOf(tx, treasury);
  if (typeof key === "string") return { kind: "unknown", note: key };
  try {
    const refused = immediate(db, () => write(db, tx, key, treasury, atMs));
    return refused === null ? { kind: "written", key } : { kind: "unknown", note: refused };
  } catch (error) {
    if (isAppError(error, "LEDGER_INVARIANT")) return { kind: "unknown", note: error.message, balanceShort: true };
    if (isAppError(error, ...RECONCILE_MISMATCH_CODES)) return { kind: "unknown", note: error.message };
    throw error;
  }
}

/** The effects of one command; a string says why they cannot be written (nothing is). */
function write(db: Db, tx: ConfirmedTransaction, key: CommandKey, treasury: string, atMs: number): string | null {
  switch (key.kind) {
    case "payouts":
      return writePayouts(db, tx, key.items, treasury, atMs);
    case "sweeps":
      return writeSweeps(db, tx, key.tokenIds, atMs);
    case "withdrawal":
      return writeWithdrawal(db, tx, key.withdrawalId, treasury, atMs);
    case "burn-buy":
      return adoptBurnBuy(db, { ...key, signature: tx.signature, atMs });
    case "burn":
      return adoptBurnSent(db, { buyId: key.buyId, signature: tx.signature });
    case "anchor":
      return writeAnchor(db, tx, key.anchorId, atMs);
  }
}

/** A command key that disagrees with the rows the database holds: the transaction is recorded as unknown. */
const RECONCILE_MISMATCH_CODES = [
  "RECONCILE_PAYOUT_DIFFERS",
  "RECONCILE_REPLACEMENT_DIFFERS",
  "RECONCILE_REPLACED_STATUS",
  "RECONCILE_WITHDRAWAL_DIFFERS",
  "RECONCILE_BURN_BUY_DIFFERS",
  "RECONCILE_BURN_NOT_AWAITED",
] as const satisfies readonly ErrorCode[];

const PAYOUT_FIELDS = ["id", "idpUserId", "lamports", "wallet", "status", "signature"] as const;
type PayoutRow = Pick<TableRow<typeof payouts>, (typeof PAYOUT_FIELDS)[number]>;
const PAYOUT_COLUMNS = columnsOf(payouts, { only: PAYOUT_FIELDS });

const payoutById = statement<PayoutRow, [id: number]>(`SELECT ${PAYOUT_COLUMNS} FROM payouts WHERE id = ?`);
const payoutReplacing = statement<PayoutRow, [id: bigint]>(
  `SELECT ${PAYOUT_COLUMNS} FROM payouts WHERE replaces_id = ?`,
);

function payoutRow(db: Db, id: number): PayoutRow | null {
  return payoutById(db).get(id);
}

/** The newest payout the books hold of the chain of replacements that starts at `firstId`, or null. */
function chainTip(db: Db, firstId: number): PayoutRow | null {
  let tip = payoutRow(db, firstId);
  for (let step = 0; tip && step < 1_000; step++) {
    const next = payoutReplacing(db).get(tip.id);
    if (!next) break;
    tip = next;
  }
  return tip;
}

const markPayoutSent = statement<never, [signature: string, atMs: number, id: number]>(
  "UPDATE payouts SET status = 'sent', signature = ?, last_valid_block_height = 0, sent_at_ms = ? WHERE id = ?",
);
const insertSentPayout = statement<
  never,
  [
    id: number,
    idpUserId: string,
    lamports: bigint,
    wallet: string,
    kind: string,
    replacesId: bigint | null,
    signature: string,
    atMs: number,
  ]
>(
  `INSERT INTO payouts (id, idp_user_id, lamports, wallet, kind, status, replaces_id, signature, last_valid_block_height, created_at_ms, sent_at_ms)
   VALUES (?, ?, ?, ?, ?, 'sent', ?, ?, 0, ?8, ?8)`,
);
const markPayoutReplaced = statement<never, [id: bigint]>("UPDATE payouts SET status = 'replaced' WHERE id = ?");

function writePayouts(
  db: Db,
  tx: ConfirmedTransaction,
  items: Extract<CommandKey, { kind: "payouts" }>["items"],
  treasury: string,
  atMs: number,
): string | null {
  const transfers = transfersFrom(tx, treasury);
  if (transfers.length !== items.length)
    return `its memo names ${items.length} payouts for ${transfers.length} transfers`;
  const strangers = unknownRecipients(db, items);
  if (strangers.length > 0) return unrebuildable(strangers);
  items.forEach((item, i) => {
    const transfer = transfers[i]!;
    const row = payoutRow(db, item.payoutId);
    if (row) {
      if (row.signature === tx.signature) return;
      const same =
        row.idpUserId === item.idpUserId && BigInt(row.lamports) === transfer.lamports && row.wallet === transfer.to;
      if (!same || (row.status !== "queued" && row.status !== "held")) {
        throw new AppError("RECONCILE_PAYOUT_DIFFERS", { payoutId: item.payoutId });
      }
      markPayoutSent(db).run(tx.signature, atMs, item.payoutId);
      appendPayoutStatusEvent(db, item.payoutId, atMs);
      return;
    }
    // The payout this one replaced: the newest of its chain the books hold (the chain's first one
    // when every replacement was made after the backup).
    const replaced = item.firstPayoutId === null ? null : chainTip(db, item.firstPayoutId);
    insertSentPayout(db).run(
      item.payoutId,
      item.idpUserId,
      transfer.lamports,
      transfer.to,
      item.kind,
      replaced ? replaced.id : null,
      tx.signature,
      atMs,
    );
    if (replaced && (replaced.status === "sent" || replaced.status === "queued" || replaced.status === "held")) {
      // The payout it replaced was in flight in the backup (or still waiting to be sent, and sent
      // after it) and provably expired since: its reservation moves to this one, and it must never
      // be sent, resolved or replaced again.
      if (replaced.idpUserId !== item.idpUserId || BigInt(replaced.lamports) !== transfer.lamports) {
        throw new AppError("RECONCILE_REPLACEMENT_DIFFERS", { payoutId: item.payoutId, replacedId: replaced.id });
      }
      replacePayout(db, Number(replaced.id), item.payoutId, transfer.lamports, atMs);
      markPayoutReplaced(db).run(replaced.id);
      appendPayoutStatusEvent(db, Number(replaced.id), atMs, item.payoutId);
    } else if (replaced) {
      throw new AppError("RECONCILE_REPLACED_STATUS", { payoutId: replaced.id, status: replaced.status });
    } else {
      // Queued after the backup: its reservation is made as the claim (or autopay) made it.
      reservePayout(db, item.payoutId, item.idpUserId, transfer.lamports, atMs);
    }
    appendFeedEvent(db, "payout", item.payoutId, atMs);
  });
  return null;
}

const identityExists = statement<{ 1: bigint }, [idpUserId: string]>("SELECT 1 FROM identities WHERE idp_user_id = ?");

/**
 * The payouts of the batch the books hold no row of, paid to a user the books hold no identity of:
 * someone who first signed in after the backup (a handle pinned at launch creates its identity with
 * the token, so a backup that holds the token holds them). The chain names the user and the wallet,
 * not the handle whose credits paid them: pinning a handle on a guess could pay it a second time,
 * and without the pin the payout's reservation has no balance to come from.
 */
function unknownRecipients(
  db: Db,
  items: Extract<CommandKey, { kind: "payouts" }>["items"],
): Extract<CommandKey, { kind: "payouts" }>["items"] {
  return items.filter(
    (item) => payoutRow(db, item.payoutId) === null && identityExists(db).get(item.idpUserId) === null,
  );
}

/** What the reconciliation cannot rebuild, in the words the operator's incident shows. */
function unrebuildable(items: Extract<CommandKey, { kind: "payouts" }>["items"]): string {
  const named = items.map((i) => `payout ${i.payoutId} to user ${i.idpUserId}`).join(", ");
  return `cannot rebuild ${named}: no such user in the books (first signed in after the backup), and the chain does not say which handle's credits paid it`;
}

const tokenById = statement<{ id: bigint }, [id: number]>("SELECT id FROM tokens WHERE id = ?");
const insertSentSweep = statement<never, [tokenId: number, signature: string, atMs: number]>(
  `INSERT INTO sweeps (token_id, signature, last_valid_block_height, status, created_at_ms)
   VALUES (?, ?, 0, 'sent', ?) ON CONFLICT (signature, token_id) DO NOTHING`,
);

function writeSweeps(db: Db, tx: ConfirmedTransaction, tokenIds: readonly number[], atMs: number): string | null {
  for (const tokenId of tokenIds) {
    const token = tokenById(db).get(tokenId);
    if (!token) return `it swept token ${tokenId}, which the database does not hold`;
  }
  for (const tokenId of tokenIds) {
    insertSentSweep(db).run(tokenId, tx.signature, atMs);
  }
  return null;
}

const WITHDRAWAL_FIELDS = ["lamports", "wallet", "status", "signature"] as const;
const withdrawalById = statement<Pick<TableRow<typeof withdrawals>, (typeof WITHDRAWAL_FIELDS)[number]>, [id: number]>(
  `SELECT ${columnsOf(withdrawals, { only: WITHDRAWAL_FIELDS })} FROM withdrawals WHERE id = ?`,
);
const markWithdrawalSent = statement<never, [signature: string, atMs: number, id: number]>(
  "UPDATE withdrawals SET status = 'sent', signature = ?, last_valid_block_height = 0, sent_at_ms = ? WHERE id = ?",
);
const insertSentWithdrawal = statement<
  never,
  [id: number, lamports: bigint, wallet: string, signature: string, atMs: number]
>(
  `INSERT INTO withdrawals (id, lamports, wallet, reason, actor, status, signature, last_valid_block_height, created_at_ms, sent_at_ms)
   VALUES (?, ?, ?, 'made after the backup; recreated from the chain', 'reconciliation', 'sent', ?, 0, ?5, ?5)`,
);

function writeWithdrawal(
  db: Db,
  tx: ConfirmedTransaction,
  withdrawalId: number,
  treasury: string,
  atMs: number,
): string | null {
  const transfers = transfersFrom(tx, treasury);
  if (transfers.length !== 1) return `a withdrawal moves one transfer, this one ${transfers.length}`;
  const transfer = transfers[0]!;
  const row = withdrawalById(db).get(withdrawalId);
  if (row) {
    if (row.signature === tx.signature) return null;
    // `sent` under another signature: that send provably expired (the job sends a withdrawal again
    // only then) and this one landed after the backup.
    const waiting = row.status === "queued" || row.status === "sent";
    if (!waiting || BigInt(row.lamports) !== transfer.lamports || row.wallet !== transfer.to) {
      throw new AppError("RECONCILE_WITHDRAWAL_DIFFERS", { withdrawalId });
    }
    markWithdrawalSent(db).run(tx.signature, atMs, withdrawalId);
    return null;
  }
  insertSentWithdrawal(db).run(withdrawalId, transfer.lamports, transfer.to, tx.signature, atMs);
  reserveWithdrawal(db, withdrawalId, transfer.lamports, atMs);
  return null;
}

const noteAnchor = statement<never, [signature: string, atMs: number, id: number]>(
  `UPDATE liability_snapshots SET anchor_signature = ?, anchor_last_valid_block_height = 0, anchor_wire = NULL,
     anchored_at_ms = ? WHERE id = ? AND anchored_at_ms IS NULL`,
);

/** Anchors move no money: the snapshot's anchor is noted when the backup holds the snapshot. */
function writeAnchor(db: Db, tx: ConfirmedTransaction, anchorId: number, atMs: number): string | null {
  noteAnchor(db).run(tx.signature, tx.blockTime?.getTime() ?? atMs, anchorId);
  return null;
}
