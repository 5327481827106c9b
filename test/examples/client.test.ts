/**
 * The integrator's example runs against the live document of a seeded service, so the document,
 * the generated client and docs/integrating.md cannot drift apart: the client's types are
 * generated from `/api/openapi.json` as served (openapi-typescript), the example type-checks
 * against them under `strict`, pages every list to the end without a repeat, follows the stream,
 * and its webhook receiver verifies a delivery signed the way the service signs one.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { seedDatabase } from "../../scripts/seed";
import { webhookHeaders } from "../../src/webhooks/signing";
import { type Json, type TestService, testService } from "../helpers/service";

const ROOT = join(import.meta.dir, "..", "..");
const EXAMPLES = join(ROOT, "examples");

let svc: TestService;
let server: ReturnType<typeof Bun.serve>;
let base: string;

beforeAll(() => {
  svc = testService({ RATE_LIMIT: "off" });
  seedDatabase(svc.ctx.db, { tokens: 130, seed: 3 });
  server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => svc.app.handle(request) });
  base = `http://127.0.0.1:${server.port}`;
}, 60_000);
afterAll(async () => {
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

test("the client generated from the served document type-checks, and the example pages everything and follows the stream", async () => {
  const generated = await run([process.execPath, "run", join(EXAMPLES, "generate.ts"), base]);
  expect({ code: generated.code, err: generated.err }).toEqual({ code: 0, err: "" });

  // TypeScript 7, the current release (its native compiler; typescript 5 stays for openapi-typescript's API).
  const tsc = join(ROOT, "node_modules", "typescript-native", "bin", "tsc");
  const checked = await run(["node", tsc, "-p", join(EXAMPLES, "tsconfig.json")]);
  expect({ code: checked.code, out: checked.out }).toEqual({ code: 0, out: "" });

  const walked = await run([process.execPath, "run", join(EXAMPLES, "walkthrough.ts"), base]);
  expect({ code: walked.code, err: walked.err }).toEqual({ code: 0, err: "" });
  const summary = JSON.parse(walked.out.trim().split("\n").at(-1)!);

  const visible = svc.ctx.db.$client.query("SELECT COUNT(*) AS n FROM tokens WHERE hidden = 0").get() as { n: bigint };
  expect(summary.tokens).toEqual({ new: Number(visible.n), fees: Number(visible.n), mcap: Number(visible.n) });
  let events = 0;
  for (let before: string | null = null, pages = 0; pages === 0 || before; pages++) {
    const page: Json = (await svc.json(`/api/ledger?limit=100${before ? `&before=${encodeURIComponent(before)}` : ""}`))
      .body;
    events += page.events.length;
    before = page.nextBefore;
  }
  expect(summary.ledgerEvents).toBe(events);
  expect(Object.keys(summary.byType).sort()).toEqual(["burn", "launch", "payout", "payoutStatus", "sweep"]);
  expect(summary.account.tokens).toBeGreaterThan(0);
  // Resumed after the fifth-newest event: the stream replays what was committed after it, with its cursor as id.
  expect(summary.streamed.length).toBeGreaterThan(0);
  for (const line of summary.streamed)
    expect(line).toMatch(/^\d{4}-\d\d-\d\dT[\d:]+\.\d{6}Z (launch|sweep|payout|payoutStatus|burn)$/);
}, 120_000);

test("the example's webhook receiver verifies a delivery signed as the service signs it, and refuses a forged one", async () => {
  const secret = `whsec_${Buffer.from("example-webhook-secret-0123456789ab").toString("base64")}`;
  const receiver = Bun.spawn([process.execPath, "run", join(EXAMPLES, "walkthrough.ts"), "webhook-receiver", "0"], {
    cwd: ROOT,
    env: { ...process.env, WEBHOOK_SECRET: secret },
    stdout: "pipe",
    stderr: "inherit",
  });
  try {
    const lines = receiver.stdout.pipeThrough(new TextDecoderStream()).getReader();
    const nextLine = async () => JSON.parse((await lines.read()).value!.trim().split("\n")[0]!);
    const { listening } = await nextLine();
    const event = (await svc.json("/api/ledger?limit=1")).body.events[0];
    const id = (await svc.json("/api/ledger?limit=1")).body.nextBefore as string;
    const body = JSON.stringify({ type: event.type, at: event.at, data: event });
    const nowSec = Math.floor(Date.now() / 1000);
    const post = (payload: string, headers: Record<string, string>) =>
      fetch(`http://127.0.0.1:${listening}/`, { method: "POST", headers, body: payload });

    expect((await post(body, webhookHeaders(secret, id, nowSec, body))).status).toBe(204);
    expect(await nextLine()).toEqual({ verified: id, line: expect.stringContaining(event.type) });
    const forged = body.replace(event.at, "2000-01-01T00:00:00.000Z");
    expect((await post(forged, webhookHeaders(secret, id, nowSec, body))).status).toBe(400);
    const otherSecret = `whsec_${Buffer.from("another-secret-entirely-0123456789").toString("base64")}`;
    expect((await post(body, webhookHeaders(otherSecret, id, nowSec, body))).status).toBe(400);
    expect((await post(body, webhookHeaders(secret, id, nowSec - 3600, body))).status).toBe(400);
  } finally {
    receiver.kill();
    await receiver.exited;
  }
}, 60_000);
