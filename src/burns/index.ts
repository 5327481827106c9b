export { resolveBurnSignature } from "./job";
export { spentOnPendingBurnsLamports } from "./service";
export { adoptBurnBuy, adoptBurnSent, sentBuySignatures } from "./adopt";
export type { BurnJobDeps } from "./job";
