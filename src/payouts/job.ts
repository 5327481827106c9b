/**
 * The `payouts` job. Each run:
 *  1. resolves batches left `sent`: confirmed (paid), failed (amount back to the balance), or
 *     provably expired (replaced by a new queued payout); pending ones wait;
 *  2. unless claims are paused or money is halted (src/custody): queues one autopay payout of the whole balance for every autopay
 *     account with a saved wallet and a balance at or above the autopay threshold;
 *  3. sends queued payouts in batches of up to 12 transfers a transaction (fewer where the batch's
 *     command key memo would not fit), each batch's signature and expiry height saved before it is
 *     sent; then waits a bounded time for them to settle.
 * A payout is never in two live transactions: only `queued` payouts are sent, and a `sent` one
 * is requeued (as its replacement) only after its transaction provably expired.
 */
import { PublicKey, SystemProgram, type TransactionInstruction } from "@solana/web3.js";
import type { Db } from "../../db/client";
import { payouts } from "../../db/schema";
import { columnsOf, statement, type TableRow } from "../../db/statement";
import type { CommandKey } from "../chain/command-key";
import { computeBudgetInstructions, MAX_COMPUTE_UNIT_LIMIT, prepareShareFor } from "../chain/landing";
import { commandKeyMemo } from "../chain/memo";
import { MAX_TRANSACTION_BYTES, measureTransaction } from "../chain/packing";
import { accounts, balanceOf } from "../ledger";
import { crashPoint } from "../jobs";
import { attemptAfter, computeUnitFloorFor, journalOutcome, sentFromSlotOf } from "../landing";
import type { JobContext } from "../jobs";
import { isAppError } from "../lib/errors";
import { log } from "../lib/log";
import { scrubErrorText } from "../lib/scrub";
import { getAutopayMinLamports, getClaimsPaused } from "../settings";
import { moneyGate, moneyHalt } from "../custody";
import { resolveSentWithdrawals, sendQueuedWithdrawals, type WithdrawalRunReport } from "./withdrawals";
import { confirmPayouts, failPayouts, markPayoutsSent, queuePayout, replaceExpiredPayouts } from "./service";
import type { PayoutJobDeps } from "./deps";

const TRANSFERS_PER_TRANSACTION = 12;
/** Rent-exempt minimum of an account with no data (mainnet's and the local chain's rent). */
const RENT_EXEMPT_MINIMUM_LAMPORTS = 890_880n;

export interface PayoutRunReport {
  autopayQueued: number;
  sent: number;
  transactions: number;
  confirmed: number;
  failed: number;
  replaced: number;
  pending: number;
  sendErrors: number;
  paused: boolean;
  /** platform withdrawals sent and resolved in this run */
  withdrawals: WithdrawalRunReport;
  /** a custody breaker is open (or tripped in this run): nothing new was sent */
  halted: boolean;
}

export async function runPayoutsJob(deps: PayoutJobDeps, ctx: JobContext): Promise<PayoutRunReport> {
  const report: PayoutRunReport = {
    autopayQueued: 0,
    sent: 0,
    transactions: 0,
    confirmed: 0,
    failed: 0,
    replaced: 0,
    pending: 0,
    sendErrors: 0,
    paused: false,
    halted: false,
    withdrawals: { sent: 0, confirmed: 0, failed: 0, requeued: 0, pending: 0 },
  };
  await resolveSentPayouts(deps, ctx, report);
  // Withdrawals in flight resolve whatever the pause or halt; new ones go only past the breakers.
  await resolveSentWithdrawals(deps, ctx, report.withdrawals);
  if (!moneyHalt(deps.db)) await sendQueuedWithdrawals(deps, ctx, report.withdrawals);
  if (getClaimsPaused(deps.db)) {
    report.paused = true;
    return report;
  }
  // Halted: what is in flight resolved above; nothing new is queued or sent until an operator resumes.
  if (moneyHalt(deps.db)) {
    report.halted = true;
    return report;
  }
  if (ctx.signal.aborted) return report;
  await queueAutopay(deps, ctx, report);
  crashPoint("payouts:after-autopay");
  await sendQueued(deps, ctx, report);

  const deadline = Date.now() + (deps.settleTimeoutMs ?? 60_000);
  while (!ctx.signal.aborted) {
    const pending =
      (await resolveSentPayouts(deps, ctx, report)) + (await resolveSentWithdrawals(deps, ctx, report.withdrawals));
    if (pending === 0 || Date.now() >= deadline) break;
    await Bun.sleep(deps.settlePollMs ?? 500);
  }
  return report;
}

const QUEUED_FIELDS = ["id", "wallet", "lamports", "kind", "idpUserId", "replacesId"] as const;

interface QueuedPayoutRow extends Pick<TableRow<typeof payouts>, (typeof QUEUED_FIELDS)[number]> {
  /** the first payout of the chain of replacements this one ends (the command key names it); null for a first payout */
  firstPayoutId: number | null;
}

const queuedOldestFirst = statement<Omit<QueuedPayoutRow, "firstPayoutId">, [limit: number]>(
  `SELECT ${columnsOf(payouts, { only: QUEUED_FIELDS })} FROM payouts WHERE status = 'queued' ORDER BY id LIMIT ?`,
);

/** Sends queued payouts in batches, each batch saved `sent` with its signature before it leaves. */
async function sendQueued(deps: PayoutJobDeps, ctx: JobContext, report: PayoutRunReport): Promise<void> {
  const queued = queuedOldestFirst(deps.db)
    .all(deps.maxPayoutsPerRun ?? 12_000)
    .map((p) => ({ ...p, firstPayoutId: p.replacesId === null ? null : firstPayoutOf(deps.db, Number(p.replacesId)) }));
  const treasury = deps.chain.treasury;
  const planned = (await batchesOf(deps, queued)).map((batch) => ({
    batch,
    instructions: transfersOf(treasury.publicKey, batch),
  }));
  const share = prepareShareFor(
    treasury.publicKey.toBase58(),
    planned.map((p) => p.instructions),
  );
  for (const { batch, instructions } of planned) {
    if (ctx.signal.aborted) break;
    // A pause set while this run is sending stops the batches not yet sent (they stay queued);
    // what is already in flight still resolves below.
    if (getClaimsPaused(deps.db)) {
      report.paused = true;
      break;
    }
    // The breakers: an open halt, or this batch taking the outflow past a cap (which trips it).
    const total = batch.reduce((n, p) => n + BigInt(p.lamports), 0n);
    if (moneyGate(deps.db, deps.config.custody, deps.now(), total, { payoutIds: batch.map((p) => Number(p.id)) })) {
      report.halted = true;
      break;
    }
    // A batch replacing payouts whose transaction provably expired pays the next fee step.
    const attempt = attemptAfter(deps.db, replacedSignatures(deps, batch));
    const prepared = await deps.chain.sender.prepare(instructions, treasury, [], {
      commandKey: payoutsCommandKey(batch),
      job: "payouts",
      attempt,
      computeUnitFloor: computeUnitFloorFor(deps.db, "payouts", deps.now()),
      share,
    });
    markPayoutsSent(
      deps.db,
      {
        payoutIds: batch.map((p) => Number(p.id)),
        signature: prepared.signature,
        lastValidBlockHeight: prepared.lastValidBlockHeight,
        atMs: deps.now(),
        signed: { job: "payouts", prepared, attempt },
      },
      ctx.assertHeld,
    );
    crashPoint("payouts:after-save");
    try {
      await deps.chain.sender.send(prepared);
      report.transactions += 1;
      report.sent += batch.length;
      crashPoint("payouts:after-send");
    } catch (error) {
      report.sendErrors += 1;
      log.warn("payout send failed; its outcome will be resolved", { error: scrubErrorText(error) });
    }
  }
}

const replacedSignature = statement<{ signature: string | null }, [payoutId: bigint]>(
  "SELECT old.signature FROM payouts p JOIN payouts old ON old.id = p.replaces_id WHERE p.id = ?",
);

/** The signatures of the expired transactions the batch's payouts replace (none for first attempts). */
function replacedSignatures(deps: PayoutJobDeps, batch: readonly QueuedPayoutRow[]): string[] {
  const out: string[] = [];
  for (const p of batch) {
    const row = replacedSignature(deps.db).get(p.id);
    if (row?.signature) out.push(row.signature);
  }
  return out;
}

const autopayDue = statement<{ id: string; wallet: string }, [minLamports: bigint]>(
  `SELECT i.idp_user_id AS id, i.payout_wallet AS wallet FROM identities i
     JOIN ledger_accounts a ON a.kind = 'user' AND a.ref = i.idp_user_id
    WHERE i.routing = 'autopay' AND i.payout_wallet IS NOT NULL AND a.balance >= ? AND a.balance > 0
      AND NOT EXISTS (SELECT 1 FROM payouts p WHERE p.idp_user_id = i.idp_user_id AND p.status IN ('held', 'queued', 'sent'))
    LIMIT 10000`,
);

async function queueAutopay(deps: PayoutJobDeps, ctx: JobContext, report: PayoutRunReport): Promise<void> {
  const min = getAutopayMinLamports(deps.db, deps.config);
  const rows = autopayDue(deps.db).all(min);
  // An autopay that cannot land (below the rent-exempt minimum, to a wallet that does not exist
  // yet) would fail on chain at every run, paying a fee each time: it waits until it can land.
  const wallets = await deps.chain.reader.getBalances([...new Set(rows.map((r) => r.wallet))]);
  for (const row of rows) {
    const balance = balanceOf(deps.db, accounts.user(row.id));
    if (balance < min) continue;
    if (balance < RENT_EXEMPT_MINIMUM_LAMPORTS && (wallets.get(row.wallet) ?? 0n) === 0n) continue;
    try {
      queuePayout(
        deps.db,
        {
          idpUserId: row.id,
          lamports: null,
          wallet: row.wallet,
          kind: "autopay",
          minLamports: min,
          atMs: deps.now(),
          reviewLamports: deps.config.custody.payoutReviewLamports,
        },
        ctx.assertHeld,
      );
      report.autopayQueued += 1;
    } catch (error) {
      // A claim raced in, or the balance moved: the next run looks again.
      if (!isAppError(error, "PAYOUT_IN_FLIGHT", "INSUFFICIENT_BALANCE")) throw error;
    }
  }
}

function transfersOf(treasury: PublicKey, batch: readonly QueuedPayoutRow[]): TransactionInstruction[] {
  return batch.map((p) =>
    SystemProgram.transfer({ fromPubkey: treasury, toPubkey: new PublicKey(p.wallet), lamports: BigInt(p.lamports) }),
  );
}

const replacesOf = statement<{ replacesId: bigint | null }, [id: number]>(
  "SELECT replaces_id AS replacesId FROM payouts WHERE id = ?",
);

/** The first payout of the chain of replacements `id` belongs to (the chain is short: one per expiry). */
function firstPayoutOf(db: Db, id: number): number {
  let current = id;
  for (let step = 0; step < 1_000; step++) {
    const row = replacesOf(db).get(current);
    if (!row || row.replacesId === null) return current;
    current = Number(row.replacesId);
  }
  return current;
}

/** What the batch's transaction is: one item per transfer, in instruction order. */
function payoutsCommandKey(batch: readonly QueuedPayoutRow[]): CommandKey {
  return {
    kind: "payouts",
    items: batch.map((p) => ({
      payoutId: Number(p.id),
      kind: p.kind,
      idpUserId: p.idpUserId,
      firstPayoutId: p.firstPayoutId,
    })),
  };
}

/**
 * Whether the batch fits one transaction as the sender signs it: its compute budget, the transfers
 * and the command key memo (whose length grows with the payout ids and user ids it names).
 */
function fitsOneTransaction(treasury: PublicKey, batch: readonly QueuedPayoutRow[]): boolean {
  let memo: TransactionInstruction;
  try {
    memo = commandKeyMemo(payoutsCommandKey(batch), treasury);
  } catch {
    return false;
  }
  const instructions = [
    ...computeBudgetInstructions(MAX_COMPUTE_UNIT_LIMIT, 0n),
    ...transfersOf(treasury, batch),
    memo,
  ];
  return measureTransaction(instructions, treasury).sizeBytes <= MAX_TRANSACTION_BYTES;
}

/**
 * Batches of up to TRANSFERS_PER_TRANSACTION transfers, in queue order, each cut shorter where its
 * transaction with the command key would be over the size limit (user ids that are not X's
 * numbers can be long). A batch confirms or fails as one (DESIGN §5), so a transfer that would
 * fail on chain takes its whole batch down: a payout below the rent-exempt minimum to a wallet
 * that does not exist yet (the system program refuses to create an account it leaves below rent)
 * goes in a transaction of its own.
 */
async function batchesOf(deps: PayoutJobDeps, queued: readonly QueuedPayoutRow[]): Promise<QueuedPayoutRow[][]> {
  const small = queued.filter((p) => BigInt(p.lamports) < RENT_EXEMPT_MINIMUM_LAMPORTS);
  const balances =
    small.length > 0
      ? await deps.chain.reader.getBalances([...new Set(small.map((p) => p.wallet))])
      : new Map<string, bigint>();
  const alone: QueuedPayoutRow[][] = [];
  const together: QueuedPayoutRow[] = [];
  for (const p of queued) {
    if (BigInt(p.lamports) < RENT_EXEMPT_MINIMUM_LAMPORTS && (balances.get(p.wallet) ?? 0n) === 0n) alone.push([p]);
    else together.push(p);
  }
  const treasury = deps.chain.treasury.publicKey;
  const batches: QueuedPayoutRow[][] = [];
  for (let i = 0; i < together.length; ) {
    // Measured once per batch as a rule: twelve X payouts fit (docs/money-jobs.md, "Command keys on chain").
    let n = Math.min(TRANSFERS_PER_TRANSACTION, together.length - i);
    while (n > 1 && !fitsOneTransaction(treasury, together.slice(i, i + n))) n--;
    batches.push(together.slice(i, i + n));
    i += n;
  }
  return [...batches, ...alone];
}

/** One sent transaction: its signature, its expiry height and how many payouts it carries. */
interface SentBatch {
  signature: string;
  lvbh: bigint;
  n: bigint;
}

const sentBatches = statement<SentBatch, []>(
  "SELECT signature, MAX(last_valid_block_height) AS lvbh, COUNT(*) AS n FROM payouts WHERE status = 'sent' GROUP BY signature LIMIT 2000",
);
const sentBatchWithSignature = statement<SentBatch, [signature: string]>(
  "SELECT signature, MAX(last_valid_block_height) AS lvbh, COUNT(*) AS n FROM payouts WHERE status = 'sent' AND signature = ? GROUP BY signature",
);

/** Resolves every sent batch whose outcome the chain can tell now; returns how many stay pending. */
export async function resolveSentPayouts(
  deps: PayoutJobDeps,
  ctx: JobContext,
  report?: PayoutRunReport,
): Promise<number> {
  const batches = sentBatches(deps.db).all();
  let pending = 0;
  for (const batch of batches) {
    if (ctx.signal.aborted) break;
    pending += await resolveBatch(deps, ctx, batch, report);
  }
  if (report) report.pending = pending;
  return pending;
}

/**
 * Resolves one sent batch exactly as a run does; the indexer calls it when the stream shows that
 * signature. Returns how many payouts stay pending (0 when none is sent any more).
 */
export async function resolvePayoutSignature(deps: PayoutJobDeps, ctx: JobContext, signature: string): Promise<number> {
  const batch = sentBatchWithSignature(deps.db).get(signature);
  return batch ? resolveBatch(deps, ctx, batch) : 0;
}

async function resolveBatch(
  deps: PayoutJobDeps,
  ctx: JobContext,
  batch: SentBatch,
  report?: PayoutRunReport,
): Promise<number> {
  let pending = 0;
  const outcome = await deps.chain.sender.outcome(
    batch.signature,
    BigInt(batch.lvbh),
    sentFromSlotOf(deps.db, batch.signature),
  );
  journalOutcome(deps.db, batch.signature, outcome);
  const atMs = deps.now();
  // Unknown is not an outcome: the batch waits, exactly like one still landing.
  if (outcome.kind === "pending" || outcome.kind === "unknown") pending += Number(batch.n);
  else if (outcome.kind === "confirmed") {
    crashPoint("payouts:after-confirm");
    const n = confirmPayouts(deps.db, batch.signature, outcome.blockTime?.getTime() ?? atMs, ctx.assertHeld);
    if (report) report.confirmed += n;
  } else if (outcome.kind === "failed") {
    const n = failPayouts(deps.db, batch.signature, scrubErrorText(outcome.error), atMs, ctx.assertHeld);
    if (report) report.failed += n;
  } else if (outcome.kind === "expired") {
    crashPoint("payouts:after-expiry");
    const ids = replaceExpiredPayouts(deps.db, batch.signature, atMs, ctx.assertHeld);
    if (report) report.replaced += ids.length;
  }
  return pending;
}
