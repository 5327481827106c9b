export { resolveSentSweeps, resolveSweepSignature, runSweepJob } from "./job";
