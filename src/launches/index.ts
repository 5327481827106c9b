export { launchConfigRoutes } from "./config-routes";
export { intentsWhere } from "./intents";
export { registerLaunchJobs } from "./jobs";
export { setPlatformToken } from "./platform-token";
export { LAUNCH_TAG, launchRoutes } from "./routes";
export { settleIntent } from "./service";
