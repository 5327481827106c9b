/**
 * The payouts kick a claim gives (src/jobs/kicker.ts): a run that starts after the kick, kicks
 * during a run folded into one more, a lease held by another run asked again until free, and
 * nothing asked again where no run can start.
 */
import { expect, test } from "bun:test";
import { JobKicker } from "../../src/jobs/kicker";
import type { RunResult } from "../../src/jobs/scheduler";

/** A runner whose runs the test finishes by hand, with the answers it gives queued by the test. */
function heldRunner(answers: ("run" | "busy" | "not_registered")[] = []) {
  const runs: { finish: () => void }[] = [];
  const asked: string[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const runner = {
    runNow(): Promise<RunResult> {
      const answer = answers.shift() ?? "run";
      asked.push(answer);
      for (const w of waiters.filter((w) => asked.length >= w.count)) w.resolve();
      if (answer !== "run") return Promise.resolve({ ran: false, reason: answer });
      return new Promise((resolve) =>
        runs.push({ finish: () => resolve({ ran: true, ok: true, error: null, durationMs: 1 }) }),
      );
    },
  };
  const askedTimes = (count: number) =>
    asked.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve }));
  return { runner, runs, asked, askedTimes };
}

test("kicks during a run fold into one more run after it", async () => {
  const { runner, runs, asked, askedTimes } = heldRunner();
  const kicker = new JobKicker(runner, "payouts", { busyRetryMs: 0 });
  kicker.kick();
  await askedTimes(1);
  for (let i = 0; i < 5; i++) kicker.kick();
  runs[0]!.finish();
  await askedTimes(2);
  runs[1]!.finish();
  // A kick after the second run has ended starts a third: nothing was lost in between.
  await new Promise<void>((resolve) => setImmediate(resolve));
  expect(asked).toEqual(["run", "run"]);
  kicker.kick();
  await askedTimes(3);
  runs[2]!.finish();
  expect(runs).toHaveLength(3);
});

test("a lease another run holds is asked again until a run starts after the kick", async () => {
  const { runner, runs, asked, askedTimes } = heldRunner(["busy", "busy", "busy", "run"]);
  const kicker = new JobKicker(runner, "payouts", { busyRetryMs: 0 });
  kicker.kick();
  await askedTimes(4);
  expect(asked).toEqual(["busy", "busy", "busy", "run"]);
  runs[0]!.finish();
});

test("a busy lease past the bound, or no job to run, leaves the item to the schedule", async () => {
  const busy = heldRunner(["busy", "busy", "busy", "busy"]);
  new JobKicker(busy.runner, "payouts", { busyRetryMs: 0, busyRetriesMax: 2 }).kick();
  await busy.askedTimes(3);
  await new Promise<void>((resolve) => setImmediate(resolve));
  expect(busy.asked).toEqual(["busy", "busy", "busy"]);

  const off = heldRunner(["not_registered"]);
  const kicker = new JobKicker(off.runner, "payouts", { busyRetryMs: 0 });
  kicker.kick();
  await off.askedTimes(1);
  await new Promise<void>((resolve) => setImmediate(resolve));
  expect(off.asked).toEqual(["not_registered"]);
  // Idle again: the next kick asks anew.
  kicker.kick();
  await off.askedTimes(2);
});
