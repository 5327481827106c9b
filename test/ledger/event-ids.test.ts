/**
 * Issue 64 items 2 and 3 through `app.handle`: every ledger event carries its `id` (the cursor that
 * pages past it, the stream's `id:` line), and a payout is followed through events of their own,
 * one per status it reaches, each reading the same however the payout moves on.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { migrate } from "drizzle-orm/bun-sqlite/migrator";
import { closeDatabase, openDatabase } from "../../db/client";
import { feedPage } from "../../src/ledger/feed-queries";
import { isoMicros, parseBefore } from "../../src/ledger/feed-queries";
import { confirmPayouts, markPayoutsSent, queuePayout } from "../../src/payouts";
import { testService, type Json, type TestService } from "../helpers/service";
import { address, burnAll, launch, payout, setPlatformToken, signIn, sweep, T0 } from "../helpers/read-world";
import { SseReader } from "./sse";

const ADMIN_SECRET = "admin-secret-for-tests-0123456789abcdef";
const services: TestService[] = [];
const readers: SseReader[] = [];

afterEach(async () => {
  for (const reader of readers.splice(0)) await reader.close();
  for (const s of services.splice(0)) await s.cleanup();
});

function fresh(env: Record<string, string> = {}): TestService {
  const s = testService({ RATE_LIMIT: "off", ...env });
  services.push(s);
  return s;
}

async function stream(s: TestService): Promise<SseReader> {
  const response = await s.call("/api/ledger/stream");
  expect(response.status).toBe(200);
  const reader = new SseReader(response);
  readers.push(reader);
  return reader;
}

async function page(s: TestService, query: string): Promise<{ events: Json[]; nextBefore: string | null }> {
  const r = await s.json(`/api/ledger?${query}`);
  expect(r.status).toBe(200);
  return r.body;
}

/** Launches, sweeps, burns and payouts in every fate; seven launches share one millisecond. */
function busyLedger(s: TestService) {
  const db = s.ctx.db;
  for (let i = 0; i < 7; i++) launch(db, { launchedAtMs: T0, recipients: [{ handle: "alice", bps: 10_000 }] });
  const a = launch(db, {
    launchedAtMs: T0 + 1,
    recipients: [
      { handle: "alice", bps: 6000 },
      { handle: "bob", bps: 4000 },
    ],
  });
  signIn(db, "u-a", "alice", T0 + 2, { routing: "hold" });
  signIn(db, "u-b", "bob", T0 + 2, { routing: "burn" });
  setPlatformToken(db, a.mint);
  sweep(db, a.tokenId, 1_000_000_000n, T0 + 10, "confirmed", { platformBuybackBps: 5000, platformTokenMint: a.mint });
  burnAll(db, T0 + 20);
  payout(db, "u-a", 1_000_000n, T0 + 30, "confirmed", "autopay");
  payout(db, "u-a", 1_000_000n, T0 + 40, "failed");
  payout(db, "u-a", 1_000_000n, T0 + 50, "replaced");
}

describe("every ledger event carries its id", () => {
  test("on /api/ledger: the id is the cursor that pages past the event, one page or one event at a time", async () => {
    const s = fresh();
    busyLedger(s);
    const whole = await page(s, "limit=100");
    expect(whole.nextBefore).toBeNull();
    expect(whole.events.length).toBeGreaterThan(20);
    const ids = whole.events.map((e: Json) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const event of whole.events) {
      expect(event.id).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      // The id is the event's own microsecond, the same string isoMicros writes for its cursor.
      expect(isoMicros(parseBefore(event.id)!)).toBe(event.id);
      expect(event.id.slice(0, 23)).toBe(event.at.slice(0, 23));
    }
    // Launches sharing a millisecond have distinct ids though `at` is the same.
    const sameMs = whole.events.filter((e: Json) => e.at === new Date(T0).toISOString());
    expect(sameMs).toHaveLength(7);
    expect(new Set(sameMs.map((e: Json) => e.id)).size).toBe(7);

    // One event a page: each page's nextBefore is its event's id, and `before=<id>` resumes exactly after it.
    const walked: Json[] = [];
    for (let before: string | null = null; ; ) {
      const p = await page(s, `limit=1${before ? `&before=${encodeURIComponent(before)}` : ""}`);
      walked.push(...p.events);
      if (p.nextBefore === null) break;
      expect(p.nextBefore).toBe(p.events[0].id);
      before = p.nextBefore;
    }
    expect(walked).toEqual(whole.events);
    for (const [i, event] of whole.events.entries()) {
      const after = await page(s, `limit=1&before=${encodeURIComponent(event.id)}`);
      expect(after.events).toEqual(whole.events.slice(i + 1, i + 2));
    }
  });

  test("on the stream: the data's id is the frame's id line, and the data is the event as /api/ledger serves it", async () => {
    const s = fresh();
    const reader = await stream(s);
    busyLedger(s);
    const whole = await page(s, "limit=100");
    const frames = await reader.events(whole.events.length);
    for (const frame of frames) {
      const data = JSON.parse(frame.data!);
      expect(data.id).toBe(frame.id);
      expect(data.type).toBe(frame.event);
      expect(frame.data).toBe(JSON.stringify(whole.events.find((e: Json) => e.id === frame.id)));
    }
    expect(new Set(frames.map((f) => f.id))).toEqual(new Set(whole.events.map((e: Json) => e.id)));
  });
});

describe("a payout's status changes are events of their own", () => {
  test("queued, sent, confirmed: three events, each reading the same once the payout moved on", async () => {
    const s = fresh();
    const db = s.ctx.db;
    const t = launch(db, { recipients: [{ handle: "alice", bps: 10_000 }] });
    sweep(db, t.tokenId, 50_000_000n, T0 + 1_000);
    signIn(db, "u-alice", "alice");
    const reader = await stream(s);

    const q = payout(db, "u-alice", 20_000_000n, T0 + 2_000, "confirmed");
    const frames = await reader.events(3);
    expect(frames.map((f) => f.event)).toEqual(["payout", "payoutStatus", "payoutStatus"]);
    const [queued, sent, confirmed] = frames.map((f) => JSON.parse(f.data!));
    expect(queued).toEqual({
      type: "payout",
      id: frames[0]!.id,
      at: new Date(T0 + 2_000).toISOString(),
      payoutId: q.payoutId,
      handle: "alice",
      lamports: "20000000",
      kind: "claim",
      status: "queued",
      signature: null,
    });
    const signature = db.$client.query("SELECT signature FROM payouts WHERE id = ?").get(q.payoutId) as {
      signature: string;
    };
    const common = { payoutId: q.payoutId, handle: "alice", lamports: "20000000", kind: "claim" };
    expect(sent).toEqual({
      type: "payoutStatus",
      id: frames[1]!.id,
      at: new Date(T0 + 2_001).toISOString(),
      ...common,
      status: "sent",
      signature: signature.signature,
      replacementPayoutId: null,
    });
    expect(confirmed).toEqual({
      ...sent,
      id: frames[2]!.id,
      at: new Date(T0 + 2_002).toISOString(),
      status: "confirmed",
    });

    // Read again after the payout confirmed (and after a rename): every id reads what it read live.
    signIn(db, "u-alice", "AliceRenamed", T0 + 3_000);
    const feed = await page(s, "limit=100");
    for (const frame of frames) {
      expect(JSON.stringify(feed.events.find((e: Json) => e.id === frame.id))).toBe(frame.data!);
    }
    const resumed = await page(s, `limit=1&before=${encodeURIComponent(frames[1]!.id!)}`);
    expect(JSON.stringify(resumed.events[0])).toBe(frames[0]!.data!);
  });

  test("failed and replaced: the replaced event names the replacement, announced by its own payout event", async () => {
    const s = fresh();
    const db = s.ctx.db;
    const t = launch(db, { recipients: [{ handle: "alice", bps: 10_000 }] });
    sweep(db, t.tokenId, 50_000_000n, T0 + 1_000);
    signIn(db, "u-alice", "alice");
    const reader = await stream(s);
    const failed = payout(db, "u-alice", 1_000_000n, T0 + 2_000, "failed");
    const replaced = payout(db, "u-alice", 1_000_000n, T0 + 3_000, "replaced");
    const frames = (await reader.events(7)).map((f) => JSON.parse(f.data!));
    expect(frames.map((e) => [e.type, e.payoutId, e.status])).toEqual([
      ["payout", failed.payoutId, "queued"],
      ["payoutStatus", failed.payoutId, "sent"],
      ["payoutStatus", failed.payoutId, "failed"],
      ["payout", replaced.payoutId, "queued"],
      ["payoutStatus", replaced.payoutId, "sent"],
      ["payoutStatus", replaced.payoutId, "replaced"],
      ["payout", expect.any(Number), "queued"],
    ]);
    const replacement = frames[6];
    expect(replacement.payoutId).not.toBe(replaced.payoutId);
    expect(frames[5].replacementPayoutId).toBe(replacement.payoutId);
    expect(frames[5].signature).toBe(frames[4].signature);
    expect(frames[2].signature).toBe(frames[1].signature);
    // The replacement owes the same amount and is on the account record under that id.
    expect(replacement.lamports).toBe("1000000");
    const record = await s.json("/api/idp/alice");
    expect(record.body.payouts.find((p: Json) => p.id === replacement.payoutId)).toMatchObject({ status: "queued" });
  });

  test("a payout held for review announces `held`; an operator's approval is a `queued` event, a refusal a `failed` one", async () => {
    const s = fresh({ ADMIN_SECRET, PAYOUT_REVIEW_LAMPORTS: "5000000" });
    const db = s.ctx.db;
    const t = launch(db, {
      recipients: [
        { handle: "alice", bps: 5000 },
        { handle: "bob", bps: 5000 },
      ],
    });
    sweep(db, t.tokenId, 50_000_000n, T0 + 1_000);
    signIn(db, "u-alice", "alice");
    signIn(db, "u-bob", "bob");
    const reader = await stream(s);
    const hold = (idpUserId: string) =>
      queuePayout(db, {
        idpUserId,
        lamports: 10_000_000n,
        wallet: address(),
        kind: "claim",
        minLamports: 1n,
        atMs: Date.now(),
        reviewLamports: 5_000_000n,
      });
    const admin = (path: string, body: unknown) =>
      s.json(path, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_SECRET}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const first = hold("u-alice");
    expect(first.status).toBe("held");
    expect((await admin(`/api/admin/payouts/${first.payoutId}/approve`, { reason: "known recipient" })).status).toBe(
      200,
    );
    const second = hold("u-bob");
    expect((await admin(`/api/admin/payouts/${second.payoutId}/refuse`, { reason: "not ours" })).status).toBe(200);
    const frames = (await reader.events(4)).map((f) => JSON.parse(f.data!));
    expect(frames.map((e) => [e.type, e.payoutId, e.status, e.signature])).toEqual([
      ["payout", first.payoutId, "held", null],
      ["payoutStatus", first.payoutId, "queued", null],
      ["payout", second.payoutId, "held", null],
      ["payoutStatus", second.payoutId, "failed", null],
    ]);
  });

  test("a confirmation whose block time is before the send still comes after it in the feed's order", async () => {
    const s = fresh();
    const db = s.ctx.db;
    const t = launch(db, { recipients: [{ handle: "alice", bps: 10_000 }] });
    sweep(db, t.tokenId, 50_000_000n, T0 + 1_000);
    signIn(db, "u-alice", "alice");
    const q = queuePayout(db, {
      idpUserId: "u-alice",
      lamports: 1_000_000n,
      wallet: address(),
      kind: "claim",
      minLamports: 1n,
      atMs: T0 + 2_700,
    });
    markPayoutsSent(db, {
      payoutIds: [q.payoutId],
      signature: "5".repeat(88),
      lastValidBlockHeight: 10n,
      atMs: T0 + 2_900,
    });
    // Block times are whole seconds: the block holding it says T0 + 2 s, before it was sent.
    confirmPayouts(db, "5".repeat(88), T0 + 2_000);
    const feed = await page(s, "limit=3");
    expect(feed.events.map((e: Json) => [e.type, e.status])).toEqual([
      ["payoutStatus", "confirmed"],
      ["payoutStatus", "sent"],
      ["payout", "queued"],
    ]);
  });
});

describe("the upgrade", () => {
  test("payout events published before it keep reading what they read then", () => {
    const dir = mkdtempSync(join(tmpdir(), "cfl-payout-events-"));
    try {
      // The schema as it was: every migration before the one that adds payout_events.
      const migrations = join(import.meta.dir, "..", "..", "db", "migrations");
      const older = join(dir, "migrations");
      cpSync(migrations, older, { recursive: true });
      const journalPath = join(older, "meta", "_journal.json");
      const journal = JSON.parse(readFileSync(journalPath, "utf8"));
      journal.entries = journal.entries.filter((e: { tag: string }) => e.tag < "0023_payout_events");
      writeFileSync(journalPath, JSON.stringify(journal));
      const path = join(dir, "service.db");
      const client = new Database(path, { create: true, strict: true });
      migrate(drizzle({ client }), { migrationsFolder: older });
      client.exec(`INSERT INTO identities (idp_user_id, handle, display_handle, name, avatar_url, created_at_ms)
                   VALUES ('u-a', 'alice', 'alice', 'Alice', '', 0)`);
      client.exec(`INSERT INTO payouts (id, idp_user_id, lamports, wallet, kind, status, signature, created_at_ms)
                   VALUES (7, 'u-a', 1000000, 'w', 'claim', 'sent', 'sig-7', ${T0})`);
      client.exec(`INSERT INTO feed_events (at_us, type, ref_id) VALUES (${T0 * 1000}, 'payout', 7)`);
      client.exec(`INSERT INTO feed_commits (at_us) VALUES (${T0 * 1000})`);
      client.close();

      const db = openDatabase(path);
      try {
        const before = feedPage(db, null, 10).events;
        expect(before).toEqual([
          {
            type: "payout",
            id: isoMicros(T0 * 1000),
            at: new Date(T0).toISOString(),
            payoutId: 7,
            handle: "alice",
            lamports: "1000000",
            kind: "claim",
            status: "sent",
            signature: "sig-7",
          },
        ]);
        // The payout moves on (its status event is the payouts job's; here only the row changes):
        // the event published before the upgrade still reads what it read then.
        db.$client.query("UPDATE payouts SET status = 'confirmed' WHERE id = 7").run();
        expect(feedPage(db, null, 10).events).toEqual(before);
        expect(() => db.$client.query("UPDATE payout_events SET status = 'queued'").run()).toThrow("append-only");
      } finally {
        closeDatabase(db);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
