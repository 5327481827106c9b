/**
 * The jobs' thread rests while requests come (src/workers/pace.ts): its chain calls wait out a
 * multiple of the thread's CPU time since the previous call, only while the request counter moves,
 * in turns and never longer than the bound per turn (rest owed past it is waited by the next calls,
 * up to the debt bound, and forgiven once requests stop), and the app counts every request it starts.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { countRequests, noteRequest, PACE_DEBT_MS_MAX, PACE_WAIT_MS_MAX, pacedFetch } from "../../src/workers/pace";
import { testService, type TestService } from "../helpers/service";

/**
 * A paced fetch resting 3 ms per ms of work, on a fake clock and CPU clock: `work(ms)` is the thread
 * running its own code; the chain answers in `chainMs`, while the thread works `workWhileWaitingMs`
 * on something else (another job, the indexer).
 */
function harness(chainMs = 0, workWhileWaitingMs = 0) {
  const requests = new SharedArrayBuffer(4);
  const counter = new Int32Array(requests);
  let nowMs = 1_000;
  let cpuMs = 0;
  const slept: number[] = [];
  const reached: number[] = [];
  const inner = (async () => {
    reached.push(nowMs);
    nowMs += chainMs;
    cpuMs += workWhileWaitingMs;
    return new Response("ok");
  }) as unknown as typeof fetch;
  const paced = pacedFetch(inner, requests, {
    restPerWorkMs: 3,
    now: () => nowMs,
    workMs: () => cpuMs,
    // Time passes when the sleeper resumes, as it would: calls started meanwhile see the old time.
    sleep: (ms) => {
      slept.push(ms);
      const until = nowMs + ms;
      return Promise.resolve().then(() => {
        nowMs = Math.max(nowMs, until);
      });
    },
  });
  return {
    call: () => paced("http://node.invalid/"),
    work: (ms: number) => {
      nowMs += ms;
      cpuMs += ms;
    },
    request: () => Atomics.add(counter, 0, 1),
    slept,
    reached,
    now: () => nowMs,
  };
}

describe("jobs pacing", () => {
  test("with no requests coming the jobs never wait, however long they work", async () => {
    const h = harness();
    for (let i = 0; i < 5; i++) {
      h.work(40);
      await h.call();
    }
    expect(h.slept).toEqual([]);
    expect(h.reached).toHaveLength(5);
  });

  test("while requests come, each call first rests three times the work since the last call", async () => {
    const h = harness();
    h.work(10);
    h.request();
    await h.call();
    expect(h.slept).toEqual([30]);
    // The chain is reached only after the rest.
    expect(h.reached[0]).toBe(h.now());
    h.work(4);
    h.request();
    await h.call();
    expect(h.slept).toEqual([30, 12]);
  });

  test("time spent waiting for the chain is not work: a call right after an answer does not wait", async () => {
    const h = harness(100);
    h.request();
    await h.call();
    h.request();
    await h.call();
    expect(h.slept).toEqual([]);
    expect(h.reached).toHaveLength(2);
  });

  test("the thread's work while a call waits for the chain is owed too", async () => {
    // Another job works 20 ms while this call waits 100 ms for the chain: that is CPU the request
    // thread did not get, though no time passed between one call's answer and the next call.
    const h = harness(100, 20);
    h.request();
    await h.call();
    h.request();
    await h.call();
    expect(h.slept).toEqual([60]);
  });

  test("calls in flight together share one gate, so parallel sends cannot add up to more work", async () => {
    const h = harness();
    h.work(10);
    h.request();
    await Promise.all([h.call(), h.call(), h.call()]);
    // The first call owes 30 ms; the others, started at the same moment, owe nothing more but wait
    // for the same gate instead of going straight to the chain.
    expect(h.slept).toEqual([30]);
    expect(h.reached.every((at) => at >= 1_040)).toBe(true);
  });

  test("calls in flight together pay all the rest owed, in turns, not one bound each at once", async () => {
    const h = harness();
    // 500 ms of work owes 1,500 ms of rest; ten sends at once used to wait 250 ms side by side and
    // all reach the chain 250 ms later, the rest unpaid.
    h.work(500);
    h.request();
    const startedMs = h.now();
    await Promise.all(Array.from({ length: 10 }, () => h.call()));
    expect(h.slept).toEqual([250, 250, 250, 250, 250, 250]);
    expect(Math.max(...h.reached) - startedMs).toBe(1_500);
    // Each waited at most one bound at its turn: the first ones reached the chain early.
    expect(Math.min(...h.reached) - startedMs).toBe(PACE_WAIT_MS_MAX);
  });

  test("one wait is bounded, so the jobs keep moving under any load", async () => {
    const h = harness();
    h.work(10_000);
    h.request();
    await h.call();
    expect(h.slept).toEqual([PACE_WAIT_MS_MAX]);
  });

  test("rest owed past one wait's bound is waited by the next calls, up to the debt bound", async () => {
    const h = harness();
    h.work(200);
    for (let i = 0; i < 4; i++) {
      h.request();
      await h.call();
    }
    // 200 ms of work owes 600 ms of rest: 250, 250, then the 100 left.
    expect(h.slept).toEqual([PACE_WAIT_MS_MAX, PACE_WAIT_MS_MAX, 100]);
    const far = harness();
    far.work(100_000);
    for (let i = 0; i < 20; i++) {
      far.request();
      await far.call();
    }
    expect(far.slept.reduce((sum, ms) => sum + ms, 0)).toBe(PACE_DEBT_MS_MAX);
  });

  test("rest still owed when requests stop is forgiven", async () => {
    const h = harness();
    h.work(200);
    h.request();
    await h.call();
    expect(h.slept).toEqual([PACE_WAIT_MS_MAX]);
    h.work(60);
    await h.call();
    // Requests come again: only the work since the last call is owed, nothing from before.
    h.work(10);
    h.request();
    await h.call();
    expect(h.slept).toEqual([PACE_WAIT_MS_MAX, 30]);
  });

  test("once requests stop, the jobs run free again after the busy window", async () => {
    const h = harness();
    h.request();
    h.work(10);
    await h.call();
    expect(h.slept).toHaveLength(1);
    h.work(60);
    await h.call();
    h.work(60);
    await h.call();
    expect(h.slept).toHaveLength(1);
  });
});

describe("request counting", () => {
  let service: TestService | null = null;
  afterEach(async () => {
    await service?.cleanup();
    service = null;
  });

  test("every request the app starts moves the counter the jobs' thread reads, refused ones too", async () => {
    const counter = new Int32Array(countRequests());
    service = testService();
    const before = Atomics.load(counter, 0);
    await service.call("/api/stats");
    await service.call("/api/tokens?sort=nope");
    await service.call("/no/such/route");
    expect(Atomics.load(counter, 0) - before).toBe(3);
    noteRequest();
    expect(Atomics.load(counter, 0) - before).toBe(4);
  });
});
