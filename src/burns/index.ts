export { resolveBurnSignature, runBurnsJob } from "./job";
export { completeBurnBuy, failBurnBuy, pendingBurnGroups, spentOnPendingBurnsLamports, startBurnBuy } from "./service";
export { adoptBurnBuy, adoptBurnSent, sentBuySignatures } from "./adopt";
export type { BurnJobDeps } from "./job";
