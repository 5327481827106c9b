/**
 * Backups (docs/operations.md): a consistent checked snapshot to a local file or as a generation
 * on S3-compatible storage, on a schedule and at SIGTERM; the way back for `restore`, and the mark
 * a restore leaves so the service reconciles with the chain before money moves.
 */
export { backupDatabase, checkBackup } from "./snapshot";
export { downloadGeneration, uploadGeneration } from "./offsite";
export { s3Store } from "./s3";
export { isS3Url, parseS3Url, s3UrlOf } from "./target";
export { generationName, GENERATION_NAME } from "./generations";
export { readBackupKey } from "./key";
export { checkSchema } from "./schema";
export { putVolumeSecrets, readVolumeSecrets, takeVolumeSecrets } from "./volume-secrets";
export {
  AUDIT_MARK_KEY,
  AuditShipper,
  fetchAuditRowsAfter,
  newestAuditId,
  putAuditRows,
} from "./audit-offsite";
export type { StoredAudit } from "./audit-offsite";
export { endSessionsOfBackup, freeLeasesOfBackup, markRestored, RESTORED_AT_KEY } from "./restored";
export {
  BACKUP_LEASE,
  backupAtShutdown,
  backupHealth,
  BackupSchedule,
  runBackup,
  scheduleBackupsWith,
} from "./schedule";
