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

/**
 * Starts `job` and waits for the report of a run that ran. A run already holding the job's lease
 * (the schedule's, or the one a claim starts) answers 409, or leaves this run `not_run`: it is
 * waited out and asked again, as a scheduler retrying would, until the deadline.
 */
export async function runJob(call: Call, job: string, secret: string, timeoutMs = 120_000): Promise<CronRun> {
  const authorization = `Bearer ${secret}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const started = await call(`/api/cron/${job}`, { method: "POST", headers: { authorization } });
    if (started.status === 202) {
      const { runId } = (await started.json()) as { runId: string };
      const run = await waitForRun(call, runId, secret, Math.max(1, deadline - Date.now()));
      if (run.state !== "not_run") return run;
    } else if (started.status !== 409) throw new Error(`cron ${job}: ${started.status} ${await started.text()}`);
    if (Date.now() > deadline) throw new Error(`cron ${job}: another run held the lease for ${timeoutMs} ms`);
    await Bun.sleep(50);
  }
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
