/**
 * The examples as an integrator runs them, under Bun and under Node (through `tsx`, as
 * docs/integrating.md says): the operator client is generated from the served
 * `/api/openapi-operator.json`, type-checks under `strict` (a delivery's `eventId` is a string, a
 * run's report is switched on by `job`), starts a real job through the cron route and prints its
 * report and the webhooks' deliveries; the public walkthrough runs under Node too; and a failure is
 * printed with a non-zero exit status, never passed over in silence.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { seedDatabase } from "../../scripts/seed";
import { registerJobs } from "../../src/register-jobs";
import { freePort } from "../helpers/socket";
import { type Json, type TestService, testService } from "../helpers/service";
import { Receiver } from "../webhooks/receiver";

const ROOT = join(import.meta.dir, "..", "..");
const EXAMPLES = join(ROOT, "examples");
const WALKTHROUGH = join(EXAMPLES, "walkthrough.ts");
const TSX = join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");
const CRON = "cron-secret-for-the-operator-example-0123456789";
const ADMIN = "admin-secret-for-the-operator-example-0123456789";

let svc: TestService;
let server: ReturnType<typeof Bun.serve>;
let base: string;
let receiver: Receiver;
let webhookId: string;

beforeAll(async () => {
  svc = testService({ CRON_SECRET: CRON, ADMIN_SECRET: ADMIN, WEBHOOKS_ALLOW_PRIVATE: "1", RATE_LIMIT: "off" });
  // No chain here: the jobs that need none (launches, market) run for real.
  registerJobs(svc.ctx);
  seedDatabase(svc.ctx.db, { tokens: 20, seed: 5 });
  server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => svc.app.handle(request) });
  base = `http://127.0.0.1:${server.port}`;
  receiver = new Receiver().start();
  const admin = { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" };
  const created = await svc.json("/api/admin/webhooks", {
    method: "POST",
    headers: admin,
    body: JSON.stringify({ url: receiver.url }),
  });
  expect(created.status).toBe(200);
  webhookId = created.body.id;
  const replayed = await svc.json(`/api/admin/webhooks/${webhookId}/replay`, {
    method: "POST",
    headers: admin,
    body: JSON.stringify({ since: "2000-01-01T00:00:00.000Z" }),
  });
  expect(replayed.body.queued).toBeGreaterThan(0);

  // Generated under Node here (test/examples/client.test.ts generates under Bun).
  const generated = await run(["node", TSX, join(EXAMPLES, "generate.ts"), base]);
  expect({ code: generated.code, err: generated.err }).toEqual({ code: 0, err: "" });
  expect(generated.out).toContain("operator.d.ts");
}, 60_000);
afterAll(async () => {
  receiver?.stop();
  server?.stop(true);
  await svc?.cleanup();
});

async function run(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string; err: string }> {
  const child = Bun.spawn(args, { cwd: ROOT, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, out, err };
}

const underBun = (...args: string[]) => [process.execPath, "run", WALKTHROUGH, ...args];
const underNode = (...args: string[]) => ["node", TSX, WALKTHROUGH, ...args];
const secrets = { CRON_SECRET: CRON, ADMIN_SECRET: ADMIN };

test("the clients generated from both served documents type-check with the examples under strict", async () => {
  // TypeScript 7, the current release (its native compiler; typescript 5 stays for openapi-typescript's API).
  const tsc = join(ROOT, "node_modules", "typescript-native", "bin", "tsc");
  const checked = await run(["node", tsc, "-p", join(EXAMPLES, "tsconfig.json")]);
  expect({ code: checked.code, out: checked.out }).toEqual({ code: 0, out: "" });
}, 60_000);

describe("the operator client runs a job through the cron route and prints its report", () => {
  for (const [runtime, command, job] of [
    ["Bun", underBun, "launches"],
    ["Node", underNode, "market"],
  ] as const) {
    test(`under ${runtime}`, async () => {
      const result = await run(command("operator", base, job), secrets);
      expect({ code: result.code, err: result.err }).toEqual({ code: 0, err: "" });
      const [ran, hooks] = result.out
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Json);
      expect(ran.run).toMatchObject({ job, state: "succeeded", error: null, report: { job } });
      // The report is what the run did; the service's own read of the run says the same.
      const read = await svc.json(`/api/cron/runs/${ran.run.runId}`, { headers: { authorization: `Bearer ${CRON}` } });
      expect(read.body.report).toEqual(ran.run.report);
      expect(ran.line).toStartWith(`${job}:`);
      const deliveries = await svc.json(`/api/admin/webhooks/${webhookId}/deliveries?limit=5`, {
        headers: { authorization: `Bearer ${ADMIN}` },
      });
      expect(hooks.webhooks).toEqual([
        {
          webhook: webhookId,
          deliveries: deliveries.body.deliveries.map((d: Json) => ({
            eventId: d.eventId,
            status: d.status,
            attempt: d.attempt,
          })),
        },
      ]);
      expect(hooks.webhooks[0].deliveries.length).toBeGreaterThan(0);
    }, 120_000);
  }
});

test("the public walkthrough runs under Node as under Bun", async () => {
  const walked = await run(underNode(base));
  expect({ code: walked.code, err: walked.err }).toEqual({ code: 0, err: "" });
  const summary = JSON.parse(walked.out.trim().split("\n").at(-1)!);
  const visible = svc.ctx.db.$client.query("SELECT COUNT(*) AS n FROM tokens WHERE hidden = 0").get() as { n: bigint };
  expect(summary.tokens.new).toBe(Number(visible.n));
  expect(summary.ledgerEvents).toBeGreaterThan(0);
}, 120_000);

describe("a failure is reported on stderr with exit status 1", () => {
  for (const [runtime, command] of [
    ["Bun", underBun],
    ["Node", underNode],
  ] as const) {
    test(`under ${runtime}: no service there, and a wrong secret`, async () => {
      const nobody = `http://127.0.0.1:${freePort()}`;
      const unreachable = await run(command(nobody));
      expect(unreachable.code).toBe(1);
      expect(unreachable.err).toStartWith("error: ");
      const wrong = await run(command("operator", base, "market"), { CRON_SECRET: "not-the-secret" });
      expect(wrong.code).toBe(1);
      expect(wrong.err).toBe(
        "error: POST /api/cron/market answered 404 (No such route.); a wrong or unset secret answers 404 too\n",
      );
      expect(wrong.out).toBe("");
    }, 120_000);
  }
});
