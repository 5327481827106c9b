export {
  HALTING_KINDS,
  clearIncidents,
  incidentCounts,
  lastResume,
  listIncidents,
  holdMoneyAtStart,
  moneyHalt,
  onIncident,
  raiseIncident,
  releaseStartHold,
  resumeMoney,
} from "./incidents";
export type { Incident, IncidentKind, IncidentListener } from "./incidents";
export { moneyGate, outflowAllows, outflowSince, waitingOutflowLamports } from "./outflow";
export type { OutflowCaps } from "./outflow";
export { checkReserves, inFlightLamports } from "./reserves";
export type { ReservesPolicy } from "./reserves";
export { claimsPausedCode, claimsPausedReason } from "./state";
export {
  MAX_WITHDRAWAL_REASON_CHARS,
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
