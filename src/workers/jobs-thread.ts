/**
 * Worker thread: the scheduler with its jobs, the indexer and the webhook sender, on this thread's
 * own connection to the service's database. The request thread only serves requests: its cron
 * route and the demo's early sweeps ask this thread to run a job, and it reports each run's result
 * (for /metrics) and the indexer's state (for /metrics and /api/cron/health) back.
 */
import { closeDatabase, JOBS_PAGE_CACHE_KIB, openDatabase } from "../../db/client";
import { startIndexer, type Indexer } from "../../indexer";
import { setupChain, setupChainOverEndpoints } from "../chain/setup";
import { loadConfig } from "../config";
import { connectFeedListeners } from "../feed-listeners";
import { RateLimiter } from "../http/rate-limit";
import { JOB_NAMES } from "../jobs/names";
import { Scheduler } from "../jobs/scheduler";
import type { SchedulingContext } from "../jobs/setup";
import { log, setLogLevel } from "../lib/log";
import { createServiceMetrics } from "../lib/metrics";
import { startRebroadcaster } from "../landing/rebroadcast";
import { registerJobs } from "../register-jobs";
import { WebhookDispatcher } from "../webhooks/dispatcher";
import { webhookSigningKey } from "../webhooks/key";
import { startCheckpoints } from "../../db/checkpoints";
import { bridgeFeed } from "./feed-bridge";
import { parentOf } from "./port";
import { nameThisThread, THREAD_NAMES, yieldToRequests } from "./priority";
import { pacedFetch } from "./pace";
import type { JobsProtocol } from "./protocol";
import { holdForReconciliation } from "../reconcile";

/** How often the indexer's state is sent to the request thread (its health and metrics show it). */
export const INDEXER_STATE_EVERY_MS = 500;

const { start, parent } = parentOf<JobsProtocol>();
const { endpoints } = start;
nameThisThread(THREAD_NAMES.jobs);
yieldToRequests();
const config = loadConfig(start.env);
setLogLevel(config.logLevel);
connectFeedListeners();
// On a real chain nothing is started here: setupChain only builds the RPC clients.
// The jobs reach the chain through a fetch that rests while requests come (src/workers/pace.ts).
const chainFetch = start.requests ? pacedFetch(fetch, start.requests) : fetch;
const chain = endpoints
  ? setupChainOverEndpoints(config, endpoints, { fetch: chainFetch })
  : await setupChain(config, undefined, { fetch: chainFetch });
const db = openDatabase(config.databasePath, { pageCacheKib: JOBS_PAGE_CACHE_KIB });
// The request thread's connection has handed its checkpoints to this thread (db/checkpoints.ts).
const stopCheckpoints = startCheckpoints(db);
const closeBridge = bridgeFeed(db, config.databasePath);
const scheduler = new Scheduler(db, {
  leaseMs: config.jobLeaseMs,
  schedules: config.schedules,
  onRunFinished: (job, result) => {
    if (!result.ran) return;
    if (result.ok) log.info("job finished", { job, durationMs: result.durationMs });
    else log.warn("job failed", { job, error: result.error, durationMs: result.durationMs });
    parent.notify({ type: "finished", job, result });
  },
});
const ctx: SchedulingContext = {
  config,
  db,
  scheduler,
  limiter: new RateLimiter(),
  metrics: createServiceMetrics(),
  chain: chain.services,
  now: Date.now,
};
// Proofs are served by the request thread, which rebuilds a tree from its stored leaves when asked.
registerJobs(ctx, { servesProofs: false });

let indexer: Indexer | null = null;
let webhooks: WebhookDispatcher | null = null;
let stateTimer: ReturnType<typeof setInterval> | null = null;
let stopRebroadcaster: (() => void) | null = null;

/** The schedules, the indexer and the webhook sender: only when JOBS is on, as before the threads. */
function startWork(): void {
  // Money (sweeps included) waits until a run has checked the treasury's history against the books
  // (src/reconcile): a database restored, or copied back by hand, is never paid from twice. With
  // JOBS off too: there the first payouts or sweep run the cron route fires checks it.
  holdForReconciliation(db, "start", ctx.now());
  // Also without schedules: runs fired by the cron route sign transactions that must be sent
  // again until they land, whoever runs next.
  stopRebroadcaster = startRebroadcaster(
    { db, chain: chain.services, now: ctx.now },
    { intervalMs: config.rebroadcastMs },
  );
  if (!config.jobsEnabled) return;
  indexer = startIndexer(ctx, chain, {
    grpcUrl: config.grpcUrl ?? endpoints?.grpcUrl ?? null,
    rpcUrl: config.rpcUrl ?? endpoints?.rpcUrl ?? null,
    // The node is in another thread (local: null here): the adapter comes from the chain setup.
    launchProgramOver: chain.launchProgramOver,
  });
  const running = indexer;
  stateTimer = setInterval(() => parent.notify({ type: "indexer", state: running.state() }), INDEXER_STATE_EVERY_MS);
  parent.notify({ type: "indexer", state: running.state() });
  scheduler.start();
  // The check above runs now, not at the payouts schedule's next minute.
  void scheduler.runNow("payouts");
  webhooks = new WebhookDispatcher(db, {
    signingKey: webhookSigningKey(config),
    allowPrivate: config.webhooksAllowPrivate,
    maxInFlightPerEndpoint: config.webhooksMaxInFlight,
  }).start();
}

/**
 * Safe points first (runs abort at their next one and release their leases), then the books close,
 * whatever the steps before threw: a connection left open when the thread ends keeps the request
 * thread's close from being the last, and the WAL is then left on disk, not checkpointed.
 */
async function stopWork(): Promise<void> {
  try {
    stopRebroadcaster?.();
    if (stateTimer) clearInterval(stateTimer);
    await indexer?.stop();
    parent.notify({ type: "indexer", state: null });
    await webhooks?.stop();
    await scheduler.stop();
  } finally {
    closeBridge();
    stopCheckpoints();
    closeDatabase(db);
  }
}

parent.onNotice((notice) => {
  if (notice.type === "start") startWork();
});
parent.serve({
  run: (job) => scheduler.runNow(job),
  stop: async () => {
    await stopWork();
    return null;
  },
});
parent.notify({ type: "ready", registered: JOB_NAMES.filter((job) => scheduler.isRegistered(job)) });
