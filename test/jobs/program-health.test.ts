/**
 * The program watch as monitoring sees it (issue 61, item 7): while an upgrade of pump, pump_amm or
 * pump_fees waits for an operator, `/api/cron/health` names the program and the jobs standing still
 * (names only: no address, no slot) and turns `ok` false, though those jobs still finish their runs
 * cleanly; `/metrics` counts the change per program; the operator's overview carries the same. Once
 * acknowledged, health is as it was (the field absent) and the gauge is back to 0.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { PUMP_WATCHED_PROGRAMS } from "../../src/chain/pump/layout";
import { programWatchState, watchPrograms, whileProgramsUnchanged } from "../../src/jobs";
import { JOB_NAMES } from "../../src/jobs/names";
import { programDataAddress } from "../../src/jobs/program-watch";
import { fakeChain } from "../fakes/chain";
import { testService, type TestService } from "../helpers/service";

const ADMIN = "admin-secret-for-program-health-0123456789";
const METRICS = "metrics-secret-for-program-health-0123456789";
const LOADER = "BPFLoaderUpgradeab1e11111111111111111111111";
const PUMP = PUMP_WATCHED_PROGRAMS.find((p) => p.name === "pump")!.address;

/** ProgramData as BPFLoaderUpgradeable writes it: tag 3, the slot, Some(authority), the ELF. */
function programDataBytes(slot: bigint): Uint8Array {
  const data = new Uint8Array(45 + 16);
  const view = new DataView(data.buffer);
  view.setUint32(0, 3, true);
  view.setBigUint64(4, slot, true);
  data[12] = 1;
  return data;
}

let svc: TestService | null = null;
afterEach(async () => {
  await svc?.cleanup();
  svc = null;
});

/** The three pump programs on a fake chain whose ProgramData slots the test moves. */
function pumpPrograms() {
  const slots = new Map<string, bigint>(PUMP_WATCHED_PROGRAMS.map((p, i) => [p.address, 250_000_000n + BigInt(i)]));
  const byProgramData = new Map(PUMP_WATCHED_PROGRAMS.map((p) => [programDataAddress(p.address), p.address]));
  const chain = fakeChain({
    reader: {
      async getAccounts(addresses) {
        return new Map(
          addresses.map((a) => {
            const program = byProgramData.get(a);
            return [
              a,
              program
                ? { lamports: 1n, owner: LOADER, executable: false, data: programDataBytes(slots.get(program)!) }
                : null,
            ];
          }),
        );
      },
    },
    launchProgram: { programs: PUMP_WATCHED_PROGRAMS },
  });
  return { chain, slots };
}

const metricsText = async (s: TestService) =>
  (await s.call("/metrics", { headers: { authorization: `Bearer ${METRICS}` } })).text();

const pendingGauge = (text: string) =>
  text
    .split("\n")
    .filter((line) => line.startsWith("program_changes_pending{"))
    .sort();

describe("a program upgrade waiting for an operator", () => {
  test("health names it and the paused jobs with ok false; the gauge counts it; both clear once acknowledged", async () => {
    const { chain, slots } = pumpPrograms();
    svc = testService({ ADMIN_SECRET: ADMIN, METRICS_SECRET: METRICS, RATE_LIMIT: "off" }, { chain });
    const deps = { db: svc.ctx.db, chain, now: svc.ctx.now };
    // Every job fresh, the way the scheduler leaves them; sweep gated as register-jobs gates it.
    let swept = 0;
    for (const job of JOB_NAMES) {
      svc.ctx.scheduler.register(job, async () => {
        if (job === "sweep") await whileProgramsUnchanged(deps, "sweep", async () => swept++);
      });
      expect(await svc.ctx.scheduler.runNow(job)).toMatchObject({ ran: true, ok: true });
    }
    expect(swept).toBe(1);

    const before = await svc.json("/api/cron/health");
    expect(before.status).toBe(200);
    expect(before.body.ok).toBe(true);
    expect(Object.keys(before.body)).not.toContain("programChange");
    expect(pendingGauge(await metricsText(svc))).toEqual([
      'program_changes_pending{program="pump"} 0',
      'program_changes_pending{program="pump_amm"} 0',
      'program_changes_pending{program="pump_fees"} 0',
    ]);

    // pump is upgraded; the next sweep run sees it and stands still, yet finishes cleanly.
    slots.set(PUMP, 251_000_000n);
    const seenAtMs = svc.ctx.now();
    expect(await svc.ctx.scheduler.runNow("sweep")).toMatchObject({ ran: true, ok: true });
    expect(swept).toBe(1);

    const during = await svc.json("/api/cron/health");
    expect(during.status).toBe(200);
    expect(during.body.ok).toBe(false);
    expect(during.body.jobs.find((j: { job: string }) => j.job === "sweep")).toMatchObject({ stale: false });
    expect(during.body.programChange).toEqual({
      programs: ["pump"],
      pausedJobs: ["sweep", "burns", "launches"],
      since: expect.any(String),
    });
    expect(Date.parse(during.body.programChange.since)).toBeGreaterThanOrEqual(seenAtMs);
    // The public answer names the program, nothing more.
    const publicText = JSON.stringify(during.body);
    expect(publicText).not.toContain(PUMP);
    expect(publicText).not.toContain("251000000");
    expect(publicText).not.toContain("250000000");
    expect(pendingGauge(await metricsText(svc))).toEqual([
      'program_changes_pending{program="pump"} 1',
      'program_changes_pending{program="pump_amm"} 0',
      'program_changes_pending{program="pump_fees"} 0',
    ]);
    const admin = { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" };
    const overview = await svc.json("/api/admin/overview", { headers: admin });
    expect(overview.body.health.programChange).toEqual(during.body.programChange);

    const acknowledged = await svc.json("/api/admin/programs/acknowledge", {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ reason: "pump's upgrade read; decoders fit" }),
    });
    expect(acknowledged.status).toBe(200);

    const after = await svc.json("/api/cron/health");
    expect(Object.keys(after.body)).not.toContain("programChange");
    expect(after.body.ok).toBe(true);
    expect(pendingGauge(await metricsText(svc))).toEqual([
      'program_changes_pending{program="pump"} 0',
      'program_changes_pending{program="pump_amm"} 0',
      'program_changes_pending{program="pump_fees"} 0',
    ]);
    expect(await svc.ctx.scheduler.runNow("sweep")).toMatchObject({ ran: true, ok: true });
    expect(swept).toBe(2);
  });

  test("upgrades of two programs: both named, the jobs either pauses, since the oldest change", async () => {
    const { chain, slots } = pumpPrograms();
    svc = testService({ METRICS_SECRET: METRICS, RATE_LIMIT: "off" }, { chain });
    const deps = { db: svc.ctx.db, chain, now: svc.ctx.now };
    await watchPrograms(deps);
    const amm = PUMP_WATCHED_PROGRAMS.find((p) => p.name === "pump_amm")!.address;
    slots.set(amm, 260_000_000n);
    const firstAtMs = svc.ctx.now();
    await watchPrograms(deps);
    slots.set(amm, 261_000_000n);
    slots.set(PUMP, 262_000_000n);
    await watchPrograms(deps);

    const oldest = programWatchState(svc.ctx.db).changes[0]!;
    expect(oldest).toMatchObject({ name: "pump_amm", to: { slot: "260000000" } });
    expect(oldest.atMs).toBeGreaterThanOrEqual(firstAtMs);
    const health = await svc.json("/api/cron/health");
    expect(health.body.programChange).toEqual({
      programs: ["pump_amm", "pump"],
      pausedJobs: ["sweep", "burns", "launches"],
      since: new Date(oldest.atMs).toISOString(),
    });
    expect(pendingGauge(await metricsText(svc))).toEqual([
      'program_changes_pending{program="pump"} 1',
      'program_changes_pending{program="pump_amm"} 2',
      'program_changes_pending{program="pump_fees"} 0',
    ]);
  });
});
