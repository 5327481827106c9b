export { resolvePayoutSignature, resolveSentPayouts } from "./job";
export { approveHeldPayout, heldPayouts, queuePayout, refuseHeldPayout } from "./service";
export type { HeldPayout } from "./service";
