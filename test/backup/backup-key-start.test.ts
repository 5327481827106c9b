/**
 * Off-site backups on a real chain need BACKUP_KEY_FILE (issue 63, item 1): the service's start
 * refuses with one line naming it, before it touches the chain or the volume. The real process,
 * `bun run src/main.ts`, as the other start tests run it.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const work = mkdtempSync(join(tmpdir(), "cfl-backup-key-start-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

test("CHAIN=pump with BACKUP_URL and no BACKUP_KEY_FILE: one line naming it, exit 1, nothing written", async () => {
  const dataDir = join(work, "data");
  const child = Bun.spawn([process.execPath, "run", join(ROOT, "src", "main.ts")], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "/tmp",
      NODE_ENV: "production",
      CHAIN: "pump",
      RPC_URL: "http://127.0.0.1:9",
      PUBLIC_URL: "https://fees.example",
      MASTER_SECRET_FILE: join(work, "master-secret"),
      TREASURY_KEY_FILE: join(work, "treasury.json"),
      DATA_DIR: dataDir,
      BACKUP_URL: "s3://fee-ledger-backups/svc",
      S3_ACCESS_KEY_ID: "AKIAFEELEDGERTEST01",
      S3_SECRET_ACCESS_KEY: "a-secret-that-is-never-printed",
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  expect(code).toBe(1);
  expect(stderr).toBe(
    "Invalid configuration: BACKUP_URL needs BACKUP_KEY_FILE (the key generations are sealed with, outside DATA_DIR)\n",
  );
  expect(existsSync(dataDir)).toBe(false);
}, 60_000);
