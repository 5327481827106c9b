export { listFeeSharing } from "./fee-sharing";
export { HANDLE_PATTERN, recordConfirmedLaunch } from "./launch-record";
export type { LaunchRecipientInput } from "./launch-record";
export { imageUrlOf, tokenDetail } from "./queries";
export type { Recipient, Token, TokenDetail } from "./queries";
export { storeVaultReadings, unsweptLamports } from "./readings";
export type { ScheduleNote } from "./readings";
export {
  activeSince,
  DUE_SLACK_MS,
  DUE_TOKENS_PAGE_SQL,
  dueTokensAfter,
  mostRecentlyActive,
  noteActivity,
  QUIET_FIRST_INTERVAL_MS,
  quietCapMs,
} from "./reading-schedule";
export { RoutingSchema, TokenDetailSchema } from "./schemas";
export {
  highestCreatorIndex,
  isTokenMint,
  markBonded,
  storeMarketFigures,
  tokenMints,
  unbondedTokens,
} from "./records";
export type { MarketFigures } from "./records";
