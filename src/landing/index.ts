/** Landing: the journal of signed transactions, their rebroadcast, and what landing cost. */
export {
  attemptAfter,
  computeUnitFloorFor,
  journalOutcome,
  landingTotals,
  recordSignedTransaction,
  type SignedTransaction,
  sentFromSlotOf,
  UNDECIDED_AFTER_MS,
  undecidedTransactions,
} from "./journal";
export { rebroadcastPass, startRebroadcaster } from "./rebroadcast";
