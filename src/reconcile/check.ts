/**
 * The check of the treasury's history against the books, before money moves. A database can be
 * older than the chain without anybody saying so: a volume snapshot put back, a file copied back.
 * So every start holds money (payouts, burns, withdrawals and sweeps) until the history has been
 * read back to the books' newest landed transaction, however many pages that takes: a window of
 * the newest few signatures is not enough, since transactions the rolled-back books do know (the
 * sweeps of a service that kept running) push the forgotten ones out of it. Once that check has
 * passed, each payouts run looks at the newest signatures only, for a transaction signed elsewhere.
 * Strangers' credits in the history are booked as surplus and never start a reconciliation
 * (credits.ts).
 */
import type { Db } from "../../db/client";
import type { ChainServices } from "../chain/services";
import { isAppError } from "../lib/errors";
import { log } from "../lib/log";
import { verifyContinuity } from "./continuity";
import { classifyUnknown, classifyUnknowns } from "./credits";
import { DEFAULT_SCAN, type ScanOptions, type ScanResult, scanHistory } from "./scan";
import {
  activeReconciliation,
  isAnchorSignature,
  isKnownSignature,
  knowsLandedTransaction,
  releaseHold,
  restoredAtMs,
  startHoldTaken,
} from "./store";

export interface CheckDeps {
  db: Db;
  chain: ChainServices;
  now: () => number;
  scan?: ScanOptions;
}

export type HistoryCheck =
  | { verdict: "clean" }
  /** nothing proven either way yet (a transaction not readable, a listing behind the balance): ask again */
  | { verdict: "wait"; why: string }
  /** `scan`: the history the check read, for the reconciliation to apply (null: it reads it itself) */
  | { verdict: "reconcile"; reason: "restore" | "start"; scan: ScanResult | null };

/** The newest signatures a payouts run looks at once the start's check has passed. */
const NEWEST_CHECKED = 25;
/** Unknown signatures read in one check at most; past them the check waits for the next run. */
const READS_PER_CHECK = 200;
/** Pages of the newest history read when telling credits after a listing from a history cut short. */
const PAGES_SINCE_LISTING_MAX = 5;

export async function checkHistory(deps: CheckDeps): Promise<HistoryCheck> {
  const { db, chain } = deps;
  const list = chain.reader.signaturesForAddress?.bind(chain.reader);
  // A reader that cannot page history (a test's fake) has nothing to check against.
  if (!list) return { verdict: "clean" };
  if (restoredAtMs(db) !== null) return { verdict: "reconcile", reason: "restore", scan: null };
  return startHoldTaken(db) ? checkSinceBooks(deps, list) : checkNewest(deps, list);
}

type Lister = NonNullable<ChainServices["reader"]["signaturesForAddress"]>;

/** The start's check: the whole history since the books' newest landed transaction. */
async function checkSinceBooks(deps: CheckDeps, list: Lister): Promise<HistoryCheck> {
  const { db, chain } = deps;
  const treasury = chain.treasury.publicKey.toBase58();
  const scan = await scanHistory(
    list,
    treasury,
    (signature) => isKnownSignature(db, signature),
    deps.scan ?? DEFAULT_SCAN,
    knowsLandedTransaction(db),
    (signature) => isAnchorSignature(db, signature),
  );
  const verdict = await classifyUnknowns(db, chain.reader, treasury, scan.unknown, {
    atMs: deps.now(),
    readsMax: READS_PER_CHECK,
  });
  if (verdict.acted > 0) {
    // The credits just booked are known now: the reconciliation does not read them again.
    const unknown = scan.unknown.filter((entry) => !isKnownSignature(db, entry.signature));
    return { verdict: "reconcile", reason: "start", scan: { ...scan, unknown } };
  }
  if (verdict.unreadable > 0)
    return { verdict: "wait", why: `${verdict.unreadable} treasury transaction(s) not readable yet` };
  const whole = await verifyContinuity(db, chain.reader, treasury, scan.listed);
  if (!whole.whole) return { verdict: "wait", why: whole.why };
  if (!(await reachesNow(deps, treasury, scan, whole.end)))
    return { verdict: "wait", why: "the history listed does not reach the treasury's balance now" };
  return { verdict: "clean" };
}

/** After the start's check: the newest signatures, for a transaction signed by another holder of the key. */
async function checkNewest(deps: CheckDeps, list: Lister): Promise<HistoryCheck> {
  const { db, chain } = deps;
  const treasury = chain.treasury.publicKey.toBase58();
  const page = await list(treasury, { limit: NEWEST_CHECKED });
  const unknown = page.filter((entry) => !isKnownSignature(db, entry.signature));
  if (unknown.length === 0) return { verdict: "clean" };
  const verdict = await classifyUnknowns(db, chain.reader, treasury, unknown, {
    atMs: deps.now(),
    readsMax: NEWEST_CHECKED,
  });
  // One not readable yet is read by the next run: every transaction this service signs is
  // journalled before it is sent, so since the start's check only a second holder of the key
  // could have signed it, and the next minute's run sees it as well.
  return verdict.acted > 0 ? { verdict: "reconcile", reason: "start", scan: null } : { verdict: "clean" };
}

/**
 * Whether the listing reached the present: the treasury's balance after the newest transaction
 * listed is its balance now, read from a node at least at that transaction's slot, less what
 * strangers credited since (a trickle of dust lands between any two requests). A node behind the
 * others lists the history up to its own slot, and a check that took it for the whole would miss
 * the newest transactions (and send their payouts again).
 */
export async function reachesNow(
  deps: CheckDeps,
  treasury: string,
  scan: ScanResult,
  /** the balance the newest listed slot left, as the continuity check chained it (its order within the slot) */
  end: { slot: bigint; balance: bigint } | null = null,
): Promise<boolean> {
  // No history at all: nothing to reach (a history cut short is refused by the scan itself).
  if (scan.newest === null) return true;
  const reader = deps.chain.reader;
  let after = end?.balance ?? null;
  let slot = end?.slot ?? null;
  if (after === null || slot === null) {
    const tx = await reader.getTransaction(scan.newest);
    const i = tx?.accountKeys.indexOf(treasury) ?? -1;
    if (!tx || i < 0) return false;
    after = tx.postBalances[i]!;
    slot = tx.slot;
  }
  if (!reader.getBalancesAt) return (await reader.getBalances([treasury])).get(treasury) === after;
  const now = await reader.getBalancesAt([treasury], slot);
  const gained = (now.balances.get(treasury) ?? 0n) - after;
  if (gained === 0n) return true;
  const credited = await creditedSince(deps, treasury, scan.newest, now.slot);
  return credited !== null && credited === gained;
}

/**
 * What strangers credited the treasury after `newest`, up to `atSlot` (the balance's slot); null
 * when anything else landed meanwhile, or `newest` is not found in the newest pages.
 */
async function creditedSince(
  deps: CheckDeps,
  treasury: string,
  newest: string,
  atSlot: bigint,
): Promise<bigint | null> {
  const list = deps.chain.reader.signaturesForAddress!.bind(deps.chain.reader);
  let before: string | undefined;
  let credited = 0n;
  for (let pages = 0; pages < PAGES_SINCE_LISTING_MAX; pages++) {
    const page = await list(treasury, { before, limit: 1_000 });
    for (const entry of page) {
      if (entry.signature === newest) return credited;
      // Landed after the balance was read: not in it.
      if (entry.slot > atSlot) continue;
      const classified = await classifyUnknown(deps.db, deps.chain.reader, treasury, entry, deps.now());
      if (classified.kind !== "credit") return null;
      credited += classified.lamports;
    }
    if (page.length < 1_000) return null;
    before = page[page.length - 1]!.signature;
  }
  return null;
}

/**
 * For a job other than payouts (the sweep): whether the start's check has passed, running it when
 * it has not. It never starts a reconciliation: the payouts run does that, under its own lease.
 */
export async function startCheckPassed(deps: CheckDeps): Promise<boolean> {
  const { db } = deps;
  if (!startHoldTaken(db)) return true;
  if (activeReconciliation(db) || restoredAtMs(db) !== null) return false;
  let check: HistoryCheck;
  try {
    check = await checkHistory(deps);
  } catch (error) {
    // The chain could not show the history (unavailable, pruned, too long): still held.
    if (!isAppError(error) || isAppError(error, "LEDGER_INVARIANT")) throw error;
    log.warn("the treasury's history could not be checked; held until it can", { code: error.code });
    return false;
  }
  if (check.verdict !== "clean") return false;
  releaseHold(db, deps.now());
  return !startHoldTaken(db);
}
