import { afterEach, describe, expect, test } from "bun:test";
import { Counter, Histogram } from "../../src/lib/metrics";
import { indexerMetrics } from "../../src/metrics/routes";
import { immediate } from "../../db/transaction";
import { journalOutcome, recordSignedTransaction } from "../../src/landing";
import { testService, type TestService } from "../helpers/service";

let svc: TestService;
afterEach(async () => svc && (await svc.cleanup()));

describe("/metrics and request ids", () => {
  test("metrics answer 404 without the secret and Prometheus text with it", async () => {
    svc = testService({ METRICS_SECRET: "metrics-secret-for-tests-0123456789ab" });
    expect((await svc.call("/metrics")).status).toBe(404);
    expect((await svc.call("/metrics", { headers: { authorization: "Bearer wrong" } })).status).toBe(404);
    await svc.call("/api/stats");
    await svc.call("/api/tokens/not-a-mint");
    svc.ctx.scheduler.register("sweep", async () => {});
    await svc.ctx.scheduler.runNow("sweep");
    // Request metrics are recorded after the response has gone out: scraped until they show (bounded).
    const scrape = () =>
      svc.call("/metrics", { headers: { authorization: "Bearer metrics-secret-for-tests-0123456789ab" } });
    let response = await scrape();
    let text = await response.text();
    for (let tries = 0; !text.includes('route="/api/tokens/:mint"') && tries < 200; tries++) {
      await Bun.sleep(10);
      response = await scrape();
      text = await response.text();
    }
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/plain");
    expect(text).toMatch(/http_requests_total\{method="GET",route="\/api\/stats",status="200"\} 1/);
    expect(text).toMatch(/http_requests_total\{method="GET",route="\/api\/tokens\/:mint",status="400"\} 1/);
    expect(text).toContain('job_runs_total{job="sweep",outcome="ok"} 1');
    expect(text).toContain('ledger_lamports{figure="owed"} 0');
    expect(text).toContain('job_seconds_since_ok{job="payouts"} -1');
    // The indexer's lag appears once the process running it registers it.
    svc.ctx.extraMetrics = [() => indexerMetrics({ connected: true, lagSlots: 2, lastSlot: 90, reconnects: 1 })];
    const withIndexer = await (
      await svc.call("/metrics", { headers: { authorization: "Bearer metrics-secret-for-tests-0123456789ab" } })
    ).text();
    expect(withIndexer).toContain("indexer_lag_slots 2");
    expect(withIndexer).toContain("indexer_connected 1");
  });

  test("what landing cost, per job: signed, sends, rebroadcasts, landed, failed, expired, replaced, priority fees", async () => {
    svc = testService({ METRICS_SECRET: "metrics-secret-for-tests-0123456789ab" });
    const db = svc.ctx.db;
    const signed = (signature: string, attempt: number, price: bigint) =>
      immediate(db, () =>
        recordSignedTransaction(
          db,
          {
            job: "payouts",
            attempt,
            prepared: {
              signature,
              lastValidBlockHeight: 100n,
              wire: new Uint8Array([1, 2, 3]),
              sentFromSlot: 7n,
              computeUnitLimit: 2_000,
              computeUnitPriceMicroLamports: price,
            },
          },
          1_000,
        ),
      );
    signed("first", 0, 10_000n);
    signed("second", 1, 15_000n);
    journalOutcome(db, "first", { kind: "expired" });
    journalOutcome(db, "second", { kind: "confirmed", slot: 9n, blockTime: null });
    const text = await (
      await svc.call("/metrics", { headers: { authorization: "Bearer metrics-secret-for-tests-0123456789ab" } })
    ).text();
    expect(text).toContain('chain_transactions_signed_total{job="payouts"} 2');
    expect(text).toContain('chain_transaction_sends_total{job="payouts"} 2');
    expect(text).toContain('chain_transactions_landed_total{job="payouts"} 1');
    expect(text).toContain('chain_transactions_expired_total{job="payouts"} 1');
    expect(text).toContain('chain_transactions_replaced_total{job="payouts"} 1');
    // 15,000 µlamports × 2,000 units: 30 lamports, paid by the one that landed.
    expect(text).toContain('chain_priority_fee_lamports_total{job="payouts"} 30');
    expect(text).toContain("# TYPE chain_priority_fee_lamports_total counter");
  });

  test("every answer carries a request id; a well-formed incoming one is kept, a bad one replaced", async () => {
    svc = testService();
    const a = await svc.call("/api/stats");
    expect(a.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const b = await svc.call("/api/nope", { headers: { "x-request-id": "trace-123" } });
    expect(b.status).toBe(404);
    expect(b.headers.get("x-request-id")).toBe("trace-123");
    const c = await svc.call("/api/stats", { headers: { "x-request-id": "bad id with spaces" } });
    expect(c.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("Prometheus label sets", () => {
  test("names are sorted and only values holding a backslash, a quote or a newline are escaped", () => {
    const counter = new Counter("things_total", "Things.");
    counter.inc({ route: "/api/stats", method: "GET" });
    counter.inc({ method: "GET", route: "/api/stats" });
    counter.inc({ b: 'say "hi"\\now\nthen', a: "plain" }, 2);
    const text = counter.render();
    expect(text).toContain('things_total{method="GET",route="/api/stats"} 2');
    expect(text).toContain('things_total{a="plain",b="say \\"hi\\"\\\\now\\nthen"} 2');
    const histogram = new Histogram("wait_seconds", "Waits.", [0.1, 1]);
    histogram.observe({ route: "/x" }, 0.5);
    expect(histogram.render()).toContain('wait_seconds_bucket{route="/x",le="1"} 1');
    expect(histogram.render()).toContain('wait_seconds_count{route="/x"} 1');
  });
});
