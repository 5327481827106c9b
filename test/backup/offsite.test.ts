/**
 * `backup s3://…` and `restore s3://…` against a fake S3 store on loopback that checks every
 * request's SigV4 signature: generations, pruning to BACKUP_KEEP, the newest and a named one
 * restored, a damaged object refused, and the secret key in no line the commands print. What the
 * seal (BACKUP_KEY_FILE) and the schema check refuse: sealed-generations.test.ts. The refused
 * signature runs on each store of stores.ts (the fake and s3rver); the rest on the fake.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../../db/client";
import { GENERATION_NAME, RESTORED_AT_KEY, runBackup } from "../../src/backup";
import { testConfig } from "../../src/config";
import type { FakeS3 } from "../fakes/s3";
import { STORES, type TestStore } from "./stores";
import { BUCKET, dataDir, fakeStore, readSettingOf, runCommand, s3Env, setMarker, uniqueSecret } from "./support";

let fake: FakeS3 | null = null;
const stores: TestStore[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await fake?.stop();
  fake = null;
  for (const store of stores.splice(0)) await store.remove();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function newDataDir(): string {
  const dir = dataDir();
  dirs.push(dir);
  return dir;
}

const generationsOf = (store: FakeS3, prefix: string) =>
  store
    .keys(BUCKET)
    .filter((key) => key.startsWith(`${prefix}/`))
    .map((key) => key.slice(prefix.length + 1).replace(/\.db$/, ""));

/** Three backups of one database, its marker 1, 2 then 3; the generation names, oldest first. */
async function threeGenerations(dir: string, env: Record<string, string>, url: string): Promise<string[]> {
  const names: string[] = [];
  for (const marker of ["1", "2", "3"]) {
    setMarker(dir, marker);
    const result = await runCommand("backup", [url], { DATA_DIR: dir, ...env });
    expect(result).toMatchObject({ exitCode: 0, stderr: "" });
    const name = /\/(\d{8}T\d{9}Z-[0-9a-f]{16}) /.exec(result.stdout)?.[1];
    expect(name).toBeDefined();
    names.push(name!);
  }
  return names;
}

describe("off-site backups on S3-compatible storage", () => {
  test("each backup is a new generation named by UTC time and hash; BACKUP_KEEP=2 keeps the newest two", async () => {
    const secret = uniqueSecret();
    fake = fakeStore(secret, 1); // one key per listing page: the pruning reads every page
    const dir = newDataDir();
    // What a backup killed mid-snapshot leaves (its process is gone): the next backup removes it.
    const deadPid = Bun.spawnSync(["true"]).pid;
    writeFileSync(join(dir, `.offsite-snapshot-${deadPid}-0a1b2c3d.db.partial-${deadPid}`), "half a snapshot");
    const names = await threeGenerations(dir, s3Env(fake, secret, { BACKUP_KEEP: "2" }), `s3://${BUCKET}/nightly/eu`);

    for (const name of names) expect(name).toMatch(GENERATION_NAME);
    expect([...names].sort()).toEqual(names); // names sort in time order
    expect(names[0]!.slice(0, 8)).toBe(new Date().toISOString().slice(0, 10).replaceAll("-", ""));
    expect(generationsOf(fake, "nightly/eu")).toEqual(names.slice(1));
    // The upload is the checked snapshot sealed with BACKUP_KEY_FILE's key (sealed-generations.test.ts);
    // nothing left behind in DATA_DIR.
    const object = fake.objects.get(BUCKET)!.get(`nightly/eu/${names[2]}.db`)!;
    expect(new TextDecoder().decode(object.slice(0, 8))).toBe("CFLSEAL1");
    expect(readdirSync(dir).filter((name) => name.includes("offsite"))).toEqual([]);
    expect(fake.requests.every((r) => r.status < 300)).toBe(true);
  }, 60_000);

  test("restore takes the newest generation, or the one named, and marks the database restored", async () => {
    const secret = uniqueSecret();
    fake = fakeStore(secret);
    const dir = newDataDir();
    const env = s3Env(fake, secret);
    const names = await threeGenerations(dir, env, `s3://${BUCKET}/svc`);
    setMarker(dir, "after the last backup");

    const newest = await runCommand("restore", [`s3://${BUCKET}/svc`], { DATA_DIR: dir, ...env });
    expect(newest).toMatchObject({ exitCode: 0, stderr: "" });
    expect(newest.stdout).toContain(`restored s3://${BUCKET}/svc/${names[2]} to`);
    expect(readSettingOf(dir, "test_marker")).toBe("3");
    const restoredAt = Number(readSettingOf(dir, RESTORED_AT_KEY));
    expect(Math.abs(restoredAt - Date.now())).toBeLessThan(60_000);
    // The database it replaced is kept, and the download is gone.
    expect(readdirSync(dir).some((name) => name.startsWith("service.db.before-restore-"))).toBe(true);
    expect(readdirSync(dir).filter((name) => name.includes("download"))).toEqual([]);

    const named = await runCommand("restore", [`s3://${BUCKET}/svc/${names[0]}`], { DATA_DIR: dir, ...env });
    expect(named).toMatchObject({ exitCode: 0, stderr: "" });
    expect(readSettingOf(dir, "test_marker")).toBe("1");
    // The same with the object's own name, as a listing shows it.
    const byKey = await runCommand("restore", [`s3://${BUCKET}/svc/${names[1]}.db`], { DATA_DIR: dir, ...env });
    expect(byKey.exitCode).toBe(0);
    expect(readSettingOf(dir, "test_marker")).toBe("2");
  }, 60_000);

  test("a generation the service uploaded (under its lease) restores, and can be restored again at once", async () => {
    const secret = uniqueSecret();
    fake = fakeStore(secret);
    const dir = newDataDir();
    const env = s3Env(fake, secret);
    setMarker(dir, "scheduled");
    const config = testConfig({ DATA_DIR: dir, BACKUP_URL: `s3://${BUCKET}/svc`, ...env });
    const db = openDatabase(config.databasePath);
    expect(await runBackup({ db, config, holder: "scheduler-of-a-gone-process" })).toMatchObject({ ok: true });
    closeDatabase(db);

    for (let i = 0; i < 2; i++) {
      const restored = await runCommand("restore", [`s3://${BUCKET}/svc`], { DATA_DIR: dir, ...env });
      expect(restored).toMatchObject({ exitCode: 0, stderr: "" });
    }
    expect(readSettingOf(dir, "test_marker")).toBe("scheduled");
  }, 60_000);

  test("a generation damaged in the store is refused and the database in place is untouched", async () => {
    const secret = uniqueSecret();
    fake = fakeStore(secret);
    const dir = newDataDir();
    const env = s3Env(fake, secret);
    const names = await threeGenerations(dir, env, `s3://${BUCKET}/svc`);
    const objects = fake.objects.get(BUCKET)!;
    const newestKey = `svc/${names[2]}.db`;
    const damaged = objects.get(newestKey)!.slice();
    damaged[4096] = damaged[4096]! ^ 0xff;
    objects.set(newestKey, damaged);

    const refused = await runCommand("restore", [`s3://${BUCKET}/svc`], { DATA_DIR: dir, ...env });
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toBe(
      `restore: refused s3://${BUCKET}/svc/${names[2]}: its bytes do not match the checksum in its name (damaged in the store)\n`,
    );
    expect(readSettingOf(dir, "test_marker")).toBe("3");
    expect(readSettingOf(dir, RESTORED_AT_KEY)).toBeNull();

    // An object that hashes to its name but was not sealed with the key (put there by hand) is refused.
    const junk = new TextEncoder().encode("not a database at all");
    const hash = new Bun.CryptoHasher("sha256").update(junk).digest("hex");
    const junkName = `29991231T235959999Z-${hash.slice(0, 16)}`;
    objects.set(`svc/${junkName}.db`, junk);
    const notDb = await runCommand("restore", [`s3://${BUCKET}/svc`], { DATA_DIR: dir, ...env });
    expect(notDb.exitCode).toBe(1);
    expect(notDb.stderr).toStartWith(
      `restore: refused s3://${BUCKET}/svc/${junkName}: it does not open with the key in BACKUP_KEY_FILE`,
    );
    expect(notDb.stderr.split("\n").filter(Boolean)).toHaveLength(1);
    expect(readSettingOf(dir, RESTORED_AT_KEY)).toBeNull();
    expect(readdirSync(dir).filter((name) => name.includes("download"))).toEqual([]);
  }, 60_000);

  test("no generation under the prefix, or no key pair: one line, nothing touched", async () => {
    const secret = uniqueSecret();
    fake = fakeStore(secret);
    const dir = newDataDir();
    const empty = await runCommand("restore", [`s3://${BUCKET}/nothing-here`], {
      DATA_DIR: dir,
      ...s3Env(fake, secret),
    });
    expect(empty).toMatchObject({
      exitCode: 1,
      stderr: `restore: there is no backup generation under s3://${BUCKET}/nothing-here\n`,
    });
    const missing = "20260101T000000000Z-0123456789abcdef";
    const named = await runCommand("restore", [`s3://${BUCKET}/svc/${missing}`], {
      DATA_DIR: dir,
      ...s3Env(fake, secret),
    });
    expect(named).toMatchObject({ exitCode: 1, stderr: `restore: download of svc/${missing}.db failed (NoSuchKey)\n` });
    const keyless = await runCommand("backup", [`s3://${BUCKET}/svc`], { DATA_DIR: dir, S3_ENDPOINT: fake.endpoint });
    expect(keyless.exitCode).toBe(1);
    expect(keyless.stderr).toStartWith("backup: S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY");
    expect(fake.keys(BUCKET)).toEqual([]);
  }, 60_000);
});

// The refused signature on both stores: s3rver must refuse a wrong secret as S3 does.
describe.each(STORES)("off-site backups on the $name store", (kind) => {
  test("the secret key appears in no line of a failed upload or restore (refused signature, unreachable store)", async () => {
    const secret = uniqueSecret();
    // The store knows another secret: every signature is refused.
    const store = await kind.start(BUCKET, uniqueSecret());
    stores.push(store);
    const dir = newDataDir();
    const refusedEnv = { DATA_DIR: dir, ...s3Env(store, secret) };
    const unreachable = { ...refusedEnv, S3_ENDPOINT: "http://127.0.0.1:9" };
    const outcomes = [
      await runCommand("backup", [`s3://${BUCKET}/svc`], refusedEnv),
      await runCommand("restore", [`s3://${BUCKET}/svc`], refusedEnv),
      await runCommand("backup", [`s3://${BUCKET}/svc`], unreachable),
      await runCommand("restore", [`s3://${BUCKET}/svc`], { ...unreachable, CLI_TRACE: "1" }),
    ];
    for (const outcome of outcomes) {
      expect(outcome.exitCode).toBe(1);
      expect(outcome.stdout + outcome.stderr).not.toContain(secret);
      expect(outcome.stdout + outcome.stderr).not.toContain(secret.slice(7, 23));
    }
    expect(outcomes[0]!.stderr).toMatch(/^backup: upload of svc\/\S+\.db failed \(SignatureDoesNotMatch\)\n$/);
    expect(outcomes[1]!.stderr).toBe("restore: listing the generations failed (SignatureDoesNotMatch)\n");
    expect(outcomes[2]!.stderr).toMatch(/^backup: upload of svc\/\S+\.db failed \(ConnectionRefused\)\n$/);
    expect(store.requests.length).toBeGreaterThan(0);
    expect(store.requests.every((r) => r.status === 403)).toBe(true);
    expect(existsSync(join(dir, "service.db"))).toBe(true);
    expect(readdirSync(dir).filter((name) => name.includes("offsite") || name.includes("download"))).toEqual([]);
  }, 60_000);
});
