/**
 * Generations a restore can trust (issue 63, item 1): whoever can write the bucket (the service's
 * own S3 keys can) chooses an object's name and its hash, so neither is what a restore trusts. A
 * generation must open with the key in BACKUP_KEY_FILE (AES-256-GCM, sealed for its name's time),
 * and the file inside must carry exactly the schema the migrations make for its version. Through
 * the operator's `backup` and `restore` commands against each store of stores.ts on loopback (the
 * fake and s3rver); the planted objects go in through the S3 API with the bucket's own keys.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { RESTORED_AT_KEY } from "../../src/backup";
import { STORES, type TestStore } from "./stores";
import {
  BACKUP_KEY_FILE,
  backupKeyFile,
  BUCKET,
  dataDir,
  readSettingOf,
  runCommand,
  s3Env,
  setMarker,
  uniqueSecret,
} from "./support";

let store: TestStore | null = null;
const dirs: string[] = [];
afterEach(async () => {
  await store?.remove();
  store = null;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function newDataDir(): string {
  const dir = dataDir();
  dirs.push(dir);
  return dir;
}

const ATTACKER = "So11111111111111111111111111111111111111112";

/** One `backup s3://…` of `dir` with `env`; the generation's name. */
async function backUp(dir: string, env: Record<string, string>): Promise<string> {
  const result = await runCommand("backup", [`s3://${BUCKET}/svc`], { DATA_DIR: dir, ...env });
  expect(result).toMatchObject({ exitCode: 0, stderr: "" });
  return /\/(\d{8}T\d{9}Z-[0-9a-f]{16}) /.exec(result.stdout)![1]!;
}

function sha16(bytes: Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(bytes).digest("hex").slice(0, 16);
}

/** Nothing was put back: the database in place is the one before, unmarked, and no download is left. */
function untouched(dir: string, marker: string): void {
  expect(readSettingOf(dir, "test_marker")).toBe(marker);
  expect(readSettingOf(dir, RESTORED_AT_KEY)).toBeNull();
  expect(readdirSync(dir).filter((name) => name.includes("download") || name.includes("restoring"))).toEqual([]);
}

describe.each(STORES)("on the $name store", (kind) => {
  describe("a generation is trusted only when it opens with BACKUP_KEY_FILE's key", () => {
    test("what the store holds is sealed: no SQLite header, no row of the books in the clear", async () => {
      const secret = uniqueSecret();
      store = await kind.start(BUCKET, secret);
      const dir = newDataDir();
      setMarker(dir, "a-row-that-must-not-be-readable-in-the-store");
      const name = await backUp(dir, s3Env(store, secret));
      const object = await store.get(`svc/${name}.db`);
      expect(new TextDecoder().decode(object.slice(0, 8))).toBe("CFLSEAL1");
      expect(Buffer.from(object).includes("SQLite format 3")).toBe(false);
      expect(Buffer.from(object).includes("a-row-that-must-not-be-readable")).toBe(false);
      expect(name.slice(20)).toBe(sha16(object));
    }, 60_000);

    test("a planted newest generation (a plain copy named for 2999, its own hash) is refused, and no older one is taken silently", async () => {
      const secret = uniqueSecret();
      store = await kind.start(BUCKET, secret);
      const dir = newDataDir();
      const env = s3Env(store, secret);
      setMarker(dir, "genuine");
      const genuine = await backUp(dir, env);
      // The attacker's copy: the same books, their marker, a name that sorts newest and hashes right.
      const copyPath = join(dir, "..", `${crypto.randomUUID()}.db`);
      dirs.push(copyPath);
      const live = new Database(join(dir, "service.db"));
      live.exec(`VACUUM INTO '${copyPath}'`);
      live.close();
      const copy = new Database(copyPath);
      copy.query("UPDATE settings SET value = 'planted' WHERE key = 'test_marker'").run();
      copy.close();
      const bytes = new Uint8Array(readFileSync(copyPath));
      const planted = `29991231T235959999Z-${sha16(bytes)}`;
      await store.put(`svc/${planted}.db`, bytes);
      setMarker(dir, "current");

      const refused = await runCommand("restore", [`s3://${BUCKET}/svc`], { DATA_DIR: dir, ...env });
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toBe(
        `restore: refused s3://${BUCKET}/svc/${planted}: it does not open with the key in BACKUP_KEY_FILE (planted, sealed with another key or none, renamed, or damaged); nothing was restored, and no older generation is tried in its place: name one to restore it (the next newest is s3://${BUCKET}/svc/${genuine})\n`,
      );
      untouched(dir, "current");

      // The genuine generation, named, restores.
      const named = await runCommand("restore", [`s3://${BUCKET}/svc/${genuine}`], { DATA_DIR: dir, ...env });
      expect(named).toMatchObject({ exitCode: 0, stderr: "" });
      expect(readSettingOf(dir, "test_marker")).toBe("genuine");
    }, 60_000);

    test("a generation sealed with another key is refused, and so is a genuine one copied under a newer name", async () => {
      const secret = uniqueSecret();
      store = await kind.start(BUCKET, secret);
      const dir = newDataDir();
      setMarker(dir, "genuine");
      const genuine = await backUp(dir, s3Env(store, secret));
      // Re-encrypted: a well-formed generation, made by the real command, with a key not the operator's.
      setMarker(dir, "re-encrypted");
      const other = await backUp(dir, s3Env(store, secret, { BACKUP_KEY_FILE: backupKeyFile() }));
      expect(other > genuine).toBe(true);
      setMarker(dir, "current");
      const env = s3Env(store, secret); // the operator's key
      const refused = await runCommand("restore", [`s3://${BUCKET}/svc`], { DATA_DIR: dir, ...env });
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toStartWith(
        `restore: refused s3://${BUCKET}/svc/${other}: it does not open with the key in BACKUP_KEY_FILE`,
      );
      expect(refused.stderr.split("\n").filter(Boolean)).toHaveLength(1);
      untouched(dir, "current");
      const byName = await runCommand("restore", [`s3://${BUCKET}/svc/${other}`], { DATA_DIR: dir, ...env });
      expect(byName.stderr).toStartWith(`restore: refused s3://${BUCKET}/svc/${other}: it does not open`);
      untouched(dir, "current");

      // A genuine (older) generation copied under a newer name: same bytes and hash, another time.
      await store.delete(`svc/${other}.db`);
      const moved = `29991231T235959999Z-${genuine.slice(20)}`;
      await store.put(`svc/${moved}.db`, await store.get(`svc/${genuine}.db`));
      const replayed = await runCommand("restore", [`s3://${BUCKET}/svc`], { DATA_DIR: dir, ...env });
      expect(replayed.stderr).toStartWith(`restore: refused s3://${BUCKET}/svc/${moved}: it does not open`);
      untouched(dir, "current");
    }, 60_000);

    test("without BACKUP_KEY_FILE, `backup s3://…` and `restore s3://…` refuse in one line naming it", async () => {
      const secret = uniqueSecret();
      store = await kind.start(BUCKET, secret);
      const dir = newDataDir();
      const { BACKUP_KEY_FILE: _, ...keyless } = s3Env(store, secret);
      for (const command of ["backup", "restore"] as const) {
        const result = await runCommand(command, [`s3://${BUCKET}/svc`], { DATA_DIR: dir, ...keyless });
        expect(result.exitCode).toBe(1);
        expect(result.stderr).toMatch(
          new RegExp(`^${command}: BACKUP_KEY_FILE must be set to \\S+ (up )?\\S+ S3 .*\\n$`),
        );
      }
      expect(store.keys()).toEqual([]);
      // A key file inside DATA_DIR is refused before anything runs.
      const inside = await runCommand("backup", [`s3://${BUCKET}/svc`], {
        DATA_DIR: dir,
        ...s3Env(store, secret, { BACKUP_KEY_FILE: join(dir, "backup-key") }),
      });
      expect(inside.exitCode).toBe(1);
      expect(inside.stderr).toContain("BACKUP_KEY_FILE must be outside DATA_DIR");
      expect(BACKUP_KEY_FILE.startsWith(dir)).toBe(false);
    }, 60_000);
  });

  describe("a restored file's schema is the one its migrations make", () => {
    test("a generation sealed with the right key but carrying one added trigger (a payout redirected) is refused", async () => {
      const secret = uniqueSecret();
      store = await kind.start(BUCKET, secret);
      const dir = newDataDir();
      const env = s3Env(store, secret);
      setMarker(dir, "clean");
      const clean = await backUp(dir, env);
      // Whoever held the key and the volume for a moment: one trigger, the books still balanced.
      const live = new Database(join(dir, "service.db"));
      live.exec(
        `CREATE TRIGGER payout_redirect AFTER INSERT ON payouts BEGIN UPDATE payouts SET wallet = '${ATTACKER}' WHERE id = NEW.id; END`,
      );
      live.close();
      setMarker(dir, "with a trigger");
      const tampered = await backUp(dir, env);
      setMarker(dir, "current");

      const refused = await runCommand("restore", [`s3://${BUCKET}/svc`], { DATA_DIR: dir, ...env });
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toBe(
        `restore: refused s3://${BUCKET}/svc/${tampered}: its schema is not the one the migrations make for its version (an added trigger payout_redirect)\n`,
      );
      expect(readSettingOf(dir, "test_marker")).toBe("current");
      expect(readSettingOf(dir, RESTORED_AT_KEY)).toBeNull();

      // A local file with it is refused the same way; the clean generation restores.
      const localCopy = join(dir, "..", `${crypto.randomUUID()}.db`);
      dirs.push(localCopy);
      const local = await runCommand("backup", [localCopy], { DATA_DIR: dir });
      expect(local.exitCode).toBe(0);
      const refusedLocal = await runCommand("restore", [localCopy], { DATA_DIR: dir });
      expect(refusedLocal.exitCode).toBe(1);
      expect(refusedLocal.stderr).toEndWith("(an added trigger payout_redirect)\n");
      const restored = await runCommand("restore", [`s3://${BUCKET}/svc/${clean}`], { DATA_DIR: dir, ...env });
      expect(restored).toMatchObject({ exitCode: 0, stderr: "" });
      const db = new Database(join(dir, "service.db"), { readonly: true });
      expect(db.query("SELECT name FROM sqlite_master WHERE name = 'payout_redirect'").all()).toEqual([]);
      db.close();
      expect(readSettingOf(dir, "test_marker")).toBe("clean");
    }, 60_000);
  });
});
