/**
 * Solvency snapshots behind `GET /api/proof/history`: the treasury balance read from the chain and
 * what the books owed, taken after every sweep and payout run and at least hourly. A snapshot that
 * repeats the previous one within the hour adds nothing to the chart, so it is not written; one
 * older than a year is dropped.
 */
import type { Db } from "../../db/client";
import type { ChainServices } from "../chain/services";
import { immediate } from "../../db/transaction";
import { ledgerTotals } from "../ledger";
import { AppError } from "../lib/errors";
import { log } from "../lib/log";
import { query } from "../../db/statement";

const SNAPSHOT_EVERY_MS = 3_600_000;
export const SNAPSHOT_RETENTION_MS = 365 * 86_400_000;
const SNAPSHOT_READ_WAIT_MS = 3_000;

export type SnapshotTrigger = "sweep" | "payouts" | "hourly";

export interface SnapshotResult {
  written: boolean;
  atMs: number;
}

/**
 * Writes one snapshot with `owed` read in the same transaction, so the pair is what the books held
 * at one instant. `hourly` writes only when the newest snapshot is an hour old.
 */
export function recordSolvencySnapshot(
  db: Db,
  input: { treasuryLamports: bigint; atMs: number; trigger: SnapshotTrigger },
): SnapshotResult {
  if (input.treasuryLamports < 0n) throw new AppError("SNAPSHOT_BALANCE_NEGATIVE");
  return immediate(db, () => {
    const owed = ledgerTotals(db).owedLamports;
    const last = query<{ atMs: bigint; treasury: bigint; owed: bigint }, []>(
      db,
      "SELECT at_ms AS atMs, treasury_lamports AS treasury, owed_lamports AS owed FROM solvency_snapshots ORDER BY at_ms DESC, id DESC LIMIT 1",
    ).get();
    const fresh = last !== null && input.atMs - Number(last.atMs) < SNAPSHOT_EVERY_MS;
    const same = last !== null && BigInt(last.treasury) === input.treasuryLamports && BigInt(last.owed) === owed;
    if (fresh && (same || input.trigger === "hourly")) return { written: false, atMs: input.atMs };
    query<never, [atMs: number, treasuryLamports: bigint, owedLamports: bigint, trigger: SnapshotTrigger]>(
      db,
      "INSERT INTO solvency_snapshots (at_ms, treasury_lamports, owed_lamports, trigger) VALUES (?, ?, ?, ?)",
    ).run(input.atMs, input.treasuryLamports, owed, input.trigger);
    query<never, [cutoffMs: number]>(db, "DELETE FROM solvency_snapshots WHERE at_ms < ?").run(
      input.atMs - SNAPSHOT_RETENTION_MS,
    );
    return { written: true, atMs: input.atMs };
  });
}

/**
 * Reads the treasury and records a snapshot. Never throws: a job that finished must not be marked
 * failed because the chart missed a point; an unreadable balance is skipped, never written as zero.
 */
export async function takeSolvencySnapshot(
  deps: { db: Db; chain: Pick<ChainServices, "treasury" | "reader">; now: () => number },
  trigger: SnapshotTrigger,
): Promise<SnapshotResult | null> {
  const treasury = deps.chain.treasury.publicKey.toBase58();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const balances = await Promise.race([
      deps.chain.reader.getBalances([treasury]),
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), SNAPSHOT_READ_WAIT_MS))),
    ]);
    const treasuryLamports = balances?.get(treasury);
    if (typeof treasuryLamports !== "bigint") {
      log.warn("solvency snapshot skipped: treasury balance not read", { trigger });
      return null;
    }
    return recordSolvencySnapshot(deps.db, { treasuryLamports, atMs: deps.now(), trigger });
  } catch (error) {
    log.warn("solvency snapshot failed", { trigger, error });
    return null;
  } finally {
    clearTimeout(timer);
  }
}
