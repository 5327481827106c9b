export { recheckSweepCredit, sentSweepSignatures } from "./credit-check";
export { resolveSentSweeps, resolveSweepSignature, runSweepJob } from "./job";
export { confirmSweep, failSweep, recordSweepsSent } from "./service";
export type { SweepJobDeps } from "./job";
