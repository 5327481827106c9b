/**
 * `/metrics` carries the process's own series under the standard names (memory, CPU, start time,
 * build, the data volume), and the whole exposition stays valid Prometheus text (issue 63, item 15).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statfsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import packageJson from "../../package.json";
import { moneyGate } from "../../src/custody";
import { immediate } from "../../db/transaction";
import { journalOutcome, recordSignedTransaction } from "../../src/landing";
import { indexerMetrics } from "../../src/metrics/routes";
import { testService, type TestService } from "../helpers/service";
import { prometheusTextProblems } from "./prometheus-text";

const SECRET = "metrics-secret-for-process-series-0123456789";
let svc: TestService | null = null;
let dataDir: string | null = null;
afterEach(async () => {
  await svc?.cleanup();
  svc = null;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = null;
});

async function scrape(service: TestService): Promise<string> {
  const response = await service.call("/metrics", { headers: { authorization: `Bearer ${SECRET}` } });
  expect(response.status).toBe(200);
  return response.text();
}

/** The value of the one sample of `name` (with exactly `labels`, when given). */
function sampleOf(text: string, name: string, labels = ""): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name}${labels} `));
  if (line === undefined) throw new Error(`no sample ${name}${labels} in:\n${text}`);
  return Number(line.slice(line.lastIndexOf(" ") + 1));
}

/** A service with something in every family the exposition renders. */
async function busyService(): Promise<TestService> {
  dataDir = mkdtempSync(join(tmpdir(), "cfl-metrics-"));
  const service = testService({ METRICS_SECRET: SECRET, DATA_DIR: dataDir });
  const { db } = service.ctx;
  await service.call("/api/stats");
  await service.call("/api/tokens/not-a-mint");
  service.ctx.scheduler.register("sweep", async () => {});
  await service.ctx.scheduler.runNow("sweep");
  const prepared = {
    signature: "5".repeat(88),
    lastValidBlockHeight: 100n,
    wire: new Uint8Array([1, 2, 3]),
    sentFromSlot: 7n,
    computeUnitLimit: 2_000,
    computeUnitPriceMicroLamports: 1_000n,
  };
  immediate(db, () => recordSignedTransaction(db, { job: "payouts", attempt: 0, prepared }, 1_000));
  journalOutcome(db, prepared.signature, { kind: "confirmed", slot: 9n, blockTime: null });
  moneyGate(db, { outflowMaxLamportsPerHour: 1n, outflowMaxLamportsPerDay: 10n }, Date.now(), 5n);
  service.ctx.extraMetrics = [
    () => indexerMetrics({ connected: true, lagSlots: 2, lastSlot: 90, reconnects: 1, accounts: 3, receivedBytes: 9 }),
  ];
  return service;
}

describe("/metrics: the process's own series", () => {
  test("memory, CPU, start time, build and the data volume, under the standard names", async () => {
    svc = await busyService();
    const text = await scrape(svc);
    expect(sampleOf(text, "process_resident_memory_bytes")).toBeGreaterThan(1_000_000);
    const cpuSeconds = sampleOf(text, "process_cpu_seconds_total");
    expect(cpuSeconds).toBeGreaterThan(0);
    // The test runs in the service's process: its own start time is the one reported.
    expect(sampleOf(text, "process_start_time_seconds")).toBe(Math.round(Date.now() / 1000 - process.uptime()));
    expect(sampleOf(text, "build_info", `{revision="unknown",version="${packageJson.version}"}`)).toBe(1);
    const volume = statfsSync(dataDir!);
    expect(sampleOf(text, "data_dir_size_bytes")).toBe(volume.blocks * volume.bsize);
    const freeBytes = sampleOf(text, "data_dir_free_bytes");
    expect(freeBytes).toBeGreaterThan(0);
    expect(freeBytes).toBeLessThanOrEqual(volume.blocks * volume.bsize);
    // CPU time is a counter: a later scrape never reads less.
    expect(sampleOf(await scrape(svc), "process_cpu_seconds_total")).toBeGreaterThanOrEqual(cpuSeconds);
  });

  test("the whole exposition passes the format's checks (what promtool check metrics refuses or lints)", async () => {
    svc = await busyService();
    // Requests are counted once their answer has gone out: scrape until the two above show.
    let text = await scrape(svc);
    while (!text.includes('\nhttp_requests_total{method="GET",route="/api/tokens/:mint"')) {
      await Bun.sleep(10);
      text = await scrape(svc);
    }
    // Every family this service renders is present, so the check covers each of them.
    for (const name of [
      "http_requests_total",
      "http_request_duration_seconds_bucket",
      "job_runs_total",
      "ledger_lamports",
      "custody_incidents_total",
      "chain_transactions_landed_total",
      "indexer_lag_slots",
      "process_cpu_seconds_total",
      "data_dir_free_bytes",
    ])
      expect(text).toContain(`\n${name}`);
    expect(prometheusTextProblems(text)).toEqual([]);
  });
});

describe("the format checker is strict", () => {
  const ok = "# HELP a_total A thing.\n# TYPE a_total counter\na_total 1\n";
  test("accepts a clean exposition", () => {
    expect(prometheusTextProblems(ok)).toEqual([]);
  });
  test.each([
    ["a sample before its TYPE", "# HELP a_total A.\na_total 1\n# TYPE a_total counter\n", "TYPE after its samples"],
    ["a counter not ending in _total", "# HELP a A.\n# TYPE a counter\na 1\n", 'end in "_total"'],
    ["a duplicate series", `${ok}a_total 2\n`, "duplicate series"],
    ["an invalid name", "# HELP 1a A.\n# TYPE 1a gauge\n1a 1\n", "invalid metric name"],
    ["a non-base unit", "# HELP a_milliseconds A.\n# TYPE a_milliseconds gauge\na_milliseconds 1\n", "base units"],
    ["a family split in two", `${ok}# HELP b B.\n# TYPE b gauge\nb 1\na_total{x="1"} 2\n`, "not together"],
    ["a missing HELP", "# TYPE a gauge\na 1\n", "without a HELP"],
    ["a value that is not a number", "# HELP a A.\n# TYPE a gauge\na 12n\n", "not a number"],
  ])("refuses %s", (_what, text, problem) => {
    expect(prometheusTextProblems(text).join("\n")).toContain(problem);
  });
});
