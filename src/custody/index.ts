export {
  clearIncidents,
  incidentCounts,
  listIncidents,
  holdMoneyAtStart,
  moneyHalt,
  onIncident,
  raiseIncident,
  releaseStartHold,
  resumeMoney,
  START_HOLD_KEY,
} from "./incidents";
export type { Incident, IncidentKind } from "./incidents";
export { moneyGate, waitingOutflow } from "./outflow";
export type { ReleasedRows } from "./release";
export type { OutflowCaps } from "./outflow";
export { checkReserves } from "./reserves";
export type { ReservesPolicy } from "./reserves";
export { claimsPausedCode, claimsPausedReason } from "./state";
export {
  confirmWithdrawalSent,
  failWithdrawalWith,
  listWithdrawals,
  markWithdrawalSent,
  pendingWithdrawalLamports,
  requestWithdrawal,
  requeueExpiredWithdrawal,
  withdrawableLamports,
  withdrawalsIn,
} from "./withdrawals";
export type { Withdrawal, WithdrawalStatus } from "./withdrawals";
