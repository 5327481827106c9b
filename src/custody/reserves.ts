/**
 * The reserves breaker, run with every reconciliation: the treasury must hold what is owed less
 * what is already on its way out (payouts sent, the recipients' part of burn buys sent: the books
 * still count them until they settle). Short by more than the tolerance halts money; a surplus
 * under the reserve (the fee and rent budget) is a warning that clears itself.
 */
import type { Db } from "../../db/client";
import { clearIncidents, moneyHalt, raiseIncident, type Incident } from "./incidents";
import { query } from "../../db/statement";
import { solText } from "../lib/sol-text";

/** Lamports the books still count as owed that have left, or may have left, the treasury. */
function inFlightLamports(db: Db): bigint {
  const row = query<{ payouts: bigint; buys: bigint }, []>(
    db,
    `SELECT
         (SELECT COALESCE(SUM(lamports), 0) FROM payouts WHERE status = 'sent') AS payouts,
         (SELECT COALESCE(SUM(o.lamports), 0) FROM burn_orders o JOIN burn_buys b ON b.id = o.buy_id
           WHERE b.status = 'sent' AND o.status = 'buying' AND o.source = 'recipient') AS buys`,
  ).get()!;
  return BigInt(row.payouts) + BigInt(row.buys);
}

export interface ReservesReading {
  treasuryLamports: bigint;
  /** what the proof of reserves counts as owed */
  owedLamports: bigint;
  atMs: number;
}

export interface ReservesPolicy {
  shortfallToleranceLamports: bigint;
  treasuryReserveLamports: bigint;
}

/** Trips the shortfall breaker or records the low-reserve warning; returns the incident raised, if any. */
export function checkReserves(db: Db, reading: ReservesReading, policy: ReservesPolicy): Incident | null {
  // While the books are reconciled with the chain they still count as owed what was paid since the
  // backup: the treasury looks short without being so. Money is halted meanwhile anyway, and the
  // next check after the reconciliation reads the books as they are.
  if (moneyHalt(db)?.kind === "reconciling") return null;
  const inFlight = inFlightLamports(db);
  const shortBy = reading.owedLamports - inFlight - reading.treasuryLamports;
  if (shortBy > policy.shortfallToleranceLamports) {
    return raiseIncident(db, {
      kind: "shortfall",
      detail: `the treasury holds ${solText(reading.treasuryLamports)}, ${solText(shortBy)} short of the ${solText(reading.owedLamports)} owed less ${solText(inFlight)} in flight`,
      atMs: reading.atMs,
    }).incident;
  }
  const surplus = reading.treasuryLamports - reading.owedLamports;
  if (surplus < policy.treasuryReserveLamports) {
    return raiseIncident(db, {
      kind: "reserve-low",
      detail: `the treasury's surplus over what is owed is ${solText(surplus)}, under the reserve of ${solText(policy.treasuryReserveLamports)} for fees and rent`,
      atMs: reading.atMs,
    }).incident;
  }
  clearIncidents(db, ["reserve-low"], reading.atMs);
  return null;
}
