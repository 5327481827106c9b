/**
 * GET /api/ledger/stream: Server-Sent Events of the ledger feed, in commit order, resumable with
 * Last-Event-ID (also across a restart), with heartbeats and a per-IP limit on open streams.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { Elysia } from "elysia";
import { testConfig } from "../../src/config";
import { feedStreamRoutes } from "../../src/ledger/stream-routes";
import { buildService } from "../../src/service";
import { testService, type TestService } from "../helpers/service";
import { launch, payout, setHidden, signIn, sweep, T0 } from "../helpers/read-world";
import { SseReader } from "./sse";

const open: { close(): Promise<void> }[] = [];
const services: TestService[] = [];

afterEach(async () => {
  for (const reader of open.splice(0)) await reader.close();
  for (const s of services.splice(0)) await s.cleanup();
});

function fresh(): TestService {
  const s = testService();
  services.push(s);
  return s;
}

async function stream(
  s: { call: TestService["call"] },
  init: RequestInit & { ip?: string } = {},
  query = "",
): Promise<SseReader> {
  const response = await s.call(`/api/ledger/stream${query}`, init);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toStartWith("text/event-stream");
  const reader = new SseReader(response);
  open.push(reader);
  return reader;
}

describe("GET /api/ledger/stream", () => {
  test("sends each new event live, in commit order, as /api/ledger serves it, within a second", async () => {
    const s = fresh();
    const db = s.ctx.db;
    const reader = await stream(s);
    // Times out of order on purpose: a launch carries its block time, so commit order is what counts.
    const started = performance.now();
    const a = launch(db, { launchedAtMs: T0 + 3_000, symbol: "AAA" });
    const b = launch(db, { launchedAtMs: T0 + 1_000, symbol: "BBB" });
    sweep(db, a.tokenId, 7_000_000n, T0 + 5_000);
    const frames = await reader.events(3, 1_000);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(frames.map((f) => f.event)).toEqual(["launch", "launch", "sweep"]);
    expect(frames.slice(0, 2).map((f) => JSON.parse(f.data!).symbol)).toEqual(["AAA", "BBB"]);
    expect(b.tokenId).toBeGreaterThan(a.tokenId);
    expect(await reader.quietFor(200)).toBe(true);

    // Every frame's id pages /api/ledger exactly after its event, and its data is that event.
    for (const frame of frames) {
      const data = JSON.parse(frame.data!);
      expect(data.type).toBe(frame.event!);
      const below = await s.json(`/api/ledger?limit=100&before=${encodeURIComponent(frame.id!)}`);
      const all = await s.json(`/api/ledger?limit=100`);
      const index = all.body.events.findIndex((e: unknown) => JSON.stringify(e) === frame.data);
      expect(index).toBeGreaterThanOrEqual(0);
      expect(below.body.events).toEqual(all.body.events.slice(index + 1));
    }
  });

  test("only events committed after the stream opened; no event twice", async () => {
    const s = fresh();
    launch(s.ctx.db, { launchedAtMs: T0, symbol: "OLD" });
    const reader = await stream(s);
    launch(s.ctx.db, { launchedAtMs: T0 + 10, symbol: "NEW" });
    const [frame] = await reader.events(1);
    expect(JSON.parse(frame!.data!).symbol).toBe("NEW");
    expect(await reader.quietFor(300)).toBe(true);
  });

  test("a payout event carries the handle and status as the feed shows them", async () => {
    const s = fresh();
    const t = launch(s.ctx.db, { recipients: [{ handle: "alice", bps: 10_000 }] });
    sweep(s.ctx.db, t.tokenId, 50_000_000n, T0 + 1_000);
    signIn(s.ctx.db, "u-alice", "alice");
    const reader = await stream(s);
    payout(s.ctx.db, "u-alice", 20_000_000n, T0 + 2_000, "queued");
    const [frame] = await reader.events(1);
    expect(frame!.event).toBe("payout");
    const feed = await s.json("/api/ledger?limit=1");
    expect(frame!.data).toBe(JSON.stringify(feed.body.events[0]));
    expect(JSON.parse(frame!.data!)).toMatchObject({ handle: "alice", lamports: "20000000", status: "queued" });
  });

  test("Last-Event-ID replays what came after, oldest first, then goes live; also as ?lastEventId=", async () => {
    const s = fresh();
    const live = await stream(s);
    const symbols = ["E1", "E2", "E3", "E4"];
    // Descending times: commit order and time order disagree.
    for (const [i, symbol] of symbols.entries()) launch(s.ctx.db, { launchedAtMs: T0 + 10_000 - i * 1_000, symbol });
    const sent = await live.events(4);
    expect(sent.map((f) => JSON.parse(f.data!).symbol)).toEqual(symbols);

    const resumed = await stream(s, { headers: { "last-event-id": sent[1]!.id! } });
    const replayed = await resumed.events(2);
    expect(replayed.map((f) => f.id)).toEqual([sent[2]!.id, sent[3]!.id]);
    expect(replayed.map((f) => f.data)).toEqual([sent[2]!.data, sent[3]!.data]);
    launch(s.ctx.db, { launchedAtMs: T0 - 50_000, symbol: "E5" });
    const [next] = await resumed.events(1);
    expect(JSON.parse(next!.data!).symbol).toBe("E5");
    expect(await resumed.quietFor(200)).toBe(true);

    const byQuery = await stream(s, {}, `?lastEventId=${encodeURIComponent(sent[2]!.id!)}`);
    expect((await byQuery.events(2)).map((f) => JSON.parse(f.data!).symbol)).toEqual(["E4", "E5"]);
  });

  test("resume with Last-Event-ID across a restart of the service", async () => {
    const config = testConfig({ TRUST_PROXY: "x-forwarded-for" });
    const call =
      (svc: ReturnType<typeof buildService>) =>
      (path: string, init: RequestInit = {}) =>
        svc.app.handle(new Request(`http://localhost${path}`, init));
    try {
      const first = buildService(config);
      const reader1 = await stream({ call: call(first) });
      launch(first.ctx.db, { launchedAtMs: T0 + 1, symbol: "R1" });
      launch(first.ctx.db, { launchedAtMs: T0 + 2, symbol: "R2" });
      const seen = await reader1.events(2);
      await reader1.close();
      await first.close();

      // While nobody listens, the (restarted) service goes on writing events.
      const second = buildService(config);
      launch(second.ctx.db, { launchedAtMs: T0 - 5, symbol: "R3" });
      launch(second.ctx.db, { launchedAtMs: T0 + 3, symbol: "R4" });
      const reader2 = await stream({ call: call(second) }, { headers: { "last-event-id": seen[0]!.id! } });
      expect((await reader2.events(3)).map((f) => JSON.parse(f.data!).symbol)).toEqual(["R2", "R3", "R4"]);
      await reader2.close();
      await second.close();
    } finally {
      rmSync(config.dataDir, { recursive: true, force: true });
    }
  });

  test("documented in OpenAPI as text/event-stream with the Last-Event-ID header", async () => {
    const s = fresh();
    const doc = (await s.json("/api/openapi.json")).body;
    const op = doc.paths["/api/ledger/stream"].get;
    expect(Object.keys(op.responses["200"].content)).toEqual(["text/event-stream"]);
    expect(Object.keys(op.responses).sort()).toEqual(["200", "400", "429", "500", "503"]);
    const params = op.parameters.map((p: { in: string; name: string }) => `${p.in}:${p.name}`).sort();
    expect(params).toEqual(["header:last-event-id", "query:lastEventId"]);
  });

  test("a long replay comes in pages without a gap or a repeat", async () => {
    const s = fresh();
    const live = await stream(s);
    launch(s.ctx.db, { launchedAtMs: T0, symbol: "FIRST" });
    const [first] = await live.events(1);
    await live.close();
    const n = 1_100; // more than two replay pages of 500
    s.ctx.db.$client.transaction(() => {
      for (let i = 0; i < n; i++) launch(s.ctx.db, { launchedAtMs: T0 + ((i * 7919) % n) * 1000, symbol: `N${i}` });
    })();
    const resumed = await stream(s, { headers: { "last-event-id": first!.id! } });
    const frames = await resumed.events(n, 20_000);
    expect(frames.map((f) => JSON.parse(f.data!).symbol)).toEqual(Array.from({ length: n }, (_, i) => `N${i}`));
    expect(new Set(frames.map((f) => f.id)).size).toBe(n);
    expect(await resumed.quietFor(200)).toBe(true);
  }, 30_000);

  test("a reader that falls too far behind is cut off (to resume by its last id) and frees its slot", async () => {
    const s = fresh();
    const app = new Elysia().use(feedStreamRoutes(s.ctx, { maxQueuedFrames: 5, maxStreamsPerIp: 1 }));
    const open1 = await app.handle(new Request("http://localhost/api/ledger/stream"));
    expect(open1.status).toBe(200);
    const reader = open1.body!.getReader();
    // Not reading while 20 events are committed.
    for (let i = 0; i < 20; i++) launch(s.ctx.db, { launchedAtMs: T0 + i, symbol: `S${i}` });
    // Read to the end: the stream ends only when the server cuts it off.
    let text = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect((text.match(/^event: launch$/gm) ?? []).length).toBeLessThan(20);
    const again = await app.handle(new Request("http://localhost/api/ledger/stream"));
    expect(again.status).toBe(200);
    await again.body!.cancel();
  });

  test("launches of hidden tokens are left out of a replay, as the feed leaves them out", async () => {
    const s = fresh();
    const live = await stream(s);
    launch(s.ctx.db, { launchedAtMs: T0, symbol: "H0" });
    const [first] = await live.events(1);
    await live.close();
    const hidden = Array.from({ length: 600 }, (_, i) =>
      launch(s.ctx.db, { launchedAtMs: T0 + 1 + i, symbol: `X${i}` }),
    );
    launch(s.ctx.db, { launchedAtMs: T0 + 5_000, symbol: "SHOWN" });
    for (const h of hidden) setHidden(s.ctx.db, h.mint);
    // More than a replay page of hidden launches, then one that is shown.
    const resumed = await stream(s, { headers: { "last-event-id": first!.id! } });
    const [next] = await resumed.events(1, 3_000);
    expect(JSON.parse(next!.data!).symbol).toBe("SHOWN");
    expect(await resumed.quietFor(200)).toBe(true);
  }, 20_000);

  test("a malformed Last-Event-ID is a 400 with the error envelope", async () => {
    const s = fresh();
    const response = await s.call("/api/ledger/stream", { headers: { "last-event-id": "yesterday" } });
    expect(response.status).toBe(400);
    expect(Object.keys(await response.json())).toEqual(["error"]);
  });

  test("a comment heartbeat at the configured interval", async () => {
    const s = fresh();
    const app = new Elysia().use(feedStreamRoutes(s.ctx, { heartbeatMs: 100 }));
    const response = await app.handle(new Request("http://localhost/api/ledger/stream"));
    const reader = new SseReader(response);
    open.push(reader);
    const started = performance.now();
    const beat = await reader.next((f) => f.comment === "heartbeat", 2_000);
    expect(beat.comment).toBe("heartbeat");
    await reader.next((f) => f.comment === "heartbeat", 2_000);
    // Two beats take about two intervals: neither a flood nor a missing timer.
    expect(performance.now() - started).toBeGreaterThanOrEqual(150);
  });

  test("at most 5 open streams per IP; 429 beyond; a closed stream frees its slot", async () => {
    const s = fresh();
    const readers: SseReader[] = [];
    for (let i = 0; i < 5; i++) readers.push(await stream(s, { ip: "198.51.100.1" }));
    const refused = await s.call("/api/ledger/stream", { ip: "198.51.100.1" });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBeTruthy();
    expect(Object.keys(await refused.json())).toEqual(["error"]);
    // Another client is not affected.
    await stream(s, { ip: "198.51.100.2" });
    await readers[0]!.close();
    // The slot is freed once the server has seen the cancel: asked again until it has (bounded).
    let reopened = await s.call("/api/ledger/stream", { ip: "198.51.100.1" });
    for (let tries = 0; reopened.status === 429 && tries < 400; tries++) {
      await Bun.sleep(5);
      reopened = await s.call("/api/ledger/stream", { ip: "198.51.100.1" });
    }
    expect(reopened.status).toBe(200);
    open.push(new SseReader(reopened));
    // All five still receive events.
    launch(s.ctx.db, { launchedAtMs: T0, symbol: "ALL" });
    for (const r of readers.slice(1)) expect(JSON.parse((await r.events(1))[0]!.data!).symbol).toBe("ALL");
  });

  test("HEAD answers the stream's headers at once and takes no stream slot", async () => {
    const s = fresh();
    for (let i = 0; i < 6; i++) {
      const head = await s.call("/api/ledger/stream", { method: "HEAD", ip: "198.51.100.3" });
      expect(head.status).toBe(200);
      expect(head.headers.get("content-type")).toStartWith("text/event-stream");
      expect(await head.text()).toBe("");
    }
    // Five real streams still fit for that client: the HEADs held none.
    for (let i = 0; i < 5; i++) await stream(s, { ip: "198.51.100.3" });
  });
});
