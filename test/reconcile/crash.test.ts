/**
 * The reconciliation after a restore, killed (SIGKILL) at each of its steps and started again in a
 * new process on the same restored database (issue 49): it finishes, and the books come out as
 * they were before the restore, with nobody paid twice.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../../db/client";
import { verifyLedger } from "../../src/ledger/verify";
import { holdForReconciliation, latestReconciliation } from "../../src/reconcile";
import { moneyWorld, type World } from "../jobs/world";
import { balances, JOB_ENV, payoutsOf, type Scenario, restoreScenario, settle } from "./support";

let w: World;
let scenario: Scenario;

beforeAll(async () => {
  w = await moneyWorld({ slotMs: 10 });
  scenario = await restoreScenario(w);
}, 300_000);

afterAll(async () => {
  await w?.close();
});

describe("a reconciliation killed at each step", () => {
  for (const crashAt of ["reconcile:after-scan", "reconcile:after-write@2", "reconcile:after-resolve@3"]) {
    test(`killed at ${crashAt}, then run again: the books as before the restore`, async () => {
      const path = join(w.dir, `restored-${crashAt.replace(/[^a-z0-9]/g, "-")}.db`);
      copyFileSync(scenario.backupPath, path);
      const marked = openDatabase(path);
      holdForReconciliation(marked, "restore", Date.now());
      closeDatabase(marked);
      const env = { ...JOB_ENV, DB_PATH: path, RECONCILE: "1", PLATFORM_WALLET: scenario.platformWallet };

      // Up to ten runs: under load a run may end before the step (the node's history not yet
      // reaching the treasury's balance ends it, and the next run asks again), as in production.
      const killed = await w.worker({ jobs: ["payouts"], runs: 10, crashAt, env });
      expect(killed.signalCode).toBe("SIGKILL");
      for (let attempt = 0; attempt < 10; attempt++) {
        const run = await w.worker({ jobs: ["payouts"], runs: 10, env });
        if (run.exitCode !== 0) throw new Error(`the run after the kill exited ${run.exitCode}:\n${run.stderr}`);
        const db = openDatabase(path);
        const status = latestReconciliation(db)?.status;
        closeDatabase(db);
        if (status === "done") break;
        expect(status === "scanning" || status === "applying").toBe(true);
      }

      const restored = openDatabase(path);
      try {
        expect(latestReconciliation(restored)?.status).toBe("done");
        await settle(w, restored, scenario.platformWallet);
        verifyLedger(restored);
        expect(balances(restored)).toEqual(scenario.before.balances);
        expect(payoutsOf(restored)).toEqual(scenario.before.payouts);
        expect(scenario.wallets.map((a) => w.local.node.getBalance(a))).toEqual(scenario.before.wallets);
      } finally {
        closeDatabase(restored);
      }
    }, 240_000);
  }
});
