/** Generation names, what pruning keeps, S3 targets, and the backup settings' validation. */
import { describe, expect, test } from "bun:test";
import { generationName, parseS3Url, s3UrlOf } from "../../src/backup";
import { generationsToPrune } from "../../src/backup/generations";
import { loadConfig } from "../../src/config";

const HASH = "0123456789abcdef".repeat(4);

describe("generations", () => {
  test("a name is the UTC time to the millisecond and 16 hex digits of the hash; names sort in time order", () => {
    expect(generationName(Date.UTC(2026, 10, 26, 22, 15, 0, 123), HASH)).toBe("20261126T221500123Z-0123456789abcdef");
    const times = [Date.UTC(2026, 0, 1), Date.UTC(2026, 0, 1, 0, 0, 0, 1), Date.UTC(2026, 9, 1), Date.UTC(2027, 0, 1)];
    const names = times.map((t) => generationName(t, HASH));
    expect([...names].reverse().sort()).toEqual(names);
  });

  test("pruning keeps the newest BACKUP_KEEP, and never the generation just uploaded", () => {
    const names = [1, 2, 3, 4, 5].map((day) => generationName(Date.UTC(2026, 0, day), HASH));
    const at = (...indexes: number[]) => indexes.map((i) => names[i]!);
    expect(generationsToPrune(names, 2, names[4]!)).toEqual(at(2, 1, 0));
    expect(generationsToPrune(names, 10, names[4]!)).toEqual([]);
    // The clock stepped back: the upload sorts oldest, yet it stays and the newest other one with it.
    expect(generationsToPrune(names, 2, names[0]!)).toEqual(at(3, 2, 1));
    expect(generationsToPrune(names, 1, names[0]!)).toEqual(at(4, 3, 2, 1));
  });

  test("an S3 target is a bucket and a prefix, and may name a generation for restore", () => {
    const name = generationName(Date.UTC(2026, 0, 1), HASH);
    expect(parseS3Url("s3://backups")).toEqual({ bucket: "backups", prefix: "", generation: null });
    expect(parseS3Url("s3://backups/a/b/")).toEqual({ bucket: "backups", prefix: "a/b", generation: null });
    expect(parseS3Url(`s3://backups/a/${name}`)).toEqual({ bucket: "backups", prefix: "a", generation: name });
    expect(parseS3Url(`s3://backups/${name}.db`)).toEqual({ bucket: "backups", prefix: "", generation: name });
    expect(s3UrlOf({ bucket: "backups", prefix: "a/b" }, name)).toBe(`s3://backups/a/b/${name}`);
    for (const bad of ["s3://", "s3://UPPER/x", "s3://a/x", "http://bucket/x"])
      expect(() => parseS3Url(bad)).toThrow("an S3 target looks like s3://bucket/prefix");
  });
});

describe("backup settings", () => {
  const keys = { S3_ACCESS_KEY_ID: "AKIAEXAMPLE", S3_SECRET_ACCESS_KEY: "a-secret-that-must-not-be-printed" };

  test("defaults: no scheduled upload, hourly when there is one, 24 generations, a stop waits 5 s for uploads", () => {
    expect(loadConfig({}).backup).toEqual({
      url: null,
      schedule: "0 * * * *",
      keep: 24,
      stopTimeoutMs: 5_000,
      s3: null,
      keyFile: null,
    });
    const config = loadConfig({
      BACKUP_URL: "s3://backups/svc/",
      BACKUP_KEY_FILE: "/run/secrets/backup-key",
      ...keys,
      AWS_REGION: "eu-west-1",
    });
    expect(config.backup).toEqual({
      url: "s3://backups/svc",
      schedule: "0 * * * *",
      keep: 24,
      stopTimeoutMs: 5_000,
      s3: {
        endpoint: null,
        region: "eu-west-1",
        sessionToken: null,
        accessKeyId: "AKIAEXAMPLE",
        secretAccessKey: keys.S3_SECRET_ACCESS_KEY,
      },
      keyFile: "/run/secrets/backup-key",
    });
    // Bun's AWS_ names work as well.
    expect(
      loadConfig({ AWS_ACCESS_KEY_ID: "AKIAOTHER", AWS_SECRET_ACCESS_KEY: "x", AWS_ENDPOINT: "http://127.0.0.1:9000" })
        .backup.s3,
    ).toMatchObject({ accessKeyId: "AKIAOTHER", endpoint: "http://127.0.0.1:9000" });
  });

  test("refused at start with one line naming the setting, never a value", () => {
    const cases: [Record<string, string>, string][] = [
      [{ BACKUP_URL: "/backups/svc", ...keys }, "BACKUP_URL must be an s3://bucket/prefix URL"],
      // Off-site backups are sealed with a key the bucket's credentials don't hold, on any chain.
      [
        { BACKUP_URL: "s3://backups/svc", ...keys },
        "BACKUP_URL needs BACKUP_KEY_FILE (the key generations are sealed with, outside DATA_DIR)",
      ],
      [
        {
          BACKUP_URL: "s3://backups/svc",
          ...keys,
          CHAIN: "pump",
          RPC_URL: "https://rpc.example",
          PUBLIC_URL: "https://fees.example",
          MASTER_SECRET_FILE: "/run/secrets/master",
          TREASURY_KEY_FILE: "/run/secrets/treasury.json",
        },
        "BACKUP_URL needs BACKUP_KEY_FILE (the key generations are sealed with, outside DATA_DIR)",
      ],
      [
        { DATA_DIR: "/data", BACKUP_KEY_FILE: "/data/backup-key" },
        "BACKUP_KEY_FILE must be outside DATA_DIR (a key on the volume is lost with it)",
      ],
      [
        { BACKUP_URL: "s3://backups/svc", BACKUP_KEY_FILE: "/run/secrets/backup-key" },
        "BACKUP_URL needs S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY (or the AWS_ names)",
      ],
      [{ S3_ACCESS_KEY_ID: "AKIAEXAMPLE" }, "S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together"],
      [{ BACKUP_KEEP: "0" }, "BACKUP_KEEP must be a whole number from 1 to 10000"],
      [{ BACKUP_STOP_TIMEOUT_MS: "61000" }, "BACKUP_STOP_TIMEOUT_MS must be a whole number from 0 to 60000"],
      [{ BACKUP_SCHEDULE: "hourly" }, "BACKUP_SCHEDULE must be a cron pattern"],
      [{ ...keys, S3_ENDPOINT: "ftp://store" }, "S3_ENDPOINT must be a http: or https: URL"],
    ];
    for (const [env, message] of cases) {
      expect(() => loadConfig(env)).toThrow(message);
      try {
        loadConfig(env);
      } catch (error) {
        expect((error as Error).message).not.toContain(keys.S3_SECRET_ACCESS_KEY);
      }
    }
  });
});
