/** Landing: the journal of signed transactions, their rebroadcast, and what landing cost. */
export {
  attemptAfter,
  computeUnitFloorFor,
  journalOutcome,
  landingTotals,
  type LandingTotals,
  recordSignedTransaction,
  type SignedTransaction,
  sentFromSlotOf,
  UNDECIDED_AFTER_MS,
  undecidedTransactions,
} from "./journal";
export { rebroadcastPass, startRebroadcaster, type RebroadcastOptions, type RebroadcastReport } from "./rebroadcast";
