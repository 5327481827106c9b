/**
 * Backups (docs/operations.md): a consistent checked snapshot to a local file or as a generation
 * on S3-compatible storage, on a schedule and at SIGTERM; the way back for `restore`, and the mark
 * a restore leaves so the service reconciles with the chain before money moves.
 */
export { backupDatabase, checkBackup } from "./snapshot";
export { downloadGeneration, listGenerations, uploadGeneration } from "./offsite";
export type { DownloadOptions, UploadOptions, UploadOutcome } from "./offsite";
export { s3Store } from "./s3";
export type { ObjectStore } from "./s3";
export { isS3Url, parseS3Url, s3UrlOf } from "./target";
export type { S3Target } from "./target";
export { generationName, GENERATION_NAME } from "./generations";
export { backupKeyOf, MIN_BACKUP_KEY_CHARS, readBackupKey } from "./key";
export type { BackupKey } from "./key";
export { checkSchema } from "./schema";
export { putVolumeSecrets, readVolumeSecrets, takeVolumeSecrets, VOLUME_SECRETS_KEY } from "./volume-secrets";
export {
  AUDIT_MARK_KEY,
  AuditShipper,
  fetchAuditRowsAfter,
  newestAuditId,
  putAuditRows,
  shipAuditRows,
} from "./audit-offsite";
export type { AuditRecord, StoredAudit } from "./audit-offsite";
export { endSessionsOfBackup, freeLeasesOfBackup, markRestored, restoredAtMs, RESTORED_AT_KEY } from "./restored";
export {
  BACKUP_LEASE,
  backupAtShutdown,
  backupHealth,
  BackupSchedule,
  runBackup,
  scheduleBackupsWith,
  SHUTDOWN_UPLOAD_TIMEOUT_MS,
} from "./schedule";
export type { BackupHealth, BackupRun } from "./schedule";
