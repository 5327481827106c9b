/**
 * Issue 43, finding 3: opening `/api/ledger/stream` costs a feed read, so opens are limited per IP
 * (60 a minute, with the rate-limit headers), and a Last-Event-ID newer than the newest event or
 * older than the replay window is refused with 400 before anything is read; within the window a
 * replay starts from an index.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { isoMicros } from "../../src/ledger";
import { feedStreamRoutes } from "../../src/ledger/stream-routes";
import { launch, T0 } from "../helpers/read-world";
import { testService, type TestService } from "../helpers/service";
import { SseReader } from "./sse";

const services: TestService[] = [];
const readers: SseReader[] = [];
afterEach(async () => {
  for (const r of readers.splice(0)) await r.close();
  for (const s of services.splice(0)) await s.cleanup();
});

function fresh(): TestService {
  const s = testService();
  services.push(s);
  return s;
}

function atUsOf(s: TestService, symbol: string): number {
  const row = s.ctx.db.$client
    .query<{ atUs: bigint }, [string]>(
      "SELECT f.at_us AS atUs FROM feed_events f JOIN tokens t ON t.id = f.ref_id WHERE f.type = 'launch' AND t.symbol = ?",
    )
    .get(symbol);
  return Number(row!.atUs);
}

describe("opening the stream", () => {
  test("60 opens a minute per IP, each answer with the rate-limit headers; the 61st is 429", async () => {
    const s = fresh();
    for (let i = 0; i < 60; i++) {
      const opened = await s.call("/api/ledger/stream", { ip: "198.51.100.80" });
      expect(opened.status).toBe(200);
      expect(opened.headers.get("x-ratelimit-limit")).toBe("60");
      await opened.body!.cancel();
    }
    const over = await s.call("/api/ledger/stream", { ip: "198.51.100.80" });
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Object.keys(await over.json())).toEqual(["error"]);
    const other = await s.call("/api/ledger/stream", { ip: "198.51.100.81" });
    expect(other.status).toBe(200);
    await other.body!.cancel();
  });

  test("a Last-Event-ID newer than the newest event is a 400, also on an empty ledger", async () => {
    const s = fresh();
    const empty = await s.call("/api/ledger/stream", { headers: { "last-event-id": isoMicros(T0 * 1000) } });
    expect(empty.status).toBe(400);
    launch(s.ctx.db, { launchedAtMs: T0, symbol: "N1" });
    const newest = atUsOf(s, "N1");
    for (const id of [isoMicros(newest + 1), "2999-01-01T00:00:00.000000Z"]) {
      const future = await s.call("/api/ledger/stream", { headers: { "last-event-id": id } });
      expect({ id, status: future.status }).toEqual({ id, status: 400 });
      expect(Object.keys(await future.json())).toEqual(["error"]);
    }
    // The newest event's own id is fine: nothing to replay, then live.
    const current = await s.call("/api/ledger/stream", { headers: { "last-event-id": isoMicros(newest) } });
    expect(current.status).toBe(200);
    await current.body!.cancel();
  });

  test("an id older than the replay window is a 400; within it the replay is exact", async () => {
    const s = fresh();
    const app = new Elysia().use(feedStreamRoutes(s.ctx, { replayWindowEvents: 5 }));
    const open = (lastEventId: string) =>
      app.handle(new Request("http://localhost/api/ledger/stream", { headers: { "last-event-id": lastEventId } }));
    for (let i = 0; i < 10; i++) launch(s.ctx.db, { launchedAtMs: T0 + i * 1_000, symbol: `W${i}` });
    // W0..W3 are more than 5 events behind the newest (W9); their ids and any time before W4's are refused.
    for (const id of [isoMicros(atUsOf(s, "W0")), isoMicros(atUsOf(s, "W3")), isoMicros(atUsOf(s, "W4") - 500)]) {
      const refused = await open(id);
      expect({ id, status: refused.status }).toEqual({ id, status: 400 });
      expect((await refused.json()).error).toContain("/api/ledger");
    }
    const resumed = await open(isoMicros(atUsOf(s, "W5")));
    expect(resumed.status).toBe(200);
    const reader = new SseReader(resumed);
    readers.push(reader);
    expect((await reader.events(4)).map((f) => JSON.parse(f.data!).symbol)).toEqual(["W6", "W7", "W8", "W9"]);
    // A time between two events (not an id) replays every event later than it.
    const byTime = await open(isoMicros(atUsOf(s, "W7") - 1));
    const timeReader = new SseReader(byTime);
    readers.push(timeReader);
    expect((await timeReader.events(3)).map((f) => JSON.parse(f.data!).symbol)).toEqual(["W7", "W8", "W9"]);
  });
});
