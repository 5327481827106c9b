/**
 * The sweep split of DESIGN §2: the platform takes floor(T * platformBps / 10000); recipient i gets
 * floor(R * bps_i / 10000) of the rest R; the dust R - sum goes to the platform, so the parts add
 * up to T exactly.
 */
import { AppError } from "../lib/errors";
const BPS_DENOMINATOR = 10_000n;

export interface SplitShare<K> {
  key: K;
  bps: number;
}

export interface SplitResult<K> {
  platformLamports: bigint;
  dustLamports: bigint;
  recipients: { key: K; lamports: bigint }[];
}

export function splitSweep<K>(
  totalLamports: bigint,
  platformBps: number,
  shares: readonly SplitShare<K>[],
): SplitResult<K> {
  if (totalLamports < 0n) throw new AppError("SPLIT_TOTAL_NEGATIVE");
  if (!Number.isInteger(platformBps) || platformBps < 0 || platformBps > 10_000) {
    throw new AppError("SPLIT_PLATFORM_BPS_INVALID");
  }
  if (shares.length === 0) throw new AppError("SPLIT_NO_RECIPIENTS");
  let bpsSum = 0;
  for (const share of shares) {
    if (!Number.isInteger(share.bps) || share.bps <= 0 || share.bps > 10_000) {
      throw new AppError("SPLIT_RECIPIENT_BPS_INVALID");
    }
    bpsSum += share.bps;
  }
  if (bpsSum !== 10_000) throw new AppError("SPLIT_BPS_SUM_INVALID");

  const platformBase = (totalLamports * BigInt(platformBps)) / BPS_DENOMINATOR;
  const recipientsPart = totalLamports - platformBase;
  let given = 0n;
  const recipients = shares.map((share) => {
    const lamports = (recipientsPart * BigInt(share.bps)) / BPS_DENOMINATOR;
    given += lamports;
    return { key: share.key, lamports };
  });
  const dustLamports = recipientsPart - given;
  const platformLamports = platformBase + dustLamports;
  if (platformLamports + given !== totalLamports || dustLamports < 0n) {
    throw new AppError("LEDGER_INVARIANT", "sweep split does not add up");
  }
  return { platformLamports, dustLamports, recipients };
}
