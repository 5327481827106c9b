export { resolvePayoutSignature, resolveSentPayouts } from "./job";
export { resolveSentWithdrawals } from "./withdrawals";
export { approveHeldPayout, heldPayouts, queuePayout, refuseHeldPayout } from "./service";
export type { HeldPayout } from "./service";
export type { PayoutJobDeps } from "./job";
