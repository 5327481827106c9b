export { recheckSweepCredit, sentSweepSignatures } from "./credit-check";
export { resolveSentSweeps, resolveSweepSignature } from "./job";
