/**
 * The provider's bill on /metrics (issue 42): every JSON-RPC call the service makes is counted by
 * method, and the counts equal what the local chain's RPC server answered.
 */
import { afterEach, expect, test } from "bun:test";
import { takeProviderUsage } from "../../src/chain/rpc";
import { MINUTE_MS, type ScheduleWorld, scheduleWorld } from "../sweeps/harness";

let w: ScheduleWorld | null = null;
afterEach(async () => {
  await w?.close();
  w = null;
});

const SECRET = "metrics-secret-for-tests-0123456789";

function samples(text: string, name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    const m = new RegExp(`^${name}\\{method="([^"]+)"\\} (\\d+)$`).exec(line);
    if (m) out.set(m[1]!, Number(m[2]));
  }
  return out;
}

test("chain_rpc_requests_total counts every request the chain answered, by method, and health shows them per hour", async () => {
  w = await scheduleWorld({ maxIntervalMs: 6 * 60 * MINUTE_MS, env: { METRICS_SECRET: SECRET } });
  // Counts of this thread from earlier tests belong to their own databases.
  takeProviderUsage();
  const servedBefore = new Map(w.local.served.requests);
  const bytesBefore = w.local.served.responseBytes;
  const tokens = [await w.launch(), await w.launch()];
  await w.trade(tokens[0]!.mint, tokens[0]!.creator, 80_000_000n);
  // Sweeps (reads, a send, its outcome: a batch), and a detail's refresh in the request path.
  for (let i = 0; i < 3; i++) {
    await w.sweep();
    w.clock.nowMs += 2 * MINUTE_MS;
  }
  expect((await w.getToken(tokens[1]!.mint)).status).toBe(200);

  const res = await w.service.app.handle(
    new Request("http://localhost/metrics", { headers: { authorization: `Bearer ${SECRET}` } }),
  );
  expect(res.status).toBe(200);
  const text = await res.text();
  const requests = samples(text, "chain_rpc_requests_total");
  const bytes = samples(text, "chain_rpc_response_bytes_total");

  const served = new Map<string, number>();
  for (const [method, n] of w.local.served.requests) {
    const delta = n - (servedBefore.get(method) ?? 0);
    if (delta > 0) served.set(method, delta);
  }
  expect(Object.fromEntries(requests)).toEqual(Object.fromEntries(served));
  for (const method of ["getMultipleAccounts", "sendTransaction", "getSignatureStatuses", "getEpochInfo"])
    expect(requests.get(method) ?? 0).toBeGreaterThan(0);
  const countedBytes = [...bytes.values()].reduce((a, b) => a + b, 0);
  expect(countedBytes).toBe(w.local.served.responseBytes - bytesBefore);

  const health = await w.service.app.handle(new Request("http://localhost/api/cron/health"));
  const body = (await health.json()) as { provider: { requestsThisHour: number; requestsPerHour: number } };
  const total = [...requests.values()].reduce((a, b) => a + b, 0);
  // The clock moved 6 minutes: the requests are in this hour or the last.
  expect(body.provider.requestsThisHour + body.provider.requestsPerHour).toBe(total);
}, 60_000);
