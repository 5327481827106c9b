/**
 * The cron route as a scheduler drives it: `POST /api/cron/:job` answers 202 with a run id at
 * once, and the run's report is read from `GET /api/cron/runs/:runId` until it has finished.
 */
import type { CronRun } from "../../src/jobs/cron-runs";

type Call = (path: string, init?: RequestInit) => Promise<Response>;

/** `call` for a service reached over HTTP at `base`. */
export const overHttp =
  (base: string): Call =>
  (path, init) =>
    fetch(`${base}${path}`, init);

/** Starts `job` and waits for its report; throws on anything but 202 (the caller handles 409 itself). */
export async function runJob(call: Call, job: string, secret: string, timeoutMs = 120_000): Promise<CronRun> {
  const authorization = `Bearer ${secret}`;
  const started = await call(`/api/cron/${job}`, { method: "POST", headers: { authorization } });
  if (started.status !== 202) throw new Error(`cron ${job}: ${started.status} ${await started.text()}`);
  const { runId } = (await started.json()) as { runId: string };
  return waitForRun(call, runId, secret, timeoutMs);
}

/** Polls a run until it is no longer running. */
export async function waitForRun(call: Call, runId: string, secret: string, timeoutMs = 120_000): Promise<CronRun> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await call(`/api/cron/runs/${runId}`, { headers: { authorization: `Bearer ${secret}` } });
    if (response.status !== 200) throw new Error(`run ${runId}: ${response.status} ${await response.text()}`);
    const run = (await response.json()) as CronRun;
    if (run.state !== "running") return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} of ${run.job} still running after ${timeoutMs} ms`);
    await Bun.sleep(20);
  }
}
