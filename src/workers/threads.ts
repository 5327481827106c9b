/**
 * Starting the worker threads from the composition root (src/main.ts): the embedded local chain
 * (with the demo) in one, the scheduler, the indexer and the webhook sender in another. The request
 * thread keeps the HTTP API and its own database connection; see src/workers/protocol.ts.
 */
import { type ChainSetup, type LocalChainEndpoints, secretsFor, setupChainOverEndpoints } from "../chain/setup";
import type { Config } from "../config";
import type { AppContext } from "../context";
import { READ_MEMO_STALE_MS, readMemo } from "../http/read-memo";
import { type IndexerState, registerIndexerState } from "../jobs";
import type { JobName } from "../jobs/names";
import type { JobRunner, RunResult } from "../jobs/scheduler";
import { indexerMetrics } from "../metrics/routes";
import { handOffCheckpoints } from "../../db/checkpoints";
import { pathToFileURL } from "node:url";
import { appFile, insideExecutable } from "../lib/app-files";
import { bridgeFeed } from "./feed-bridge";
import { WorkerLink } from "./link";
import { lowerRuntimeHelpers } from "./priority";
import { countRequests } from "./pace";
import { type ChainProtocol, type Env, type JobsProtocol, RUN_ANSWER_MAX_MS } from "./protocol";

/** How long a thread may take to start (the chain's loads its programs; the jobs' opens the books). */
const READY_MAX_MS = 120_000;
/** How long the demo may take to launch its tokens. */
const DEMO_MAX_MS = 300_000;

/** A thread's entry file: beside this one, or inside the single executable under its path in the checkout. */
function threadEntry(file: string): URL {
  return insideExecutable ? pathToFileURL(appFile("src", "workers", file)) : new URL(`./${file}`, import.meta.url);
}

const NOT_REGISTERED: RunResult = { ran: false, reason: "not_registered" };
const STOPPING: RunResult = { ran: false, reason: "stopping" };

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
  startDemo(jobs: JobRunner): Promise<void>;
}

/** The embedded local chain in its worker. Secrets are made here first, so a bad one exits as before. */
export async function startChainThread(config: Config): Promise<ChainThread> {
  secretsFor(config);
  const programSeed = crypto.getRandomValues(new Uint8Array(32));
  // The demo's early sweeps arrive once the demo starts, which is when the jobs' runner is known.
  let jobs: JobRunner | null = null;
  const link = new WorkerLink<ChainProtocol>(
    "chain",
    threadEntry("chain-thread.ts"),
    { env: envOf(), endpoints: null, requests: null, programSeed },
    { handlers: { run: (job) => (jobs ? jobs.runNow(job) : NOT_REGISTERED) } },
  );
  const { endpoints } = await link.channel.next("ready", READY_MAX_MS);
  const over = setupChainOverEndpoints(config, endpoints);
  return {
    endpoints,
    setup: { ...over, stop: () => link.stop() },
    async startDemo(runner) {
      jobs = runner;
      await link.channel.request("demo", null, DEMO_MAX_MS);
    },
  };
}

/** What the jobs' thread is built on: the request thread's books, where its results are shown. */
export type JobsThreadBooks = Pick<AppContext, "config" | "db" | "metrics">;

/**
 * The request thread's runner when the jobs run in their own thread: the cron route's and the demo's
 * runs are handed over and keep their database lease there, so a run fired here and a scheduled
 * one there never overlap. It registers and schedules nothing itself.
 */
export interface JobsThread extends JobRunner {
  /** the indexer's lines for /metrics (JOBS on): standby until the thread reports */
  readonly extraMetrics: (() => string)[];
  /** waits for the thread to register its jobs, then hands it the checkpoints */
  ready(): Promise<void>;
  /** starts the schedules, the indexer and the webhook sender (JOBS on); `ctx`'s health shows the indexer */
  start(ctx: AppContext): void;
  /** refuses new runs, stops the thread's work at a safe point (leases released), ends the thread */
  stop(): Promise<void>;
}

/**
 * The jobs' thread, built before the service's context (src/service.ts) so that the context holds
 * it from the start as its runner, and the source of the indexer's health and metrics. Without
 * JOBS and without a cron secret no job can ever run, so no thread is started.
 */
export function startJobsThread(books: JobsThreadBooks, endpoints: LocalChainEndpoints | null): JobsThread {
  const { config, db, metrics } = books;
  const closeBridge = bridgeFeed(db, config.databasePath);
  // Other threads write the books all the time now: public bodies may be up to a second old.
  readMemo(db).staleMs = READ_MEMO_STALE_MS;
  if (!config.jobsEnabled && !config.cronSecret) return withoutThread(closeBridge);

  let indexer: IndexerState | null = null;
  let registered: ReadonlySet<JobName> = new Set();
  let closed = false;
  let stopLowering = () => {};
  let unregister = () => {};
  const link = new WorkerLink<JobsProtocol>(
    "jobs",
    threadEntry("jobs-thread.ts"),
    { env: envOf(), endpoints, requests: countRequests() },
    {
      onNotice: (notice) => {
        if (notice.type === "indexer") indexer = notice.state;
        if (notice.type !== "finished" || !notice.result.ran) return;
        metrics.jobRuns.inc({ job: notice.job, outcome: notice.result.ok ? "ok" : "error" });
        metrics.jobSeconds.observe({ job: notice.job }, notice.result.durationMs / 1000);
      },
    },
  );
  // Waited for from the start: the notice may come before anyone asks.
  const readied = link.channel.next("ready", READY_MAX_MS);
  readied.catch(() => {});
  return {
    // As when the indexer ran on this thread: its state is there from the start, standby until it reports.
    extraMetrics: config.jobsEnabled ? [() => indexerMetrics(indexer ?? STANDBY)] : [],
    isRegistered: (job) => registered.has(job),
    async runNow(job) {
      if (closed) return STOPPING;
      if (!registered.has(job)) return NOT_REGISTERED;
      return link.channel.request("run", job, RUN_ANSWER_MAX_MS);
    },
    async ready() {
      registered = new Set((await readied).registered);
      // The jobs' thread checkpoints from now on: a checkpoint in a request's commit stalls every request.
      handOffCheckpoints(db);
      // The jobs' heaps keep the runtime's GC markers busy: those run below the requests too.
      stopLowering = lowerRuntimeHelpers();
    },
    start(ctx) {
      link.channel.notify({ type: "start" });
      if (config.jobsEnabled) unregister = registerIndexerState(ctx, () => indexer ?? STANDBY);
    },
    async stop() {
      if (closed) return;
      closed = true;
      stopLowering();
      await link.stop();
      unregister();
      closeBridge();
    },
  };
}

/** The runner when no job can run here: every run is refused, as not registered. */
function withoutThread(closeBridge: () => void): JobsThread {
  let closed = false;
  return {
    extraMetrics: [],
    isRegistered: () => false,
    runNow: async () => (closed ? STOPPING : NOT_REGISTERED),
    ready: async () => {},
    start() {},
    async stop() {
      if (closed) return;
      closed = true;
      closeBridge();
    },
  };
}
