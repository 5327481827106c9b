/**
 * The history reads: a token's fees per UTC day, solvency over time from the snapshots, and the
 * pin and rename history of an account. Money is summed by SQLite as integers and handed on as
 * bigint; nothing here passes through a float.
 */
import type { Db } from "../../db/client";
import { isoMs } from "../http/public-schemas";
import type { HandleHistoryEntry, SolvencyPoint, TokenHistoryPoint } from "./schemas";
import { query } from "../../db/statement";

export type { HandleHistoryEntry, SolvencyPoint, TokenHistoryPoint };

const DAY_MS = 86_400_000;

/** Start of the UTC day `days - 1` days before the one holding `nowMs`: a window of `days` calendar days. */
function windowStartMs(nowMs: number, days: number): number {
  return Math.floor(nowMs / DAY_MS) * DAY_MS - (days - 1) * DAY_MS;
}

/** One point per UTC day with a confirmed sweep, oldest first; null when no token has that mint. */
export function tokenHistory(db: Db, mint: string, days: number, nowMs: number): TokenHistoryPoint[] | null {
  const token = query<{ id: bigint }, [mint: string]>(db, "SELECT id FROM tokens WHERE mint = ?").get(mint);
  if (!token) return null;
  const rows = query<
    { day: string; swept: bigint; platform: bigint; sweeps: bigint },
    [tokenId: bigint, fromMs: number]
  >(
    db,
    `SELECT strftime('%Y-%m-%d', confirmed_at_ms / 1000, 'unixepoch') AS day,
              SUM(total_lamports) AS swept, SUM(platform_lamports) AS platform, COUNT(*) AS sweeps
         FROM sweeps
        WHERE token_id = ? AND status = 'confirmed' AND confirmed_at_ms >= ?
        GROUP BY day ORDER BY day`,
  ).all(token.id, windowStartMs(nowMs, days));
  return rows.map((r) => ({
    day: r.day,
    sweptLamports: BigInt(r.swept).toString(),
    platformLamports: BigInt(r.platform).toString(),
    sweeps: Number(r.sweeps),
  }));
}

/** Points a chart can draw at 360 px and a year can still show every hour's worst moment in a day. */
export const PROOF_HISTORY_MAX_POINTS = 500;

/**
 * Snapshots of the last `days` days, oldest first. Past PROOF_HISTORY_MAX_POINTS the window is cut
 * into equal buckets and each bucket shows its lowest surplus, so thinning never hides a shortfall.
 */
export function proofHistory(db: Db, days: number, nowMs: number): SolvencyPoint[] {
  const from = nowMs - days * DAY_MS;
  const count = Number(
    query<{ n: bigint }, [fromMs: number]>(db, "SELECT COUNT(*) AS n FROM solvency_snapshots WHERE at_ms >= ?").get(
      from,
    )!.n,
  );
  type Row = { atMs: bigint; treasury: bigint; owed: bigint };
  let rows: Row[];
  if (count <= PROOF_HISTORY_MAX_POINTS) {
    rows = query<Row, [fromMs: number]>(
      db,
      "SELECT at_ms AS atMs, treasury_lamports AS treasury, owed_lamports AS owed FROM solvency_snapshots WHERE at_ms >= ? ORDER BY at_ms, id",
    ).all(from);
  } else {
    const bucketMs = Math.ceil((days * DAY_MS) / PROOF_HISTORY_MAX_POINTS);
    rows = query<Row, [fromMs: number, bucketMs: number]>(
      db,
      `SELECT atMs, treasury, owed FROM (
           SELECT at_ms AS atMs, treasury_lamports AS treasury, owed_lamports AS owed,
                  ROW_NUMBER() OVER (PARTITION BY (at_ms - ?1) / ?2 ORDER BY treasury_lamports - owed_lamports, at_ms DESC, id DESC) AS rank
             FROM solvency_snapshots WHERE at_ms >= ?1)
          WHERE rank = 1 ORDER BY atMs`,
    ).all(from, bucketMs);
  }
  return rows.map((r) => {
    const treasury = BigInt(r.treasury);
    const owed = BigInt(r.owed);
    const surplus = treasury - owed;
    return {
      at: isoMs(r.atMs),
      treasuryLamports: treasury.toString(),
      owedLamports: owed.toString(),
      surplusLamports: surplus.toString(),
      solvent: surplus >= 0n,
    };
  });
}

/**
 * The public pin and rename history of the account a handle is pinned to, newest first: every
 * handle pinned to that user id with the time it was pinned. Null when no token names the handle
 * (the record answers 404 then too); empty while the handle is unpinned.
 */
export function handleHistory(db: Db, handle: string): HandleHistoryEntry[] | null {
  if (
    !query<{ 1: bigint }, [handle: string]>(db, "SELECT 1 FROM token_recipients WHERE handle = ? LIMIT 1").get(handle)
  )
    return null;
  const pinned = query<{ idpUserId: string | null }, [handle: string]>(
    db,
    "SELECT idp_user_id AS idpUserId FROM handles WHERE handle = ?",
  ).get(handle);
  if (!pinned?.idpUserId) return [];
  const rows = query<{ handle: string; displayHandle: string; pinnedAtMs: bigint }, [idpUserId: string]>(
    db,
    `SELECT handle, display_handle AS displayHandle, pinned_at_ms AS pinnedAtMs FROM handles
        WHERE idp_user_id = ? AND pinned_at_ms IS NOT NULL ORDER BY pinned_at_ms DESC, handle DESC`,
  ).all(pinned.idpUserId);
  return rows.map((r, i) => ({
    handle: r.handle,
    displayHandle: r.displayHandle,
    pinnedAt: isoMs(r.pinnedAtMs),
    event: i === rows.length - 1 ? "pinned" : "renamed",
  }));
}
