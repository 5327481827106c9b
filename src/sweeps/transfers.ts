/**
 * System-program transfers read from a confirmed transaction: the independent figure a sweep's
 * credit is checked against (what the launch program's decoder says left the creator address).
 */
import type { ConfirmedTransaction } from "../chain/ports";

const SYSTEM_PROGRAM = "11111111111111111111111111111111";
/** SystemInstruction::Transfer: u32 LE 2, then u64 LE lamports; accounts [from, to]. */
const TRANSFER = 2;

/** Lamports moved from `from` to `to` by system transfers, top-level and inner, in a transaction that succeeded. */
export function transferredTo(tx: ConfirmedTransaction, from: string, to: string): bigint {
  if (tx.err !== null) return 0n;
  let total = 0n;
  for (const ix of [...tx.instructions, ...tx.innerInstructions]) {
    if (ix.programId !== SYSTEM_PROGRAM || ix.data.length !== 12 || ix.accounts[0] !== from || ix.accounts[1] !== to)
      continue;
    const view = new DataView(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength);
    if (view.getUint32(0, true) !== TRANSFER) continue;
    total += view.getBigUint64(4, true);
  }
  return total;
}

/**
 * What `treasury` received net in a transaction that succeeded: its balance change, plus the fee
 * when it paid it. Lamports only move between a transaction's own accounts, so the fee is what
 * all of them lost together.
 */
export function treasuryReceived(tx: ConfirmedTransaction, treasury: string): bigint {
  const i = tx.accountKeys.indexOf(treasury);
  if (tx.err !== null || i < 0) return 0n;
  let fee = 0n;
  for (let k = 0; k < tx.preBalances.length; k++) fee += (tx.preBalances[k] ?? 0n) - (tx.postBalances[k] ?? 0n);
  const change = (tx.postBalances[i] ?? 0n) - (tx.preBalances[i] ?? 0n);
  return i === 0 ? change + fee : change;
}
