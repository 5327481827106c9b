/**
 * Failed off-site backups are seen (issue 63, item 5): with the S3-compatible store down, the
 * scheduled generations fail, and within two of them `/api/cron/health` is not ok (its `backup`
 * block says how many were missed, never the store's error), `/metrics` shows the last success,
 * the failures and the last size, /admin's overview carries the store's error, and an `incident`
 * webhook (a warning: money is not halted) reaches the operator. A success clears all of it. The
 * outage is the store stopped and started again on its port, on each store of stores.ts.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { BackupSchedule } from "../../src/backup";
import { JOB_NAMES } from "../../src/jobs/names";
import { WebhookDispatcher } from "../../src/webhooks/dispatcher";
import { webhookSigningKey } from "../../src/webhooks/key";
import { startFakeS3, type FakeS3 } from "../fakes/s3";
import { testService, type Json, type TestService } from "../helpers/service";
import { Receiver } from "../webhooks/receiver";
import { STORES } from "./stores";
import { ACCESS_KEY_ID, BUCKET, s3Env, uniqueSecret } from "./support";

const ADMIN = "admin-secret-for-backup-failures-0123456789";
const METRICS = "metrics-secret-for-backup-failures-0123456789";
const HOUR_MS = 3_600_000;
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function storeOn(secret: string, port?: number): FakeS3 {
  const fake = startFakeS3({ accessKeyId: ACCESS_KEY_ID, secretAccessKey: secret, buckets: [BUCKET], port });
  cleanups.push(() => fake.stop());
  return fake;
}

const operator = { headers: { authorization: `Bearer ${ADMIN}` } };

/** Every SPEC job finished cleanly just now, so that only the backups can make health not ok. */
function jobsFresh(svc: TestService, nowMs: number): void {
  for (const job of JOB_NAMES)
    svc.ctx.db.$client
      .query(
        "INSERT INTO job_leases (job, runs, last_run_at_ms, last_ok_at_ms) VALUES (?1, 1, ?2, ?2) ON CONFLICT (job) DO UPDATE SET last_ok_at_ms = ?2, last_run_at_ms = ?2",
      )
      .run(job, nowMs);
}

async function metricsOf(svc: TestService): Promise<Map<string, number>> {
  const response = await svc.call("/metrics", { headers: { authorization: `Bearer ${METRICS}` } });
  expect(response.status).toBe(200);
  const samples = new Map<string, number>();
  for (const line of (await response.text()).split("\n"))
    if (line.startsWith("backup_")) {
      const [name, value] = line.split(" ");
      samples.set(name!, Number(value));
    }
  return samples;
}

describe.each(STORES)("on the $name store", (kind) => {
  test("the store down: health and /metrics red within two generations, /admin names the error, an incident webhook; back after a success", async () => {
    const secret = uniqueSecret();
    const store = await kind.start(BUCKET, secret);
    cleanups.push(() => store.remove());
    let clockMs = Date.UTC(2026, 10, 29, 9, 30, 0);
    const svc = testService(
      {
        ...s3Env(store, secret),
        BACKUP_URL: `s3://${BUCKET}/svc`,
        BACKUP_SCHEDULE: "0 * * * *",
        ADMIN_SECRET: ADMIN,
        METRICS_SECRET: METRICS,
        WEBHOOKS_ALLOW_PRIVATE: "1",
      },
      { now: () => clockMs },
    );
    cleanups.push(() => svc.cleanup());
    const { db, config } = svc.ctx;
    const receiver = new Receiver().start();
    cleanups.push(() => receiver.stop());
    const hook = await svc.json("/api/admin/webhooks", {
      method: "POST",
      headers: { ...operator.headers, "content-type": "application/json" },
      body: JSON.stringify({ url: receiver.url, types: ["incident"] }),
    });
    expect(hook.status).toBe(200);
    const dispatcher = new WebhookDispatcher(db, {
      signingKey: webhookSigningKey(config),
      allowPrivate: true,
      retryBaseMs: 50,
      tickMs: 20,
    }).start();
    cleanups.push(() => dispatcher.stop());
    // The schedule's own body, one generation per call; its clock is the service's.
    const schedule = new BackupSchedule({ db, config, holder: "test-schedule", now: () => clockMs });
    const generation = async (expectOk: boolean) => {
      clockMs += HOUR_MS;
      jobsFresh(svc, clockMs);
      expect(await schedule.runNow()).toMatchObject({ ran: true, ok: expectOk });
    };
    const health = async () => (await svc.json("/api/cron/health")).body as Json;

    await generation(true);
    const okAtMs = clockMs;
    const before = store.keys();
    expect(before).toHaveLength(1);
    expect(await health()).toMatchObject({
      ok: true,
      backup: { ok: true, missedGenerations: 0, lastOkAt: new Date(okAtMs).toISOString() },
    });
    let metrics = await metricsOf(svc);
    expect(metrics.get("backup_last_success_timestamp_seconds")).toBe(Math.floor(okAtMs / 1000));
    expect(metrics.get("backup_failures_total")).toBe(0);
    expect(metrics.get("backup_last_size_bytes")).toBeGreaterThan(0);

    // The store goes down.
    await store.stop();
    await generation(false);
    expect((await health()).backup).toEqual({
      ok: true,
      missedGenerations: 1,
      lastOkAt: new Date(okAtMs).toISOString(),
    });
    expect((await metricsOf(svc)).get("backup_failures_total")).toBe(1);

    // The second missed generation: red everywhere.
    await generation(false);
    const red = await health();
    expect(red.ok).toBe(false);
    expect(red.backup).toEqual({ ok: false, missedGenerations: 2, lastOkAt: new Date(okAtMs).toISOString() });
    expect(red.halted).toBeNull(); // a warning: money still moves
    expect(JSON.stringify(red)).not.toContain("ConnectionRefused"); // the store's error is the operator's
    metrics = await metricsOf(svc);
    expect(metrics.get("backup_failures_total")).toBe(2);
    expect(metrics.get("backup_missed_generations")).toBe(2);
    expect(metrics.get("backup_last_success_timestamp_seconds")).toBe(Math.floor(okAtMs / 1000));
    const overview = await svc.json("/api/admin/overview", operator);
    expect(overview.body.health.backup).toMatchObject({
      ok: false,
      missedGenerations: 2,
      failuresTotal: 2,
      lastError: expect.stringContaining("ConnectionRefused"),
    });
    const [delivered] = await receiver.waitFor(1);
    const event = new Webhook(hook.body.secret).verify(delivered!.body, delivered!.headers) as Json;
    expect(event.data).toMatchObject({ type: "incident", kind: "backup-missed", halts: false });
    expect(event.data.detail).toContain("missed 2 generations");
    expect(event.data.detail).not.toContain(secret);

    // A third failure opens no second incident.
    await generation(false);
    expect((await health()).backup.missedGenerations).toBe(3);

    // The store is back where it was: the next generation succeeds and everything clears.
    await store.start();
    await generation(true);
    // A new generation beside the one the store kept through the outage.
    expect(store.keys()).toHaveLength(2);
    expect(store.keys()).toEqual(expect.arrayContaining(before));
    expect(await health()).toMatchObject({
      ok: true,
      backup: { ok: true, missedGenerations: 0, lastOkAt: new Date(clockMs).toISOString() },
    });
    metrics = await metricsOf(svc);
    expect(metrics.get("backup_last_success_timestamp_seconds")).toBe(Math.floor(clockMs / 1000));
    expect(metrics.get("backup_failures_total")).toBe(3);
    expect(metrics.get("backup_missed_generations")).toBe(0);
    const incidents = await svc.json("/api/admin/incidents", operator);
    const backupIncidents = (incidents.body.incidents as Json[]).filter((i) => i.kind === "backup-missed");
    expect(backupIncidents).toHaveLength(1);
    expect(backupIncidents[0]).toMatchObject({ halts: false, resolvedAt: new Date(clockMs).toISOString() });
    expect(receiver.received).toHaveLength(1);
  }, 60_000);
});

test("a schedule that stops running is red too: two scheduled generations passed with no run", async () => {
  const secret = uniqueSecret();
  const store = storeOn(secret);
  let clockMs = Date.UTC(2026, 10, 29, 9, 30, 0);
  const svc = testService(
    {
      ...s3Env(store, secret),
      BACKUP_URL: `s3://${BUCKET}/svc`,
      BACKUP_SCHEDULE: "0 * * * *",
      METRICS_SECRET: METRICS,
    },
    { now: () => clockMs },
  );
  cleanups.push(() => svc.cleanup());
  const schedule = new BackupSchedule({ db: svc.ctx.db, config: svc.ctx.config, holder: "t", now: () => clockMs });
  expect(await schedule.runNow()).toMatchObject({ ran: true, ok: true });
  const backupAt = async (atMs: number) => {
    clockMs = atMs;
    return ((await svc.json("/api/cron/health")).body as Json).backup;
  };
  const start = clockMs;
  // 11:00 passed with no run (12:00's may be under way): one missed.
  expect(await backupAt(start + 2 * HOUR_MS + 60_000)).toMatchObject({ ok: true, missedGenerations: 1 });
  // 11:00 and 12:00 passed with no run.
  expect(await backupAt(start + 3 * HOUR_MS + 60_000)).toMatchObject({ ok: false, missedGenerations: 2 });
  expect((await metricsOf(svc)).get("backup_missed_generations")).toBe(2);
});

test("without BACKUP_URL, health has no backup block and /metrics no backup series", async () => {
  const svc = testService({ METRICS_SECRET: METRICS });
  cleanups.push(() => svc.cleanup());
  expect("backup" in ((await svc.json("/api/cron/health")).body as Json)).toBe(false);
  expect((await metricsOf(svc)).size).toBe(0);
});
