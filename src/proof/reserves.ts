/**
 * What the treasury must hold for the proof of reserves: what the books owe, less what already left
 * the treasury for a burn that is bought and not yet burned (the books still hold it as pending).
 */
import type { Db } from "../../db/client";
import { spentOnPendingBurnsLamports } from "../burns";
import { ledgerTotals } from "../ledger";

export function owedForReserves(db: Db): bigint {
  return ledgerTotals(db).owedLamports - spentOnPendingBurnsLamports(db);
}
