export { resolvePayoutSignature, resolveSentPayouts, runPayoutsJob } from "./job";
export { resolveSentWithdrawals } from "./withdrawals";
export {
  approveHeldPayout,
  confirmPayouts,
  failPayouts,
  heldPayouts,
  markPayoutsSent,
  queuePayout,
  refuseHeldPayout,
  replaceExpiredPayouts,
} from "./service";
export type { HeldPayout } from "./service";
export type { PayoutJobDeps } from "./deps";
