export { reconcileWithChain } from "./job";
export type { ReconcileDeps, ReconcileReport } from "./job";
export { activeReconciliation, holdForReconciliation, latestReconciliation } from "./store";
export type { Reconciliation } from "./store";
