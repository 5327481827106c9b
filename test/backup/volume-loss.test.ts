/**
 * A volume lost and restored from the off-site store alone (issue 63, items 2 and 4). The
 * generation carries the webhook signing key the service generated in DATA_DIR, so every signature
 * still verifies at a receiver (`standardwebhooks`, as an integrator checks it) with the secret it
 * was given before; and each admin audit row reached the store as it was written, so the rows
 * written after the last generation come back with their actor and reason. On each store of
 * stores.ts (the fake and s3rver).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { BackupSchedule } from "../../src/backup";
import { clearIncidents, raiseIncident } from "../../src/custody";
import { WebhookDispatcher } from "../../src/webhooks/dispatcher";
import { webhookSigningKey } from "../../src/webhooks/key";
import { testService, type Json, type TestService } from "../helpers/service";
import { Receiver } from "../webhooks/receiver";
import { type StoreKind, STORES, type TestStore } from "./stores";
import { BUCKET, runCommand, s3Env, uniqueSecret } from "./support";

const ADMIN = "admin-secret-for-the-volume-loss-test-0123456789";
const operator = { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" };
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A volume's mount point: an empty directory, removed after the test. */
function volume(): string {
  const dir = mkdtempSync(join(tmpdir(), "cfl-volume-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

interface AuditLine {
  id: number;
  atMs: number;
  actor: string;
  action: string;
  subject: string | null;
  reason: string | null;
}

function auditOf(path: string): AuditLine[] {
  const db = new Database(path, { readonly: true });
  try {
    return db
      .query<AuditLine, []>("SELECT id, at_ms AS atMs, actor, action, subject, reason FROM admin_audit ORDER BY id")
      .all();
  } finally {
    db.close();
  }
}

/** One incident delivered to the receiver by a dispatcher signing with the service's key. */
async function deliverIncident(svc: TestService, receiver: Receiver, detail: string): Promise<Json> {
  const before = receiver.received.length;
  const dispatcher = new WebhookDispatcher(svc.ctx.db, {
    signingKey: webhookSigningKey(svc.ctx.config),
    allowPrivate: true,
    retryBaseMs: 50,
    tickMs: 20,
  }).start();
  try {
    // Closed first: the one raised before the loss is in the restored books, still open.
    clearIncidents(svc.ctx.db, ["backup-missed"], Date.now());
    raiseIncident(svc.ctx.db, { kind: "backup-missed", detail, atMs: Date.now() });
    const received = await receiver.waitFor(before + 1, 30_000);
    return received[before];
  } finally {
    await dispatcher.stop();
  }
}

interface Before {
  svc: TestService;
  receiver: Receiver;
  store: TestStore;
  secret: string;
  dataDir: string;
  /** the integrator's verifier, made from the secret the endpoint was given at registration */
  integrator: Webhook;
}

/** A service on a fresh volume with off-site backups, and an integrator's endpoint whose deliveries verify. */
async function serviceWithEndpoint(kind: StoreKind): Promise<Before> {
  const secret = uniqueSecret();
  const store = await kind.start(BUCKET, secret);
  cleanups.push(() => store.remove());
  const receiver = new Receiver().start();
  cleanups.push(() => receiver.stop());
  const dataDir = volume();
  const svc = testService({
    DATA_DIR: dataDir,
    ...s3Env(store, secret),
    BACKUP_URL: `s3://${BUCKET}/svc`,
    ADMIN_SECRET: ADMIN,
    WEBHOOKS_ALLOW_PRIVATE: "1",
  });
  cleanups.push(() => svc.close());
  const hook = await svc.json("/api/admin/webhooks", {
    method: "POST",
    headers: operator,
    body: JSON.stringify({ url: receiver.url, types: ["incident"], reason: "the treasury team's receiver" }),
  });
  expect(hook.status).toBe(200);
  const integrator = new Webhook(hook.body.secret);
  const before = await deliverIncident(svc, receiver, "before the loss");
  expect((integrator.verify(before.body, before.headers) as Json).data.detail).toBe("before the loss");
  return { svc, receiver, store, secret, dataDir, integrator };
}

/** The volume is gone; a new one is mounted and restored from the store alone. */
async function loseAndRestore(before: Before): Promise<{ dataDir: string; stdout: string }> {
  await before.svc.close();
  rmSync(before.dataDir, { recursive: true, force: true });
  const dataDir = volume();
  const restored = await runCommand("restore", [`s3://${BUCKET}/svc`], {
    DATA_DIR: dataDir,
    ...s3Env(before.store, before.secret),
  });
  expect(restored.stderr).toBe("");
  expect(restored.exitCode).toBe(0);
  return { dataDir, stdout: restored.stdout };
}

function serviceOn(dataDir: string): TestService {
  const svc = testService({ DATA_DIR: dataDir, ADMIN_SECRET: ADMIN, WEBHOOKS_ALLOW_PRIVATE: "1" });
  cleanups.push(() => svc.close());
  return svc;
}

describe.each(STORES)("on the $name store", (kind) => {
  test("lost volume, restored from the store alone: the integrator's webhook signatures still verify", async () => {
    const before = await serviceWithEndpoint(kind);
    const schedule = new BackupSchedule({ db: before.svc.ctx.db, config: before.svc.ctx.config, holder: "test" });
    expect(await schedule.runNow()).toMatchObject({ ran: true, ok: true });
    const keyBefore = readFileSync(join(before.dataDir, "webhooks-key"), "utf8");

    const { dataDir, stdout } = await loseAndRestore(before);
    expect(stdout).toContain("webhooks-key written back into DATA_DIR");
    expect(readFileSync(join(dataDir, "webhooks-key"), "utf8")).toBe(keyBefore);
    // The key rode in the sealed generation only: the restored database holds no secret.
    const db = new Database(join(dataDir, "service.db"), { readonly: true });
    expect(db.query("SELECT key FROM settings WHERE key LIKE 'backup_volume%'").all()).toEqual([]);
    db.close();

    const after = serviceOn(dataDir);
    const delivered = await deliverIncident(after, before.receiver, "after the restore");
    expect((before.integrator.verify(delivered.body, delivered.headers) as Json).data.detail).toBe("after the restore");
  }, 90_000);

  test("lost volume, restored from the store alone: the admin audit trail is whole (7 rows stay 7, actor and reason)", async () => {
    const before = await serviceWithEndpoint(kind);
    const { svc, store } = before;
    const act = async (path: string, reason: string) => {
      const response = await svc.call(`/api/admin/${path}`, {
        method: "POST",
        headers: operator,
        body: JSON.stringify({ reason }),
      });
      expect(response.status).toBe(200);
    };
    await act("claims/pause", "incident 41: pausing claims");
    // The last generation before the loss: it holds two audit rows.
    const schedule = new BackupSchedule({ db: svc.ctx.db, config: svc.ctx.config, holder: "test-schedule" });
    cleanups.push(() => schedule.stop());
    expect(await schedule.runNow()).toMatchObject({ ran: true, ok: true });
    schedule.start();
    await act("claims/resume", "incident 41 closed");
    await act("launches/pause", "maintenance window");
    await act("launches/resume", "maintenance done");
    await act("claims/pause", "incident 42: a wallet under review");
    await act("claims/resume", "incident 42: wallet cleared");
    const trail = auditOf(join(before.dataDir, "service.db"));
    expect(trail).toHaveLength(7);
    // Each row reaches the store on its own, sealed, with no generation taken since.
    await store.until(() => store.keys().filter((key) => key.startsWith("svc/audit/")).length === trail.length);
    const auditObject = await store.get("svc/audit/000000000007.sealed");
    expect(Buffer.from(auditObject).includes("wallet cleared")).toBe(false);
    await schedule.stop();

    const { dataDir, stdout } = await loseAndRestore(before);
    expect(stdout).toContain("5 newer admin audit rows added from the store");
    // 7 rows stay 7, each with its own time, actor, action and reason.
    expect(auditOf(join(dataDir, "service.db"))).toEqual(trail);
    const after = serviceOn(dataDir);
    const audit = await after.json("/api/admin/audit?limit=50", { headers: operator });
    expect(audit.status).toBe(200);
    // What the operator reads: the same seven, newest first.
    expect((audit.body.entries as Json[]).map((entry) => entry.reason)).toEqual(
      trail.map((row) => row.reason).reverse(),
    );
  }, 90_000);
});
