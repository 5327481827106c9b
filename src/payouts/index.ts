export { resolvePayoutSignature, resolveSentPayouts } from "./job";
export { queuePayout } from "./service";
