/**
 * The service's own uploads: on BACKUP_SCHEDULE under the `backup` lease, and once at SIGTERM,
 * bounded so a slow store cannot hold the stop; the outcome in the lease's record (health) and in
 * one log line, never with the secret key.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { readdirSync, rmSync } from "node:fs";
import { closeDatabase, openDatabase, type Db } from "../../db/client";
import {
  BACKUP_LEASE,
  backupAtShutdown,
  backupHealth,
  BackupSchedule,
  runBackup,
  scheduleBackupsWith,
} from "../../src/backup";
import { testConfig, type Config } from "../../src/config";
import { acquireLease } from "../../src/jobs/lease";
import { Scheduler } from "../../src/jobs/scheduler";
import { setLogLevel, setLogSilent } from "../../src/lib/log";
import type { FakeS3 } from "../fakes/s3";
import { freePort } from "../helpers/socket";
import { BUCKET, dataDir, fakeStore, s3Env, uniqueSecret } from "./support";
import { serviceExecutable } from "../helpers/executable";

let fake: FakeS3 | null = null;
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await fake?.stop();
  fake = null;
});

function serviceOn(env: Record<string, string>): { db: Db; config: Config; dir: string } {
  const dir = dataDir();
  const config = testConfig({ DATA_DIR: dir, BACKUP_URL: `s3://${BUCKET}/svc`, ...env });
  const db = openDatabase(config.databasePath);
  cleanups.push(() => {
    closeDatabase(db);
    rmSync(dir, { recursive: true, force: true });
  });
  return { db, config, dir };
}

/** Every log line written while `work` runs (the test runner silences logs otherwise). */
async function logLinesOf<T>(work: () => Promise<T>): Promise<{ result: T; lines: string }> {
  let lines = "";
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  const capture = (chunk: string | Uint8Array) => {
    lines += typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
    return true;
  };
  process.stdout.write = capture as typeof process.stdout.write;
  process.stderr.write = capture as typeof process.stderr.write;
  setLogSilent(false);
  setLogLevel("debug");
  try {
    return { result: await work(), lines };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
    setLogSilent(true);
  }
}

const leftovers = (dir: string) => readdirSync(dir).filter((name) => name.includes("offsite"));

describe("scheduled and shutdown backups", () => {
  test("a run uploads under the backup lease, logs one line and shows in the lease's record; a held lease is busy", async () => {
    const secret = uniqueSecret();
    fake = fakeStore(secret);
    const { db, config, dir } = serviceOn(s3Env(fake, secret));
    expect(backupHealth(db)).toBeNull();

    const { result: run, lines } = await logLinesOf(() => runBackup({ db, config, holder: "test" }));
    expect(run).toMatchObject({ ran: true, ok: true });
    expect(fake.keys(BUCKET)).toHaveLength(1);
    expect(lines).toContain('"msg":"backup uploaded"');
    expect(lines).not.toContain(secret);
    const health = backupHealth(db)!;
    expect(health).toMatchObject({ runs: 1, lastError: null, running: false });
    expect(Date.parse(health.lastOkAt!)).toBeGreaterThanOrEqual(Date.parse(health.lastRunAt!));
    expect(leftovers(dir)).toEqual([]);

    // Another process's upload holds the lease: this one does not start.
    acquireLease(db, BACKUP_LEASE, "other-process", 60_000);
    expect(await runBackup({ db, config, holder: "test" })).toEqual({ ran: false, reason: "busy" });
    expect(backupHealth(db)!.running).toBe(true);
    expect(fake.keys(BUCKET)).toHaveLength(1);
  }, 30_000);

  test("a failed upload is recorded and logged by the store's error code, never with the secret key", async () => {
    const secret = uniqueSecret();
    fake = fakeStore(uniqueSecret());
    for (const env of [s3Env(fake, secret), s3Env(fake, secret, { S3_ENDPOINT: "http://127.0.0.1:9" })]) {
      const { db, config, dir } = serviceOn(env);
      const { result: run, lines } = await logLinesOf(() => runBackup({ db, config, holder: "test" }));
      expect(run).toMatchObject({ ran: true, ok: false });
      const error = (run as { error: string }).error;
      expect(error).toMatch(/^upload of svc\/\S+\.db failed \((SignatureDoesNotMatch|ConnectionRefused)\)$/);
      expect(lines).toContain('"msg":"backup failed"');
      expect(lines).not.toContain(secret);
      expect(backupHealth(db)).toMatchObject({ lastOkAt: null, lastError: error, running: false });
      expect(leftovers(dir)).toEqual([]);
    }
  }, 30_000);

  test("at shutdown a stalled store is given up on within the bound, and the lease is free for restore", async () => {
    const secret = uniqueSecret();
    fake = fakeStore(secret);
    fake.stallMs = 20_000;
    const { db, config, dir } = serviceOn(s3Env(fake, secret));
    const startedAt = Date.now();
    const run = await backupAtShutdown({ db, config }, 500);
    expect(Date.now() - startedAt).toBeLessThan(3_000);
    expect(run).toMatchObject({ ran: true, ok: false, error: "the upload took longer than 500 ms" });
    expect(backupHealth(db)).toMatchObject({ running: false, lastError: "the upload took longer than 500 ms" });
    expect(leftovers(dir)).toEqual([]);
  }, 30_000);

  test("the schedule starts and stops with the job scheduler; stopping gives an upload in flight a bounded grace", async () => {
    const secret = uniqueSecret();
    fake = fakeStore(secret);
    const { db, config } = serviceOn(s3Env(fake, secret, { BACKUP_SCHEDULE: "* * * * * *" }));
    const scheduler = new Scheduler(db, { leaseMs: 60_000 });
    const schedule = new BackupSchedule({ db, config, holder: scheduler.holder });
    scheduleBackupsWith(scheduler, schedule);
    await Bun.sleep(1_200);
    expect(fake.keys(BUCKET)).toEqual([]); // not before the schedules start (JOBS on)

    scheduler.start();
    for (let i = 0; i < 50 && fake.keys(BUCKET).length === 0; i++) await Bun.sleep(100);
    expect(fake.keys(BUCKET).length).toBeGreaterThanOrEqual(1);

    fake.stallMs = 20_000; // the next upload hangs
    // Waited for until the store holds one: the run seen `running` first may be the one whose
    // upload was just stored (a loaded machine records its end late), and that one finishes.
    for (let i = 0; i < 100 && fake.stalled === 0; i++) await Bun.sleep(100);
    expect(fake.stalled).toBe(1);
    expect(backupHealth(db)!.running).toBe(true);
    const stoppedAt = Date.now();
    await scheduler.stop();
    expect(Date.now() - stoppedAt).toBeLessThan(7_000);
    expect(backupHealth(db)).toMatchObject({ running: false, lastError: "stopped before the upload finished" });
    const uploads = fake.requests.length;
    await Bun.sleep(1_500);
    expect(fake.requests.length).toBe(uploads); // no run after stop
  }, 30_000);

  test("the service uploads once on SIGTERM and logs it; with a stalled store it still exits within seconds", async () => {
    const secret = uniqueSecret();
    fake = fakeStore(secret);
    for (const stallMs of [0, 60_000]) {
      fake.stallMs = stallMs;
      const dir = dataDir();
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      const service = await startService(dir, s3Env(fake, secret, { BACKUP_URL: `s3://${BUCKET}/svc` }));
      cleanups.push(() => {
        if (service.child.exitCode === null) service.child.kill("SIGKILL");
      });
      const before = fake.keys(BUCKET).length;
      const signalledAt = Date.now();
      service.child.kill("SIGTERM");
      expect(await service.child.exited).toBe(0);
      const output = await service.output();
      expect(output).not.toContain(secret);
      if (stallMs === 0) {
        expect(fake.keys(BUCKET).length).toBe(before + 1);
        expect(output).toContain('"msg":"backup uploaded"');
      } else {
        expect(Date.now() - signalledAt).toBeLessThan(15_000);
        expect(output).toContain('"msg":"backup failed"');
        // Bounded by what is left of BACKUP_STOP_TIMEOUT_MS (5 s) since the signal.
        expect(output).toMatch(/the upload took longer than \d{3,4} ms/);
        expect(output).toContain('"msg":"backup upload abandoned at stop: still running at the bound"');
      }
      expect(output).toContain('"msg":"stopped"');
    }
  }, 120_000);
});

/** The service's executable with its jobs off (the schedule is not what this shows), until its health answers. */
async function startService(dir: string, env: Record<string, string>) {
  const port = freePort();
  const child = Bun.spawn([await serviceExecutable()], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      DATA_DIR: dir,
      PORT: String(port),
      HOST: "127.0.0.1",
      LOCAL_CHAIN_RPC_PORT: "0",
      LOCAL_CHAIN_GRPC_PORT: "0",
      LOCAL_CHAIN_STATE: "0",
      DEMO: "0",
      JOBS: "0",
      LOG_LEVEL: "info",
      ...env,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const stdout = new Response(child.stdout).text();
  const stderr = new Response(child.stderr).text();
  const deadline = Date.now() + 60_000;
  for (;;) {
    const up = await fetch(`http://127.0.0.1:${port}/api/cron/health`).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline || child.exitCode !== null)
      throw new Error(`the service did not start: ${(await stderr).slice(-2_000)}`);
    await Bun.sleep(100);
  }
  return { child, output: async () => `${await stdout}${await stderr}` };
}
