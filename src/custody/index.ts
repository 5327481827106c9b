export {
  HALTING_KINDS,
  clearIncidents,
  incidentCounts,
  heldBySystem,
  listIncidents,
  holdMoneyAtStart,
  moneyHalt,
  onIncident,
  raiseIncident,
  releaseStartHold,
  resumeMoney,
  START_HOLD_KEY,
} from "./incidents";
export type { Incident, IncidentKind, IncidentListener } from "./incidents";
export { moneyGate, outflowAllows, outflowSince, waitingOutflow, waitingOutflowLamports } from "./outflow";
export { RELEASE_TTL_MS, liveReleases } from "./release";
export type { OutflowRow, OutflowRows, Release, ReleasedRows } from "./release";
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
