export { appendSetCookie, cookiesSecure, readCookie } from "./cookies";
export { jsonObject, privately, requireSession } from "./guard";
export { idpConfigured, toProfile } from "./idp";
export { assertSameSite } from "./origin";
export {
  clearedSessionCookie,
  createSession,
  deleteExpiredSessions,
  sessionCookieName,
  sessionFromRequest,
} from "./sessions";
