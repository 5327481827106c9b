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

/**
 * The amount as lists show it: four decimals, or two significant digits below 0.0001 SOL so a
 * non-zero amount never reads as zero; cut toward zero (a shown figure is never more than there
 * is). "1.500000001" -> "1.5 SOL", "0.000012345" -> "0.000012 SOL". `sol()` is the exact one.
 */
export function solShort(lamports: string | bigint | null | undefined): string {
  if (lamports === null || lamports === undefined) return "unknown";
  const raw = typeof lamports === "bigint" ? lamports : parseLamports(lamports);
  const abs = raw < 0n ? -raw : raw;
  const whole = abs / LAMPORTS_PER_SOL;
  const digits = (abs % LAMPORTS_PER_SOL).toString().padStart(9, "0");
  const firstSignificant = digits.search(/[1-9]/);
  const keep = whole > 0n || firstSignificant < 4 ? 4 : Math.min(9, firstSignificant + 2);
  const frac = digits.slice(0, keep).replace(/0+$/, "");
  return `${raw < 0n ? "-" : ""}${groupThousands(whole.toString())}${frac ? `.${frac}` : ""} SOL`;
}

function parseLamports(text: string): bigint {
  if (!DIGITS.test(text)) throw new Error(`not a lamport amount: ${JSON.stringify(text)}`);
  return BigInt(text);
}

/**
 * What a user types ("0.5", "0,5", "1,000.25", "1.000,25", ".1") to lamports; null when it is not
 * an amount or has more than nine decimals (a lamport is the smallest unit, so rounding would be
 * guessing). A comma is the decimal mark wherever it cannot be a thousands separator: "0,05" is
 * five hundredths, "1,000" is a thousand, "1,5" is one and a half.
 */
export function solToLamports(input: string): bigint | null {
  const text = input.trim().replace(/[_\s\u00a0\u202f']/g, "");
  const normalized = normalizeDecimal(text);
  if (normalized === null) return null;
  const match = /^(\d*)(?:\.(\d*))?$/.exec(normalized);
  if (!match || (match[1] === "" && (match[2] ?? "") === "")) return null;
  const frac = match[2] ?? "";
  if (frac.length > 9) return null;
  return BigInt(match[1] || "0") * LAMPORTS_PER_SOL + BigInt(frac.padEnd(9, "0") || "0");
}

/** Groups of three after a non-zero lead group: how a thousands separator is used. */
const grouped = (whole: string, mark: "," | ".") => new RegExp(`^[1-9]\\d{0,2}(?:\\${mark}\\d{3})+$`).test(whole);

/** The amount with "." as its only mark, or null when its marks cannot be read one way. */
function normalizeDecimal(text: string): string | null {
  const commas = text.split(",").length - 1;
  const dots = text.split(".").length - 1;
  if (commas > 0 && dots > 0) {
    // Both marks: the last one is the decimal mark, the other must group thousands before it.
    const decimal = text.lastIndexOf(",") > text.lastIndexOf(".") ? "," : ".";
    const group = decimal === "," ? "." : ",";
    const at = text.lastIndexOf(decimal);
    const whole = text.slice(0, at);
    if (text.split(decimal).length - 1 !== 1 || !grouped(whole, group)) return null;
    return `${whole.split(group).join("")}.${text.slice(at + 1)}`;
  }
  if (commas > 0) {
    if (grouped(text, ",")) return text.replace(/,/g, "");
    return commas === 1 ? text.replace(",", ".") : null;
  }
  if (dots > 1) return grouped(text, ".") ? text.replace(/\./g, "") : null;
  return text;
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

/**
 * A lamport amount's value in USD at `solUsd` dollars per SOL, for showing beside the exact SOL
 * figure: "$300.00", "< $0.01"; null for zero or an unreadable amount. A float is fine here: the
 * price itself is an estimate, and the SOL figure next to it stays exact.
 */
export function usdOfLamports(lamports: string | bigint, solUsd: number): string | null {
  let raw: bigint;
  try {
    raw = typeof lamports === "bigint" ? lamports : parseLamports(lamports);
  } catch {
    return null;
  }
  if (raw <= 0n || !Number.isFinite(solUsd) || solUsd <= 0) return null;
  const value = (Number(raw) / 1e9) * solUsd;
  if (value < 0.01) return "< $0.01";
  return new Intl.NumberFormat("en-US", {
    style: "currency",
    currency: "USD",
    notation: value >= 1_000_000 ? "compact" : "standard",
    maximumFractionDigits: value >= 1_000_000 ? 2 : 2,
    minimumFractionDigits: value >= 1_000_000 ? 0 : 2,
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
