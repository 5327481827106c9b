export {
  completeBurn,
  confirmPayout,
  creditSweep,
  failPayout,
  orderBurn,
  refundBurn,
  pinHandleCredits,
  replacePayout,
  reservePayout,
  payRent,
  returnRent,
  reserveWithdrawal,
  confirmWithdrawal,
  failWithdrawal,
} from "./commands";
export type { SweepCreditResult, SweepRecipient } from "./commands";
export { appendFeedEvent, appendPayoutStatusEvent } from "./feed";
export { feedNotifier } from "./feed-notifier";
export { isoMicros, parseBefore, renderFeedRows } from "./feed-queries";
export type { FeedEvent } from "./feed-queries";
export { PayoutStatusSchema } from "./feed-schemas";
export { accountFigures, creditsByToken, ledgerTotals } from "./figures";
export { accounts, balanceOf } from "./ledger";
export { verifyLedger } from "./verify";
