/**
 * The reads and writes of the `tokens` table that other features need (the launch flow, its job,
 * the market job, the demo), so the table's SQL stays with the feature that owns it.
 */
import type { Db } from "../../db/client";
import { noteActivity } from "./reading-schedule";

/** A token has been recorded with this mint. */
export function isTokenMint(db: Db, mint: string): boolean {
  return db.$client.query<{ one: bigint }, [string]>("SELECT 1 AS one FROM tokens WHERE mint = ?").get(mint) !== null;
}

/** The highest creator index a token holds, or null when there is no token. */
export function highestCreatorIndex(db: Db): bigint | null {
  return db.$client.query<{ m: bigint | null }, []>("SELECT MAX(creator_index) AS m FROM tokens").get()?.m ?? null;
}

/** Mints in recording order, `limit` at most. */
export function tokenMints(db: Db, limit = -1): string[] {
  return db.$client
    .query<{ mint: string }, [number]>("SELECT mint FROM tokens ORDER BY id LIMIT ?")
    .all(limit)
    .map((r) => r.mint);
}

/** Tokens whose bonding curve has not completed, in recording order. */
export function unbondedTokens(db: Db): { mint: string; creator: string }[] {
  return db.$client
    .query<{ mint: string; creator: string }, []>("SELECT mint, creator FROM tokens WHERE bonded = 0 ORDER BY id")
    .all();
}

/** Marks the tokens bonded (a completed curve stays completed); returns how many changed. */
export function markBonded(db: Db, mints: readonly string[]): number {
  const update = db.$client.query<never, [string]>("UPDATE tokens SET bonded = 1 WHERE mint = ? AND bonded = 0");
  return mints.reduce((n, mint) => n + update.run(mint).changes, 0);
}

export interface MarketFigures {
  marketCapUsd: number | null;
  volume24hUsd: number | null;
}

/** Stores each mint's market figures, null for one the source does not know; returns the rows written. */
export function storeMarketFigures(
  db: Db,
  mints: readonly string[],
  figures: ReadonlyMap<string, MarketFigures>,
  checkedAtMs: number,
): number {
  const update = db.$client.query<never, [number | null, number | null, number, string]>(
    "UPDATE tokens SET market_cap_usd = ?, volume_24h_usd = ?, market_checked_at_ms = ? WHERE mint = ?",
  );
  for (const mint of mints) {
    const f = figures.get(mint);
    update.run(f?.marketCapUsd ?? null, f?.volume24hUsd ?? null, checkedAtMs, mint);
  }
  return mints.length;
}

/**
 * Stores a vault reading unless a sweep or another reading landed since the token was read
 * (`seen`), so a slow answer never overwrites a newer figure; true when it was stored.
 *
 * A reading that finds the figure unchanged (most tokens, most of the time) writes only its time:
 * naming `vault_lamports` in an UPDATE rewrites the `tokens_fees` index entry of the generated
 * `fees_lamports` even when the value is the same, which was half the cost of a detail's refresh
 * commit at 100k tokens.
 */
export function storeVaultReadingIfUnchanged(
  db: Db,
  tokenId: number,
  reading: { vaultLamports: bigint; bonded: boolean; checkedAtMs: number },
  seen: { vaultCheckedAtMs: number; lastSweptAtMs: number | null },
): boolean {
  const c = db.$client;
  const bonded = reading.bonded ? 1 : 0;
  // bonded never turns back: a completed curve stays completed.
  const timeOnly = c
    .query<never, [number, number, number, number, number | null, bigint]>(
      `UPDATE tokens SET vault_checked_at_ms = ?, bonded = MAX(bonded, ?)
        WHERE id = ? AND vault_checked_at_ms = ? AND last_swept_at_ms IS ? AND vault_lamports = ?`,
    )
    .run(reading.checkedAtMs, bonded, tokenId, seen.vaultCheckedAtMs, seen.lastSweptAtMs, reading.vaultLamports);
  if (timeOnly.changes === 1) return true;
  const changes = c
    .query<never, [bigint, number, number, number, number, number | null]>(
      `UPDATE tokens SET vault_lamports = ?, vault_checked_at_ms = ?, bonded = MAX(bonded, ?)
        WHERE id = ? AND vault_checked_at_ms = ? AND last_swept_at_ms IS ?`,
    )
    .run(
      reading.vaultLamports,
      reading.checkedAtMs,
      bonded,
      tokenId,
      seen.vaultCheckedAtMs,
      seen.lastSweptAtMs,
    ).changes;
  // The figure moved since the last reading: a trade, so the sweep reads the token at its next run.
  if (changes === 1) noteActivity(db, [tokenId], reading.checkedAtMs);
  return changes === 1;
}
