/**
 * `GET /api/me/export.csv`: parsed with a real CSV parser, the statement's rows add up exactly to
 * the account's figures (credits before and after the pin, payouts in every state, burns); it is
 * private, refused signed out, and streamed: 100,000 rows pass through flat memory.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { parse } from "csv-parse/sync";
import { createSession, sessionCookieName } from "../../src/auth/sessions";
import { type CSV_HEADER, csvCell, solDecimal } from "../../src/history/export";
import { testService, type TestService } from "../helpers/service";
import { address, burnAll, launch, payout, signIn, sweep, T0 } from "../helpers/read-world";
import { setRouting } from "../../src/identity/identity";

let svc: TestService;
afterEach(async () => svc && (await svc.cleanup()));

function cookieFor(s: TestService, idpUserId: string): string {
  const { token } = createSession(s.ctx.db, idpUserId, Date.now());
  return `${sessionCookieName(s.ctx.config)}=${token}`;
}

async function exportCsv(s: TestService, cookie: string | null) {
  const response = await s.call("/api/me/export.csv", cookie ? { headers: { cookie } } : {});
  return { response, text: await response.text() };
}

describe("GET /api/me/export.csv", () => {
  test("signed out: 401 with the error envelope, private", async () => {
    svc = testService();
    const { response, text } = await exportCsv(svc, null);
    expect(response.status).toBe(401);
    expect(response.headers.get("cache-control")).toBe("private, no-store");
    expect(Object.keys(JSON.parse(text))).toEqual(["error"]);
    const stale = await exportCsv(svc, `${sessionCookieName(svc.ctx.config)}=not-a-session`);
    expect(stale.response.status).toBe(401);
  });

  test("every credit, payout and burn, one row each, summing exactly to the account's figures", async () => {
    svc = testService();
    const db = svc.ctx.db;
    const a = launch(db, { symbol: "=SUM(A1)", recipients: [{ handle: "carol", bps: 10_000 }], launchedAtMs: T0 });
    const b = launch(db, {
      symbol: 'Q"T,1',
      recipients: [
        { handle: "carol", bps: 6000 },
        { handle: "dan", bps: 4000 },
      ],
      launchedAtMs: T0,
    });
    // Credited to the handle before anyone signed in; moved to the id at the pin.
    sweep(db, a.tokenId, 9_007_199_254_740_993n, T0 + 10);
    sweep(db, b.tokenId, 3_333_333_333n, T0 + 20);
    signIn(db, "u-carol", "carol", T0 + 30, { routing: "hold" });
    // Credited to the id directly.
    sweep(db, a.tokenId, 1_000_000_007n, T0 + 40);
    payout(db, "u-carol", 1_000_000_000n, T0 + 50, "confirmed");
    payout(db, "u-carol", 2_000_000_000n, T0 + 60, "failed");
    payout(db, "u-carol", 3_000_000_001n, T0 + 70, "replaced"); // its replacement stays queued
    setRouting(db, "u-carol", { routing: "burn", payoutWallet: null, declined: false });
    sweep(db, b.tokenId, 50_000_000n, T0 + 80);
    burnAll(db, T0 + 90);
    sweep(db, b.tokenId, 70_000_000n, T0 + 100); // a burn order still pending
    // Someone else's money never shows.
    signIn(db, "u-dan", "dan", T0 + 110);
    payout(db, "u-dan", 1n, T0 + 120, "sent");

    const me = (await svc.json("/api/me", { headers: { cookie: cookieFor(svc, "u-carol") } })).body;
    const { response, text } = await exportCsv(svc, cookieFor(svc, "u-carol"));
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("private, no-store");
    expect(response.headers.get("content-type")).toStartWith("text/csv");
    expect(response.headers.get("content-disposition")).toMatch(
      /^attachment; filename="fee-ledger-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    expect(text.split("\r\n")[0]).toBe("at,type,mint,symbol,lamports,status,signature,wallet,sol");

    const rows = parse(text, { columns: true, skip_empty_lines: true }) as Record<
      (typeof CSV_HEADER)[number],
      string
    >[];
    const sum = (list: typeof rows) => list.reduce((n, r) => n + BigInt(r.lamports), 0n);
    const credits = rows.filter((r) => r.type === "credit");
    const payouts = rows.filter((r) => r.type === "payout");
    const burns = rows.filter((r) => r.type === "burn");
    expect(credits.length).toBe(5); // two before the pin, three after (one per token and sweep)
    expect(payouts.length).toBe(4); // confirmed, failed, replaced and its replacement
    expect(burns.length).toBe(2);
    expect(credits.length + payouts.length + burns.length).toBe(rows.length);

    const paid = sum(payouts.filter((r) => r.status !== "failed" && r.status !== "replaced"));
    expect(sum(credits).toString()).toBe(me.creditedLamports);
    expect(paid.toString()).toBe(me.paidLamports);
    expect(sum(burns).toString()).toBe(me.burnedLamports);
    expect((sum(credits) - paid - sum(burns)).toString()).toBe(me.balanceLamports);

    for (const r of rows) {
      expect(r.lamports).toMatch(/^\d+$/);
      // The SOL column is the same amount exactly: moving the point back gives the lamports.
      const [whole, frac = ""] = r.sol.split(".");
      expect(BigInt(whole!) * 1_000_000_000n + BigInt(frac.padEnd(9, "0"))).toBe(BigInt(r.lamports));
      expect(new Date(r.at).toISOString()).toBe(r.at);
    }
    // Times ascend; the per-sweep credit carries the sweep's signature and the token.
    expect(rows.map((r) => r.at)).toEqual([...rows.map((r) => r.at)].sort());
    expect(credits[0]).toMatchObject({ mint: a.mint, symbol: "'=SUM(A1)", status: "confirmed" });
    expect(credits[0]!.signature).toMatch(/^[1-9A-HJ-NP-Za-z]{64,88}$/);
    expect(credits.some((r) => r.symbol === 'Q"T,1')).toBe(true);
    expect(payouts.every((r) => r.wallet.length >= 32 && r.mint === "")).toBe(true);
    expect(burns.map((r) => r.status).sort()).toEqual(["done", "pending"]);
    expect(rows.some((r) => r.lamports === "1")).toBe(false);
  });

  test("an account with nothing yet gets the header only", async () => {
    svc = testService();
    signIn(svc.ctx.db, "u-new", "newbie", T0);
    const { response, text } = await exportCsv(svc, cookieFor(svc, "u-new"));
    expect(response.status).toBe(200);
    expect(text).toBe("at,type,mint,symbol,lamports,status,signature,wallet,sol\r\n");
  });

  test("cells: RFC 4180 quoting, formulas made inert, exact SOL", () => {
    expect(csvCell('a"b,c')).toBe('"a""b,c"');
    expect(csvCell("line\nbreak")).toBe('"line\nbreak"');
    expect(csvCell("+cmd", true)).toBe("'+cmd");
    expect(csvCell("@x,y", true)).toBe('"\'@x,y"');
    expect(solDecimal(0n)).toBe("0");
    expect(solDecimal(1n)).toBe("0.000000001");
    expect(solDecimal(1_500_000_000n)).toBe("1.5");
    expect(solDecimal(9_223_372_036_854_775_807n)).toBe("9223372036.854775807");
  });

  test("100,000 rows stream through flat memory", async () => {
    svc = testService();
    const db = svc.ctx.db;
    signIn(db, "u-big", "bigaccount", T0);
    // Failed payouts carry no money, so these rows leave the books as they are; the test is about
    // the stream, which reads any row of the account the same way.
    const insert = db.$client.prepare(
      "INSERT INTO payouts (idp_user_id, lamports, wallet, kind, status, signature, created_at_ms) VALUES ('u-big', ?, ?, 'claim', 'failed', ?, ?)",
    );
    const wallet = address();
    db.$client.transaction(() => {
      for (let i = 0; i < 100_000; i++) insert.run(BigInt(1_000_000 + i), wallet, `sig${i}`.padEnd(88, "x"), T0 + i);
    })();
    const cookie = cookieFor(svc, "u-big");
    Bun.gc(true);
    const before = process.memoryUsage().heapUsed;
    const response = await svc.call("/api/me/export.csv", { headers: { cookie } });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const samples: number[] = [];
    let bytes = 0;
    let lines = 0;
    let chunks = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.length;
      for (const byte of value) if (byte === 10) lines++;
      if (++chunks % 20 === 0) {
        Bun.gc(true);
        samples.push(process.memoryUsage().heapUsed - before);
      }
    }
    expect(lines).toBe(100_001);
    expect(bytes).toBeGreaterThan(15_000_000);
    // The whole file held at once would be > 15 MB for every sample, and rows kept as they go would
    // grow by about that much from the first samples to the last; streamed, neither happens. Medians
    // keep other tests' garbage in the same process (the full suite) out of it.
    expect(samples.length).toBeGreaterThan(5);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const third = Math.floor(samples.length / 3);
    expect(median(samples)).toBeLessThan(10_000_000);
    expect(median(samples.slice(-third)) - median(samples.slice(0, third))).toBeLessThan(4_000_000);
  }, 60_000);
});
