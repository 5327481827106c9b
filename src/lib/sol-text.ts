/**
 * Amounts in the words operators read (incident details on /admin, in logs and webhooks), in SOL
 * as the page's forms take them: exact, bigint arithmetic, trailing zeros trimmed.
 */
const LAMPORTS_PER_SOL = 1_000_000_000n;

/** 1_500_000_001n -> "1.500000001 SOL"; 2_000_000_000_000n -> "2,000 SOL". */
export function solText(lamports: bigint): string {
  const abs = lamports < 0n ? -lamports : lamports;
  const whole = (abs / LAMPORTS_PER_SOL).toString().replace(/\B(?=(\d{3})+$)/g, ",");
  const fraction = (abs % LAMPORTS_PER_SOL).toString().padStart(9, "0").replace(/0+$/, "");
  return `${lamports < 0n ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""} SOL`;
}
