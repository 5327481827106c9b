/**
 * The admin audit trail off-site (issue 63, item 4): each `admin_audit` row becomes its own sealed
 * object, `<prefix>/audit/<zero-padded id>.sealed`, uploaded soon after it is written and never
 * rewritten, so the trail does not roll back with the books: a restore brings back every row newer
 * than the database it puts back, with its original actor and reason.
 *
 * The database is the queue: rows above the progress mark (`settings` row `backup_audit_uploaded_id`)
 * are uploaded oldest first, a bounded batch at a time, the mark moved after each upload. Rows are
 * written by the request thread, the jobs thread and the operator CLI (another process), so the
 * uploader polls the table rather than waiting for a call from one of them. A store outage never
 * touches the admin action (its row commits with it); uploads retry with a growing pause (at most
 * a minute) and resume from the mark, across restarts too.
 */
import type { Database } from "bun:sqlite";
import type { Db } from "../../db/client";
import { type Connection, query } from "../../db/statement";
import type { Config } from "../config";
import { AppError } from "../lib/errors";
import { log } from "../lib/log";
import { scrubErrorText } from "../lib/scrub";
import { listPrefix } from "./generations";
import { type BackupKey, readBackupKey } from "./key";
import { type ObjectStore, s3Store } from "./s3";
import { openSealedBytes, sealBytes } from "./seal";
import { parseS3Url, s3UrlOf, type S3Target } from "./target";

export const AUDIT_MARK_KEY = "backup_audit_uploaded_id";

/** Rows uploaded per pass; the rest wait for the next pass. */
const AUDIT_BATCH_ROWS = 100;

/** How often the table is looked at for new rows. */
const AUDIT_POLL_MS = 2_000;

/** The longest pause between two attempts while the store fails. */
const AUDIT_RETRY_MAX_MS = 60_000;

/** One row's upload that takes longer is given up (a hung store) and tried again after the pause. */
const AUDIT_UPLOAD_TIMEOUT_MS = 30_000;

const ID_DIGITS = 12;

/** One audit row as stored: every column by name (a column added later travels too). */
type AuditRecord = Record<string, string | number | null> & { id: number };

function auditPrefix(target: Pick<S3Target, "prefix">): string {
  return `${listPrefix(target)}audit/`;
}

function auditObjectKey(target: Pick<S3Target, "prefix">, id: number): string {
  return `${auditPrefix(target)}${String(id).padStart(ID_DIGITS, "0")}.sealed`;
}

/** Sealed for its id: a genuine row copied under another id does not open. */
function sealedForAudit(id: number): string {
  return `audit ${id}`;
}

function idOfKey(target: Pick<S3Target, "prefix">, key: string): number | null {
  const match = new RegExp(`^(\\d{${ID_DIGITS}})\\.sealed$`).exec(key.slice(auditPrefix(target).length));
  return key.startsWith(auditPrefix(target)) && match ? Number(match[1]) : null;
}

function readMark(db: Db): number {
  const row = query<{ value: string }, [string]>(db, "SELECT value FROM settings WHERE key = ?").get(AUDIT_MARK_KEY);
  return row ? Number(row.value) : 0;
}

function writeMark(db: Connection, id: number): void {
  query<never, [string, string]>(
    db,
    "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = ?2",
  ).run(AUDIT_MARK_KEY, String(id));
}

function recordOf(row: Record<string, unknown>): AuditRecord {
  const record: Record<string, string | number | null> = {};
  for (const [column, value] of Object.entries(row))
    record[column] = typeof value === "bigint" ? Number(value) : (value as string | number | null);
  return record as AuditRecord;
}

interface AuditShipDeps {
  db: Db;
  store: ObjectStore;
  target: S3Target;
  key: BackupKey;
}

/** Uploads the rows above the mark, oldest first, up to one batch; the mark follows each upload. */
async function shipAuditRows(deps: AuditShipDeps): Promise<number> {
  const { db, store, target, key } = deps;
  const rows = query<Record<string, unknown>, [number, number]>(
    db,
    "SELECT * FROM admin_audit WHERE id > ? ORDER BY id LIMIT ?",
  ).all(readMark(db), AUDIT_BATCH_ROWS);
  for (const row of rows) {
    const record = recordOf(row);
    const sealed = sealBytes(key, sealedForAudit(record.id), new TextEncoder().encode(JSON.stringify(record)));
    await bounded(store.put(auditObjectKey(target, record.id), sealed), AUDIT_UPLOAD_TIMEOUT_MS);
    writeMark(db, record.id);
  }
  return rows.length;
}

async function bounded<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new AppError("BACKUP_UPLOAD_TIMEOUT", { timeoutMs })), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export interface AuditShipperDeps {
  db: Db;
  config: Pick<Config, "backup">;
  store?: ObjectStore;
  /** AUDIT_POLL_MS and AUDIT_RETRY_MAX_MS unless a test says */
  timing?: { pollMs: number; retryMaxMs: number };
}

/** The uploader's loop, started and stopped with the backup schedule (src/backup/schedule.ts). */
export class AuditShipper {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<void> | null = null;
  private failures = 0;
  private stopped = true;

  private readonly timing: { pollMs: number; retryMaxMs: number };

  constructor(private readonly deps: AuditShipperDeps) {
    this.timing = deps.timing ?? { pollMs: AUDIT_POLL_MS, retryMaxMs: AUDIT_RETRY_MAX_MS };
  }

  start(): void {
    const { url, s3, keyFile } = this.deps.config.backup;
    if (!this.stopped || url === null || s3 === null || keyFile === null) return;
    this.stopped = false;
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.pass().finally(() => {
        this.running = null;
      });
    }, delayMs);
  }

  /** Uploads until nothing is left above the mark, or the store fails (then waits longer each time). */
  private async pass(): Promise<void> {
    const { url, s3, keyFile } = this.deps.config.backup;
    try {
      const target = parseS3Url(url!);
      const deps = {
        db: this.deps.db,
        store: this.deps.store ?? s3Store(target, s3!),
        target,
        key: readBackupKey(keyFile!),
      };
      while (!this.stopped && (await shipAuditRows(deps)) === AUDIT_BATCH_ROWS) {}
      if (this.failures > 0) log.info("audit rows reach the off-site store again", { failedAttempts: this.failures });
      this.failures = 0;
      this.schedule(this.timing.pollMs);
    } catch (error) {
      this.failures++;
      // One line when the outage starts; the rows wait above the mark.
      if (this.failures === 1) log.warn("audit rows not uploaded; retrying", { error: scrubErrorText(error) });
      this.schedule(Math.min(this.timing.pollMs * 2 ** this.failures, this.timing.retryMaxMs));
    }
  }

  /** Stops polling; a pass in flight gets `graceMs`, then the stop goes on (the mark keeps the rest). */
  async stop(graceMs: number): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const running = this.running;
    if (!running) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([running, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
  }
}

/** What the store holds beyond a restored file: its rows, and the newest id it holds at all. */
export interface StoredAudit {
  records: AuditRecord[];
  /** the newest row the store holds (0: none); the restored file's mark moves up to it */
  storedThroughId: number;
}

/**
 * The audit rows in the store newer than `afterId` (the newest row of the database being put back),
 * oldest first. Each must open with the key for its own id, or the restore is refused: a planted
 * row is never written into the trail.
 */
export async function fetchAuditRowsAfter(
  store: ObjectStore,
  target: S3Target,
  key: BackupKey,
  afterId: number,
): Promise<StoredAudit> {
  const stored = (await store.list(auditPrefix(target)))
    .map((objectKey) => idOfKey(target, objectKey))
    .filter((id): id is number => id !== null);
  const ids = stored.filter((id) => id > afterId).sort((a, b) => a - b);
  const records: AuditRecord[] = [];
  for (const id of ids) {
    const objectKey = auditObjectKey(target, id);
    const url = s3UrlOf(target, objectKey.slice(listPrefix(target).length));
    const plain = openSealedBytes(key, sealedForAudit(id), await store.get(objectKey), url);
    const record = JSON.parse(new TextDecoder().decode(plain)) as AuditRecord;
    if (record.id !== id) throw new AppError("BACKUP_NOT_AUTHENTIC", { url, advice: "" });
    records.push(record);
  }
  return { records, storedThroughId: Math.max(0, ...stored) };
}

/** The newest audit row's id in a database file (0: none). */
export function newestAuditId(db: Database): number {
  const row = query<{ id: number | bigint | null }, []>(db, "SELECT max(id) AS id FROM admin_audit").get();
  return row?.id === null || row?.id === undefined ? 0 : Number(row.id);
}

/**
 * Writes fetched rows into the file being restored (the caller's transaction), and moves its mark
 * up to the newest row the store holds: those are uploaded already (rows go up in order), so none
 * is sent twice, and the rows written after the restore follow them.
 */
export function putAuditRows(copy: Database, { records, storedThroughId }: StoredAudit): void {
  const columns = new Set(
    query<{ name: string }, []>(copy, "SELECT name FROM pragma_table_info('admin_audit')")
      .all()
      .map((row) => row.name),
  );
  for (const record of records) {
    const names = Object.keys(record).filter((name) => columns.has(name));
    const sql = `INSERT INTO admin_audit (${names.map((n) => `"${n}"`).join(", ")}) VALUES (${names.map(() => "?").join(", ")})`;
    query<never, (string | number | null)[]>(copy, sql).run(...names.map((name) => record[name] ?? null));
  }
  const markRow = query<{ value: string }, [string]>(copy, "SELECT value FROM settings WHERE key = ?").get(
    AUDIT_MARK_KEY,
  );
  if (storedThroughId > Number(markRow?.value ?? 0)) writeMark(copy, storedThroughId);
}
