export { resolveSentSweeps, resolveSweepSignature } from "./job";
