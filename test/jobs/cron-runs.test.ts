/**
 * `POST /api/cron/:job` answers at once with a run id while the run goes on, and
 * `GET /api/cron/runs/:runId` (same bearer) reports it: a scheduler with a 10 s HTTP timeout once
 * reported failure for a sweep that took 27 s and succeeded.
 */
import { afterEach, expect, test } from "bun:test";
import { waitForRun } from "../helpers/cron";
import { type TestService, testService } from "../helpers/service";

const SECRET = "cron-runs-secret-for-tests-0123456789ab";
const auth = { authorization: `Bearer ${SECRET}` };
let svc: TestService | undefined;
afterEach(async () => {
  await svc?.cleanup();
  svc = undefined;
});

test("a long run: 202 {runId, job} at once, 409 while it runs, its report readable once it has finished", async () => {
  svc = testService({ CRON_SECRET: SECRET });
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  svc.ctx.scheduler.register("sweep", async () => {
    await held;
  });

  // The job stays held until the test releases it, so an answer at all shows it did not wait.
  const started = await svc.call("/api/cron/sweep", { method: "POST", headers: auth });
  expect(started.status).toBe(202);
  const body = await started.json();
  expect(Object.keys(body).sort()).toEqual(["job", "runId"]);
  expect(body.job).toBe("sweep");
  expect(body.runId).toMatch(/^run_[0-9a-f]{32}$/);
  expect(started.headers.get("location")).toBe(`/api/cron/runs/${body.runId}`);
  expect(started.headers.get("cache-control")).toBe("no-store");

  // The run goes on after the answer.
  const running = await svc.json(`/api/cron/runs/${body.runId}`, { headers: auth });
  expect(running.status).toBe(200);
  expect(running.body).toMatchObject({ runId: body.runId, job: "sweep", state: "running", finishedAt: null });
  const again = await svc.json("/api/cron/sweep", { method: "POST", headers: auth });
  expect(again).toMatchObject({
    status: 409,
    body: { error: "That job is running already; try again when it finishes." },
  });
  expect((await svc.json("/api/cron/health")).body.jobs.find((j: { job: string }) => j.job === "sweep").running).toBe(
    true,
  );

  release();
  const report = await waitForRun(svc.call, body.runId, SECRET);
  expect(report).toMatchObject({ runId: body.runId, job: "sweep", state: "succeeded", error: null });
  expect(Date.parse(report.finishedAt!)).toBeGreaterThanOrEqual(Date.parse(report.startedAt));
  expect(report.durationMs).toBeGreaterThanOrEqual(0);
  // Still readable later, and the job can be started again.
  expect((await svc.json(`/api/cron/runs/${body.runId}`, { headers: auth })).body).toEqual(report);
  expect((await svc.call("/api/cron/sweep", { method: "POST", headers: auth })).status).toBe(202);
});

test("a failed run reports its error scrubbed of addresses and setting names", async () => {
  svc = testService({ CRON_SECRET: SECRET });
  svc.ctx.scheduler.register("payouts", async () => {
    await Bun.sleep(10);
    throw new Error("fetch https://rpc.example.com/?api-key=abc failed; check RPC_URL");
  });
  const started = await svc.json("/api/cron/payouts", { method: "POST", headers: auth });
  expect(started.status).toBe(202);
  const report = await waitForRun(svc.call, started.body.runId, SECRET);
  expect(report.state).toBe("failed");
  expect(report.error).toBeString();
  for (const secret of ["example.com", "api-key", "abc", "RPC_URL"]) expect(report.error).not.toContain(secret);
});

test("runs answer 404 without the bearer, with a wrong one, and for an unknown run id", async () => {
  svc = testService({ CRON_SECRET: SECRET });
  svc.ctx.scheduler.register("sweep", async () => {});
  const { body } = await svc.json("/api/cron/sweep", { method: "POST", headers: auth });
  expect((await svc.call(`/api/cron/runs/${body.runId}`)).status).toBe(404);
  expect((await svc.call(`/api/cron/runs/${body.runId}`, { headers: { authorization: "Bearer wrong" } })).status).toBe(
    404,
  );
  expect((await svc.call(`/api/cron/runs/run_${"0".repeat(32)}`, { headers: auth })).status).toBe(404);
  expect((await waitForRun(svc.call, body.runId, SECRET)).state).toBe("succeeded");
});

test("a job this deployment has no body for is 503, and starts no run", async () => {
  svc = testService({ CRON_SECRET: SECRET });
  const r = await svc.json("/api/cron/market", { method: "POST", headers: auth });
  expect(r.status).toBe(503);
});
