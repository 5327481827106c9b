/** What other features may use of admin: who may call an admin route, who did, and the audit row. */
export { adminAuthorized, adminOriginOf } from "./authorized";
export { audit, auditLog, performAdminAction, type AdminAction, type AuditRow } from "./service";
export type { AdminOverview, AdminToken } from "./page-service";
