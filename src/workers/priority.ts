/**
 * The worker threads yield the CPU to the request thread. On Linux the nice value belongs to a
 * thread, and `setpriority` with id 0 sets the calling thread's alone: a worker that calls this at
 * start leaves the request thread at its own priority. While requests are waiting, the kernel then
 * gives the request thread most of a contended core; while they are not, the jobs get all of it.
 * Elsewhere the call would lower the whole process, so it is not made.
 */
import { setPriority } from "node:os";
import { log } from "../lib/log";

/** The nice value of the jobs' and the chain's threads: about a tenth of a core's share under contention. */
export const WORKER_NICE = 10;

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
