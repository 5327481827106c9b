/**
 * What the operator sees of a reconciliation with the chain (issue 49): `/api/cron/health` and the
 * admin API show its progress; money is halted while it runs and no operator's resume lifts that;
 * a treasury transaction nobody can account for leaves money halted until an operator resumes.
 */
import { afterEach, expect, test } from "bun:test";
import { checkReserves, moneyHalt } from "../../src/custody";
import { holdForReconciliation } from "../../src/reconcile";
import {
  finishReconciliation,
  releaseHold,
  saveScan,
  settleItem,
  startReconciliation,
} from "../../src/reconcile/store";
import { type TestService, testService } from "../helpers/service";

const ADMIN = "admin-secret-for-reconciliation-tests-0123456789";
let service: TestService | null = null;
afterEach(async () => {
  await service?.cleanup();
  service = null;
});

const admin = (body?: unknown) => ({
  method: body === undefined ? "GET" : "POST",
  headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

test("progress in health and /admin; money halted throughout; an unknown transaction waits for the operator", async () => {
  service = testService({ ADMIN_SECRET: ADMIN });
  const { db } = service.ctx;
  holdForReconciliation(db, "restore", Date.now());
  let health = await service.json("/api/cron/health");
  expect(health.body.ok).toBe(false);
  expect(health.body.halted.kind).toBe("reconciling");

  const running = startReconciliation(db, "restore", Date.now());
  saveScan(db, running.id, {
    scanned: 40,
    unknown: [
      { signature: "sig-one", slot: 10n },
      { signature: "sig-two", slot: 11n },
    ],
    detail: null,
  });
  settleItem(db, { signature: "sig-one", status: "applied", kind: "payouts", note: null });
  health = await service.json("/api/cron/health");
  expect(health.body.reconciliation).toMatchObject({
    status: "applying",
    reason: "restore",
    scanned: 40,
    total: 2,
    applied: 1,
    unknown: 0,
    finishedAt: null,
  });
  const listed = await service.json("/api/admin/incidents", admin());
  expect(listed.body.reconciliation).toMatchObject({ status: "applying", total: 2, applied: 1 });

  // An operator cannot let money move while the books may miss what the chain did.
  const resumed = await service.json("/api/admin/resume", admin({ reason: "in a hurry" }));
  expect(resumed.status).toBe(409);
  expect(resumed.body.error).toContain("only the reconciliation lets it go");
  expect((await service.json("/api/cron/health")).body.halted.kind).toBe("reconciling");

  settleItem(db, { signature: "sig-two", status: "unknown", kind: null, note: "it carries no command key" });
  finishReconciliation(db, running.id, Date.now());
  health = await service.json("/api/cron/health");
  expect(health.body.reconciliation).toMatchObject({ status: "blocked", applied: 1, unknown: 1 });
  expect(health.body.halted.kind).toBe("unknown-transaction");
  // The signature is in the operator's detail; the public health says only the kind (issue 63).
  expect((await service.json("/api/admin/overview", admin())).body.health.halted.detail).toContain("sig-two");

  // Looked at by the operator: resumed with a reason, money moves again.
  expect(
    (await service.json("/api/admin/resume", admin({ reason: "the transfer was ours, made by hand" }))).status,
  ).toBe(200);
  health = await service.json("/api/cron/health");
  expect(health.body.halted).toBeNull();
});

test("no false shortfall while reconciling: the books still count as owed what was paid since the backup", () => {
  service = testService({ ADMIN_SECRET: ADMIN });
  const { db } = service.ctx;
  const policy = { shortfallToleranceLamports: 0n, treasuryReserveLamports: 0n };
  const reading = { treasuryLamports: 1_000n, owedLamports: 1_000_000_000n, atMs: Date.now() };
  holdForReconciliation(db, "start", Date.now());
  expect(checkReserves(db, reading, policy)).toBeNull();
  expect(moneyHalt(db)?.kind).toBe("reconciling");
  // The check over, the same reading is a shortfall.
  releaseHold(db, Date.now());
  expect(checkReserves(db, reading, policy)?.kind).toBe("shortfall");
});
