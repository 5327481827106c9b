export { startCheckPassed } from "./check";
export { reconcileWithChain } from "./job";
export { booksReconciling } from "./reconciling";
export {
  activeReconciliation,
  holdForReconciliation,
  latestReconciliation,
  markHistoryOffChain,
  restoredAtMs,
  startHoldTaken,
} from "./store";
export type { Reconciliation } from "./store";
