/**
 * The reads and writes of the `tokens` table that other features need (the launch flow, its job,
 * the market job, the demo), so the table's SQL stays with the feature that owns it.
 */
import type { Db } from "../../db/client";
import { tokens } from "../../db/schema";
import { columnsOf, statement, type TableRow } from "../../db/statement";
import { noteActivity } from "./reading-schedule";

const tokenWithMint = statement<{ one: bigint }, [string]>("SELECT 1 AS one FROM tokens WHERE mint = ?");

/** A token has been recorded with this mint. */
export function isTokenMint(db: Db, mint: string): boolean {
  return tokenWithMint(db).get(mint) !== null;
}

const maxCreatorIndex = statement<{ m: bigint | null }, []>("SELECT MAX(creator_index) AS m FROM tokens");

/** The highest creator index a token holds, or null when there is no token. */
export function highestCreatorIndex(db: Db): bigint | null {
  return maxCreatorIndex(db).get()?.m ?? null;
}

const mintsInOrder = statement<{ mint: string }, [number]>("SELECT mint FROM tokens ORDER BY id LIMIT ?");

/** Mints in recording order, `limit` at most. */
export function tokenMints(db: Db, limit = -1): string[] {
  return mintsInOrder(db)
    .all(limit)
    .map((r) => r.mint);
}

const UNBONDED_FIELDS = ["mint", "creator"] as const;
type UnbondedRow = Pick<TableRow<typeof tokens>, (typeof UNBONDED_FIELDS)[number]>;
const unbondedInOrder = statement<UnbondedRow, []>(
  `SELECT ${columnsOf(tokens, { only: UNBONDED_FIELDS })} FROM tokens WHERE bonded = 0 ORDER BY id`,
);

/** Tokens whose bonding curve has not completed, in recording order. */
export function unbondedTokens(db: Db): { mint: string; creator: string }[] {
  return unbondedInOrder(db).all();
}

const markBondedMint = statement<never, [string]>("UPDATE tokens SET bonded = 1 WHERE mint = ? AND bonded = 0");

/** Marks the tokens bonded (a completed curve stays completed); returns how many changed. */
export function markBonded(db: Db, mints: readonly string[]): number {
  const update = markBondedMint(db);
  return mints.reduce((n, mint) => n + update.run(mint).changes, 0);
}

export interface MarketFigures {
  marketCapUsd: number | null;
  volume24hUsd: number | null;
}

const storeMarket = statement<never, [number | null, number | null, number, string]>(
  "UPDATE tokens SET market_cap_usd = ?, volume_24h_usd = ?, market_checked_at_ms = ? WHERE mint = ?",
);

/** Stores each mint's market figures, null for one the source does not know; returns the rows written. */
export function storeMarketFigures(
  db: Db,
  mints: readonly string[],
  figures: ReadonlyMap<string, MarketFigures>,
  checkedAtMs: number,
): number {
  const update = storeMarket(db);
  for (const mint of mints) {
    const f = figures.get(mint);
    update.run(f?.marketCapUsd ?? null, f?.volume24hUsd ?? null, checkedAtMs, mint);
  }
  return mints.length;
}

// bonded never turns back: a completed curve stays completed.
const readingTimeIfSeen = statement<never, [number, number, number, number, number | null, bigint]>(
  `UPDATE tokens SET vault_checked_at_ms = ?, bonded = MAX(bonded, ?)
    WHERE id = ? AND vault_checked_at_ms = ? AND last_swept_at_ms IS ? AND vault_lamports = ?`,
);
const readingIfSeen = statement<never, [bigint, number, number, number, number, number | null]>(
  `UPDATE tokens SET vault_lamports = ?, vault_checked_at_ms = ?, bonded = MAX(bonded, ?)
    WHERE id = ? AND vault_checked_at_ms = ? AND last_swept_at_ms IS ?`,
);

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
  const bonded = reading.bonded ? 1 : 0;
  const timeOnly = readingTimeIfSeen(db).run(
    reading.checkedAtMs,
    bonded,
    tokenId,
    seen.vaultCheckedAtMs,
    seen.lastSweptAtMs,
    reading.vaultLamports,
  );
  if (timeOnly.changes === 1) return true;
  const changes = readingIfSeen(db).run(
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
