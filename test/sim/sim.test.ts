/**
 * The seeded simulation (scripts/sim.ts) in CI: 200 seeds of random user behaviour, every fault
 * rule of the hostile local chain (history holes and batches fanned out included), crashes at the
 * crash points, lease takeovers and clock jumps, restores of an earlier backup and copies of it put
 * back by hand (JOBS on and off, sweeps held before payouts) reconciled with the chain (crashes at
 * the reconciliation's points included), strangers' dust and pre-funded accounts, low outflow caps
 * and the operator's resumes, with the invariants checked after every step; and one fixed seed
 * replayed to the same trace.
 */
import { describe, expect, test } from "bun:test";
import { runSeed } from "../../scripts/sim";
import { CRASH_POINTS } from "../../src/jobs/crash-points";
import { setLogSilent } from "../../src/lib/log";

const SEEDS = Number(process.env.SIM_SEEDS ?? "200");
const STEPS = 15;

describe("seeded simulation", () => {
  test("one fixed seed replays to the same trace, twice", async () => {
    setLogSilent(true);
    const a = await runSeed(7, { steps: 40 });
    const b = await runSeed(7, { steps: 40 });
    expect(a.ok).toBe(true);
    expect(a.trace.length).toBe(42); // warm-up, 40 steps, settle
    expect(b.trace).toEqual(a.trace);
    expect(b.faults).toEqual(a.faults);
  }, 60_000);

  test(`${SEEDS} seeds hold every invariant, and faults were really injected`, async () => {
    setLogSilent(true);
    const totals: Record<string, number> = {};
    const crashes: Record<string, number> = {};
    const failures: string[] = [];
    for (let seed = 1; seed <= SEEDS; seed++) {
      const r = await runSeed(seed, { steps: STEPS });
      for (const [k, v] of Object.entries(r.faults)) totals[k] = (totals[k] ?? 0) + v;
      for (const [k, v] of Object.entries(r.crashes)) crashes[k] = (crashes[k] ?? 0) + v;
      if (!r.ok) failures.push(`seed ${seed}: ${r.error} (replay: bun run sim -- --seed ${seed} --steps ${STEPS})`);
    }
    expect(failures).toEqual([]);
    // A simulation that injected nothing proves nothing.
    for (const kind of [
      "dropSends",
      "delaySends",
      "failSends",
      "ghostSends",
      "lag",
      "minContextSlot",
      "rpcError:429",
      "rpcError:503",
      "rpcError:timeout",
      "clear",
      "crash",
      "leaseTakeover",
      "clockJump",
      "congestion",
      "prunedHistory",
      "historyHole",
      "batchFanOut",
      "rebroadcast",
      // backups restored, and treasury transactions the reconciliation applied after them
      "restore",
      "reconciledItems",
      // backups copied back by hand (JOBS on, JOBS off), sweeps held until the start's check, and
      // the reconciliations those checks started
      "rollback",
      "rollback-jobs-off",
      "sweepHeld",
      "rollbackReconciled",
      // strangers: dust (in bursts, and between the reads of a run), accounts pre-funded below a
      // token account's rent before the buy that creates them, accounts created for the treasury
      "dust",
      "dustMidRun",
      "strangerPrefundBelowRent",
      "strangerCreate",
      // outflow breakers tripped under a low cap: resumes by id, and resumes refused
      "resume",
      "resumeRefused",
    ]) {
      expect({ kind, injected: (totals[kind] ?? 0) > 0 }).toEqual({ kind, injected: true });
    }
    // Crashes at every crash point of the money jobs, and in the launches job (at its chain reads).
    for (const point of [...CRASH_POINTS, "launches:read"]) {
      expect({ point, crashed: (crashes[`crash@${point}`] ?? 0) > 0 }).toEqual({ point, crashed: true });
    }
  }, 1_500_000); // a ceiling for slow shared runners; 49 s alone (46.6 s user CPU) measured on this 2-core machine
});
