/**
 * The messages between the request thread and each of its two worker threads (the jobs' thread
 * and, on the embedded defaults, the local chain's). Each thread opens its own bun:sqlite
 * connection to the same WAL database; only these plain, structured-cloneable messages cross
 * threads. Each worker has its own protocol: what either side may ask of the other (a call, with
 * its argument and answer) and what it only tells (a notice). src/workers/channel.ts carries them.
 */
import type { LocalChainEndpoints } from "../chain/setup";
import type { IndexerState } from "../jobs";
import type { JobName } from "../jobs/names";
import type { RunResult } from "../jobs/scheduler";

/**
 * How long a job run may go unanswered. Runs renew their lease and may take minutes; one that has
 * not answered in an hour is stuck, and its caller (a cron run's record, the demo's early sweep)
 * says so rather than wait forever.
 */
export const RUN_ANSWER_MAX_MS = 60 * 60_000;

export type Env = Record<string, string | undefined>;

/** What every worker is started with (`workerData`). */
export interface WorkerStart {
  env: Env;
  /** null when the chain is not the embedded one (the jobs' thread then reaches RPC_URL itself) */
  endpoints: LocalChainEndpoints | null;
  /** the request thread's request counter (src/workers/pace.ts); null for the chain's thread */
  requests: SharedArrayBuffer | null;
}

/** A request one side may make: its argument and the answer it waits for. */
export interface Call<Arg, Answer> {
  arg: Arg;
  answer: Answer;
}

/** What one side sends the other: the calls it may make and the notices it may post. */
export interface Side {
  calls: Record<string, Call<unknown, unknown>>;
  notices: { type: string };
}

/** A worker's protocol: what the request thread sends it, and what it sends the request thread. */
export interface Protocol {
  toWorker: Side;
  toParent: Side;
}

/** The jobs' thread (src/workers/jobs-thread.ts). */
export interface JobsProtocol {
  toWorker: {
    calls: {
      /** runs a job now under its lease (the cron route's runs, the demo's early sweeps) */
      run: Call<JobName, RunResult>;
      /** stops the schedules, the indexer and the webhook sender at a safe point; closes the books */
      stop: Call<null, null>;
    };
    /** starts the schedules, the indexer and the webhook sender */
    notices: { type: "start" };
  };
  toParent: {
    calls: Record<never, never>;
    notices:
      | { type: "ready"; registered: JobName[] }
      | { type: "finished"; job: JobName; result: RunResult }
      | { type: "indexer"; state: IndexerState | null };
  };
}

/** The embedded local chain's thread (src/workers/chain-thread.ts). */
export interface ChainProtocol {
  toWorker: {
    calls: {
      /** creates the demo tokens and starts trading; answers once they trade */
      demo: Call<null, null>;
      /** stops the demo and the node */
      stop: Call<null, null>;
    };
    notices: never;
  };
  toParent: {
    calls: {
      /** the demo's early sweeps: the request thread hands them to the jobs' thread */
      run: Call<JobName, RunResult>;
    };
    notices: { type: "ready"; endpoints: LocalChainEndpoints };
  };
}
