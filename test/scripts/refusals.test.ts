/** Operator commands (backup, restore, admin) refuse with one clear line and a non-zero exit, no stack trace. */
import { afterEach, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../db/client";

const root = join(import.meta.dir, "..", "..");
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "cfl-refusal-"));
  dirs.push(dir);
  return dir;
}

async function run(script: string, args: string[], dataDir: string) {
  const child = Bun.spawn([process.execPath, "run", join(root, "scripts", script), ...args], {
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "warn", CLI_TRACE: "" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const code = await child.exited;
  return { code, stdout: await new Response(child.stdout).text(), stderr: await new Response(child.stderr).text() };
}

function expectOneLine(stderr: string, pattern: RegExp): void {
  const lines = stderr.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]!).toMatch(pattern);
  // No source lines or stack frames.
  expect(stderr).not.toMatch(/\bat \S+:\d+|\^|error: /);
}

describe("operator refusals", () => {
  test("restore while the service runs: one line, exit 1, nothing touched", async () => {
    const dataDir = tempDir();
    const db = openDatabase(join(dataDir, "service.db"));
    db.$client.run(
      "INSERT OR REPLACE INTO job_leases (job, holder, generation, expires_at_ms) VALUES ('sweep', 'live-process', 1, ?)",
      [Date.now() + 600_000],
    );
    db.$client.run("PRAGMA wal_checkpoint(TRUNCATE)");
    const backup = join(dataDir, "backup.db");
    db.$client.run(`VACUUM INTO '${backup}'`);
    db.$client.close();
    const result = await run("restore.ts", [backup], dataDir);
    expect(result.code).toBe(1);
    expectOneLine(
      result.stderr,
      /^restore: refused: the service looks alive \(a job lease is held\); stop it, then restore$/,
    );
    expect(result.stdout).toBe("");
  });

  test("restore of a file that is not there, or not a database: one line, exit 1", async () => {
    const dataDir = tempDir();
    const missing = await run("restore.ts", [join(dataDir, "nope.db")], dataDir);
    expect(missing.code).toBe(1);
    expectOneLine(missing.stderr, /^restore: there is no backup file at .*nope\.db$/);
    const junk = join(dataDir, "junk.db");
    writeFileSync(junk, "this is not a database, just text ".repeat(200));
    const damaged = await run("restore.ts", [junk], dataDir);
    expect(damaged.code).toBe(1);
    expectOneLine(damaged.stderr, /^restore: /);
  });

  test("backup without a database: one line, exit 1", async () => {
    const dataDir = tempDir();
    const result = await run("backup.ts", [join(dataDir, "out.db")], dataDir);
    expect(result.code).toBe(1);
    expectOneLine(result.stderr, /^backup: there is no service database at .*service\.db \(check DATA_DIR\)$/);
  });

  test("admin: an unknown mint, a bad amount, an unknown command, an unreadable database: one line each, non-zero", async () => {
    const dataDir = tempDir();
    openDatabase(join(dataDir, "service.db")).$client.close();
    const unknownMint = await run(
      "admin.ts",
      ["hide", "So11111111111111111111111111111111111111112", "--reason", "test"],
      dataDir,
    );
    expect(unknownMint.code).toBe(1);
    expectOneLine(unknownMint.stderr, /^admin: /);
    const badAmount = await run("admin.ts", ["min-claim", "1.5"], dataDir);
    expect(badAmount.code).toBe(2);
    expectOneLine(badAmount.stderr, /^admin: a whole number of lamports is needed; usage: bun run admin /);
    const unknown = await run("admin.ts", ["explode"], dataDir);
    expect(unknown.code).toBe(2);
    expectOneLine(unknown.stderr, /^admin: unknown command: explode; usage: /);

    const damagedDir = tempDir();
    copyFileSync(join(dataDir, "service.db"), join(damagedDir, "service.db"));
    writeFileSync(join(damagedDir, "service.db"), "not a database at all ".repeat(300));
    const damaged = await run("admin.ts", ["pause-claims", "--reason", "test"], damagedDir);
    expect(damaged.code).toBe(1);
    expectOneLine(damaged.stderr, /^admin: /);
  });
});
