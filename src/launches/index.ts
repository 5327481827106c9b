export { intentsWhere } from "./intents";
export { setPlatformToken } from "./platform-token";
export { settleIntent } from "./service";
