/**
 * Lamports arrive as decimal strings and may exceed 2^53, so every conversion here is string and
 * bigint arithmetic: a float would silently change what a user is told they own.
 */
const LAMPORTS_PER_SOL = 1_000_000_000n;
const DIGITS = /^\d+$/;

/** "1500000001" -> "1.500000001", trailing zeros trimmed, thousands grouped. */
export function lamportsToSol(lamports: string | bigint): string {
  const raw = typeof lamports === "bigint" ? lamports : parseLamports(lamports);
  const negative = raw < 0n;
  const abs = negative ? -raw : raw;
  const whole = abs / LAMPORTS_PER_SOL;
  const frac = (abs % LAMPORTS_PER_SOL).toString().padStart(9, "0").replace(/0+$/, "");
  const wholeText = groupThousands(whole.toString());
  return `${negative ? "-" : ""}${wholeText}${frac ? `.${frac}` : ""}`;
}

/** Display form with the unit, e.g. "0.01 SOL". */
export function sol(lamports: string | bigint | null | undefined): string {
  if (lamports === null || lamports === undefined) return "unknown";
  return `${lamportsToSol(lamports)} SOL`;
}

export function parseLamports(text: string): bigint {
  if (!DIGITS.test(text)) throw new Error(`not a lamport amount: ${JSON.stringify(text)}`);
  return BigInt(text);
}

/**
 * What a user types ("0.5", "1,000.25", ".1") to lamports; null when it is not an amount or has
 * more than nine decimals (a lamport is the smallest unit, so rounding would be guessing).
 */
export function solToLamports(input: string): bigint | null {
  const text = input.trim().replace(/[,_\s]/g, "");
  const match = /^(\d*)(?:\.(\d*))?$/.exec(text);
  if (!match || (match[1] === "" && (match[2] ?? "") === "")) return null;
  const frac = match[2] ?? "";
  if (frac.length > 9) return null;
  return BigInt(match[1] || "0") * LAMPORTS_PER_SOL + BigInt(frac.padEnd(9, "0") || "0");
}

function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** Market figures are plain numbers from a market source (not money we hold), so Intl is fine. */
export function usd(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "unknown";
  return new Intl.NumberFormat("en-US", {
    style: "currency",
    currency: "USD",
    notation: value >= 100_000 ? "compact" : "standard",
    maximumFractionDigits: value >= 100_000 ? 1 : 0,
  }).format(value);
}

/** Basis points as a percentage, exact: 3333 -> "33.33%". */
export function bpsToPercent(bps: number): string {
  const whole = Math.trunc(bps / 100);
  const frac = String(bps % 100)
    .padStart(2, "0")
    .replace(/0+$/, "");
  return `${whole}${frac ? `.${frac}` : ""}%`;
}

/** "33.33" -> 3333 bps; null unless it has at most two decimals and is within 0..100. */
export function percentToBps(input: string): number | null {
  const match = /^(\d{1,3})(?:\.(\d{0,2}))?$/.exec(input.trim().replace(/%$/, "").trim());
  if (!match) return null;
  const bps = Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
  return bps <= 10_000 ? bps : null;
}
