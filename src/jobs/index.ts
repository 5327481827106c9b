export { CRASH_POINTS, crashPoint, setCrashHook } from "./crash-points";
export type { CrashPointName } from "./crash-points";
export { jobHealth } from "./health";
export {
  BACKUP_JOB,
  backupStatus,
  noteBackupsScheduled,
  recordBackupOutcome,
} from "./backup-status";
export type { HealthReport } from "./health";
export { indexerStateOf, registerIndexerState } from "./indexer-state";
export type { IndexerState } from "./indexer-state";
export { acquireLease, assertLeaseHeld, releaseLease, renewLease } from "./lease";
export type { Lease } from "./lease";
export { Scheduler } from "./scheduler";
export type { JobContext } from "./scheduler";
export type { SetAsideJob } from "./set-aside";
export {
  acknowledgeProgramChanges,
  programChangesPausing,
  programWatchState,
  watchPrograms,
  whileProgramsUnchanged,
} from "./program-watch";
export type { ProgramChange, ProgramJob } from "./program-watch";
export { jobSetup } from "./setup";
export type { SchedulingContext } from "./setup";
export type { JobRunner } from "./scheduler";
export {
  clearSetAside,
  heldBackMints,
  listSetAside,
  recordTokenFailure,
  recordTokenSuccess,
  setAsideStates,
  stopToken,
  suspectMints,
} from "./set-aside";
export { burnsRunReport, payoutsRunReport, sweepRunReport } from "./run-reports";
