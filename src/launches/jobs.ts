/**
 * The `launches` job (DESIGN §5): finalises launches whose page stopped polling, expires stale
 * intents, and refreshes the `bonded` flag. `registerLaunchJobs` also registers the `market` job.
 */
import { deleteExpiredSessions } from "../auth/sessions";
import type { AppContext } from "../context";
import type { JobContext, Scheduler } from "../jobs/scheduler";
import { immediate } from "../ledger/ledger";
import { log } from "../lib/log";
import { DexScreenerMarket, type MarketData } from "../market/adapter";
import { refreshMarket } from "../market/job";
import { type Intent, intentsWhere, PREVIEW_KEY_PREFIX } from "./intents";
import { LANDING_GRACE_MS, settleIntent } from "./service";
import { deleteDeadLaunchObjects } from "./uploads";

/** Tokens whose bonding-curve state one run reads, in batches of this size. */
export const BONDED_BATCH = 100;

type JobHandle = Pick<JobContext, "signal" | "assertHeld">;

export async function runLaunchesJob(
  ctx: AppContext,
  job: JobHandle,
): Promise<{ confirmed: number; failed: number; expired: number; bonded: number }> {
  const db = ctx.db;
  const counts = { confirmed: 0, failed: 0, expired: 0, bonded: 0 };
  const expireBefore = ctx.now();

  // Intents that never got a transaction expire with their window; those that did, once any
  // transaction they were handed could no longer land, unless a signature is known (handled below)
  // or the mint exists on chain: then a create landed whose signature the page never gave (it was
  // closed), and the indexer brings it; expiring would leave the token unrecorded, its fees unswept.
  const unsigned = intentsWhere(
    db,
    "status = 'metadata' AND signature IS NULL AND expires_at_ms < ? ORDER BY created_at_ms",
    expireBefore - LANDING_GRACE_MS,
  );
  const unlanded = await mintsNotOnChain(ctx, unsigned);
  counts.expired += immediate(db, () => {
    job.assertHeld();
    const c = db.$client;
    const a = c
      .query("UPDATE launch_intents SET status = 'expired' WHERE status = 'prepared' AND expires_at_ms < ?")
      .run(expireBefore).changes;
    const expire = c.query(
      "UPDATE launch_intents SET status = 'expired' WHERE id = ? AND status = 'metadata' AND signature IS NULL",
    );
    const b = unsigned.filter((i) => unlanded.has(i.mint)).reduce((n, i) => n + expire.run(i.id).changes, 0);
    // Housekeeping rides along: sessions past their seven days are refused anyway; drop the rows.
    deleteExpiredSessions(db, expireBefore);
    c.query(
      `DELETE FROM local_objects WHERE cid LIKE '${PREVIEW_KEY_PREFIX}%'
         AND substr(cid, ${PREVIEW_KEY_PREFIX.length + 1}) IN (SELECT id FROM launch_intents WHERE status = 'expired')`,
    ).run();
    deleteDeadLaunchObjects(db, expireBefore, LANDING_GRACE_MS);
    return a + b;
  });

  const chain = ctx.chain;
  if (!chain) return counts;
  let lastError: unknown = null;

  for (const intent of intentsWhere(db, "status = 'metadata' AND signature IS NOT NULL ORDER BY created_at_ms")) {
    if (job.signal.aborted) break;
    job.assertHeld();
    try {
      // recordConfirmedLaunch is idempotent on the mint, so a run that lost its lease between the
      // check above and this write can at worst repeat what the new holder also does.
      const result = await settleIntent(ctx, chain, intent, intent.signature!);
      if (result.kind === "confirmed") counts.confirmed++;
      else if (result.kind === "failed") counts.failed++;
      else if (
        (result.kind === "not_found" || result.kind === "rejected") &&
        ctx.now() > intent.expiresAtMs + LANDING_GRACE_MS &&
        // A node behind can miss a create that landed: absent mint, or no expiry.
        (await mintsNotOnChain(ctx, [intent])).has(intent.mint)
      ) {
        immediate(db, () => {
          job.assertHeld();
          db.$client
            .query("UPDATE launch_intents SET status = 'expired' WHERE id = ? AND status = 'metadata'")
            .run(intent.id);
        });
        counts.expired++;
      }
    } catch (error) {
      lastError = error;
      log.warn("launches job: could not settle an intent", { intent: intent.id, error });
    }
  }

  const unbonded = db.$client.query("SELECT mint, creator FROM tokens WHERE bonded = 0 ORDER BY id").all() as {
    mint: string;
    creator: string;
  }[];
  for (let i = 0; i < unbonded.length; i += BONDED_BATCH) {
    if (job.signal.aborted) break;
    const batch = unbonded.slice(i, i + BONDED_BATCH);
    let readings;
    try {
      readings = await chain.launchProgram.readVaults(batch);
    } catch (error) {
      lastError = error;
      log.warn("launches job: bonded read failed", { error });
      continue;
    }
    const nowBonded = readings.filter((r) => r.bonded).map((r) => r.mint);
    if (nowBonded.length === 0) continue;
    counts.bonded += immediate(db, () => {
      job.assertHeld();
      const update = db.$client.query("UPDATE tokens SET bonded = 1 WHERE mint = ? AND bonded = 0");
      return nowBonded.reduce((n, mint) => n + update.run(mint).changes, 0);
    });
  }

  if (lastError) throw lastError instanceof Error ? lastError : new Error("launches job failed");
  return counts;
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
  scheduler.register("launches", async (job) => {
    await runLaunchesJob(ctx, job);
  });
  const market =
    options.market !== undefined
      ? options.market
      : ctx.config.marketApiUrl
        ? new DexScreenerMarket(ctx.config.marketApiUrl)
        : null;
  scheduler.register("market", async (job) => {
    if (!market) return;
    await refreshMarket(ctx.db, market, job, ctx.now);
  });
}
