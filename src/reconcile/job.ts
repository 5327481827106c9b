/**
 * The reconciliation with the chain, run as the first step of every payouts run (before anything
 * is sent): when the database was restored, or when the treasury's history holds a transaction the
 * treasury took part in that the database does not know (check.ts: at a start, the whole history
 * since the books' newest landed transaction; later, the newest signatures), the treasury's
 * history since the last known transaction is read and
 * every unknown transaction applied, oldest first, each to the end (its outcome booked by its own
 * job's resolution) before the next. Money stays halted meanwhile (custody's `reconciling`
 * incident); a transaction nobody can account for leaves it halted behind an `unknown-transaction`
 * incident for the operator. Every step is idempotent: a crash anywhere is continued next run.
 */
import type { Db } from "../../db/client";
import { statement } from "../../db/statement";
import type { ChainServices } from "../chain/services";
import { crashPoint, type JobContext } from "../jobs";
import { type BurnJobDeps, resolveBurnSignature, sentBuySignatures } from "../burns";
import { AppError } from "../lib/errors";
import { log } from "../lib/log";
import { type PayoutJobDeps, resolvePayoutSignature, resolveSentWithdrawals } from "../payouts";
import { resolveSentSweeps, resolveSweepSignature, type SweepJobDeps } from "../sweeps";
import { applyTransaction } from "./apply";
import { checkHistory, reachesNow } from "./check";
import { verifyContinuity } from "./continuity";
import { DEFAULT_SCAN, type ScanOptions, type ScanResult, scanHistory } from "./scan";
import {
  activeReconciliation,
  finishReconciliation,
  deferItem,
  isAnchorSignature,
  isKnownSignature,
  knowsLandedTransaction,
  pendingItems,
  type Reconciliation,
  type ReconciliationItem,
  releaseHold,
  saveScan,
  settleItem,
  startReconciliation,
} from "./store";

export interface ReconcileDeps {
  db: Db;
  chain: ChainServices;
  now: () => number;
  payouts: PayoutJobDeps;
  sweeps: SweepJobDeps;
  burns: BurnJobDeps;
  /** transactions applied in one run at most (the rest next run) */
  itemsPerRun?: number;
  scan?: ScanOptions;
}

export interface ReconcileReport {
  /** clean: nothing to reconcile; waiting: an item waits on the chain (finality) */
  status: "clean" | "waiting" | "applying" | "done" | "blocked";
  applied: number;
  unknown: number;
}

const ITEMS_PER_RUN = 500;

export async function reconcileWithChain(deps: ReconcileDeps, ctx: JobContext): Promise<ReconcileReport> {
  const { db } = deps;
  const treasury = deps.chain.treasury.publicKey.toBase58();
  let active = activeReconciliation(db);
  let scan: ScanResult | null = null;
  if (!active) {
    const check = await checkHistory(deps);
    if (check.verdict === "clean") {
      releaseHold(db, deps.now());
      return { status: "clean", applied: 0, unknown: 0 };
    }
    // Held as it was (the start's hold, or nothing after it): the next run asks again.
    if (check.verdict === "wait") return { status: "waiting", applied: 0, unknown: 0 };
    active = startReconciliation(db, check.reason, deps.now());
    scan = check.scan;
    log.warn("reconciling the books with the treasury's history before money moves", { reason: active.reason });
  }
  if (active.status === "scanning") {
    scan ??= await scanHistory(
      deps.chain.reader.signaturesForAddress!.bind(deps.chain.reader),
      treasury,
      (signature) => isKnownSignature(db, signature),
      deps.scan ?? DEFAULT_SCAN,
      knowsLandedTransaction(db),
      (signature) => isAnchorSignature(db, signature),
    );
    // A listing with a hole would leave out what the hole hides: applied without it, a payout in
    // it would be sent again. The next run lists again (another node, or the hole filled).
    const whole = await verifyContinuity(db, deps.chain.reader, treasury, scan.listed);
    if (!whole.whole) throw new AppError("RECONCILE_HISTORY_GAP", { why: whole.why });
    if (!(await reachesNow(deps, treasury, scan, whole.end))) {
      throw new AppError("RECONCILE_HISTORY_SHORT");
    }
    saveScan(db, active.id, scan);
    crashPoint("reconcile:after-scan");
  }
  return applyPending(deps, ctx, active, treasury);
}

/** The reconciliation's items, oldest first, each to the end; what the backup held in flight first. */
async function applyPending(
  deps: ReconcileDeps,
  ctx: JobContext,
  active: Reconciliation,
  treasury: string,
): Promise<ReconcileReport> {
  const { db } = deps;
  const report: ReconcileReport = { status: "applying", applied: 0, unknown: 0 };
  // What the backup held in flight is settled first: a sweep it knew, credited since, pays for
  // payouts further on; a buy it knew must be bought before the burn of it that follows; a
  // withdrawal failed or a burn's rent returned since is platform money a later withdrawal spent.
  if ((await settleKnown(deps, ctx)) > 0) return { ...report, status: "waiting" };
  const stalled = new Set<string>();
  for (let n = 0; n < (deps.itemsPerRun ?? ITEMS_PER_RUN) && !ctx.signal.aborted; n++) {
    const [item] = pendingItems(db, active.id, 1);
    if (!item) return finish(db, active, deps.now(), report);
    const step = await applyItem(deps, ctx, item, treasury, stalled);
    if (step === "wait") return { ...report, status: "waiting" };
    if (step === "deferred") continue;
    if (step === "unknown") report.unknown++;
    else report.applied++;
  }
  return pendingItems(db, active.id, 1).length === 0 ? finish(db, active, deps.now(), report) : report;
}

const sentPayoutSignatures = statement<{ signature: string }, []>(
  "SELECT DISTINCT signature FROM payouts WHERE status = 'sent' LIMIT 1000",
);
const burningSignatures = statement<{ signature: string }, []>(
  "SELECT DISTINCT burn_signature AS signature FROM burn_buys WHERE status = 'burning' AND burn_signature IS NOT NULL LIMIT 1000",
);

/**
 * The outcomes of the backup's own transactions in flight, booked before anything made since is
 * applied. Their signatures are known, so the scan lists none of them as items; yet what they did
 * may be what a later item spent: a sweep's credit, a withdrawal failed on chain (its amount back
 * with the platform), a burn that closed its token account (its rent back with the platform).
 * Withdrawals and burns booked early cannot make an item short: their outcomes credit a balance
 * or leave it as it is (a withdrawal's amount and a burn's orders were reserved when queued).
 */
async function settleKnown(deps: ReconcileDeps, ctx: JobContext): Promise<number> {
  let waiting = await resolveSentSweeps(deps.sweeps, ctx);
  for (const signature of sentBuySignatures(deps.db)) waiting += await resolveBurnSignature(deps.burns, ctx, signature);
  for (const { signature } of burningSignatures(deps.db).all())
    waiting += await resolveBurnSignature(deps.burns, ctx, signature);
  waiting += await resolveSentWithdrawals(deps.payouts, ctx, emptyWithdrawalReport());
  // A payout batch of the backup that landed (paid, or failed and its amount back in a balance)
  // before a claim made after the backup reserves from that balance. One that never landed is
  // left as it is: its replacement made after the backup, if one landed, is an item that takes
  // its place (resolving it here would replace it a second time).
  const sentPayouts = sentPayoutSignatures(deps.db).all();
  for (const { signature } of sentPayouts) {
    if (await deps.chain.reader.getTransaction(signature))
      waiting += await resolvePayoutSignature(deps.payouts, ctx, signature);
  }
  return waiting;
}

const emptyWithdrawalReport = () => ({ sent: 0, confirmed: 0, failed: 0, requeued: 0, pending: 0 });

function finish(db: Db, active: Reconciliation, atMs: number, report: ReconcileReport): ReconcileReport {
  const done = finishReconciliation(db, active.id, atMs);
  log.warn("reconciliation with the chain finished", {
    status: done.status,
    scanned: done.scanned,
    applied: done.applied,
    unknown: done.unknown,
  });
  return { ...report, status: done.status === "blocked" ? "blocked" : "done" };
}

/** One transaction, to the end: its effects written, then its outcome booked by its job. */
async function applyItem(
  deps: ReconcileDeps,
  ctx: JobContext,
  item: ReconciliationItem,
  treasury: string,
  /** items deferred since the last one applied */
  stalled: Set<string>,
): Promise<"settled" | "unknown" | "wait" | "deferred"> {
  const tx = await deps.chain.reader.getTransaction(item.signature);
  if (!tx) return "wait";
  const outcome = applyTransaction(deps.db, tx, treasury, deps.now());
  if (outcome.kind === "ignored") {
    settleItem(deps.db, { signature: item.signature, status: "ignored", kind: null, note: outcome.note });
    return "settled";
  }
  if (outcome.kind === "unknown" && outcome.balanceShort && !stalled.has(item.signature)) {
    // The books book in the order things were asked for, the chain in the order they landed: a
    // withdrawal requested before a buy's rent was booked lands after it, and the balance it was
    // reserved from is short until a later item (the burn returning the rent) is applied. It
    // waits behind the others; once every pending item failed since the last one applied, it is unknown.
    stalled.add(item.signature);
    if (deferItem(deps.db, item.reconciliationId, item.signature)) return "deferred";
  }
  if (outcome.kind === "unknown") {
    log.error("a treasury transaction the service cannot account for", {
      signature: item.signature,
      why: outcome.note,
    });
    settleItem(deps.db, { signature: item.signature, status: "unknown", kind: null, note: outcome.note });
    return "unknown";
  }
  const { key } = outcome;
  crashPoint("reconcile:after-write");
  let waiting = 0;
  switch (key.kind) {
    case "payouts":
      waiting = await resolvePayoutSignature(deps.payouts, ctx, item.signature);
      break;
    case "sweeps":
      waiting = await resolveSweepSignature(deps.sweeps, ctx, item.signature);
      break;
    case "withdrawal":
      waiting = await resolveSentWithdrawals(deps.payouts, ctx, emptyWithdrawalReport());
      break;
    case "burn-buy":
    case "burn":
      waiting = await resolveBurnSignature(deps.burns, ctx, item.signature);
      break;
    case "anchor":
      break;
  }
  if (waiting > 0) return "wait";
  crashPoint("reconcile:after-resolve");
  settleItem(deps.db, { signature: item.signature, status: "applied", kind: key.kind, note: null });
  stalled.clear();
  return "settled";
}
