export { resolvePayoutSignature, resolveSentPayouts } from "./job";
export { InsufficientBalanceError, PayoutInFlightError, queuePayout } from "./service";
