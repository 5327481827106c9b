/**
 * Whether the books are being reconciled with the chain right now: a database a restore put back
 * and not yet reconciled (its mark, `restored_at_ms`), or a reconciliation holding money (its open
 * `reconciling` incident, or its row still scanning or applying). Meanwhile every balance is on
 * its way from the backup's figures to the chain's, one recreated transaction at a time, so the
 * public reads show that the books are reconciling instead of a figure that is about to change.
 */
import type { Db } from "../../db/client";
import { statement } from "../../db/statement";
import { RESTORED_KEY } from "./store";

const reconciling = statement<{ on: bigint | number }, [restoredKey: string]>(
  `SELECT EXISTS (SELECT 1 FROM settings WHERE key = ?)
       OR EXISTS (SELECT 1 FROM custody_incidents WHERE resolved_at_ms IS NULL AND kind = 'reconciling')
       OR EXISTS (SELECT 1 FROM reconciliations WHERE status IN ('scanning', 'applying')) AS "on"`,
);

export function booksReconciling(db: Db): boolean {
  return Number(reconciling(db).get(RESTORED_KEY)?.on ?? 0) === 1;
}
