/**
 * Sends and resolves platform withdrawals (src/custody/withdrawals.ts) in the payouts run, with
 * the payouts' exactly-once machinery: each transaction's signature and expiry saved before it is
 * sent, its outcome resolved from the chain alone (confirmed, failed, or provably expired and then
 * sent again), a crash at any step resumed from the database and the chain.
 */
import { PublicKey, SystemProgram } from "@solana/web3.js";
import {
  failWithdrawalWith,
  confirmWithdrawalSent,
  markWithdrawalSent,
  moneyGate,
  pendingWithdrawalLamports,
  requeueExpiredWithdrawal,
  withdrawalsIn,
} from "../custody";
import { crashPoint, type JobContext } from "../jobs";
import { journalOutcome, sentFromSlotOf } from "../landing";
import { log } from "../lib/log";
import { owedForReserves } from "../proof";
import { scrubErrorText } from "../lib/scrub";
import type { PayoutJobDeps } from "./deps";

export interface WithdrawalRunReport {
  sent: number;
  confirmed: number;
  failed: number;
  requeued: number;
  pending: number;
}

/** Resolves sent withdrawals; returns how many still wait on the chain. */
export async function resolveSentWithdrawals(
  deps: PayoutJobDeps,
  ctx: JobContext,
  report: WithdrawalRunReport,
): Promise<number> {
  let pending = 0;
  for (const w of withdrawalsIn(deps.db, "sent")) {
    if (ctx.signal.aborted) break;
    const outcome = await deps.chain.sender.outcome(
      w.signature!,
      w.lastValidBlockHeight!,
      sentFromSlotOf(deps.db, w.signature!),
    );
    journalOutcome(deps.db, w.signature!, outcome);
    if (outcome.kind === "pending" || outcome.kind === "unknown") pending++;
    else if (outcome.kind === "confirmed") {
      crashPoint("withdrawals:after-confirm");
      if (confirmWithdrawalSent(deps.db, w.id, outcome.blockTime?.getTime() ?? deps.now(), ctx.assertHeld))
        report.confirmed++;
    } else if (outcome.kind === "failed") {
      const error = `failed on chain: ${scrubErrorText(outcome.error)}`;
      if (failWithdrawalWith(deps.db, { id: w.id, from: "sent", error, atMs: deps.now() }, ctx.assertHeld))
        report.failed++;
    } else if (requeueExpiredWithdrawal(deps.db, w.id, ctx.assertHeld)) report.requeued++;
  }
  report.pending = pending;
  return pending;
}

/**
 * Sends queued withdrawals, each in a transaction of its own, while the breakers allow: one that
 * would now take more than may be withdrawn (the surplus fell since it was asked for) fails back
 * to the platform instead of leaving.
 */
export async function sendQueuedWithdrawals(
  deps: PayoutJobDeps,
  ctx: JobContext,
  report: WithdrawalRunReport,
): Promise<void> {
  const queued = withdrawalsIn(deps.db, "queued");
  if (queued.length === 0) return;
  const treasury = deps.chain.treasury;
  const treasuryAddress = treasury.publicKey.toBase58();
  for (const w of queued) {
    if (ctx.signal.aborted) break;
    if (moneyGate(deps.db, deps.config.custody, deps.now(), w.lamports, { withdrawalId: w.id })) break;
    const treasuryLamports = (await deps.chain.reader.getBalances([treasuryAddress])).get(treasuryAddress) ?? 0n;
    // It was within the surplus when it was asked for; it leaves only if it still is (its own
    // amount is among the pending withdrawals, still in the treasury).
    const surplusLeft =
      treasuryLamports -
      owedForReserves(deps.db) -
      pendingWithdrawalLamports(deps.db) -
      deps.config.custody.treasuryReserveLamports;
    if (surplusLeft < 0n) {
      const error = `the treasury's surplus no longer covers it (short by ${-surplusLeft} lamports)`;
      if (failWithdrawalWith(deps.db, { id: w.id, from: "queued", error, atMs: deps.now() }, ctx.assertHeld))
        report.failed++;
      continue;
    }
    const instruction = SystemProgram.transfer({
      fromPubkey: treasury.publicKey,
      toPubkey: new PublicKey(w.wallet),
      lamports: w.lamports,
    });
    // A withdrawal sent again after its last send provably expired pays the next fee step.
    const attempt = w.attempt;
    const prepared = await deps.chain.sender.prepare([instruction], treasury, [], {
      commandKey: { kind: "withdrawal", withdrawalId: w.id },
      job: "withdrawal",
      attempt,
    });
    markWithdrawalSent(
      deps.db,
      {
        id: w.id,
        signature: prepared.signature,
        lastValidBlockHeight: prepared.lastValidBlockHeight,
        atMs: deps.now(),
        signed: { job: "withdrawal", prepared, attempt },
      },
      ctx.assertHeld,
    );
    crashPoint("withdrawals:after-save");
    try {
      await deps.chain.sender.send(prepared);
      report.sent++;
      crashPoint("withdrawals:after-send");
    } catch (error) {
      log.warn("withdrawal send failed; its outcome will be resolved", { error: scrubErrorText(error) });
    }
  }
}
