/**
 * `restore` killed (SIGKILL) at each of its steps (issue 49): the service's database is never
 * missing and never half of one; until the last step it is the old one, whole; run again, the
 * command finishes: the backup in place, marked restored, and the old database kept beside it.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../../db/client";
import { RESTORE_CRASH_POINTS } from "../../src/jobs/crash-points";

const ROOT = join(import.meta.dir, "..", "..");
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A migrated service database carrying `label` in its settings. */
function databaseAt(path: string, label: string): void {
  const db = openDatabase(path);
  db.$client.query("INSERT INTO settings (key, value) VALUES ('test_label', ?)").run(label);
  closeDatabase(db);
}

function labelOf(path: string): { label: string | null; restored: boolean } {
  const db = new Database(path, { readonly: true });
  try {
    const label = db.query("SELECT value FROM settings WHERE key = 'test_label'").get() as { value: string } | null;
    const restored = db.query("SELECT value FROM settings WHERE key = 'restored_at_ms'").get();
    return { label: label?.value ?? null, restored: restored !== null };
  } finally {
    db.close();
  }
}

async function restore(dataDir: string, backup: string, crashAt?: string) {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== "CRASH_AT") env[k] = v;
  const child = Bun.spawn([process.execPath, "run", join(ROOT, "scripts", "restore.ts"), backup], {
    env: { ...env, DATA_DIR: dataDir, ...(crashAt ? { CRASH_AT: crashAt } : {}) },
    stdout: "ignore",
    stderr: "pipe",
  });
  const stderr = await new Response(child.stderr).text();
  await child.exited;
  if (child.exitCode !== 0 && child.signalCode === null) throw new Error(`restore failed: ${stderr}`);
  return child;
}

describe("restore killed at each step", () => {
  for (const point of RESTORE_CRASH_POINTS) {
    test(`killed at ${point}: the old database stays whole; run again, the backup is in place`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "cfl-restore-crash-"));
      dirs.push(dir);
      const dataDir = join(dir, "data");
      mkdirSync(dataDir);
      // A backup as `backup` writes one: a single file, no WAL beside it.
      const backup = join(dir, "backup.db");
      databaseAt(join(dir, "source.db"), "backup");
      const source = new Database(join(dir, "source.db"));
      source.exec(`VACUUM INTO '${backup}'`);
      source.close();
      databaseAt(join(dataDir, "service.db"), "current");

      const killed = await restore(dataDir, backup, point);
      expect(killed.signalCode).toBe("SIGKILL");
      expect(labelOf(join(dataDir, "service.db"))).toEqual({ label: "current", restored: false });

      const again = await restore(dataDir, backup);
      expect(again.exitCode).toBe(0);
      expect(labelOf(join(dataDir, "service.db"))).toEqual({ label: "backup", restored: true });
      expect(existsSync(join(dataDir, "service.db-wal"))).toBe(false);
      const kept = readdirSync(dataDir).filter((name) => /^service\.db\.before-restore-\d+$/.test(name));
      expect(kept.length).toBeGreaterThanOrEqual(1);
      for (const name of kept) expect(labelOf(join(dataDir, name)).label).toBe("current");
      // The restored books open and migrate as the service opens them.
      closeDatabase(openDatabase(join(dataDir, "service.db")));
    }, 60_000);
  }
});
