/**
 * The request thread's end of one worker thread: typed messages, request/answer by id, and the
 * process policy that a worker which dies unasked takes the process with it (a crash point's
 * SIGKILL already does; an uncaught error in a worker does the same, rather than leave an API
 * whose jobs silently stopped).
 */
import { Worker } from "node:worker_threads";
import { AppError } from "../lib/errors";
import { log } from "../lib/log";
import type { JobName } from "../jobs/names";
import type { RunResult } from "../jobs/scheduler";
import type { FromWorker, ToWorker, WorkerStart } from "./protocol";

export class WorkerLink {
  private readonly worker: Worker;
  private readonly pending = new Map<number, (result: RunResult) => void>();
  private readonly waiting = new Map<FromWorker["type"], ((message: FromWorker) => void)[]>();
  private nextId = 1;
  private ending = false;
  private readonly exited: Promise<number>;

  constructor(
    readonly name: string,
    entry: URL,
    start: WorkerStart & Record<string, unknown>,
    private readonly onMessage: (message: FromWorker) => void = () => {},
  ) {
    this.worker = new Worker(entry, { workerData: start });
    this.worker.on("message", (message: FromWorker) => this.receive(message));
    this.exited = new Promise((resolve) => {
      this.worker.on("error", (error) => {
        log.error("worker failed", { thread: name, error });
        if (!this.ending) process.exit(1);
      });
      this.worker.on("exit", (code) => {
        if (!this.ending) {
          log.error("worker exited unasked", { thread: name, code });
          process.exit(code || 1);
        }
        resolve(code);
      });
    });
  }

  private receive(message: FromWorker): void {
    if (message.type === "ran") {
      this.pending.get(message.id)?.(message.result);
      this.pending.delete(message.id);
      return;
    }
    const waiters = this.waiting.get(message.type);
    if (waiters) {
      this.waiting.delete(message.type);
      for (const w of waiters) w(message);
    }
    this.onMessage(message);
  }

  post(message: ToWorker): void {
    this.worker.postMessage(message);
  }

  /** Asks the worker to run a job now and resolves with the run's result. */
  runJob(job: JobName): Promise<RunResult> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.post({ type: "run", id, job });
    });
  }

  /** Resolves with the next message of this type (e.g. `ready`), or fails if the worker ends first. */
  next<T extends FromWorker["type"]>(type: T, timeoutMs = 120_000): Promise<Extract<FromWorker, { type: T }>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new AppError("WORKER_UNANSWERED", `the ${this.name} thread did not answer ${type}`, { type })),
        timeoutMs,
      );
      const list = this.waiting.get(type) ?? [];
      list.push((message) => {
        clearTimeout(timer);
        resolve(message as Extract<FromWorker, { type: T }>);
      });
      this.waiting.set(type, list);
    });
  }

  /** Asks the worker to stop at a safe point, waits (bounded), then ends the thread. */
  async stop(timeoutMs = 35_000): Promise<void> {
    if (this.ending) return;
    this.ending = true;
    const stopped = this.next("stopped", timeoutMs).catch((error) => log.warn("worker stop timed out", { error }));
    this.post({ type: "stop" });
    await stopped;
    await this.worker.terminate();
    await this.exited;
  }
}
