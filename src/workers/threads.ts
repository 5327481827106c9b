/**
 * Starting the worker threads from the composition root (src/main.ts): the embedded local chain
 * (with the demo) in one, the scheduler, the indexer and the webhook sender in another. The request
 * thread keeps the HTTP API and its own database connection; see src/workers/protocol.ts.
 */
import { type ChainSetup, type LocalChainEndpoints, secretsFor, setupChainOverEndpoints } from "../chain/setup";
import type { Config } from "../config";
import { READ_MEMO_STALE_MS, readMemo } from "../http/read-memo";
import { type IndexerState, registerIndexerState } from "../jobs";
import type { SchedulingContext } from "../jobs/setup";
import { indexerMetrics } from "../metrics/routes";
import { handOffCheckpoints } from "../../db/checkpoints";
import { pathToFileURL } from "node:url";
import { appFile, insideExecutable } from "../lib/app-files";
import { bridgeFeed } from "./feed-bridge";
import { WorkerLink } from "./link";
import { lowerRuntimeHelpers } from "./priority";
import { countRequests } from "./pace";
import type { Env } from "./protocol";
import { RemoteScheduler } from "./remote-scheduler";
import { publishStats } from "../stats/service";

/** A thread's entry file: beside this one, or inside the single executable under its path in the checkout. */
function threadEntry(file: string): URL {
  return insideExecutable ? pathToFileURL(appFile("src", "workers", file)) : new URL(`./${file}`, import.meta.url);
}

const NOT_REGISTERED = { ran: false, reason: "not_registered" } as const;

const STANDBY: IndexerState = {
  mode: "standby",
  connected: false,
  lastSlot: null,
  headSlot: null,
  lagSlots: null,
  lastUpdateAt: null,
  reconnects: 0,
  lastError: null,
  tokens: 0,
};

function envOf(): Env {
  return { ...process.env };
}

export interface ChainThread {
  /** the chain as the request thread holds it: RPC clients to the node in the worker */
  setup: ChainSetup;
  endpoints: LocalChainEndpoints;
  /** creates the demo tokens and starts trading (in the chain's thread); early sweeps go to `jobs` */
  startDemo(jobs: JobsThread): Promise<void>;
}

/** The embedded local chain in its worker. Secrets are made here first, so a bad one exits as before. */
export async function startChainThread(config: Config): Promise<ChainThread> {
  secretsFor(config);
  const programSeed = crypto.getRandomValues(new Uint8Array(32));
  let jobs: JobsThread | null = null;
  const link: WorkerLink = new WorkerLink(
    "chain",
    threadEntry("chain-thread.ts"),
    { env: envOf(), endpoints: null, requests: null, programSeed },
    async (message) => {
      if (message.type !== "run") return;
      const result = jobs ? await jobs.scheduler.runNow(message.job) : NOT_REGISTERED;
      link.post({ type: "ran", id: message.id, result });
    },
  );
  const ready = await link.next("ready");
  const endpoints = ready.endpoints!;
  const over = setupChainOverEndpoints(config, endpoints);
  return {
    endpoints,
    setup: { ...over, stop: () => link.stop() },
    async startDemo(thread) {
      jobs = thread;
      const done = link.next("demo-done", 300_000);
      link.post({ type: "demo" });
      await done;
    },
  };
}

export interface JobsThread {
  scheduler: RemoteScheduler;
  /** starts the schedules, the indexer and the webhook sender (JOBS on) */
  start(): void;
  /** stops them at a safe point, releases the leases, closes the thread's connection */
  stop(): Promise<void>;
}

/**
 * The jobs' thread, installed as `ctx.scheduler` (the cron route hands its runs over) and as the
 * source of the indexer's health and metrics. Without JOBS and without a cron secret no job can
 * ever run, so no thread is started.
 */
export async function startJobsThread(
  ctx: SchedulingContext,
  endpoints: LocalChainEndpoints | null,
): Promise<JobsThread> {
  const closeBridge = bridgeFeed(ctx.db, ctx.config.databasePath);
  // Other threads write the books all the time now: public bodies may be up to a second old.
  readMemo(ctx.db).staleMs = READ_MEMO_STALE_MS;
  if (!ctx.config.jobsEnabled && !ctx.config.cronSecret) {
    const scheduler = new RemoteScheduler(ctx.db, new Set(), {
      run: async () => ({ ran: false, reason: "stopping" }),
    });
    ctx.scheduler = scheduler;
    return { scheduler, start() {}, stop: async () => closeBridge() };
  }
  let indexer: IndexerState | null = null;
  const link = new WorkerLink(
    "jobs",
    threadEntry("jobs-thread.ts"),
    { env: envOf(), endpoints, requests: countRequests() },
    (m) => {
      if (m.type === "indexer") indexer = m.state;
      if (m.type === "stats") publishStats(ctx.db, m.stats, m.atMs);
      if (m.type !== "finished" || !m.result.ran) return;
      ctx.metrics.jobRuns.inc({ job: m.job, outcome: m.result.ok ? "ok" : "error" });
      ctx.metrics.jobSeconds.observe({ job: m.job }, m.result.durationMs / 1000);
    },
  );
  const ready = await link.next("ready");
  // The jobs' thread checkpoints from now on: a checkpoint in a request's commit stalls every request.
  handOffCheckpoints(ctx.db);
  // The jobs' heaps keep the runtime's GC markers busy: those run below the requests too.
  const stopLowering = lowerRuntimeHelpers();
  const scheduler = new RemoteScheduler(ctx.db, new Set(ready.registered), {
    run: (job) => link.runJob(job),
  });
  ctx.scheduler = scheduler;
  let unregister = () => {};
  return {
    scheduler,
    start() {
      link.post({ type: "start" });
      if (!ctx.config.jobsEnabled) return;
      // As when the indexer ran on this thread: its state is there from the start, standby until it reports.
      unregister = registerIndexerState(ctx, () => indexer ?? STANDBY);
      ctx.extraMetrics = [...(ctx.extraMetrics ?? []), () => indexerMetrics(indexer ?? STANDBY)];
    },
    async stop() {
      stopLowering();
      await scheduler.stop();
      await link.stop();
      unregister();
      closeBridge();
    },
  };
}
