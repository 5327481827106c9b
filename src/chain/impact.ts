/**
 * How far one buy moves the price it pays: its quote against what the same budget would get at the
 * pre-trade marginal price, measured by quoting a small probe with the venue's own quote math (fees
 * included in both, so they cancel). Venue-agnostic: pass any quote function.
 */

/** The probe: small enough to sit at the marginal price, large enough that token rounding does not matter. */
const PROBE_SHARE = 1_000n;
const PROBE_MIN_LAMPORTS = 100_000n;

/**
 * The buy's price impact in basis points (0 when the budget is no larger than the probe: too small
 * to move any pool this service buys on). Never negative.
 */
export function buyPriceImpactBps(budgetLamports: bigint, quote: (lamports: bigint) => bigint): number {
  const probe = budgetLamports / PROBE_SHARE > PROBE_MIN_LAMPORTS ? budgetLamports / PROBE_SHARE : PROBE_MIN_LAMPORTS;
  if (budgetLamports <= probe) return 0;
  const atMarginal = (quote(probe) * budgetLamports) / probe;
  if (atMarginal <= 0n) return 0;
  const quoted = quote(budgetLamports);
  if (quoted >= atMarginal) return 0;
  return Number(((atMarginal - quoted) * 10_000n) / atMarginal);
}
