export { crashPoint } from "./crash-points";
export { jobHealth } from "./health";
export type { HealthReport } from "./health";
export { registerIndexerState } from "./indexer-state";
export type { IndexerState } from "./indexer-state";
export { acquireLease, assertLeaseHeld, releaseLease, renewLease } from "./lease";
export type { Lease } from "./lease";
export { Scheduler } from "./scheduler";
export type { JobContext } from "./scheduler";
export {
  heldBackMints,
  listSetAside,
  recordTokenFailure,
  recordTokenSuccess,
  stopToken,
  suspectMints,
} from "./set-aside";
