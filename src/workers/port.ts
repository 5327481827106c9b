/** A worker thread's end of its link to the request thread: the start data and its protocol's channel. */
import { parentPort, workerData } from "node:worker_threads";
import { AppError } from "../lib/errors";
import { Channel, type Envelope } from "./channel";
import type { Protocol, WorkerStart } from "./protocol";

export interface ParentPort<P extends Protocol, S extends WorkerStart> {
  start: S;
  /** requests to the request thread and notices for it; `serve` answers its requests */
  parent: Channel<P["toParent"], P["toWorker"]>;
}

export function parentOf<P extends Protocol, S extends WorkerStart = WorkerStart>(): ParentPort<P, S> {
  const port = parentPort;
  if (!port) throw new AppError("WORKER_PORT_MISSING");
  const parent = new Channel<P["toParent"], P["toWorker"]>("request", (envelope) => port.postMessage(envelope));
  port.on("message", (envelope: Envelope) => parent.receive(envelope));
  port.on("close", () => parent.end("its port closed"));
  return { start: workerData as S, parent };
}
