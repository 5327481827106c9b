/**
 * The worker threads yield the CPU to the request thread. On Linux the nice value belongs to a
 * thread, and `setpriority` with id 0 sets the calling thread's alone: a worker that calls this at
 * start leaves the request thread at its own priority. While requests are waiting, the kernel then
 * gives the request thread most of a contended core; while they are not, the jobs get all of it.
 * Elsewhere the call would lower the whole process, so it is not made.
 *
 * A thread inherits its creator's nice value, and Bun and JavaScriptCore start threads that all
 * threads share on first use: the fetch client (a detail's vault refresh goes through it) and the
 * GC markers. The request thread starts them itself before any worker exists
 * (`startSharedThreadsHere`), so the fetch client runs at the request thread's priority; the GC
 * markers and JIT compilers, which work mostly for the jobs' heaps, are then lowered to the
 * workers' level (`lowerRuntimeHelpers`).
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { setPriority } from "node:os";
import { log } from "../lib/log";

/** The nice value of the jobs' and the chain's threads: about a tenth of a core's share under contention. */
export const WORKER_NICE = 10;

/**
 * The worker threads' names as /proc and `top -H` show them. Bun names every worker thread
 * "Worker"; named by what it does, each is found as itself, not counted among whatever else a
 * process runs under that name.
 */
export const THREAD_NAMES = { jobs: "jobs thread", chain: "chain thread" } as const;

/** Names the calling thread (Linux; at most 15 characters). Best effort: a name is a convenience. */
export function nameThisThread(name: string): void {
  if (process.platform !== "linux") return;
  try {
    writeFileSync("/proc/thread-self/comm", name.slice(0, 15));
  } catch (error) {
    log.warn("could not name a worker thread", { name, error });
  }
}

/** True when this thread now runs at `nice`. */
export function yieldToRequests(nice = WORKER_NICE): boolean {
  if (process.platform !== "linux") return false;
  try {
    setPriority(nice);
    return true;
  } catch (error) {
    log.warn("could not lower a worker thread's priority", { error });
    return false;
  }
}

/**
 * Starts, on this thread and at its priority, the threads Bun shares between all threads and starts
 * on first use: the fetch client's thread (a refused connection to port 0 is enough) and the GC's.
 * Call it on the request thread before starting any worker.
 */
export async function startSharedThreadsHere(): Promise<void> {
  await fetch("http://127.0.0.1:0/", { signal: AbortSignal.timeout(1_000) }).catch(() => {});
  Bun.gc(true);
}

/** The runtime's own threads that work for every thread's heap and code: JSC's GC markers and JIT compilers. */
export const RUNTIME_HELPER_THREADS: ReadonlySet<string> = new Set(["HeapHelper", "JITWorker"]);
/** Helpers are started on demand, so the scan is repeated. */
export const RUNTIME_HELPER_SCAN_EVERY_MS = 5_000;
/** A bound on one scan's work: a process has a few dozen threads. */
const THREADS_SCANNED_MAX = 256;

/**
 * Lowers the runtime's shared helper threads to `nice`, as the workers are. They serve every
 * thread's heap, but with the jobs working nearly all their work is collecting the jobs' heaps:
 * measured at 100k tokens, the GC markers used a third of a core at nice 0, beside a request
 * thread that then served ~15% fewer reads. Returns the stop function. Linux only, best effort:
 * a thread that ended between listing and lowering is skipped.
 */
export function lowerRuntimeHelpers(nice = WORKER_NICE, everyMs = RUNTIME_HELPER_SCAN_EVERY_MS): () => void {
  if (process.platform !== "linux") return () => {};
  const lowered = new Set<number>();
  const scan = () => {
    let tids: string[];
    try {
      tids = readdirSync("/proc/self/task").slice(0, THREADS_SCANNED_MAX);
    } catch {
      return;
    }
    for (const tid of tids) {
      const id = Number(tid);
      if (lowered.has(id)) continue;
      try {
        if (!RUNTIME_HELPER_THREADS.has(readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trim())) continue;
        setPriority(id, nice);
        lowered.add(id);
      } catch {
        // ended meanwhile, or not ours to change
      }
    }
  };
  scan();
  const timer = setInterval(scan, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
