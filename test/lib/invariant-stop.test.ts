/**
 * Ledger invariants are assertions (issue #45): a `LEDGER_INVARIANT` that reaches the HTTP edge or
 * a job's run stops the process. Under test the stop is a recorder (an exit would end the runner);
 * the last test runs the real default in a child process.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Db } from "../../db/client";
import { Scheduler } from "../../src/jobs/scheduler";
import { AppError } from "../../src/lib/errors";
import { INVARIANT_EXIT_STATUS, onBrokenInvariant } from "../../src/lib/invariant";
import { confirmSweep, recordSweepsSent } from "../../src/sweeps/service";
import { recordFixtureLaunch } from "../helpers/launch";
import { type TestService, testService } from "../helpers/service";

let service: TestService | null = null;
let restore: (() => void) | null = null;
const stops: { code: string; boundary: string }[] = [];

afterEach(async () => {
  restore?.();
  restore = null;
  stops.length = 0;
  await service?.cleanup();
  service = null;
});

function recordStops(): void {
  restore = onBrokenInvariant((error, boundary) => stops.push({ code: error.code, boundary }));
}

function sweep(db: Db, tokenId: number, totalLamports: bigint) {
  const [sweepId] = recordSweepsSent(db, [{ tokenId, signature: "S1", lastValidBlockHeight: 50n, atMs: 2_000 }]);
  confirmSweep(db, {
    sweepId: sweepId!,
    totalLamports,
    atMs: 3_000,
    buyback: { platformBuybackBps: 0, platformTokenMint: null },
  });
}

describe("a broken ledger invariant stops the process", () => {
  test("at the HTTP edge: books that do not add up stop the process; the request gets the generic 500", async () => {
    recordStops();
    service = testService();
    const db = service.ctx.db;
    const { tokenId } = recordFixtureLaunch(db, { recipients: [{ handle: "alice", bps: 10_000 }] }, 1_000);
    sweep(db, tokenId, 1_000n);
    expect((await service.call("/api/idp/alice")).status).toBe(200);
    expect(stops).toEqual([]);

    db.$client.exec("UPDATE ledger_account_figures SET paid_lamports = paid_lamports + 1");
    const refused = await service.call("/api/idp/alice");
    expect(stops).toEqual([{ code: "LEDGER_INVARIANT", boundary: "http" }]);
    expect(refused.status).toBe(500);
    expect(await refused.json()).toEqual({ error: "Something went wrong on our side; try again later." });
  });

  test("at the HTTP edge: any other unexpected failure is a 500 and the process goes on", async () => {
    recordStops();
    service = testService();
    service.ctx.db.$client.exec("DROP TRIGGER tokens_search_insert");
    service.ctx.db.$client.exec("DROP TABLE tokens_search");
    expect((await service.call("/api/tokens?q=pepe")).status).toBe(500);
    expect(stops).toEqual([]);
  });

  test("in a job's run: the run is written down as failed, then the process stops; another failure does not stop it", async () => {
    recordStops();
    service = testService();
    const scheduler = new Scheduler(service.ctx.db, { leaseMs: 5_000 });
    scheduler.register("sweep", async () => {
      throw new AppError("LEDGER_INVARIANT", "posting sweep does not balance (1)");
    });
    scheduler.register("payouts", async () => {
      throw new AppError("CHAIN_TIMEOUT", { method: "getBalance", timeoutMs: 1_000 });
    });

    expect(await scheduler.runNow("payouts")).toMatchObject({ ran: true, ok: false });
    expect(stops).toEqual([]);
    expect(await scheduler.runNow("sweep")).toMatchObject({ ran: true, ok: false });
    expect(stops).toEqual([{ code: "LEDGER_INVARIANT", boundary: "job sweep" }]);
    const run = service.ctx.db.$client
      .query<{ ok: bigint; error: string }, []>("SELECT ok, error FROM job_runs WHERE job = 'sweep'")
      .get();
    expect(run).toEqual({ ok: 0n, error: expect.stringContaining("does not balance") });
    await scheduler.stop();
  });

  test("the default stop exits the process with EX_SOFTWARE", async () => {
    const root = join(import.meta.dir, "../..");
    const script = `
      import { AppError } from "./src/lib/errors";
      import { stopOnBrokenInvariant } from "./src/lib/invariant";
      stopOnBrokenInvariant(new AppError("CHAIN_TIMEOUT", "not an invariant"), "check");
      stopOnBrokenInvariant(new AppError("LEDGER_INVARIANT", "does not add up"), "check");
      console.log("still running");
    `;
    const child = Bun.spawn([process.execPath, "-e", script], {
      cwd: root,
      env: { ...process.env, NODE_ENV: "production" },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await child.exited).toBe(INVARIANT_EXIT_STATUS);
    expect(await new Response(child.stdout).text()).toBe("");
    expect(await new Response(child.stderr).text()).toContain("ledger invariant broken");
  });
});
