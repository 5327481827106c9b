/** The real process (the service's executable, test/helpers/executable.ts) on a small seeded database, its jobs in their worker thread. */
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../../db/client";
import { seedDatabase } from "../../scripts/seed";
import { answering, serviceExecutable } from "../helpers/executable";
import { freePort } from "../helpers/socket";
import { appendTail, followStderr } from "../helpers/stderr";

export const CRON = "cron-secret-for-the-worker-tests-0123456789";
const METRICS = "metrics-secret-for-the-worker-tests-012345";
let seeded: string | null = null;

/** A data dir holding a copy of one seeded database (sent sweeps and queued payouts to work). */
export function seededDataDir(): string {
  if (!seeded) {
    seeded = mkdtempSync(join(tmpdir(), "cfl-workers-seed-"));
    const db = openDatabase(join(seeded, "service.db"));
    seedDatabase(db, { tokens: 300, seed: 11 });
    closeDatabase(db);
  }
  const dir = mkdtempSync(join(tmpdir(), "cfl-workers-"));
  cpSync(seeded, dir, { recursive: true });
  return dir;
}

export function removeSeeded(): void {
  if (seeded) rmSync(seeded, { recursive: true, force: true });
  seeded = null;
}

export interface Running {
  child: Bun.Subprocess;
  base: string;
  cron(job: string): Promise<Response | null>;
  metrics(): Promise<string>;
  /** the last characters the process wrote to stderr (STDERR_TAIL_CHARS), to explain a failure */
  stderrTail(): string;
}

const started = new Set<Bun.Subprocess>();

/** Kills what a failed test left running. */
export function killStarted(): void {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  started.clear();
}

export async function startService(dataDir: string, env: Record<string, string> = {}): Promise<Running> {
  const port = freePort();
  const inherited: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) inherited[k] = v;
  const child = Bun.spawn([await serviceExecutable()], {
    env: {
      ...inherited,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      LOCAL_CHAIN_RPC_PORT: "0",
      LOCAL_CHAIN_GRPC_PORT: "0",
      LOCAL_CHAIN_SLOT_MS: "50",
      CRON_SECRET: CRON,
      METRICS_SECRET: METRICS,
      RATE_LIMIT: "off",
      DEMO: "0",
      JOBS: "0",
      LOG_LEVEL: "warn",
      ...env,
    },
    stdout: "ignore",
    stderr: "pipe",
  });
  started.add(child);
  // The tail explains a start that failed.
  let stderrTail = "";
  followStderr(child.stderr, (text) => {
    stderrTail = appendTail(stderrTail, text);
  });
  const base = `http://127.0.0.1:${port}`;
  await answering(child, `${base}/api/cron/health`, () => stderrTail);
  const cron = (job: string) =>
    fetch(`${base}/api/cron/${job}`, { method: "POST", headers: { authorization: `Bearer ${CRON}` } }).catch(
      () => null,
    );
  const metrics = () =>
    fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS}` } }).then((r) => r.text());
  return { child, base, cron, metrics, stderrTail: () => stderrTail };
}
