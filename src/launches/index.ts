export { highestCreatorIndexInUse, intentsAwaitingCreate, intentsWithSignatureToSettle } from "./intents";
export { settleIntent } from "./service";
