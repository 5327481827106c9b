/**
 * Reading the treasury's history back to what the database knows. Signatures come newest first;
 * the scan stops once it is `slotsPastKnown` slots older than the first signature the database
 * knows. Not at that first one: a transaction saved before the backup may land after one saved
 * later (its blockhash was older, its send slower), so unknown ones can sit a little below a known
 * one, never more than a blockhash's lifetime (150 blocks) below it.
 */
import type { ChainReader } from "../chain/ports";
import { AppError } from "../lib/errors";

export interface ScanOptions {
  /** signatures a page asks for (the RPC's maximum is 1,000) */
  pageLimit: number;
  /** the most signatures read in one scan; past it the scan stops and says so */
  scannedMax: number;
  /** how far below the first known signature unknown ones are still looked for */
  slotsPastKnown: bigint;
}

export const DEFAULT_SCAN: ScanOptions = { pageLimit: 1_000, scannedMax: 100_000, slotsPastKnown: 512n };

export interface ScanResult {
  scanned: number;
  /** unknown signatures, oldest first */
  unknown: { signature: string; slot: bigint }[];
  /** every signature listed, known or not, newest first (continuity.ts checks the listing is whole) */
  listed: { signature: string; slot: bigint }[];
  /** why the scan stopped short of a known signature, or null */
  detail: string | null;
  /** the newest signature the listing held, known or not (null: the treasury has no history) */
  newest: string | null;
}

type Lister = NonNullable<ChainReader["signaturesForAddress"]>;

export async function scanHistory(
  list: Lister,
  address: string,
  isKnown: (signature: string) => boolean,
  options: ScanOptions = DEFAULT_SCAN,
  /** the books hold a transaction that landed: a history without any known one is cut short, not new */
  booksKnowLanded = false,
  /** known signatures that mark the books' history reached (not ones signed during the reconciliation) */
  isAnchor: (signature: string) => boolean = isKnown,
): Promise<ScanResult> {
  const unknown: { signature: string; slot: bigint }[] = [];
  const listed: { signature: string; slot: bigint }[] = [];
  let scanned = 0;
  let firstKnownSlot: bigint | null = null;
  let before: string | undefined;
  let newest: string | null = null;
  for (;;) {
    const page = await list(address, { before, limit: options.pageLimit });
    newest ??= page[0]?.signature ?? null;
    for (const entry of page) {
      scanned++;
      if (firstKnownSlot !== null && entry.slot + options.slotsPastKnown < firstKnownSlot) {
        return { scanned, unknown: unknown.reverse(), listed, detail: null, newest };
      }
      listed.push({ signature: entry.signature, slot: entry.slot });
      if (!isKnown(entry.signature)) unknown.push({ signature: entry.signature, slot: entry.slot });
      else if (isAnchor(entry.signature)) firstKnownSlot ??= entry.slot;
    }
    if (page.length < options.pageLimit) {
      // A node that keeps history from a recent slot only (pruned) ends the list early: were its
      // end taken for the history's start, every transaction older than its first slot would go
      // unread. The next run asks again (another node of the pool, or an archive).
      if (firstKnownSlot === null && booksKnowLanded) {
        throw new AppError("RECONCILE_HISTORY_UNREACHED");
      }
      // The history's start: everything the node has was read.
      const detail =
        firstKnownSlot === null && scanned > 0
          ? "the treasury's history holds no transaction the database knows"
          : null;
      return { scanned, unknown: unknown.reverse(), listed, detail, newest };
    }
    if (scanned >= options.scannedMax) {
      throw new AppError("RECONCILE_HISTORY_TOO_LONG", { scannedMax: options.scannedMax });
    }
    before = page[page.length - 1]!.signature;
  }
}
