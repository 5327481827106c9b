export { appendSetCookie, cookiesSecure, readCookie } from "./cookies";
export { jsonObject, privately, requireSession } from "./guard";
export { handlesOf, pinHandleAtLaunch, setRouting } from "./identity";
export type { IdpProfile, Routing } from "./identity";
export { idpConfigured, toProfile } from "./idp";
export { assertSameSite } from "./origin";
export { clearedSessionCookie, deleteExpiredSessions, sessionCookieName, sessionFromRequest } from "./sessions";
