/**
 * The jobs' thread gives way while requests come. Nice values cannot do it on a small machine: with
 * two cores, the kernel gives the jobs' thread a core of its own whenever the request thread and a
 * client share the other, whatever their priorities. Measured at 100k tokens with the jobs
 * working, the jobs' thread took ~60% of a core beside a request thread that got ~65%.
 *
 * So the jobs pace themselves. The request thread counts the requests it starts in a shared
 * counter (`countRequests`, `noteRequest`). The jobs' thread reaches the chain through
 * `pacedFetch`: while requests came within the last `busyWindowMs`, each chain call first waits
 * until the thread has rested `restPerWorkMs` for every millisecond it worked since its last call.
 * The jobs' thread then uses at most 1/(1 + restPerWorkMs) of a core while requests come, and all
 * of it when none do. Measured at 100k tokens with the jobs working (stats and list pages, 8
 * connections, ratio to bare): unpaced 0.28-0.63, resting 3 ms per ms 0.24-0.52, 8 ms 0.23-0.70.
 * Its work never stops: one call waits at most `PACE_WAIT_MS_MAX` (rest owed past that is waited by
 * the next calls, up to `PACE_DEBT_MS_MAX`), and time spent waiting for the chain counts as rest
 * already, as it leaves the CPU to others.
 */

/** Requests within this long make the jobs rest. */
export const PACE_BUSY_WINDOW_MS = 50;
/** Rest per millisecond of work while requests come: 6 leaves the jobs a seventh of a core. */
export const PACE_REST_PER_WORK_MS = 6;
/** The longest one chain call waits: the jobs keep moving under any load. */
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

export interface PaceOptions {
  busyWindowMs?: number;
  restPerWorkMs?: number;
  waitMsMax?: number;
  debtMsMax?: number;
  /** milliseconds, monotonic */
  now?: () => number;
  sleep?: (ms: number) => Promise<unknown>;
}

/**
 * `inner` with pacing in front of every call: while the counter in `requests` moved within the
 * busy window, a call waits out the rest owed for the work done since the previous call returned
 * (at most `waitMsMax` per call; the rest of it is owed by the next calls, at most `debtMsMax`).
 * Work is the time between one call's return and the next call's start, which the thread spends
 * running its own code (database writes, signing, parsing), since the database is synchronous.
 * Concurrent calls share one gate, so parallel sends cannot add up to more work.
 */
export function pacedFetch(inner: typeof fetch, requests: SharedArrayBuffer, options: PaceOptions = {}): typeof fetch {
  const counter = new Int32Array(requests);
  const busyWindowMs = options.busyWindowMs ?? PACE_BUSY_WINDOW_MS;
  const restPerWorkMs = options.restPerWorkMs ?? PACE_REST_PER_WORK_MS;
  const waitMsMax = options.waitMsMax ?? PACE_WAIT_MS_MAX;
  const debtMsMax = options.debtMsMax ?? PACE_DEBT_MS_MAX;
  const now = options.now ?? (() => performance.now());
  const sleep = options.sleep ?? ((ms: number) => Bun.sleep(ms));
  let seen = Atomics.load(counter, 0);
  let requestSeenAtMs = Number.NEGATIVE_INFINITY;
  let resumedAtMs = now();
  let gateAtMs = 0;
  const paced = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const startMs = now();
    const workedMs = Math.max(0, startMs - resumedAtMs);
    resumedAtMs = startMs;
    const count = Atomics.load(counter, 0);
    if (count !== seen) {
      seen = count;
      requestSeenAtMs = startMs;
    }
    if (startMs - requestSeenAtMs < busyWindowMs) {
      gateAtMs = Math.min(Math.max(gateAtMs, startMs) + workedMs * restPerWorkMs, startMs + debtMsMax);
      const waitMs = Math.min(gateAtMs - startMs, waitMsMax);
      if (waitMs >= 1) {
        await sleep(waitMs);
        resumedAtMs = Math.max(resumedAtMs, now());
      }
    } else {
      // Nobody is waiting on the request thread: what the jobs owed is forgiven.
      gateAtMs = Math.min(gateAtMs, startMs);
    }
    try {
      return await inner(input, init);
    } finally {
      resumedAtMs = Math.max(resumedAtMs, now());
    }
  };
  return Object.assign(paced, { preconnect: inner.preconnect }) as typeof fetch;
}
