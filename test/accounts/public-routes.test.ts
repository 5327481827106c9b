import { afterEach, describe, expect, test } from "bun:test";
import { testService, type TestService } from "../helpers/service";
import { burnAll, launch, payout, signIn, sweep, T0 } from "../helpers/read-world";

let svc: TestService;
afterEach(async () => svc && (await svc.cleanup()));

const split = (total: bigint, bps: bigint) => ((total - (total * 1000n) / 10_000n) * bps) / 10_000n;

describe("GET /api/idp/:handle", () => {
  test("a handle nobody signed in with shows its own credits, per token, and no payouts", async () => {
    svc = testService();
    const db = svc.ctx.db;
    const a = launch(db, {
      name: "A",
      recipients: [{ handle: "Carol_X", bps: 10_000 }],
      launchedAtMs: T0,
      image: true,
    });
    const b = launch(db, {
      name: "B",
      recipients: [
        { handle: "dave", bps: 4000 },
        { handle: "carol_x", bps: 6000 },
      ],
      launchedAtMs: T0 + 1,
    });
    sweep(db, a.tokenId, 1_000_000n, T0 + 10);
    sweep(db, b.tokenId, 2_000_000n, T0 + 20);
    const { status, body, headers } = await svc.json("/api/idp/carol_x");
    expect(status).toBe(200);
    expect(headers.get("cache-control")).toBe("public, max-age=0, s-maxage=10, stale-while-revalidate=30");
    const fromA = split(1_000_000n, 10_000n);
    const fromB = split(2_000_000n, 6000n);
    expect(body).toEqual({
      handle: "carol_x",
      displayHandle: "Carol_X",
      name: "Carol_X",
      avatarUrl: "",
      followers: 0,
      claimed: false,
      routing: null,
      declined: false,
      creditedLamports: (fromA + fromB).toString(),
      paidLamports: "0",
      burnedLamports: "0",
      balanceLamports: (fromA + fromB).toString(),
      tokens: [
        {
          mint: b.mint,
          name: "B",
          symbol: expect.any(String),
          imageUrl: `ipfs://image-${b.mint}`,
          bps: 6000,
          creditedLamports: fromB.toString(),
        },
        {
          mint: a.mint,
          name: "A",
          symbol: expect.any(String),
          imageUrl: `/api/token-images/${a.mint}`,
          bps: 10_000,
          creditedLamports: fromA.toString(),
        },
      ],
      payouts: [],
      // Paging (hardening): both lists are whole here, so no cursor.
      tokensNextCursor: null,
      payoutsNextCursor: null,
    });
  });

  test("figures follow every new credit, payout and pin at once", async () => {
    svc = testService();
    const db = svc.ctx.db;
    const t = launch(db, { recipients: [{ handle: "fresh", bps: 10_000 }], launchedAtMs: T0 });
    const figures = async () => {
      const { body } = await svc.json("/api/idp/fresh");
      return [body.creditedLamports, body.paidLamports, body.balanceLamports, body.claimed, body.payouts.length];
    };
    expect(await figures()).toEqual(["0", "0", "0", false, 0]);
    sweep(db, t.tokenId, 1000n, T0 + 1);
    expect(await figures()).toEqual(["900", "0", "900", false, 0]);
    signIn(db, "u-fresh", "fresh", T0 + 2);
    expect(await figures()).toEqual(["900", "0", "900", true, 0]);
    payout(db, "u-fresh", 400n, T0 + 3, "sent");
    expect(await figures()).toEqual(["900", "400", "500", true, 1]);
    sweep(db, t.tokenId, 1000n, T0 + 4);
    expect(await figures()).toEqual(["1800", "400", "1400", true, 1]);
  });

  test("case and a leading @ do not matter", async () => {
    svc = testService();
    launch(svc.ctx.db, { recipients: [{ handle: "MiXeD_1", bps: 10_000 }] });
    const plain = await svc.json("/api/idp/mixed_1");
    expect(plain.status).toBe(200);
    for (const form of ["MIXED_1", "@MiXeD_1", "%40mixed_1"]) {
      const r = await svc.json(`/api/idp/${form}`);
      expect(r.status).toBe(200);
      expect(r.body).toEqual(plain.body);
    }
  });

  test("every handle pinned to one id shows the same totals, tokens and payouts (a rename)", async () => {
    svc = testService();
    const db = svc.ctx.db;
    const t1 = launch(db, { name: "One", recipients: [{ handle: "oldname", bps: 10_000 }], launchedAtMs: T0 });
    const t2 = launch(db, {
      name: "Two",
      recipients: [
        { handle: "NewName", bps: 5000 },
        { handle: "other", bps: 5000 },
      ],
      launchedAtMs: T0 + 1,
    });
    sweep(db, t1.tokenId, 10_000_000_000n, T0 + 10); // credited to the handle before any sign-in
    signIn(db, "u-1", "oldname", T0 + 20, { routing: "hold" });
    sweep(db, t2.tokenId, 4_000_000_000n, T0 + 30); // "newname" is not pinned yet: accrues to the handle
    signIn(db, "u-1", "NewName", T0 + 40); // the rename: pins newname to the same id, moving its credits
    sweep(db, t1.tokenId, 1_000_000_000n, T0 + 50);
    const queued = payout(db, "u-1", 1_000_000_000n, T0 + 100, "confirmed");
    const failed = payout(db, "u-1", 2_000_000_000n, T0 + 200, "failed");
    const replaced = payout(db, "u-1", 500_000_000n, T0 + 300, "replaced");

    const credited = split(10_000_000_000n, 10_000n) + split(4_000_000_000n, 5000n) + split(1_000_000_000n, 10_000n);
    const paid = 1_000_000_000n + 500_000_000n; // the failed one is back in the balance; the replacement owes once
    const old = await svc.json("/api/idp/oldname");
    const renamed = await svc.json("/api/idp/@newname");
    expect(old.status).toBe(200);
    expect(renamed.status).toBe(200);
    for (const body of [old.body, renamed.body]) {
      expect(body).toMatchObject({
        claimed: true,
        routing: "hold",
        creditedLamports: credited.toString(),
        paidLamports: paid.toString(),
        burnedLamports: "0",
        balanceLamports: (credited - paid).toString(),
      });
      expect(
        body.tokens.map((t: { mint: string; bps: number; creditedLamports: string }) => [
          t.mint,
          t.bps,
          t.creditedLamports,
        ]),
      ).toEqual([
        [t2.mint, 5000, split(4_000_000_000n, 5000n).toString()],
        [t1.mint, 10_000, (split(10_000_000_000n, 10_000n) + split(1_000_000_000n, 10_000n)).toString()],
      ]);
      // Newest first: the replacement, the replaced one, the failed one, the confirmed one.
      expect(body.payouts.map((p: { status: string }) => p.status)).toEqual([
        "queued",
        "replaced",
        "failed",
        "confirmed",
      ]);
      expect(body.payouts[3]).toMatchObject({
        id: queued.payoutId,
        lamports: "1000000000",
        kind: "claim",
        status: "confirmed",
        createdAt: new Date(T0 + 100).toISOString(),
        confirmedAt: new Date(T0 + 102).toISOString(),
      });
      expect(typeof body.payouts[3].signature).toBe("string");
      expect(body.payouts[0]).toMatchObject({
        status: "queued",
        signature: null,
        confirmedAt: null,
        lamports: "500000000",
      });
      expect(body.payouts[2].id).toBe(failed.payoutId);
      expect(body.payouts[1].id).toBe(replaced.payoutId);
    }
    // Profile fields stay per handle.
    expect(old.body.handle).toBe("oldname");
    expect(renamed.body).toMatchObject({
      handle: "newname",
      displayHandle: "NewName",
      name: "NewName Name",
      followers: 1234,
    });
    // A co-recipient nobody signed in as keeps its own figures.
    const other = await svc.json("/api/idp/other");
    expect(other.body).toMatchObject({
      claimed: false,
      creditedLamports: split(4_000_000_000n, 5000n).toString(),
      payouts: [],
    });
  });

  test("credits routed to burn count as burned, and a public decline shows", async () => {
    svc = testService();
    const db = svc.ctx.db;
    const t = launch(db, { recipients: [{ handle: "burner", bps: 10_000 }], launchedAtMs: T0 });
    signIn(db, "u-b", "burner", T0 + 1, { routing: "burn", declined: true });
    sweep(db, t.tokenId, 1_000_000n, T0 + 10);
    burnAll(db, T0 + 20);
    const { body } = await svc.json("/api/idp/burner");
    const credited = split(1_000_000n, 10_000n);
    expect(body).toMatchObject({
      claimed: true,
      routing: "burn",
      declined: true,
      creditedLamports: credited.toString(),
      burnedLamports: credited.toString(),
      paidLamports: "0",
      balanceLamports: "0",
    });
  });

  test("400 for a handle that is not 1-15 letters, digits or underscores; 404 when no token names it", async () => {
    svc = testService();
    launch(svc.ctx.db, { recipients: [{ handle: "named", bps: 10_000 }] });
    signIn(svc.ctx.db, "u-z", "signedinonly");
    for (const bad of ["a-b", "sixteen_chars_xx", "@@named", "na%20med", "%F0%9F%98%80"]) {
      const r = await svc.json(`/api/idp/${bad}`);
      expect(r.status).toBe(400);
      expect(Object.keys(r.body)).toEqual(["error"]);
      expect(r.headers.get("x-ratelimit-limit")).toBe("120");
    }
    for (const unknown of ["nobody", "signedinonly"]) {
      const r = await svc.json(`/api/idp/${unknown}`);
      expect(r.status).toBe(404);
      expect(Object.keys(r.body)).toEqual(["error"]);
    }
    expect((await svc.json("/api/idp/fifteen_chars_x")).status).toBe(404);
  });
});
