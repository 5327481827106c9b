/**
 * The jobs' thread gives way while requests come. Nice values cannot do it on a small machine: with
 * two cores, the kernel gives the jobs' thread a core of its own whenever the request thread and a
 * client share the other, whatever their priorities. Measured at 100k tokens with the jobs
 * working, the jobs' thread took ~60% of a core beside a request thread that got ~65%.
 *
 * So the jobs pace themselves. The request thread counts the requests it starts in a shared
 * counter (`countRequests`, `noteRequest`). The jobs' thread reaches the chain through
 * `pacedFetch`: while requests came within the last `busyWindowMs`, chain calls wait until the
 * thread has rested `restPerWorkMs` for every millisecond of CPU it used. The jobs' thread then
 * uses at most 1/(1 + restPerWorkMs) of a core while requests come, and all of it when none do.
 * Measured at 100k tokens with the jobs working (stats and list pages, 8 connections, ratio to
 * bare): unpaced 0.28-0.63, resting 3 ms per ms 0.24-0.52, 8 ms 0.23-0.70.
 *
 * Two leaks kept the jobs' thread at 21-31% of a core beside hot reads instead of a seventh
 * (bench:api at 100k tokens, per-thread CPU from /proc). Work was the time between one call's
 * return and the next call's start, but the thread works while calls are in flight too (another
 * job's writes, the indexer, the stats count): work is now the thread's own CPU time
 * (`process.threadCpuUsage`). And each call waited out at most one bound, so ten calls in flight
 * together (a payout run's sends and status polls) each waited that bound at once and went on with
 * most of the rest unpaid: calls now pass the gate one at a time, each waiting at most
 * `PACE_WAIT_MS_MAX`, so together they wait out all the rest owed. Its work never stops: the rest
 * owed is at most `PACE_DEBT_MS_MAX`, and is forgiven once requests stop.
 */

/** Requests within this long make the jobs rest. */
const PACE_BUSY_WINDOW_MS = 50;
/** Rest per millisecond of work while requests come: 6 leaves the jobs a seventh of a core. */
const PACE_REST_PER_WORK_MS = 6;
/** The longest one call waits at its turn: the rest owed is paid in steps, by the calls in turn. */
export const PACE_WAIT_MS_MAX = 250;
/**
 * The most rest the jobs may owe. A stretch of work owes more than one call may wait (a sweep
 * page's write, the stats' count): the rest left over is waited by the next calls. When each
 * call's rest was capped at one wait instead, those stretches went unrested: at 100k tokens, with
 * hot reads saturating the request thread, the jobs' thread took 30-33% of a core, and 25-29%
 * with the debt kept (10 s of per-thread CPU, two runs each).
 */
export const PACE_DEBT_MS_MAX = 2_000;

let requestCounter: Int32Array | null = null;

/** Starts counting this thread's requests; the buffer goes to the jobs' thread. Call once, on the request thread. */
export function countRequests(): SharedArrayBuffer {
  const buffer = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
  requestCounter = new Int32Array(buffer);
  return buffer;
}

/** One request started (nothing when no counter was started: tests, tools). */
export function noteRequest(): void {
  if (requestCounter) Atomics.add(requestCounter, 0, 1);
}

/**
 * This thread's CPU time so far, in milliseconds. Where the runtime cannot tell a thread's CPU time,
 * all the time that passes counts as work: the jobs then rest more than they must, never less.
 */
function threadCpuMs(): number {
  const usage = (process as { threadCpuUsage?: () => { user: number; system: number } }).threadCpuUsage;
  if (typeof usage !== "function") return performance.now();
  const { user, system } = usage.call(process);
  return (user + system) / 1000;
}

export interface PaceOptions {
  busyWindowMs?: number;
  restPerWorkMs?: number;
  waitMsMax?: number;
  debtMsMax?: number;
  /** milliseconds, monotonic */
  now?: () => number;
  /** the thread's work so far, milliseconds (default: its CPU time) */
  workMs?: () => number;
  sleep?: (ms: number) => Promise<unknown>;
}

/**
 * `inner` with pacing in front of every call: while the counter in `requests` moved within the
 * busy window, the CPU the thread used since the previous call started is owed as rest (at most
 * `debtMsMax` in all), and calls pass the gate one at a time, each waiting at most `waitMsMax` of
 * what is owed when its turn comes. Concurrent calls so pay the rest once, together.
 */
export function pacedFetch(inner: typeof fetch, requests: SharedArrayBuffer, options: PaceOptions = {}): typeof fetch {
  const counter = new Int32Array(requests);
  const busyWindowMs = options.busyWindowMs ?? PACE_BUSY_WINDOW_MS;
  const restPerWorkMs = options.restPerWorkMs ?? PACE_REST_PER_WORK_MS;
  const waitMsMax = options.waitMsMax ?? PACE_WAIT_MS_MAX;
  const debtMsMax = options.debtMsMax ?? PACE_DEBT_MS_MAX;
  const now = options.now ?? (() => performance.now());
  const workMs = options.workMs ?? threadCpuMs;
  const sleep = options.sleep ?? ((ms: number) => Bun.sleep(ms));
  let seen = Atomics.load(counter, 0);
  let requestSeenAtMs = Number.NEGATIVE_INFINITY;
  let workSeenMs = workMs();
  // The rest is paid by then: the moment the next call may pass.
  let gateAtMs = 0;
  // The calls waiting at the gate, in turn: each waits once the one before it has passed.
  let turns: Promise<void> = Promise.resolve();
  const waitTurn = async () => {
    const waitMs = Math.min(gateAtMs - now(), waitMsMax);
    if (waitMs >= 1) await sleep(waitMs);
  };
  const paced = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const startMs = now();
    const workNowMs = workMs();
    const workedMs = Math.max(0, workNowMs - workSeenMs);
    workSeenMs = workNowMs;
    const count = Atomics.load(counter, 0);
    if (count !== seen) {
      seen = count;
      requestSeenAtMs = startMs;
    }
    if (startMs - requestSeenAtMs < busyWindowMs) {
      gateAtMs = Math.min(Math.max(gateAtMs, startMs) + workedMs * restPerWorkMs, startMs + debtMsMax);
      const turn = turns.then(waitTurn);
      turns = turn;
      await turn;
    } else {
      // Nobody is waiting on the request thread: what the jobs owed is forgiven.
      gateAtMs = Math.min(gateAtMs, startMs);
    }
    return inner(input, init);
  };
  return Object.assign(paced, { preconnect: inner.preconnect }) as typeof fetch;
}
