/**
 * Strangers' transactions in the treasury's history. Anyone may send lamports to any address, so
 * the treasury's history holds transactions the service never signed: a 1-lamport transfer is as
 * unknown to the books as a payout a rolled-back database forgot. Each unknown signature is read
 * once; one the treasury neither signed nor paid in, that only credited it, is booked here as a
 * stranger's credit (surplus: the proof of reserves counts the balance it added, no account owns
 * it) and is known from then on, so it never starts a reconciliation or holds money. Anything else
 * is the reconciliation's to account for.
 */
import type { Db } from "../../db/client";
import { statement } from "../../db/statement";
import { immediate } from "../../db/transaction";
import type { ChainReader, ConfirmedTransaction } from "../chain/ports";
import { treasuryActed } from "./apply";

const insertCredit = statement<never, [signature: string, slot: bigint, lamports: bigint, atMs: number]>(
  `INSERT INTO treasury_credits (signature, slot, lamports, recorded_at_ms) VALUES (?, ?, ?, ?)
   ON CONFLICT (signature) DO NOTHING`,
);
const creditRow = statement<{ lamports: bigint }, [signature: string]>(
  "SELECT lamports FROM treasury_credits WHERE signature = ?",
);

/** What a transaction gave the treasury when the treasury took no part in it; null when it did. */
function strangerCreditOf(tx: ConfirmedTransaction, treasury: string): bigint | null {
  if (treasuryActed(tx, treasury)) return null;
  const i = tx.accountKeys.indexOf(treasury);
  // Listed for the treasury but not touching its balance (an account read only): nothing gained.
  if (i < 0) return 0n;
  return tx.postBalances[i]! - tx.preBalances[i]!;
}

export type Classified =
  /** a stranger's credit, booked (now or earlier) */
  | { kind: "credit"; lamports: bigint }
  /** the treasury signed or paid in it: the reconciliation's to apply */
  | { kind: "acted" }
  /** the node cannot show it yet (listed at `confirmed` before every node has it): decided on a later read */
  | { kind: "unreadable" };

/**
 * Reads `signature` unless it is booked already, and books it when it is a stranger's credit.
 * One provider request per signature, once: a trickle of dust costs a read per transfer, never a hold.
 */
export async function classifyUnknown(
  db: Db,
  reader: ChainReader,
  treasury: string,
  entry: { signature: string; slot: bigint },
  atMs: number,
): Promise<Classified> {
  const booked = creditRow(db).get(entry.signature);
  if (booked) return { kind: "credit", lamports: BigInt(booked.lamports) };
  const tx = await reader.getTransaction(entry.signature);
  if (!tx) return { kind: "unreadable" };
  const credit = strangerCreditOf(tx, treasury);
  if (credit === null) return { kind: "acted" };
  immediate(db, () => insertCredit(db).run(entry.signature, tx.slot, credit, atMs));
  return { kind: "credit", lamports: credit };
}

export interface UnknownVerdict {
  /** transactions the treasury took part in that the books do not know: a reconciliation's work */
  acted: number;
  /** strangers' credits booked by this pass (known from now on) */
  credits: number;
  /** not readable yet: neither booked nor proof of anything; asked again next time */
  unreadable: number;
}

/**
 * Classifies unknown signatures, newest first, until the first one the treasury took part in
 * (one is enough to need a reconciliation, which reads the rest itself). At most `readsMax` are
 * read in one pass; those left over count as unreadable, so a flood of dust delays a check but
 * never passes one.
 */
export async function classifyUnknowns(
  db: Db,
  reader: ChainReader,
  treasury: string,
  unknown: readonly { signature: string; slot: bigint }[],
  options: { atMs: number; readsMax: number },
): Promise<UnknownVerdict> {
  const verdict: UnknownVerdict = { acted: 0, credits: 0, unreadable: 0 };
  const newestFirst = [...unknown].sort((a, b) => (a.slot === b.slot ? 0 : a.slot > b.slot ? -1 : 1));
  for (const [n, entry] of newestFirst.entries()) {
    if (n >= options.readsMax) {
      verdict.unreadable += newestFirst.length - n;
      break;
    }
    const classified = await classifyUnknown(db, reader, treasury, entry, options.atMs);
    if (classified.kind === "acted") {
      verdict.acted++;
      break;
    }
    if (classified.kind === "credit") verdict.credits++;
    else verdict.unreadable++;
  }
  return verdict;
}
