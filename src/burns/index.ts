export { resolveBurnSignature, runBurnsJob } from "./job";
export { spentOnPendingBurnsLamports } from "./service";
