/**
 * How often a sweep run asks the node while its transactions land (issue 42: the provider bills
 * every question). Money moves only at finalized, ~32 slots after landing: the run asks once the
 * confirmations it has seen foretell a finalization, not on a fixed beat.
 */
import { describe, expect, test } from "bun:test";
import { FinalizationPace } from "../../src/sweeps/job";

describe("the settle loop's pace", () => {
  test("with no confirmations to go by, the wait doubles up to eight times the first", () => {
    const pace = new FinalizationPace(500, () => 0);
    const waits = Array.from({ length: 6 }, () => pace.nextWaitMs(null));
    expect(waits).toEqual([500, 1_000, 2_000, 4_000, 4_000, 4_000]);
    // A reader that does not say how many confirmations (a fake, an old node) is asked the same way.
    const blind = new FinalizationPace(500, () => 0);
    expect([blind.nextWaitMs(new Map([["s", null]])), blind.nextWaitMs(new Map([["s", null]]))]).toEqual([500, 1_000]);
  });

  test("two landing answers foretell the finalization: the next question waits for it", () => {
    let nowMs = 0;
    const pace = new FinalizationPace(500, () => nowMs);
    // First answer: 2 confirmations. Nothing to measure the slots' pace by yet.
    expect(pace.nextWaitMs(new Map([["s", 2]]))).toBe(500);
    // 500 ms later, 3 more slots (a slot every ~167 ms): 27 slots to go, about 4.5 s.
    nowMs = 500;
    expect(pace.nextWaitMs(new Map([["s", 5]]))).toBe(4_500);
    // The first of several transactions to be finalized decides when to ask.
    nowMs = 1_000;
    expect(
      pace.nextWaitMs(
        new Map([
          ["s", 8],
          ["t", 20],
        ]),
      ),
    ).toBe(2_000); // t: 12 slots to go at 6 slots a second
  });

  test("never shorter than the first wait, never longer than 32 times it", () => {
    let nowMs = 0;
    const slow = new FinalizationPace(100, () => nowMs);
    slow.nextWaitMs(new Map([["s", 0]]));
    nowMs = 10_000; // one slot in 10 s: 31 slots would be 310 s
    expect(slow.nextWaitMs(new Map([["s", 1]]))).toBe(3_200);
    nowMs = 0;
    const done = new FinalizationPace(100, () => nowMs);
    done.nextWaitMs(new Map([["s", 10]]));
    nowMs = 100;
    expect(done.nextWaitMs(new Map([["s", 40]]))).toBe(100);
  });

  test("a clock that has not moved (a manual local chain) falls back to doubling", () => {
    let nowMs = 0;
    const pace = new FinalizationPace(500, () => nowMs);
    pace.nextWaitMs(new Map([["s", 3]]));
    nowMs = 500;
    expect(pace.nextWaitMs(new Map([["s", 3]]))).toBe(1_000);
    nowMs = 1_500;
    expect(pace.nextWaitMs(new Map([["s", 3]]))).toBe(2_000);
  });
});
