/**
 * The `launches` job (DESIGN §5): finalises launches whose page stopped polling, expires stale
 * intents, and refreshes the `bonded` flag. `registerLaunchJobs` also registers the `market` job.
 */
import { deleteExpiredSessions } from "../auth";
import type { Db } from "../../db/client";
import type { ChainServices } from "../chain/services";
import type { AppContext } from "../context";
import type { JobContext, Scheduler } from "../jobs";
import { immediate } from "../../db/transaction";
import { log } from "../lib/log";
import { DexScreenerMarket, type MarketData } from "../market";
import { refreshMarket } from "../market";
import { markBonded, unbondedTokens } from "../tokens";
import {
  expireIntent,
  expireStaleIntents,
  type Intent,
  intentsWithSignatureToSettle,
  unsignedIntentsPastWindow,
} from "./intents";
import { LANDING_GRACE_MS, settleIntent } from "./service";
import { deleteDeadLaunchObjects } from "./uploads";
import { AppError } from "../lib/errors";

/** Tokens whose bonding-curve state one run reads, in batches of this size. */
const BONDED_BATCH = 100;

type JobHandle = Pick<JobContext, "signal" | "assertHeld">;

export async function runLaunchesJob(
  ctx: AppContext,
  job: JobHandle,
): Promise<{ confirmed: number; failed: number; expired: number; bonded: number }> {
  const counts = { confirmed: 0, failed: 0, expired: 0, bonded: 0 };
  const nowMs = ctx.now();
  // An unsigned intent past its window expires only when its mint is absent on chain: a create
  // that landed while the page was closed is brought by the indexer, and expiring it would leave
  // the token unrecorded, its fees unswept.
  const unsigned = unsignedIntentsPastWindow(ctx.db, nowMs - LANDING_GRACE_MS);
  const unlanded = await mintsNotOnChain(ctx, unsigned);
  const toExpire = unsigned.filter((i) => unlanded.has(i.mint)).map((i) => i.id);
  counts.expired += expireAndTidy(ctx.db, job, nowMs, toExpire);

  const chain = ctx.chain;
  if (!chain) return counts;
  const settled = await settleSignedIntents(ctx, chain, job);
  counts.confirmed += settled.confirmed;
  counts.failed += settled.failed;
  counts.expired += settled.expired;
  const bonded = await refreshBonded(ctx.db, chain, job);
  counts.bonded += bonded.bonded;

  const lastError = bonded.lastError ?? settled.lastError;
  if (lastError)
    throw lastError instanceof Error ? lastError : new AppError("LAUNCHES_JOB_FAILED", {}, { cause: lastError });
  return counts;
}

/**
 * Intents that never got a transaction expire with their window; those that did, once any
 * transaction they were handed could no longer land, unless a signature is known (settled below).
 */
function expireAndTidy(db: Db, job: JobHandle, nowMs: number, unsignedIdsToExpire: readonly string[]): number {
  return immediate(db, () => {
    job.assertHeld();
    const expired = expireStaleIntents(db, nowMs, unsignedIdsToExpire);
    // Housekeeping rides along: sessions past their seven days are refused anyway; drop the rows.
    deleteExpiredSessions(db, nowMs);
    deleteDeadLaunchObjects(db, nowMs, LANDING_GRACE_MS);
    return expired;
  });
}

/** Finishes the launches whose page gave a signature and stopped polling. */
async function settleSignedIntents(
  ctx: AppContext,
  chain: ChainServices,
  job: JobHandle,
): Promise<{ confirmed: number; failed: number; expired: number; lastError: unknown }> {
  const out = { confirmed: 0, failed: 0, expired: 0, lastError: null as unknown };
  for (const intent of intentsWithSignatureToSettle(ctx.db)) {
    if (job.signal.aborted) break;
    job.assertHeld();
    try {
      // recordConfirmedLaunch is idempotent on the mint, so a run that lost its lease between the
      // check above and this write can at worst repeat what the new holder also does.
      const result = await settleIntent(ctx, chain, intent, intent.signature!);
      if (result.kind === "confirmed") out.confirmed++;
      else if (result.kind === "failed") out.failed++;
      else if (
        (result.kind === "not_found" || result.kind === "rejected") &&
        ctx.now() > intent.expiresAtMs + LANDING_GRACE_MS &&
        // A node behind can miss a create that landed: absent mint, or no expiry.
        (await mintsNotOnChain(ctx, [intent])).has(intent.mint)
      ) {
        immediate(ctx.db, () => {
          job.assertHeld();
          expireIntent(ctx.db, intent.id);
        });
        out.expired++;
      }
    } catch (error) {
      out.lastError = error;
      log.warn("launches job: could not settle an intent", { intent: intent.id, error });
    }
  }
  return out;
}

/** Reads the curves of unbonded tokens in batches and marks those that completed. */
async function refreshBonded(
  db: Db,
  chain: ChainServices,
  job: JobHandle,
): Promise<{ bonded: number; lastError: unknown }> {
  const out = { bonded: 0, lastError: null as unknown };
  const unbonded = unbondedTokens(db);
  for (let i = 0; i < unbonded.length; i += BONDED_BATCH) {
    if (job.signal.aborted) break;
    const batch = unbonded.slice(i, i + BONDED_BATCH);
    let readings: Awaited<ReturnType<typeof chain.launchProgram.readVaults>>;
    try {
      readings = await chain.launchProgram.readVaults(batch);
    } catch (error) {
      out.lastError = error;
      log.warn("launches job: bonded read failed", { error });
      continue;
    }
    const nowBonded = readings.filter((r) => r.bonded).map((r) => r.mint);
    if (nowBonded.length === 0) continue;
    out.bonded += immediate(db, () => {
      job.assertHeld();
      return markBonded(db, nowBonded);
    });
  }
  return out;
}

/**
 * The mints of these intents that do not exist on chain, read from a node at least as new as any
 * answer seen before (the reader asks with minContextSlot). Unreadable: none (nothing expires on a guess).
 */
async function mintsNotOnChain(ctx: AppContext, intents: readonly Intent[]): Promise<Set<string>> {
  if (intents.length === 0) return new Set();
  if (!ctx.chain) return new Set(intents.map((i) => i.mint));
  try {
    const accounts = await ctx.chain.reader.getAccounts(intents.map((i) => i.mint));
    return new Set(intents.filter((i) => accounts.get(i.mint) === null).map((i) => i.mint));
  } catch (error) {
    log.warn("launches job: mint check failed, nothing expired on it", { error });
    return new Set();
  }
}

/** Registers the `launches` and `market` job bodies. Without MARKET_API_URL the market job does nothing. */
export function registerLaunchJobs(
  scheduler: Scheduler,
  ctx: AppContext,
  options: { market?: MarketData | null } = {},
): void {
  scheduler.register("launches", async (job) => ({ job: "launches" as const, ...(await runLaunchesJob(ctx, job)) }));
  const market =
    options.market !== undefined
      ? options.market
      : ctx.config.marketApiUrl
        ? new DexScreenerMarket(ctx.config.marketApiUrl)
        : null;
  scheduler.register("market", async (job) => {
    if (!market) return { job: "market" as const, configured: false, updated: 0, failedBatches: 0 };
    const refreshed = await refreshMarket(ctx.db, market, job, ctx.now);
    return { job: "market" as const, configured: true, ...refreshed };
  });
}
