/**
 * The public health says that money is halted and of which kind; the halt's detail, with the exact
 * outflow cap and what would have left, is for operators only (issue 63, item 10).
 */
import { afterEach, expect, test } from "bun:test";
import { moneyGate } from "../../src/custody";
import { testService, type TestService } from "../helpers/service";

const ADMIN = "admin-secret-for-the-halt-detail-0123456789";
const CAP_LAMPORTS = 123_456_789n;
let service: TestService | null = null;
afterEach(async () => {
  await service?.cleanup();
  service = null;
});

test("a tripped outflow cap: public health shows halted and its kind, never the cap or the amounts; the operator's overview does", async () => {
  service = testService({ ADMIN_SECRET: ADMIN });
  const { db } = service.ctx;
  const tripped = moneyGate(
    db,
    { outflowMaxLamportsPerHour: CAP_LAMPORTS, outflowMaxLamportsPerDay: CAP_LAMPORTS * 10n },
    Date.now(),
    987_654_321n,
  );
  expect(tripped?.kind).toBe("outflow-hour");
  expect(tripped?.detail).toContain(String(CAP_LAMPORTS));

  const health = await service.json("/api/cron/health");
  expect(health.status).toBe(200);
  expect(health.body.ok).toBe(false);
  expect(health.body.halted).toEqual({
    kind: "outflow-hour",
    detail: expect.any(String),
    since: new Date(tripped!.atMs).toISOString(),
  });
  const publicText = JSON.stringify(health.body);
  expect(publicText).not.toContain(String(CAP_LAMPORTS));
  expect(publicText).not.toContain("987654321");
  expect(publicText).not.toContain(tripped!.detail);

  // The operator still reads the whole detail.
  const overview = await service.json("/api/admin/overview", { headers: { authorization: `Bearer ${ADMIN}` } });
  expect(overview.status).toBe(200);
  expect(overview.body.health.halted).toMatchObject({ kind: "outflow-hour", detail: tripped!.detail });
  const incidents = await service.json("/api/admin/incidents", { headers: { authorization: `Bearer ${ADMIN}` } });
  expect(JSON.stringify(incidents.body)).toContain(String(CAP_LAMPORTS));
});
