/**
 * What a launch's uploads may cost the site. Objects stored here (no IPFS account) stay pending,
 * and are not served, until their launch is confirmed, so the site is no free file host; those of
 * a launch that never completed are deleted with its expired intent. The bytes one client (IP, or
 * IPv6 /64) may store per UTC day are bounded, whichever store takes them.
 */
import type { Db } from "../../db/client";
import { statement } from "../../db/statement";
import { immediate } from "../../db/transaction";
import { AppError } from "../lib/errors";
import type { ObjectStore } from "./storage";

const DAY_MS = 86_400_000;
const LOCAL_CID = /\/api\/launch\/objects\/([0-9a-f]{64})$/;

const usedBytes = statement<{ bytes: bigint }, [clientKey: string, day: number]>(
  "SELECT bytes FROM upload_usage WHERE client_key = ? AND day = ?",
);
const addUsedBytes = statement<never, [clientKey: string, day: number, bytes: number]>(
  "INSERT INTO upload_usage (client_key, day, bytes) VALUES (?1, ?2, ?3) ON CONFLICT (client_key, day) DO UPDATE SET bytes = bytes + ?3",
);
const deleteDaysBefore = statement<never, [day: number]>("DELETE FROM upload_usage WHERE day < ?");
const releaseBytes = statement<never, [bytes: number, clientKey: string, day: number]>(
  "UPDATE upload_usage SET bytes = MAX(0, bytes - ?) WHERE client_key = ? AND day = ?",
);
const publishObject = statement<never, [cid: string]>(
  "UPDATE local_objects SET pending = 0 WHERE cid = ? AND pending = 1",
);
const deleteDeadObjects = statement<never, [deadBefore: number]>(
  `DELETE FROM local_objects
    WHERE pending = 1
      AND intent_id IN (SELECT id FROM launch_intents
                         WHERE status = 'expired' OR (status = 'failed' AND expires_at_ms < ?1))
      AND NOT EXISTS (SELECT 1 FROM launch_intents i
                       WHERE NOT (i.status = 'expired' OR (i.status = 'failed' AND i.expires_at_ms < ?1))
                         AND (i.image_uri LIKE '%/' || local_objects.cid OR i.metadata_uri LIKE '%/' || local_objects.cid))`,
);

/** The content address of an object this service stores, from its public address; null for IPFS ones. */
function localCidOf(uri: string | null): string | null {
  return uri ? (LOCAL_CID.exec(uri)?.[1] ?? null) : null;
}

/**
 * Counts `bytes` against the client's allowance for today, or refuses with 429 (and retry-after
 * until the next UTC day) when they would go over it. One immediate transaction: two uploads at
 * once cannot both squeeze under the bound.
 */
export function reserveUploadBytes(db: Db, clientKey: string, bytes: number, limitBytes: number, nowMs: number): void {
  const day = Math.floor(nowMs / DAY_MS);
  const allowed = immediate(db, () => {
    const row = usedBytes(db).get(clientKey, day);
    const used = Number(row?.bytes ?? 0);
    if (used + bytes > limitBytes) return false;
    addUsedBytes(db).run(clientKey, day, bytes);
    // Yesterday's counts and older are of no use: the table stays one row per active client.
    deleteDaysBefore(db).run(day - 1);
    return true;
  });
  if (!allowed) {
    throw new AppError("LAUNCH_UPLOAD_ALLOWANCE_USED", { retryAfterSeconds: ((day + 1) * DAY_MS - nowMs) / 1000 });
  }
}

/** Gives back a reservation whose upload failed, so a provider outage does not eat the allowance. */
export function releaseUploadBytes(db: Db, clientKey: string, bytes: number, nowMs: number): void {
  const day = Math.floor(nowMs / DAY_MS);
  releaseBytes(db).run(bytes, clientKey, day);
}

/** The store, giving the reservation back once if a put fails (an IPFS outage must not eat the allowance). */
export function refundOnFailure(store: ObjectStore, refund: () => void): ObjectStore {
  let refunded = false;
  const guard = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (!refunded) {
        refunded = true;
        refund();
      }
      throw error;
    }
  };
  return {
    kind: store.kind,
    putFile: (bytes, contentType, name) => guard(() => store.putFile(bytes, contentType, name)),
    putJson: (value, name) => guard(() => store.putJson(value, name)),
  };
}

/** The launch was confirmed: its stored image and metadata are served from now on. */
export function publishLaunchObjects(db: Db, uris: readonly (string | null)[]): void {
  const publish = publishObject(db);
  for (const uri of uris) {
    const cid = localCidOf(uri);
    if (cid) publish.run(cid);
  }
}

/**
 * Deletes the pending objects of launches that can no longer complete: expired intents, and failed
 * ones past the time a retry could still land. An object another live launch also names (the same
 * image twice) is kept. Returns how many were deleted.
 */
export function deleteDeadLaunchObjects(db: Db, nowMs: number, landingGraceMs: number): number {
  const deadBefore = nowMs - landingGraceMs;
  return deleteDeadObjects(db).run(deadBefore).changes;
}
