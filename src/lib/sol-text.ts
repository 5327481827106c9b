/**
 * Lamports written as SOL, exact (bigint arithmetic, no rounding, trailing zeros trimmed): the CSV
 * export's `sol` column, and the amounts operators read (incident details on /admin, in logs and
 * webhooks) in SOL as the page's forms take them.
 */
const LAMPORTS_PER_SOL = 1_000_000_000n;

/** "1500000001" -> "1.500000001"; no grouping, no unit. */
export function solDecimal(lamports: bigint): string {
  const negative = lamports < 0n;
  const abs = negative ? -lamports : lamports;
  const frac = (abs % LAMPORTS_PER_SOL).toString().padStart(9, "0").replace(/0+$/, "");
  return `${negative ? "-" : ""}${abs / LAMPORTS_PER_SOL}${frac ? `.${frac}` : ""}`;
}

/** 1_500_000_001n -> "1.500000001 SOL"; 2_000_000_000_000n -> "2,000 SOL". */
export function solText(lamports: bigint): string {
  const [whole = "", fraction] = solDecimal(lamports).split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+$)/g, ",");
  return `${grouped}${fraction ? `.${fraction}` : ""} SOL`;
}
