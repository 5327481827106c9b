/**
 * The `market` job (DESIGN §5): market cap and 24 h volume for every token, in batches, from the
 * market data adapter. A token the source does not know gets null (unknown), never 0. A batch that
 * fails keeps its tokens' last figures and fails the run, after the other batches were written.
 */
import type { Db } from "../../db/client";
import type { JobContext } from "../jobs";
import { immediate } from "../../db/transaction";
import { log } from "../lib/log";
import { SOL_USD_KEY, writeSetting } from "../settings";
import { storeMarketFigures, tokenMints } from "../tokens";
import type { MarketData, MarketFigures } from "./adapter";
import { AppError } from "../lib/errors";

export async function refreshMarket(
  db: Db,
  market: MarketData,
  job: Pick<JobContext, "signal" | "assertHeld">,
  nowMs: () => number,
): Promise<{ updated: number; failedBatches: number }> {
  const mints = tokenMints(db);
  let updated = 0;
  let failedBatches = 0;
  let lastError: unknown = null;
  let solUsd: { usd: number; atMs: number } | null = null;
  for (let i = 0; i < mints.length; i += market.batchSize) {
    if (job.signal.aborted) break;
    const batch = mints.slice(i, i + market.batchSize);
    let figures: Map<string, MarketFigures>;
    try {
      figures = await market.fetchBatch(batch);
    } catch (error) {
      failedBatches++;
      lastError = error;
      log.warn("market batch failed", { error, size: batch.length });
      continue;
    }
    const at = nowMs();
    if (typeof market.solUsd === "number") solUsd = { usd: market.solUsd, atMs: at };
    immediate(db, () => {
      job.assertHeld();
      updated += storeMarketFigures(db, batch, figures, at);
    });
  }
  // The page shows USD beside SOL only from a price the source gave (and only while it is fresh).
  if (solUsd) {
    const price = solUsd;
    immediate(db, () => {
      job.assertHeld();
      writeSetting(db, SOL_USD_KEY, JSON.stringify(price));
    });
  }
  if (failedBatches > 0)
    throw lastError instanceof Error ? lastError : new AppError("MARKET_BATCHES_FAILED", { failed: failedBatches });
  return { updated, failedBatches };
}
