export { recheckSweepCredit, sentSweepSignatures } from "./credit-check";
export { resolveSentSweeps, resolveSweepSignature } from "./job";
export type { SweepJobDeps } from "./job";
