/**
 * The messages between the request thread and its two worker threads (the jobs' thread and, on the
 * embedded defaults, the local chain's). Each thread opens its own bun:sqlite connection to the same
 * WAL database; only these plain, structured-cloneable messages cross threads.
 */
import type { LocalChainEndpoints } from "../chain/setup";
import type { IndexerState } from "../jobs";
import type { JobName } from "../jobs/names";
import type { RunResult } from "../jobs/scheduler";
import type { Stats } from "../stats/service";

export type Env = Record<string, string | undefined>;

/** What every worker is started with (`workerData`). */
export interface WorkerStart {
  env: Env;
  /** null when the chain is not the embedded one (the jobs' thread then reaches RPC_URL itself) */
  endpoints: LocalChainEndpoints | null;
  /** the request thread's request counter (src/workers/pace.ts); null for the chain's thread */
  requests: SharedArrayBuffer | null;
}

/** Request thread -> a worker. */
export type ToWorker =
  | { type: "start" }
  | { type: "run"; id: number; job: JobName }
  | { type: "ran"; id: number; result: RunResult }
  | { type: "demo" }
  | { type: "stop" };

/** A worker -> the request thread. */
export type FromWorker =
  | { type: "ready"; registered: JobName[]; endpoints?: LocalChainEndpoints }
  | { type: "ran"; id: number; result: RunResult }
  | { type: "run"; id: number; job: JobName }
  | { type: "finished"; job: JobName; result: RunResult }
  | { type: "indexer"; state: IndexerState | null }
  | { type: "stats"; stats: Stats; atMs: number }
  | { type: "demo-done" }
  | { type: "failed"; error: string }
  | { type: "stopped" };
