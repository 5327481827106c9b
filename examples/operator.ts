/**
 * An operator's typed client, generated from `/api/openapi-operator.json` (examples/generate.ts):
 * start a job through the cron route, read its run until it has finished and print what it did,
 * and list each webhook endpoint's latest deliveries by event id.
 *
 *   CRON_SECRET=… ADMIN_SECRET=… npm run example -- operator http://localhost:3000 sweep
 *
 * (under Node: `npx tsx examples/walkthrough.ts operator …`). Without ADMIN_SECRET the webhooks
 * are left out. Every path, parameter and answer is checked by the compiler against the document.
 */
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./generated/operator";
import { sleep } from "./main";

type CronRun = components["schemas"]["CronRun"];
type JobRunReport = components["schemas"]["JobRunReport"];
type WebhookDelivery = components["schemas"]["WebhookDelivery"];
type JobName = paths["/api/cron/{job}"]["post"]["parameters"]["path"]["job"];
type Operator = Client<paths>;

/** A client sending `Authorization: Bearer <secret>` (CRON_SECRET for the cron routes, ADMIN_SECRET for the rest). */
const operatorClient = (baseUrl: string, secret: string): Operator =>
  createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${secret}` } });

/** The route answers 404 to a wrong secret as to a route that does not exist: say which is likely. */
function refusal(what: string, status: number, error: unknown): Error {
  const sentence = (error as { error?: string } | undefined)?.error ?? "";
  const hint = status === 404 ? "; a wrong or unset secret answers 404 too" : "";
  return new Error(`${what} answered ${status}${sentence ? ` (${sentence})` : ""}${hint}`);
}

/** Starts `job` (202 at once) and reads its run until it is no longer running. */
async function runJob(cron: Operator, job: JobName, pollMs = 250): Promise<CronRun> {
  const started = await cron.POST("/api/cron/{job}", { params: { path: { job } } });
  if (!started.data) throw refusal(`POST /api/cron/${job}`, started.response.status, started.error);
  for (;;) {
    const path = { runId: started.data.runId };
    const read = await cron.GET("/api/cron/runs/{runId}", { params: { path } });
    if (!read.data) throw refusal(`GET /api/cron/runs/${path.runId}`, read.response.status, read.error);
    if (read.data.state !== "running") return read.data;
    await sleep(pollMs);
  }
}

/** One line per report; the compiler checks every job is handled and each report's own fields. */
function describeReport(report: JobRunReport): string {
  switch (report.job) {
    case "sweep":
      if (report.pausedByProgramChange) return "sweep paused: a program upgrade waits for an operator";
      return `sweep: ${report.tokensSwept} token(s) swept, ${report.confirmed} confirmed, ${report.failed} failed, ${report.pending} pending`;
    case "payouts":
      if (report.held) return `payouts held (reconciliation ${report.reconciliation})`;
      return `payouts: ${report.sent} sent, ${report.confirmed} confirmed, ${report.failed} failed; withdrawals: ${report.withdrawals.confirmed} confirmed`;
    case "burns":
      return `burns: ${report.buysSent} buy(s) sent, ${report.burned} burned, ${report.failed} failed`;
    case "launches":
      return `launches: ${report.confirmed} confirmed, ${report.failed} failed, ${report.expired} expired, ${report.bonded} bonded`;
    case "market":
      return report.configured ? `market: ${report.updated} token(s) refreshed` : "market: no data source set";
    default: {
      const unknown: never = report;
      return `unknown report ${JSON.stringify(unknown)}`;
    }
  }
}

/** Each webhook endpoint with the event ids of its latest deliveries (a receiver dedupes by them). */
async function latestDeliveries(
  admin: Operator,
  limit = 5,
): Promise<{ webhook: string; deliveries: Pick<WebhookDelivery, "eventId" | "status" | "attempt">[] }[]> {
  const listed = await admin.GET("/api/admin/webhooks");
  if (!listed.data) throw refusal("GET /api/admin/webhooks", listed.response.status, listed.error);
  const out = [];
  for (const hook of listed.data.webhooks) {
    const read = await admin.GET("/api/admin/webhooks/{id}/deliveries", {
      params: { path: { id: hook.id }, query: { limit } },
    });
    if (!read.data) throw refusal(`GET deliveries of ${hook.id}`, read.response.status, read.error);
    const deliveries = read.data.deliveries.map(({ eventId, status, attempt }) => ({ eventId, status, attempt }));
    out.push({ webhook: hook.id, deliveries });
  }
  return out;
}

const JOBS: readonly JobName[] = ["sweep", "payouts", "burns", "launches", "market"];

/** `operator <base url> [job]`: runs the job (sweep by default) and prints its run and the webhooks' deliveries. */
export async function operatorCommand(args: string[]): Promise<void> {
  const base = (args[0] ?? "http://localhost:3000").replace(/\/$/, "");
  const job = (args[1] ?? "sweep") as JobName;
  if (!JOBS.includes(job)) throw new Error(`unknown job ${job}; one of ${JOBS.join(", ")}`);
  const cronSecret = process.env.CRON_SECRET;
  if (!cronSecret) throw new Error("set CRON_SECRET to the service's CRON_SECRET");
  const run = await runJob(operatorClient(base, cronSecret), job);
  if (run.state !== "succeeded") throw new Error(`the ${job} run ${run.state}: ${run.error ?? "no reason given"}`);
  const line = run.report ? describeReport(run.report) : `${job}: no report`;
  process.stdout.write(`${JSON.stringify({ run, line })}\n`);
  const adminSecret = process.env.ADMIN_SECRET;
  if (adminSecret)
    process.stdout.write(`${JSON.stringify({ webhooks: await latestDeliveries(operatorClient(base, adminSecret)) })}\n`);
}
