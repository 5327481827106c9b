/** A worker thread's end of its link to the request thread: the start data and typed messages. */
import { parentPort, workerData } from "node:worker_threads";
import type { RunResult } from "../jobs/scheduler";
import type { JobName } from "../jobs/names";
import type { FromWorker, ToWorker, WorkerStart } from "./protocol";

export interface ParentPort<S extends WorkerStart> {
  start: S;
  post(message: FromWorker): void;
  on(handler: (message: ToWorker) => void | Promise<void>): void;
  /** asks the request thread to run a job (it hands the run to the jobs' thread) */
  runJob(job: JobName): Promise<RunResult>;
}

export function parentOf<S extends WorkerStart>(): ParentPort<S> {
  const port = parentPort;
  if (!port) throw new Error("this module runs only as a worker thread");
  const pending = new Map<number, (result: RunResult) => void>();
  let nextId = 1;
  const handlers: ((message: ToWorker) => void | Promise<void>)[] = [];
  port.on("message", (message: ToWorker) => {
    if (message.type === "ran") {
      pending.get(message.id)?.(message.result);
      pending.delete(message.id);
      return;
    }
    for (const handler of handlers) void handler(message);
  });
  const post = (message: FromWorker) => port.postMessage(message);
  return {
    start: workerData as S,
    post,
    on: (handler) => handlers.push(handler),
    runJob: (job) =>
      new Promise((resolve) => {
        const id = nextId++;
        pending.set(id, resolve);
        post({ type: "run", id, job });
      }),
  };
}
