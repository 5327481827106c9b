export { reconcileWithChain } from "./job";
export type { ReconcileDeps, ReconcileReport } from "./job";
export { activeReconciliation, holdForReconciliation, latestReconciliation, restoredAtMs } from "./store";
export type { Reconciliation } from "./store";
