export { appendSetCookie, cookiesSecure, readCookie } from "./cookies";
export { jsonObject, privately, requireSession } from "./guard";
export { handlesOf, pinHandleAtLaunch, setRouting } from "./identity";
export type { IdpProfile, Routing } from "./identity";
export { idpConfigured, toProfile } from "./idp";
export { assertSameSite } from "./origin";
export { authRoutes } from "./routes";
export { clearedSessionCookie, deleteExpiredSessions, sessionCookieName, sessionFromRequest } from "./sessions";
