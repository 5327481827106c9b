/**
 * The sweep credit cross-check (audit fix (a)) as the admin clear of a stopped token re-runs it:
 * the same rules as the sweep job's, read against the chain now. A token is stopped when the
 * launch program's decoder says more left its creator address than the system transfer moved, or
 * when a batch's credits would not add up to what the treasury received net in that transaction.
 *
 * Sweeps of one transaction already credited count towards its total: a batch in which one token
 * was stopped and the others credited is checked as the whole batch it was.
 */
import type { Db } from "../../db/client";
import { statement } from "../../db/statement";
import type { ChainServices } from "../chain/services";
import { transferredTo, treasuryReceived } from "./transfers";

interface SweepOfSignature {
  status: string;
  creator: string;
  mint: string;
  totalLamports: bigint;
}

const creditedTotal = statement<{ total: bigint | null }, [signature: string]>(
  "SELECT SUM(total_lamports) AS total FROM sweeps WHERE signature = ? AND status = 'confirmed'",
);

const sentSignaturesOfMint = statement<{ signature: string }, [mint: string]>(
  `SELECT DISTINCT s.signature FROM sweeps s JOIN tokens t ON t.id = s.token_id
    WHERE t.mint = ? AND s.status = 'sent' ORDER BY s.signature`,
);

const sweepsOfSignature = statement<SweepOfSignature, [signature: string]>(
  `SELECT s.status, t.creator, t.mint, s.total_lamports AS totalLamports
     FROM sweeps s JOIN tokens t ON t.id = s.token_id
    WHERE s.signature = ? AND s.status IN ('sent', 'confirmed') ORDER BY s.id`,
);

/** Lamports already credited by the confirmed sweeps of this transaction (0 unless a batch was split by a stop). */
export function creditedInSignature(db: Db, signature: string): bigint {
  const row = creditedTotal(db).get(signature);
  return BigInt(row?.total ?? 0n);
}

/** The signatures of this token's sweeps still `sent` (a stopped token's sweep stays sent). */
export function sentSweepSignatures(db: Db, mint: string): string[] {
  return sentSignaturesOfMint(db)
    .all(mint)
    .map((r) => r.signature);
}

export type RecheckResult =
  | { kind: "agrees" }
  | { kind: "disagrees"; reason: string }
  /** the transaction cannot be read back (not found, or not landed): nothing can be said */
  | { kind: "unreadable" };

/**
 * Reads the transaction of one stopped sweep again and applies the job's cross-check to the sweeps
 * of that transaction still `sent`. Throws what the chain reader throws (unreachable, rate limited).
 */
export async function recheckSweepCredit(
  db: Db,
  chain: Pick<ChainServices, "reader" | "launchProgram" | "treasury">,
  signature: string,
  mint: string,
): Promise<RecheckResult> {
  const tx = await chain.reader.getTransaction(signature);
  if (!tx || tx.err !== null) return { kind: "unreadable" };
  const sweeps = sweepsOfSignature(db).all(signature);
  const sent = sweeps.filter((s) => s.status === "sent");
  const effects = chain.launchProgram.decodeSweep(
    tx,
    sent.map((s) => s.creator),
  );
  const moved = new Map(effects.map((e) => [e.creator, e.movedToTreasuryLamports]));
  const treasury = chain.treasury.publicKey.toBase58();
  let total = sweeps.filter((s) => s.status === "confirmed").reduce((n, s) => n + BigInt(s.totalLamports), 0n);
  // As the job: a token whose decoded figure exceeds its own transfer is stopped alone; only when
  // none is does the batch total have to match what the treasury received.
  const overstated = new Map<string, string>();
  for (const s of sent) {
    const decoded = moved.get(s.creator) ?? 0n;
    const transferred = transferredTo(tx, s.creator, treasury);
    total += decoded;
    if (decoded > transferred) overstated.set(s.mint, `decoded ${decoded} lamports, its transfer moved ${transferred}`);
  }
  const own = overstated.get(mint);
  if (own) return { kind: "disagrees", reason: own };
  if (overstated.size > 0) return { kind: "agrees" };
  const received = treasuryReceived(tx, treasury);
  if (total !== received)
    return { kind: "disagrees", reason: `batch decoded ${total} lamports, the treasury received ${received}` };
  return { kind: "agrees" };
}
