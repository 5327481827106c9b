export { resolvePayoutSignature, resolveSentPayouts, runPayoutsJob } from "./job";
export { InsufficientBalanceError, PayoutInFlightError, queuePayout } from "./service";
