export { intentsWhere } from "./intents";
export { settleIntent } from "./service";
