export { resolveBurnSignature } from "./job";
export { spentOnPendingBurnsLamports } from "./service";
