/**
 * Market data for the Explore list: market cap and 24 h volume per mint, from an HTTP API shaped
 * like DexScreener's token endpoint (`GET /tokens/v1/{chain}/{comma-separated addresses}`, at most
 * 30 addresses a call, answering an array of pairs). Unknown values are null, never 0.
 */
import { AppError } from "../lib/errors";
import type { MarketFigures } from "../tokens";
import { log } from "../lib/log";

export type { MarketFigures };

export interface MarketData {
  /** most addresses one call may ask for */
  readonly batchSize: number;
  /** SOL's price in USD implied by the last batch's SOL-quoted pairs; null when none gave it */
  readonly solUsd?: number | null;
  /** Figures for the mints the source knows; a mint it does not know is absent from the map. */
  fetchBatch(mints: readonly string[]): Promise<Map<string, MarketFigures>>;
}

interface Pair {
  chainId?: unknown;
  baseToken?: { address?: unknown };
  marketCap?: unknown;
  fdv?: unknown;
  volume?: { h24?: unknown };
  liquidity?: { usd?: unknown };
  quoteToken?: { address?: unknown };
  priceUsd?: unknown;
  priceNative?: unknown;
}

/** Wrapped SOL: the quote token of pump pairs. */
export const WSOL_MINT = "So11111111111111111111111111111111111111112";

const positive = (v: unknown): number | null => {
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : typeof v === "number" ? v : Number.NaN;
  return Number.isFinite(n) && n > 0 ? n : null;
};

/**
 * SOL's price in USD as the source states it: a SOL-quoted pair's price in USD over its price in
 * SOL, from the most liquid such pair. Null when no pair gives both (nothing is made up).
 */
export function solUsdFromPairs(pairs: readonly Pair[], chainId: string): number | null {
  let best: { liquidity: number; usd: number } | null = null;
  for (const pair of pairs) {
    if (!pair || typeof pair !== "object") continue;
    if (pair.chainId !== undefined && pair.chainId !== chainId) continue;
    if (pair.quoteToken?.address !== WSOL_MINT) continue;
    const usd = positive(pair.priceUsd);
    const native = positive(pair.priceNative);
    if (usd === null || native === null) continue;
    const liquidity = finite(pair.liquidity?.usd) ?? 0;
    if (!best || liquidity > best.liquidity) best = { liquidity, usd: usd / native };
  }
  return best && Number.isFinite(best.usd) ? best.usd : null;
}

const finite = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : null);

/**
 * Per mint, the pair with the most liquidity gives the market cap (its price is the one that
 * holds), and 24 h volume is summed over every pair of the mint, since each trade happens on one.
 */
function figuresFromPairs(
  pairs: readonly Pair[],
  mints: readonly string[],
  chainId: string,
): Map<string, MarketFigures> {
  const wanted = new Set(mints);
  const best = new Map<string, { liquidity: number; cap: number | null }>();
  const volume = new Map<string, number>();
  for (const pair of pairs) {
    if (!pair || typeof pair !== "object") continue;
    if (pair.chainId !== undefined && pair.chainId !== chainId) continue;
    const mint = pair.baseToken?.address;
    if (typeof mint !== "string" || !wanted.has(mint)) continue;
    const liquidity = finite(pair.liquidity?.usd) ?? 0;
    const cap = finite(pair.marketCap) ?? finite(pair.fdv);
    const current = best.get(mint);
    if (!current || liquidity > current.liquidity || (current.cap === null && cap !== null))
      best.set(mint, { liquidity, cap });
    const h24 = finite(pair.volume?.h24);
    if (h24 !== null) volume.set(mint, (volume.get(mint) ?? 0) + h24);
  }
  const out = new Map<string, MarketFigures>();
  for (const [mint, b] of best) out.set(mint, { marketCapUsd: b.cap, volume24hUsd: volume.get(mint) ?? null });
  return out;
}

export class DexScreenerMarket implements MarketData {
  readonly batchSize = 30;
  solUsd: number | null = null;

  constructor(
    private readonly baseUrl: string,
    private readonly chainId = "solana",
    private readonly timeoutMs = 10_000,
  ) {}

  async fetchBatch(mints: readonly string[]): Promise<Map<string, MarketFigures>> {
    if (mints.length === 0) return new Map();
    if (mints.length > this.batchSize) throw new AppError("MARKET_BATCH_TOO_LARGE", { batchSize: this.batchSize });
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}/tokens/v1/${this.chainId}/${mints.join(",")}`, {
        headers: { accept: "application/json" },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new AppError("MARKET_UNREACHABLE", { failure: (error as Error)?.name ?? "error" }, { cause: error });
    }
    if (!response.ok) throw new AppError("MARKET_HTTP_STATUS", { status: response.status });
    let body: unknown;
    try {
      body = await response.json();
    } catch (error) {
      throw new AppError("MARKET_NOT_JSON", {}, { cause: error });
    }
    // The older `/latest/dex/tokens` shape wraps the same pairs in {pairs}.
    const pairs = Array.isArray(body)
      ? body
      : Array.isArray((body as { pairs?: unknown })?.pairs)
        ? (body as { pairs: Pair[] }).pairs
        : null;
    if (!pairs) {
      log.warn("market data answer has no pairs");
      return new Map();
    }
    this.solUsd = solUsdFromPairs(pairs as Pair[], this.chainId);
    return figuresFromPairs(pairs as Pair[], mints, this.chainId);
  }
}
