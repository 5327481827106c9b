/**
 * The request thread's end of one worker thread: its protocol over one channel (channel.ts), and
 * the process policy that a worker which dies unasked takes the process with it (a crash point's
 * SIGKILL already does; an uncaught error in a worker does the same, rather than leave an API
 * whose jobs silently stopped). Either way, every request still open to it fails at once.
 */
import { Worker } from "node:worker_threads";
import { log } from "../lib/log";
import { Channel, type Envelope, type Handlers } from "./channel";
import type { Call, Protocol, WorkerStart } from "./protocol";

/** A protocol whose worker stops when asked (both of ours). */
type Stoppable = Protocol & { toWorker: { calls: { stop: Call<null, null> } } };

/** How long a worker may take to stop at a safe point before it is terminated. */
const STOP_MAX_MS = 35_000;

export interface LinkOptions<P extends Protocol> {
  /** the calls the worker may make of the request thread */
  handlers?: Handlers<P["toParent"]>;
  onNotice?: (notice: P["toParent"]["notices"]) => void;
  /** what a worker's unasked end does to the process; it exits by default */
  onDied?: (code: number) => void;
}

function exitProcess(code: number): void {
  process.exit(code);
}

export class WorkerLink<P extends Stoppable> {
  readonly channel: Channel<P["toWorker"], P["toParent"]>;
  private readonly worker: Worker;
  private ending = false;
  private readonly exited: Promise<number>;

  constructor(name: string, entry: URL, start: WorkerStart & Record<string, unknown>, options: LinkOptions<P> = {}) {
    const onDied = options.onDied ?? exitProcess;
    this.worker = new Worker(entry, { workerData: start });
    this.channel = new Channel(name, (envelope) => this.worker.postMessage(envelope));
    if (options.handlers) this.channel.serve(options.handlers);
    if (options.onNotice) this.channel.onNotice(options.onNotice);
    this.worker.on("message", (envelope: Envelope) => this.channel.receive(envelope));
    this.exited = new Promise((resolve) => {
      this.worker.on("error", (error) => {
        log.error("worker failed", { thread: name, error });
        this.channel.end("it failed");
        if (!this.ending) onDied(1);
      });
      this.worker.on("exit", (code) => {
        this.channel.end(`it exited with code ${code}`);
        if (!this.ending) {
          log.error("worker exited unasked", { thread: name, code });
          onDied(code || 1);
        }
        resolve(code);
      });
    });
  }

  /** Asks the worker to stop at a safe point, waits (bounded), then ends the thread. */
  async stop(timeoutMs = STOP_MAX_MS): Promise<void> {
    if (this.ending) return;
    this.ending = true;
    await this.channel.request("stop", null, timeoutMs).catch((error) => log.warn("worker stop failed", { error }));
    await this.worker.terminate();
    await this.exited;
  }
}
