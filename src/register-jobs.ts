/**
 * Gives each scheduled job its body once its capability and its dependencies exist. A job left
 * unregistered shows in health as never run (and stale) rather than pretending to work.
 */
import { runBurnsJob } from "./burns/job";
import { registerLaunchJobs } from "./launches/jobs";
import type { SchedulingContext } from "./jobs/setup";
import { runPayoutsJob } from "./payouts/job";
import { runSweepJob } from "./sweeps/job";
import { indexerStateOf, whileProgramsUnchanged } from "./jobs";
import { log } from "./lib/log";
import { takeSolvencySnapshot } from "./history/snapshots";
import { snapshotLiabilitiesAfterRun } from "./liabilities/hook";
import { activeReconciliation, reconcileWithChain, startCheckPassed, startHoldTaken } from "./reconcile";
import { BackupSchedule, scheduleBackupsWith } from "./backup";
import { burnsRunReport, payoutsRunReport, sweepRunReport } from "./jobs";

export interface RegisterJobsOptions {
  /** false in the jobs' worker thread: proofs are served by the request thread's connection */
  servesProofs?: boolean;
}

export function registerJobs(ctx: SchedulingContext, options: RegisterJobsOptions = {}): void {
  const afterRun = { rememberTree: options.servesProofs ?? true };
  // Off-site backups (BACKUP_URL) need no chain: they start and stop with the schedules.
  if (ctx.config.backup.url !== null)
    scheduleBackupsWith(
      ctx.scheduler,
      new BackupSchedule({ db: ctx.db, config: ctx.config, holder: ctx.scheduler.holder, now: ctx.now }),
    );
  // Intents expire and market figures refresh with or without a chain.
  registerLaunchJobs(ctx.scheduler, ctx);
  const chain = ctx.chain;
  if (!chain) return;
  const { db, config, scheduler } = ctx;
  const sweeps = {
    db,
    chain,
    sweepMinLamports: config.sweepMinLamports,
    platformBuybackBps: config.platformBuybackBps,
    now: ctx.now,
    reserves: config.custody,
    quietMaxIntervalMs: config.sweepQuietMaxIntervalMs ?? undefined,
    streamResolves: () => {
      const indexer = indexerStateOf(ctx);
      return indexer !== null && indexer.mode === "grpc" && indexer.connected;
    },
    sendsAllowed: () => startCheckPassed({ db, chain, now: ctx.now }),
  };
  const payouts = { db, chain, config, now: ctx.now };
  const burns = {
    db,
    chain,
    now: ctx.now,
    slippageBps: config.burnSlippageBps,
    maxPriceImpactBps: config.burnMaxPriceImpactBps,
    outflowCaps: config.custody,
  };
  // The jobs that build the launch programs' instructions stand still while one changed unacknowledged.
  const programs = { db, chain, now: ctx.now };
  scheduler.register("sweep", async (job) => {
    const report = await whileProgramsUnchanged(programs, "sweep", () => runSweepJob(sweeps, job));
    log.info("sweep run", { ...report });
    const answer = sweepRunReport(report);
    // Held until the start's check of the history: an anchor memo signed now would be a
    // transaction the check has to tell from the ones the books forgot.
    if (report?.held) return answer;
    // Liabilities first: their anchor memo is paid from the treasury, which the solvency snapshot then reads.
    await snapshotLiabilitiesAfterRun(ctx, "sweep", { ...afterRun, signal: job.signal });
    await takeSolvencySnapshot({ db, chain, now: ctx.now }, "sweep");
    return answer;
  });
  scheduler.register("payouts", async (job) => {
    // Nothing is sent before the books agree with the treasury's history (src/reconcile).
    const reconciled = await reconcileWithChain({ db, chain, now: ctx.now, payouts, sweeps, burns }, job);
    if (reconciled.status !== "clean") log.info("reconciliation step", { ...reconciled });
    // While it runs, not even autopay is queued: the payouts the chain holds keep their ids. The
    // same while the start's check has not passed yet (it waits for the chain): nothing is signed.
    if (activeReconciliation(db) || startHoldTaken(db)) return payoutsRunReport(reconciled, null);
    const report = await runPayoutsJob(payouts, job);
    log.info("payouts run", { ...report });
    await snapshotLiabilitiesAfterRun(ctx, "payouts", { ...afterRun, signal: job.signal });
    await takeSolvencySnapshot({ db, chain, now: ctx.now }, "payouts");
    return payoutsRunReport(reconciled, report);
  });
  scheduler.register("burns", async (job) => {
    // A burn of tokens the chain may have burned already waits for the reconciliation too.
    if (activeReconciliation(db)) return burnsRunReport(null, { held: true });
    const report = await whileProgramsUnchanged(programs, "burns", () => runBurnsJob(burns, job));
    log.info("burns run", { ...report });
    // The hourly floor rides on a job that runs every few minutes in every deployment.
    await takeSolvencySnapshot({ db, chain, now: ctx.now }, "hourly");
    return burnsRunReport(report, { held: false });
  });
}
