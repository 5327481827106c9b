/**
 * What the money jobs call after their run returns (src/register-jobs.ts): a liability snapshot
 * after every payouts or sweep run that found the books moved since the latest snapshot, and at
 * least hourly (a snapshot an hour old is renewed either way), the prune of
 * snapshots past a year, and the anchoring of roots not yet on chain. A failure here never undoes
 * the run; a broken ledger invariant still propagates (the service must not publish from books that
 * do not add up).
 */
import type { AppContext } from "../context";
import { log } from "../lib/log";
import { anchorSnapshots } from "./anchor";
import { rememberTree } from "./service";
import { pruneSnapshots, takeSnapshot } from "./snapshots";
import { isAppError } from "../lib/errors";

export interface AfterRunOptions {
  /**
   * Keep the tree just built for the first proofs of it. Off where no proof is served from this
   * database connection (the jobs' worker thread): a tree of every account is tens of MB at scale.
   */
  rememberTree?: boolean;
  /** the run's signal: a shutdown does not wait for the anchor to confirm (anchor.ts) */
  signal?: AbortSignal;
}

export async function snapshotLiabilitiesAfterRun(
  ctx: AppContext,
  job: "payouts" | "sweep",
  options: AfterRunOptions = {},
): Promise<void> {
  try {
    const result = takeSnapshot(ctx.db, ctx.now());
    if (result.taken) {
      log.info("liability snapshot", {
        after: job,
        snapshotId: result.snapshotId,
        leaves: result.leafCount,
        totalLamports: result.totalLamports.toString(),
      });
      if (options.rememberTree ?? true) rememberTree(ctx.db, result.snapshotId, result.tree);
      pruneSnapshots(ctx.db, ctx.now());
    } else if (result.reason === "incident") {
      log.error("liability snapshot refused: the tree does not match what is owed", {
        owedLamports: result.owedLamports.toString(),
        treeLamports: result.treeLamports?.toString() ?? null,
        detail: result.detail,
      });
    }
    if (ctx.chain) await anchorSnapshots(ctx.db, ctx.chain, { nowMs: ctx.now, signal: options.signal });
  } catch (error) {
    if (isAppError(error, "LEDGER_INVARIANT")) throw error;
    log.warn("liability snapshot or anchor failed; the next run retries", { error });
  }
}
