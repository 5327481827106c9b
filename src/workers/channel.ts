/**
 * One end of a worker's protocol (src/workers/protocol.ts), the same on both threads: the request
 * thread's link to a worker (link.ts) and the worker's port to the request thread (port.ts).
 *
 * - A request is matched to its answer by id and has a deadline: a thread that never answers fails
 *   the request, naming it, instead of leaving its caller waiting forever.
 * - A handler that throws answers its caller with the error (its code and sentence), so a failure
 *   in one thread surfaces where the request was made rather than as an unhandled rejection.
 * - When the other thread ends, every request still open fails at once.
 */
import { AppError, ERROR_CODES, type ErrorCode, isAppError } from "../lib/errors";
import { scrubErrorText } from "../lib/scrub";
import type { Side } from "./protocol";

/** What crosses the thread boundary. */
export type Envelope =
  | { kind: "request"; id: number; name: string; arg: unknown }
  | { kind: "answer"; id: number; answer: unknown }
  | { kind: "refusal"; id: number; code: ErrorCode; message: string }
  | { kind: "notice"; notice: { type: string } };

type CallName<S extends Side> = keyof S["calls"] & string;
type ArgOf<S extends Side, K extends CallName<S>> = S["calls"][K]["arg"];
type AnswerOf<S extends Side, K extends CallName<S>> = S["calls"][K]["answer"];

/** How one side answers each call the other side may make. */
export type Handlers<S extends Side> = {
  [K in CallName<S>]: (arg: ArgOf<S, K>) => AnswerOf<S, K> | Promise<AnswerOf<S, K>>;
};

interface Open {
  /** the request as a reader of the log knows it, e.g. "run sweep" */
  request: string;
  resolve(answer: unknown): void;
  reject(error: AppError): void;
}

interface Waiter {
  type: string;
  deliver(notice: { type: string }): void;
}

/** `Out`: what this side sends (its requests, its notices); `In`: what it receives. */
export class Channel<Out extends Side, In extends Side> {
  private readonly open = new Map<number, Open>();
  private readonly queued: Extract<Envelope, { kind: "request" }>[] = [];
  private readonly waiting = new Set<Waiter>();
  private readonly noticeListeners: ((notice: In["notices"]) => void)[] = [];
  private handlers: Handlers<In> | null = null;
  private nextId = 1;
  private endedBecause: string | null = null;

  /** `thread`: the other thread, as errors name it ("the jobs thread did not answer ...") */
  constructor(
    readonly thread: string,
    private readonly send: (envelope: Envelope) => void,
  ) {}

  /** Asks the other thread; fails after `timeoutMs`, or as soon as that thread ends. */
  request<K extends CallName<Out>>(name: K, arg: ArgOf<Out, K>, timeoutMs: number): Promise<AnswerOf<Out, K>> {
    const request = typeof arg === "string" ? `${name} ${arg}` : name;
    return new Promise((resolve, reject) => {
      if (this.endedBecause !== null) {
        reject(this.ended(request));
        return;
      }
      const id = this.nextId++;
      const timer = setTimeout(() => {
        this.open.delete(id);
        reject(this.unanswered("WORKER_UNANSWERED", request, timeoutMs));
      }, timeoutMs);
      const settle = () => {
        clearTimeout(timer);
        this.open.delete(id);
      };
      this.open.set(id, {
        request,
        resolve: (answer) => {
          settle();
          resolve(answer as AnswerOf<Out, K>);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      try {
        this.send({ kind: "request", id, name, arg });
      } catch (error) {
        this.open.get(id)?.reject(this.failed(request, "INTERNAL", scrubErrorText(error)));
      }
    });
  }

  /** Tells the other thread something it does not answer. */
  notify(notice: Out["notices"]): void {
    if (this.endedBecause === null) this.send({ kind: "notice", notice });
  }

  /** Answers the other thread's calls from now on (including those that arrived before). */
  serve(handlers: Handlers<In>): void {
    this.handlers = handlers;
    for (const request of this.queued.splice(0)) void this.answer(request);
  }

  onNotice(listener: (notice: In["notices"]) => void): void {
    this.noticeListeners.push(listener);
  }

  /** The next notice of this type (e.g. `ready`); fails after `timeoutMs` or when the thread ends. */
  next<T extends In["notices"]["type"]>(type: T, timeoutMs: number): Promise<Extract<In["notices"], { type: T }>> {
    return new Promise((resolve, reject) => {
      if (this.endedBecause !== null) {
        reject(this.ended(type));
        return;
      }
      // Kept with the open requests too, so that the thread's end fails it.
      const id = this.nextId++;
      const waiter: Waiter = {
        type,
        deliver: (notice) => {
          settle();
          resolve(notice as Extract<In["notices"], { type: T }>);
        },
      };
      const settle = () => {
        clearTimeout(timer);
        this.open.delete(id);
        this.waiting.delete(waiter);
      };
      const timer = setTimeout(() => {
        settle();
        reject(this.unanswered("WORKER_SILENT", type, timeoutMs));
      }, timeoutMs);
      this.open.set(id, {
        request: type,
        resolve: () => {},
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      this.waiting.add(waiter);
    });
  }

  /** Every message from the other thread comes through here. */
  receive(envelope: Envelope): void {
    switch (envelope.kind) {
      case "answer":
        this.open.get(envelope.id)?.resolve(envelope.answer);
        return;
      case "refusal": {
        const open = this.open.get(envelope.id);
        const code = Object.hasOwn(ERROR_CODES, envelope.code) ? envelope.code : "INTERNAL";
        open?.reject(this.failed(open.request, code, envelope.message));
        return;
      }
      case "notice":
        for (const waiter of [...this.waiting])
          if (waiter.type === envelope.notice.type) waiter.deliver(envelope.notice);
        for (const listener of [...this.noticeListeners]) listener(envelope.notice as In["notices"]);
        return;
      case "request":
        if (this.handlers) void this.answer(envelope);
        else this.queued.push(envelope);
        return;
    }
  }

  /** The other thread has ended (or its port closed): every open request fails, naming it. */
  end(reason: string): void {
    if (this.endedBecause !== null) return;
    this.endedBecause = reason;
    for (const open of [...this.open.values()]) open.reject(this.ended(open.request));
    this.open.clear();
  }

  private async answer(request: Extract<Envelope, { kind: "request" }>): Promise<void> {
    const handler = this.handlers?.[request.name as CallName<In>];
    let reply: Envelope;
    try {
      if (!handler) throw new AppError("WORKER_HANDLER_MISSING", { request: request.name });
      reply = { kind: "answer", id: request.id, answer: await handler(request.arg as ArgOf<In, CallName<In>>) };
    } catch (error) {
      // An AppError keeps its code and sentence across the boundary; any other failure is internal
      // and its text, scrubbed, is for the log only.
      reply = isAppError(error)
        ? { kind: "refusal", id: request.id, code: error.code, message: error.message }
        : { kind: "refusal", id: request.id, code: "INTERNAL", message: scrubErrorText(error) };
    }
    // The requester may have ended meanwhile: there is no one left to answer.
    if (this.endedBecause !== null) return;
    try {
      this.send(reply);
    } catch (error) {
      // An answer that cannot cross (not structured-cloneable) still answers, as a failure.
      this.send({ kind: "refusal", id: request.id, code: "INTERNAL", message: scrubErrorText(error) });
    }
  }

  /** An answer (WORKER_UNANSWERED) or a notice (WORKER_SILENT, `request` is its type) that did not come in time. */
  private unanswered(code: "WORKER_UNANSWERED" | "WORKER_SILENT", request: string, timeoutMs: number): AppError {
    return new AppError(code, { thread: this.thread, request, timeoutMs });
  }

  private ended(request: string): AppError {
    return new AppError("WORKER_ENDED", { thread: this.thread, request, reason: this.endedBecause ?? "it ended" });
  }

  private failed(request: string, code: ErrorCode, message: string): AppError {
    return new AppError(code, message, { thread: this.thread, request });
  }
}
