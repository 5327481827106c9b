/**
 * Requests between the request thread and a worker (src/workers/channel.ts, link.ts, port.ts): a
 * request never waits forever. It is rejected when its deadline passes (naming the request), when
 * the worker ends while it is open, and when the handler on the other side fails, which answers
 * the caller with the error instead of dropping it.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { AppError, isAppError } from "../../src/lib/errors";
import { WorkerLink } from "../../src/workers/link";
import type { EchoProtocol } from "./fixtures/echo-protocol";

const ENTRY = new URL("./fixtures/echo-thread.ts", import.meta.url);
const links: WorkerLink<EchoProtocol>[] = [];

/** A worker whose end does not exit the test process: `died` records it instead. */
async function startEcho(): Promise<{ link: WorkerLink<EchoProtocol>; died: number[] }> {
  const died: number[] = [];
  const link = new WorkerLink<EchoProtocol>(
    "echo",
    ENTRY,
    { env: {}, endpoints: null, requests: null },
    { handlers: { double: (n) => n * 2 }, onDied: (code) => died.push(code) },
  );
  links.push(link);
  await link.channel.next("ready", 10_000);
  return { link, died };
}

/** The rejection of `promise`, or a failure of the test if it resolved. */
async function rejectionOf(promise: Promise<unknown>): Promise<AppError> {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!("error" in outcome)) throw new Error(`expected a rejection, got ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(AppError);
  return outcome.error as AppError;
}

afterEach(async () => {
  await Promise.all(links.splice(0).map((link) => link.stop(1_000)));
});

describe("requests to a worker thread", () => {
  test("a request is answered, and the worker's own request to the request thread too", async () => {
    const { link } = await startEcho();
    expect(await link.channel.request("echo", "hello", 5_000)).toBe("hello");
    expect(await link.channel.request("relay", 21, 5_000)).toBe(42);
  });

  test("a request to a worker that exits is rejected at once, with every other open request", async () => {
    const { link, died } = await startEcho();
    const startedAtMs = Date.now();
    const open = link.channel.request("hang", "payouts", 60_000);
    const error = await rejectionOf(link.channel.request("exit", 3, 60_000));
    expect(isAppError(error, "WORKER_ENDED")).toBe(true);
    expect(error.message).toBe("the echo thread ended before answering exit (it exited with code 3)");
    expect((await rejectionOf(open)).message).toBe(
      "the echo thread ended before answering hang payouts (it exited with code 3)",
    );
    expect(Date.now() - startedAtMs).toBeLessThan(10_000);
    // The process policy heard of the unasked end; a request made afterwards fails at once too.
    expect(died).toEqual([3]);
    expect((await rejectionOf(link.channel.request("echo", "late", 60_000))).message).toContain(
      "ended before answering echo late",
    );
  });

  test("a request past its deadline is rejected, naming the request; the worker still answers others", async () => {
    const { link } = await startEcho();
    const error = await rejectionOf(link.channel.request("hang", "sweep", 100));
    expect(isAppError(error, "WORKER_UNANSWERED")).toBe(true);
    expect(error.message).toBe("the echo thread did not answer hang sweep within 100 ms");
    expect(error.context).toMatchObject({ thread: "echo", request: "hang sweep", timeoutMs: 100 });
    expect(await link.channel.request("echo", "still here", 5_000)).toBe("still here");
  });

  test("a handler that rejects answers its caller with the error, code and sentence kept", async () => {
    const { link, died } = await startEcho();
    const refused = await rejectionOf(link.channel.request("refuse", "That job is not available here.", 5_000));
    expect(refused.code).toBe("INVALID_INPUT");
    expect(refused.message).toBe("That job is not available here.");
    // Any other failure arrives as an internal error with its text, for the log.
    const failed = await rejectionOf(link.channel.request("fail", null, 5_000));
    expect(failed.code).toBe("INTERNAL");
    expect(failed.message).toContain("went wrong inside the worker");
    // So does an answer that cannot cross threads.
    expect((await rejectionOf(link.channel.request("uncloneable", null, 5_000))).code).toBe("INTERNAL");
    // Nothing went unhandled in the worker: it is alive and answers.
    expect(await link.channel.request("echo", "after", 5_000)).toBe("after");
    expect(died).toEqual([]);
  });
});
