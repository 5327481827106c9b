/**
 * The jobs in their worker thread (src/workers): a run writes the books on the jobs' own database
 * connection while the request thread keeps answering reads, none of them failing on the write
 * lock; the run's result reaches /metrics and health; SIGTERM in the middle of a run still stops it
 * at a safe point, releases the leases and checkpoints; a crash point reached in the worker kills
 * the whole process, as it did when the jobs ran on the request thread.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../../db/client";
import { verifyLedger } from "../../src/ledger/verify";
import {
  RUNTIME_HELPER_SCAN_EVERY_MS,
  RUNTIME_HELPER_THREADS,
  THREAD_NAMES,
  WORKER_NICE,
} from "../../src/workers/priority";
import { overHttp, waitForRun } from "../helpers/cron";
import { CRON, killStarted, removeSeeded, seededDataDir, startService } from "./support";

afterAll(() => removeSeeded());
afterEach(() => killStarted());

const READS = ["/api/tokens?sort=fees", "/api/tokens?q=pep", "/api/stats", "/api/ledger", "/api/cron/health"];

/** Reads in a loop until `done`; every answer that is not a 200 is kept with its body. */
async function readWhile(base: string, done: () => boolean): Promise<{ answered: number; failures: string[] }> {
  let answered = 0;
  const failures: string[] = [];
  const loop = async (offset: number) => {
    for (let i = offset; !done(); i++) {
      const r = await fetch(`${base}${READS[i % READS.length]}`);
      const body = await r.text();
      answered++;
      if (r.status !== 200 || /SQLITE|locked|busy/i.test(body)) failures.push(`${r.status} ${body.slice(0, 200)}`);
    }
  };
  await Promise.all([0, 1, 2, 3].map(loop));
  return { answered, failures };
}

function countByStatus(dataDir: string): Record<string, number> {
  const db = openDatabase(join(dataDir, "service.db"));
  const rows = db.$client
    .query<{ status: string; n: number }, []>("SELECT status, COUNT(*) AS n FROM payouts GROUP BY status")
    .all();
  closeDatabase(db);
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

describe("jobs in their worker thread", () => {
  test("a run writes the books while reads are served; SIGTERM mid-run releases leases and checkpoints", async () => {
    const dataDir = seededDataDir();
    const before = countByStatus(dataDir);
    expect(before.queued ?? 0).toBeGreaterThan(0);
    const svc = await startService(dataDir);
    let running = true;
    const reads = readWhile(svc.base, () => !running);
    // The payouts run marks the queued payouts sent from the jobs' connection, then waits on the chain.
    const payouts = svc.cron("payouts");
    const deadline = Date.now() + 60_000;
    while ((countByStatus(dataDir).queued ?? 0) >= (before.queued ?? 0) && Date.now() < deadline) await Bun.sleep(200);
    const burns = await svc.cron("burns");
    running = false;
    const { answered, failures } = await reads;
    expect(failures).toEqual([]);
    expect(answered).toBeGreaterThan(0);
    expect(countByStatus(dataDir).queued ?? 0).toBeLessThan(before.queued ?? 0);
    expect(burns?.status).toBe(202);
    const { runId } = (await burns!.json()) as { runId: string };
    expect(await waitForRun(overHttp(svc.base), runId, CRON)).toMatchObject({ job: "burns", state: "succeeded" });
    // A run's result crossed threads: counted in /metrics; health shows the payouts run in progress.
    const metrics = await svc.metrics();
    if (!metrics.includes("job_runs_total"))
      console.error(`/metrics failed; the service's stderr:\n${svc.stderrTail()}`);
    expect(metrics).toMatch(/job_runs_total\{job="burns",outcome="ok"\} 1/);
    const health = await (await fetch(`${svc.base}/api/cron/health`)).json();
    expect(health.jobs.find((j: { job: string }) => j.job === "payouts").running).toBe(true);

    // SIGTERM while the payouts run still works: a safe point, leases released, the WAL checkpointed.
    svc.child.kill("SIGTERM");
    expect(await svc.child.exited).toBe(0);
    await payouts;
    const dbPath = join(dataDir, "service.db");
    const walLeft = existsSync(`${dbPath}-wal`) && statSync(`${dbPath}-wal`).size > 0;
    // Seen once in 13 runs: the WAL left whole after a clean exit. Its stderr says which close fell short.
    if (walLeft) console.error(`WAL left after SIGTERM; the service's stderr:\n${svc.stderrTail()}`);
    expect(walLeft).toBe(false);
    const db = openDatabase(dbPath);
    verifyLedger(db);
    const count = (sql: string) => Number(db.$client.query<{ n: number }, []>(sql).get()?.n ?? -1);
    expect(count("SELECT COUNT(*) AS n FROM job_leases WHERE holder IS NOT NULL")).toBe(0);
    expect(count("SELECT COUNT(*) AS n FROM job_runs WHERE finished_at_ms IS NULL")).toBe(0);
    expect(count("SELECT COUNT(*) AS n FROM job_runs WHERE job = 'payouts'")).toBe(1);
    closeDatabase(db);
    rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);

  test("the jobs' and the chain's threads run below the request thread's priority", async () => {
    const dataDir = seededDataDir();
    const svc = await startService(dataDir);
    const pid = svc.child.pid;
    // After "comm) " in /proc/<pid>/task/<tid>/stat: field 19 (the nice value) is at 16, field 41
    // (the scheduling policy) at 38.
    const statOf = (tid: string) => readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8").split(") ")[1]!.split(" ");
    const niceOf = (tid: string) => Number(statOf(tid)[16]);
    const policyOf = (tid: string) => Number(statOf(tid)[38]);
    const named = (names: ReadonlySet<string>) =>
      readdirSync(`/proc/${pid}/task`).filter((tid) => {
        try {
          return names.has(readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim());
        } catch {
          return false;
        }
      });
    // The request thread as it was; the jobs' and the chain's threads at nice 10, each found by its
    // own name: a count of threads Bun calls "Worker" would count whatever else runs under it.
    expect([niceOf(String(pid)), policyOf(String(pid))]).toEqual([0, 0]);
    for (const name of [THREAD_NAMES.jobs, THREAD_NAMES.chain]) {
      const thread = named(new Set([name]));
      expect(thread.map((tid) => [niceOf(tid), policyOf(tid)])).toEqual([[WORKER_NICE, 0]]);
    }
    // Bun's shared fetch thread was started by the request thread, so it runs as that thread does.
    const fetchThreads = named(new Set(["HTTP Client"]));
    expect(fetchThreads.length).toBe(1);
    expect(fetchThreads.map((tid) => [niceOf(tid), policyOf(tid)])).toEqual([[0, 0]]);
    // The runtime's GC markers and JIT compilers at nice 10, once the periodic scan has seen them.
    const deadline = Date.now() + RUNTIME_HELPER_SCAN_EVERY_MS * 3;
    while (Date.now() < deadline && named(RUNTIME_HELPER_THREADS).some((tid) => niceOf(tid) !== WORKER_NICE))
      await Bun.sleep(250);
    const helpers = named(RUNTIME_HELPER_THREADS);
    expect(helpers.length).toBeGreaterThan(0);
    expect(helpers.map((tid) => [niceOf(tid), policyOf(tid)])).toEqual(helpers.map(() => [WORKER_NICE, 0]));
    rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);

  test("the public stats are read from the kept counts by the request thread while the jobs' thread works", async () => {
    const dataDir = seededDataDir();
    const svc = await startService(dataDir);
    const stats = await (await fetch(`${svc.base}/api/stats`)).json();
    expect(stats.tokens).toBe(300);
    expect(BigInt(stats.sweptLamports)).toBeGreaterThan(0n);
    rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);

  test("a crash point reached in the jobs' worker kills the whole process", async () => {
    const dataDir = seededDataDir();
    const svc = await startService(dataDir, { CRASH_AT: "payouts:after-save" });
    const run = await svc.cron("payouts");
    // The route answers once the run has started, so the process may die before or after its 202;
    // either way it is killed by SIGKILL and its lease is left to lapse.
    const answered = run === null ? null : { status: run.status, body: await run.text().catch(() => "") };
    await svc.child.exited;
    // A failure here was seen once in a loaded run and not again: say what happened if it comes back.
    const outcome = { answered: answered?.status ?? "killed first", signal: svc.child.signalCode };
    if (outcome.signal !== "SIGKILL" || (answered !== null && answered.status !== 202))
      console.error(
        `${JSON.stringify({ ...outcome, body: answered?.body, exitCode: svc.child.exitCode })}; the service's stderr:\n${svc.stderrTail()}`,
      );
    expect(outcome.answered === "killed first" || outcome.answered === 202).toBe(true);
    expect(outcome.signal).toBe("SIGKILL");
    const db = openDatabase(join(dataDir, "service.db"));
    const held = db.$client
      .query<{ holder: string | null }, []>("SELECT holder FROM job_leases WHERE job = 'payouts'")
      .get();
    expect(held?.holder).not.toBeNull();
    closeDatabase(db);
    rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);
});
