/**
 * Admin audit rows reach the off-site store as they are written (issue 63, item 4), and a store
 * outage blocks no admin action: the rows wait above the progress mark (`settings`), go up once
 * the store is back, each exactly once, and a restart resumes from the mark. The outage is the
 * store stopped (connections refused) and started again on its port, on each store of stores.ts
 * (the fake and s3rver).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { AUDIT_MARK_KEY, AuditShipper } from "../../src/backup";
import { testService } from "../helpers/service";
import { STORES, type TestStore } from "./stores";
import { BUCKET, s3Env, uniqueSecret } from "./support";

const ADMIN = "admin-secret-for-the-audit-offsite-test-0123456789";
const operator = { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" };
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const auditKeys = (store: TestStore) => store.keys().filter((key) => key.startsWith("svc/audit/"));

describe.each(STORES)("on the $name store", (kind) => {
  test("with the store down, admin actions answer at once; their rows go up when it is back, once each, across a restart", async () => {
    const secret = uniqueSecret();
    const store = await kind.start(BUCKET, secret);
    cleanups.push(() => store.remove());
    const svc = testService({ ...s3Env(store, secret), BACKUP_URL: `s3://${BUCKET}/svc`, ADMIN_SECRET: ADMIN });
    cleanups.push(() => svc.cleanup());
    const { db, config } = svc.ctx;
    const shipperOf = () => {
      const shipper = new AuditShipper({ db, config, timing: { pollMs: 20, retryMaxMs: 200 } });
      cleanups.push(() => shipper.stop(1_000));
      return shipper;
    };
    const mark = () =>
      (db.$client.query("SELECT value FROM settings WHERE key = ?").get(AUDIT_MARK_KEY) as { value: string } | null)
        ?.value ?? null;
    const act = async (path: string, reason: string) =>
      (await svc.call(`/api/admin/${path}`, { method: "POST", headers: operator, body: JSON.stringify({ reason }) }))
        .status;

    await store.stop();
    const shipper = shipperOf();
    shipper.start();
    // The store refuses connections: every action still answers, its row committed with it.
    expect(await act("claims/pause", "one")).toBe(200);
    expect(await act("claims/resume", "two")).toBe(200);
    expect(await act("launches/pause", "three")).toBe(200);
    expect(mark()).toBeNull();

    // Back where it was: the waiting rows go up, oldest first, and the mark follows.
    await store.start();
    await store.until(() => auditKeys(store).length === 3);
    expect(auditKeys(store)).toEqual([1, 2, 3].map((id) => `svc/audit/${String(id).padStart(12, "0")}.sealed`));
    await shipper.stop(1_000);
    expect(mark()).toBe("3");

    // A row written while no uploader runs goes up after the next start; the three are not sent again.
    expect(await act("launches/resume", "four")).toBe(200);
    shipperOf().start();
    await store.until(() => auditKeys(store).length === 4);
    const puts = store.requests.filter((r) => r.method === "PUT" && r.path.includes("/svc/audit/"));
    expect(puts.map((r) => r.path.slice(r.path.lastIndexOf("/") + 1))).toEqual(
      [1, 2, 3, 4].map((id) => `${String(id).padStart(12, "0")}.sealed`),
    );
  }, 60_000);
});
