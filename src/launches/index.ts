export type { DraftInput } from "./draft";
export {
  getIntent,
  highestCreatorIndexInUse,
  INTENT_WINDOW_MS,
  intentsAwaitingCreate,
  intentsWithSignatureToSettle,
} from "./intents";
export { runLaunchesJob } from "./jobs";
export { confirmLaunch, LANDING_GRACE_MS, prepareLaunch, settleIntent, uploadMetadata } from "./service";
