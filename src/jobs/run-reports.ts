/**
 * A run's report as the cron route shows it (`report` of GET /api/cron/runs/:runId), built from
 * what each money job returns. A job that did not get to run (paused by a program change, or held
 * while the books wait for the chain) says so, with zero counts, rather than answering nothing.
 */
import type { BurnsJobReport, PayoutsJobReport, SweepJobReport } from "./cron-schemas";

type Counts<T> = Omit<T, "job" | "pausedByProgramChange" | "reconciliation" | "held">;

const NO_SWEEP: Omit<Counts<SweepJobReport>, never> = {
  tokensRead: 0,
  tokensSwept: 0,
  transactionsSent: 0,
  confirmed: 0,
  failed: 0,
  pending: 0,
  sendErrors: 0,
  reread: 0,
  heldBack: 0,
};

/** `report` is the sweep job's own, or null when a program change paused it. */
export function sweepRunReport(report: (Counts<SweepJobReport> & { held: boolean }) | null): SweepJobReport {
  const { held, ...counts } = report ?? { ...NO_SWEEP, held: false };
  return { job: "sweep", pausedByProgramChange: report === null, held, ...pick(counts, NO_SWEEP) };
}

const NO_PAYOUTS: Counts<PayoutsJobReport> = {
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

/** `report` is the payouts job's own, or null when the reconciliation or the start's check held it. */
export function payoutsRunReport(
  reconciled: { status: PayoutsJobReport["reconciliation"] },
  report: Counts<PayoutsJobReport> | null,
): PayoutsJobReport {
  const counts = pick(report ?? NO_PAYOUTS, NO_PAYOUTS);
  counts.withdrawals = pick(counts.withdrawals, NO_PAYOUTS.withdrawals);
  return { job: "payouts", reconciliation: reconciled.status, held: report === null, ...counts };
}

const NO_BURNS: Counts<BurnsJobReport> = {
  buysSent: 0,
  bought: 0,
  burnsSent: 0,
  burned: 0,
  failed: 0,
  skipped: 0,
  parts: 0,
};

/** `report` is the burns job's own, or null when it did not run (held, or paused by a program change). */
export function burnsRunReport(report: Counts<BurnsJobReport> | null, why: { held: boolean }): BurnsJobReport {
  return {
    job: "burns",
    pausedByProgramChange: report === null && !why.held,
    held: why.held,
    ...pick(report ?? NO_BURNS, NO_BURNS),
  };
}

/** The fields of `shape` from `value`: a job's internal report may carry more than the route shows. */
function pick<T extends object>(value: T, shape: T): T {
  return Object.fromEntries(Object.keys(shape).map((key) => [key, value[key as keyof T]])) as T;
}
