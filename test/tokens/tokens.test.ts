import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { testService, type TestService, type Json } from "../helpers/service";
import { address, fakeChain, launch, setHidden, setMarket, setVault, signIn, sweep, T0 } from "../helpers/read-world";

let svc: TestService;
afterEach(async () => svc && (await svc.cleanup()));

const PUBLIC_READ = "public, max-age=0, s-maxage=10, stale-while-revalidate=30";
const mints = (body: { tokens: { mint: string }[] }) => body.tokens.map((t) => t.mint);

async function pageAll(path: string, sortParam: string, limit = 2): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes("?") ? "&" : "?";
    const url: string = `${path}${sep}${sortParam}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const { status, body }: { status: number; body: Json } = await svc.json(url);
    expect(status).toBe(200);
    seen.push(...mints(body));
    cursor = body.nextCursor;
  } while (cursor);
  return seen;
}

describe("GET /api/tokens", () => {
  test("an empty deployment answers an empty page, not an error", async () => {
    svc = testService();
    const { status, body, headers } = await svc.json("/api/tokens");
    expect(status).toBe(200);
    expect(body).toEqual({ tokens: [], nextCursor: null });
    expect(headers.get("cache-control")).toBe(PUBLIC_READ);
  });

  test("a token carries every SPEC field, money as decimal strings and unknowns as null", async () => {
    svc = testService();
    const db = svc.ctx.db;
    const a = launch(db, {
      name: "Pepe Moon",
      symbol: "PEPE",
      image: true,
      recipients: [
        { handle: "Alice", bps: 7000 },
        { handle: "bob_2", bps: 3000 },
      ],
      launchedAtMs: T0,
    });
    signIn(db, "u-alice", "Alice", T0 + 10, { routing: "burn", declined: true });
    sweep(db, a.tokenId, 9_007_199_254_740_993n, T0 + 1000);
    setVault(db, a.mint, 5n, T0 + 2000);
    const { body } = await svc.json("/api/tokens");
    expect(body.nextCursor).toBeNull();
    const token = body.tokens[0];
    expect(Object.keys(token).sort()).toEqual(
      [
        "mint",
        "name",
        "symbol",
        "imageUrl",
        "creator",
        "deployer",
        "launchedAt",
        "recipients",
        "platformBps",
        "sweptLamports",
        "vaultLamports",
        "vaultCheckedAt",
        "bonded",
        "marketCapUsd",
        "volume24hUsd",
        "lastSweptAt",
        "feeSharing",
      ].sort(),
    );
    expect(token).toMatchObject({
      mint: a.mint,
      name: "Pepe Moon",
      symbol: "PEPE",
      imageUrl: `/api/token-images/${a.mint}`,
      creator: a.creator,
      launchedAt: new Date(T0).toISOString(),
      platformBps: 1000,
      sweptLamports: "9007199254740993",
      vaultLamports: "5",
      vaultCheckedAt: new Date(T0 + 2000).toISOString(),
      bonded: false,
      marketCapUsd: null,
      volume24hUsd: null,
      lastSweptAt: new Date(T0 + 1000).toISOString(),
      feeSharing: null,
    });
    // platform 10%: 900719925474099; recipients' part 8106479329266894: alice 70%, bob 30% (floors)
    const part = 9_007_199_254_740_993n - 900_719_925_474_099n;
    expect(token.recipients).toEqual([
      {
        handle: "alice",
        displayHandle: "Alice",
        bps: 7000,
        name: "Alice Name",
        avatarUrl: "https://a.example/Alice",
        claimed: true,
        routing: "burn",
        declined: true,
        creditedLamports: ((part * 7000n) / 10000n).toString(),
      },
      {
        handle: "bob_2",
        displayHandle: "bob_2",
        bps: 3000,
        name: "bob_2",
        avatarUrl: "",
        claimed: false,
        routing: null,
        declined: false,
        creditedLamports: ((part * 3000n) / 10000n).toString(),
      },
    ]);
  });

  test("recipient credits follow every confirmed sweep, in the list and the detail", async () => {
    svc = testService();
    const db = svc.ctx.db;
    const a = launch(db, { recipients: [{ handle: "solo", bps: 10_000 }], launchedAtMs: T0 });
    const credited = async () => [
      (await svc.json("/api/tokens")).body.tokens[0].recipients[0].creditedLamports,
      (await svc.json(`/api/tokens/${a.mint}`)).body.recipients[0].creditedLamports,
    ];
    expect(await credited()).toEqual(["0", "0"]);
    sweep(db, a.tokenId, 1000n, T0 + 1);
    expect(await credited()).toEqual(["900", "900"]);
    sweep(db, a.tokenId, 1000n, T0 + 2, "failed");
    sweep(db, a.tokenId, 2000n, T0 + 3);
    expect(await credited()).toEqual(["2700", "2700"]);
  });

  test("a write by another connection (the admin CLI, a restore) shows on the next read", async () => {
    svc = testService();
    const a = launch(svc.ctx.db, { name: "Before", launchedAtMs: T0 });
    expect((await svc.json("/api/tokens")).body.tokens[0].name).toBe("Before");
    expect((await svc.json(`/api/tokens/${a.mint}`)).body.name).toBe("Before");
    const other = new Database(svc.ctx.config.databasePath);
    other.exec("PRAGMA busy_timeout = 5000");
    other.query("UPDATE tokens SET name = 'After' WHERE mint = ?").run(a.mint);
    other.close();
    expect((await svc.json("/api/tokens")).body.tokens[0].name).toBe("After");
    expect((await svc.json(`/api/tokens/${a.mint}`)).body.name).toBe("After");
  });

  test("without a stored preview the image is the launch's IPFS address", async () => {
    svc = testService();
    const a = launch(svc.ctx.db, { image: false });
    expect((await svc.json("/api/tokens")).body.tokens[0].imageUrl).toBe(`ipfs://image-${a.mint}`);
  });

  test("sort=new is newest launch first; hidden tokens are left out", async () => {
    svc = testService();
    const db = svc.ctx.db;
    const old = launch(db, { launchedAtMs: T0 });
    const mid = launch(db, { launchedAtMs: T0 + 1000 });
    const hidden = launch(db, { launchedAtMs: T0 + 1500 });
    const recent = launch(db, { launchedAtMs: T0 + 2000 });
    setHidden(db, hidden.mint);
    expect(mints((await svc.json("/api/tokens")).body)).toEqual([recent.mint, mid.mint, old.mint]);
    expect(mints((await svc.json("/api/tokens?sort=new")).body)).toEqual([recent.mint, mid.mint, old.mint]);
  });

  test("sort=fees ranks by swept plus vault, so unswept fees count", async () => {
    svc = testService();
    const db = svc.ctx.db;
    const swept = launch(db, { launchedAtMs: T0 });
    const vaultOnly = launch(db, { launchedAtMs: T0 + 1 });
    const both = launch(db, { launchedAtMs: T0 + 2 });
    const nothing = launch(db, { launchedAtMs: T0 + 3 });
    sweep(db, swept.tokenId, 300n, T0 + 10);
    setVault(db, vaultOnly.mint, 400n, T0 + 10);
    sweep(db, both.tokenId, 200n, T0 + 10);
    setVault(db, both.mint, 150n, T0 + 11);
    expect(mints((await svc.json("/api/tokens?sort=fees")).body)).toEqual([
      vaultOnly.mint,
      both.mint,
      swept.mint,
      nothing.mint,
    ]);
  });

  test("sort=mcap is descending with unknown caps last, those by fees then mint, through every page", async () => {
    svc = testService();
    const db = svc.ctx.db;
    // Mints in launch order, so the order by mint alone (as unknown caps once came) is another one.
    const tokens = Array.from({ length: 9 }, (_, i) =>
      launch(db, { launchedAtMs: T0 + i, mint: `Mint${i}111111111111111111111111111111111` }),
    );
    setMarket(db, tokens[0]!.mint, 1000.5, 12);
    setMarket(db, tokens[1]!.mint, 90_000);
    setMarket(db, tokens[2]!.mint, 1000.5);
    setMarket(db, tokens[3]!.mint, 5);
    // Without a cap (issue 65): most fees first (swept plus vault), equal fees by mint, no fees last.
    setVault(db, tokens[4]!.mint, 700n, T0);
    sweep(db, tokens[5]!.tokenId, 9_000n, T0);
    setVault(db, tokens[6]!.mint, 300n, T0);
    setVault(db, tokens[7]!.mint, 300n, T0);
    const byMintDesc = (a: string, b: string) => (a < b ? 1 : a > b ? -1 : 0);
    const tied = [tokens[6]!.mint, tokens[7]!.mint].sort(byMintDesc);
    const { body } = await svc.json("/api/tokens?sort=mcap");
    const caps = body.tokens.map((t: { marketCapUsd: number | null }) => t.marketCapUsd);
    expect(caps).toEqual([90_000, 1000.5, 1000.5, 5, null, null, null, null, null]);
    expect(mints(body).slice(4)).toEqual([tokens[5]!.mint, tokens[4]!.mint, ...tied, tokens[8]!.mint]);
    expect(
      body.tokens[caps.indexOf(1000.5)].volume24hUsd === 12 ||
        body.tokens[caps.indexOf(1000.5) + 1].volume24hUsd === 12,
    ).toBe(true);
    // Paging two at a time crosses from known to unknown caps without a skip or a repeat.
    expect(await pageAll("/api/tokens", "sort=mcap")).toEqual(mints(body));
  });

  test("limit defaults to 24, accepts 1 to 60, and pages with nextCursor to the end", async () => {
    svc = testService();
    const db = svc.ctx.db;
    for (let i = 0; i < 61; i++) launch(db, { launchedAtMs: T0 + (i % 5) }); // shared times: mint breaks ties
    const first = await svc.json("/api/tokens");
    expect(first.body.tokens).toHaveLength(24);
    expect(typeof first.body.nextCursor).toBe("string");
    expect((await svc.json("/api/tokens?limit=60")).body.tokens).toHaveLength(60);
    expect((await svc.json("/api/tokens?limit=1")).body.tokens).toHaveLength(1);
    for (const sort of ["new", "fees", "mcap"]) {
      const all = await pageAll("/api/tokens", `sort=${sort}`);
      expect(all).toHaveLength(61);
      expect(new Set(all).size).toBe(61);
    }
  });

  test.each(["0", "61", "-1", "abc", "1.5", ""])("limit=%p is 400 with the error envelope only", async (limit) => {
    svc = testService();
    const { status, body, headers } = await svc.json(`/api/tokens?limit=${limit}`);
    expect(status).toBe(400);
    expect(Object.keys(body)).toEqual(["error"]);
    expect(headers.get("x-ratelimit-limit")).toBe("120");
  });

  test("an unknown sort and a q over 64 characters are 400", async () => {
    svc = testService();
    expect((await svc.json("/api/tokens?sort=old")).status).toBe(400);
    expect((await svc.json(`/api/tokens?q=${"a".repeat(65)}`)).status).toBe(400);
    expect((await svc.json(`/api/tokens?q=${"a".repeat(64)}`)).status).toBe(200);
  });

  test("a search with control characters is a 400 with the envelope, not a server error", async () => {
    svc = testService();
    for (const q of ["%00%00%00", "abc%00def", "ab%0Acd", "%7F%7F%7F"]) {
      const { status, body } = await svc.json(`/api/tokens?q=${q}`);
      expect(status).toBe(400);
      expect(body).toEqual({ error: "The search must not contain control characters." });
    }
    expect((await svc.json("/api/tokens?q=%20abc%20")).status).toBe(200);
  });

  test("a cursor is valid only with its own sort and only as issued", async () => {
    svc = testService();
    for (let i = 0; i < 5; i++) launch(svc.ctx.db, { launchedAtMs: T0 + i });
    const cursor: string = (await svc.json("/api/tokens?limit=2")).body.nextCursor;
    expect((await svc.json(`/api/tokens?limit=2&cursor=${encodeURIComponent(cursor)}`)).status).toBe(200);
    for (const sort of ["fees", "mcap"]) {
      const wrongSort = await svc.json(`/api/tokens?sort=${sort}&cursor=${encodeURIComponent(cursor)}`);
      expect(wrongSort.status).toBe(400);
      expect(Object.keys(wrongSort.body)).toEqual(["error"]);
    }
    // A flipped character in the payload or the signature, a made-up cursor, and one of another deployment.
    const [payload, sig] = cursor.split(".") as [string, string];
    const flip = (s: string) => (s[0] === "A" ? "B" : "A") + s.slice(1);
    for (const bad of [
      `${flip(payload)}.${sig}`,
      `${payload}.${flip(sig)}`,
      "nonsense",
      `${Buffer.from('["new",1,"x"]').toString("base64url")}.AAAA`,
    ]) {
      expect((await svc.json(`/api/tokens?cursor=${encodeURIComponent(bad)}`)).status).toBe(400);
    }
    const other = testService();
    try {
      for (let i = 0; i < 3; i++) launch(other.ctx.db, { launchedAtMs: T0 + i });
      const foreign: string = (await other.json("/api/tokens?limit=1")).body.nextCursor;
      expect((await svc.json(`/api/tokens?limit=1&cursor=${encodeURIComponent(foreign)}`)).status).toBe(400);
    } finally {
      await other.cleanup();
    }
  });

  test("the cursor key comes from the master secret when one is set", async () => {
    const secret = "a-master-secret-of-at-least-32-characters!";
    svc = testService({ MASTER_SECRET: secret });
    const other = testService({ MASTER_SECRET: secret });
    try {
      for (const s of [svc, other])
        for (let i = 0; i < 3; i++)
          launch(s.ctx.db, { launchedAtMs: T0 + i, mint: `Mint${i}111111111111111111111111111111111` });
      const cursor: string = (await svc.json("/api/tokens?limit=1")).body.nextCursor;
      // Same secret, same data: the other instance accepts it and pages on identically.
      const here = await svc.json(`/api/tokens?limit=1&cursor=${encodeURIComponent(cursor)}`);
      const there = await other.json(`/api/tokens?limit=1&cursor=${encodeURIComponent(cursor)}`);
      expect(there.status).toBe(200);
      expect(mints(there.body)).toEqual(mints(here.body));
    } finally {
      await other.cleanup();
    }
  });

  describe("q", () => {
    test("matches an exact mint or creator, a name or ticker substring, or a handle with or without @", async () => {
      svc = testService();
      const db = svc.ctx.db;
      const pepe = launch(db, {
        name: "Pepe Moon",
        symbol: "PPM",
        recipients: [{ handle: "Frog_King", bps: 10_000 }],
        launchedAtMs: T0,
      });
      const doge = launch(db, {
        name: "Doge Rocket",
        symbol: "DOGR",
        recipients: [{ handle: "shiba", bps: 10_000 }],
        launchedAtMs: T0 + 1,
      });
      const cat = launch(db, { name: "Cat", symbol: "MEOW", launchedAtMs: T0 + 2 });
      const q = async (value: string) => mints((await svc.json(`/api/tokens?q=${encodeURIComponent(value)}`)).body);
      expect(await q(pepe.mint)).toEqual([pepe.mint]);
      expect(await q(doge.creator)).toEqual([doge.mint]);
      expect(await q("epe mo")).toEqual([pepe.mint]); // substring across a space, any case
      expect(await q("ROCK")).toEqual([doge.mint]);
      expect(await q("meo")).toEqual([cat.mint]); // ticker
      expect(await q("og")).toEqual([doge.mint]); // two characters
      expect(await q("frog_king")).toEqual([pepe.mint]);
      expect(await q("@Frog_King")).toEqual([pepe.mint]);
      expect(await q("@shiba")).toEqual([doge.mint]);
      expect(await q("zzzz")).toEqual([]);
      // A lowercased mint is another address: no exact match.
      expect(await q(pepe.mint.toLowerCase())).toEqual([]);
    });

    test("a ticker typed as the page shows it ($CMT) and the start of a mint find the token", async () => {
      svc = testService();
      const db = svc.ctx.db;
      const comet = launch(db, { name: "Comet", symbol: "CMT", launchedAtMs: T0 });
      const other = launch(db, { name: "Other", symbol: "OTH", launchedAtMs: T0 + 1 });
      const q = async (value: string) => mints((await svc.json(`/api/tokens?q=${encodeURIComponent(value)}`)).body);
      expect(await q("$CMT")).toEqual([comet.mint]);
      expect(await q("$cmt")).toEqual([comet.mint]);
      expect(await q("CMT")).toEqual([comet.mint]);
      for (const length of [4, 8, 20, comet.mint.length - 1])
        expect(await q(comet.mint.slice(0, length))).toEqual([comet.mint]);
      expect(await q(other.mint.slice(0, 6))).toEqual([other.mint]);
      // A prefix is case-sensitive like the address itself, and a lone "$" matches nothing special.
      const flipped = comet.mint.slice(0, 6).replace(/[a-z]/g, (c) => c.toUpperCase());
      if (flipped !== comet.mint.slice(0, 6) && !other.mint.startsWith(flipped))
        expect(await q(flipped)).not.toContain(comet.mint);
      expect((await svc.json("/api/tokens?q=%24")).status).toBe(200);
    });

    test("a word matching thousands of tokens pages in order like a rare one", async () => {
      svc = testService({ RATE_LIMIT: "off" });
      const db = svc.ctx.db;
      db.$client.transaction(() => {
        for (let i = 0; i < 2100; i++) launch(db, { name: `Common ${i}`, launchedAtMs: T0 + (i % 97) });
      })();
      const rare = launch(db, {
        name: "Rare Commonality",
        recipients: [{ handle: "rarest", bps: 10_000 }],
        launchedAtMs: T0 - 1,
      });
      for (const sort of ["new", "fees", "mcap"]) {
        const all = await pageAll("/api/tokens?q=common", `sort=${sort}`, 60);
        expect(all).toHaveLength(2101);
        expect(new Set(all).size).toBe(2101);
      }
      const newest = (await svc.json("/api/tokens?q=COMMON&limit=60")).body.tokens.map(
        (t: { launchedAt: string }) => t.launchedAt,
      );
      expect([...newest].sort().reverse()).toEqual(newest);
      expect(mints((await svc.json("/api/tokens?q=@rarest")).body)).toEqual([rare.mint]);
      expect(mints((await svc.json("/api/tokens?q=commonality")).body)).toEqual([rare.mint]);
    }, 60_000);

    test("a search pages with its cursor and leaves hidden tokens out", async () => {
      svc = testService();
      const db = svc.ctx.db;
      const found = Array.from({ length: 5 }, (_, i) => launch(db, { name: `Laser Eyes ${i}`, launchedAtMs: T0 + i }));
      launch(db, { name: "Other", launchedAtMs: T0 + 10 });
      setHidden(db, found[2]!.mint);
      const all = await pageAll("/api/tokens?q=laser", "sort=new");
      expect(all).toEqual([found[4]!.mint, found[3]!.mint, found[1]!.mint, found[0]!.mint]);
    });
  });
});

describe("GET /api/tokens/:mint", () => {
  test("answers every Token and detail field, hidden tokens too, with 25 newest sweeps in every state", async () => {
    svc = testService();
    const db = svc.ctx.db;
    const a = launch(db, { image: true, launchedAtMs: T0 });
    const sweeps = [];
    for (let i = 0; i < 27; i++)
      sweeps.push(
        sweep(
          db,
          a.tokenId,
          BigInt(1000 + i),
          T0 + 1000 * (i + 1),
          i === 26 ? "sent" : i === 25 ? "failed" : "confirmed",
        ),
      );
    setHidden(db, a.mint);
    setVault(db, a.mint, 77n, Date.now());
    const { status, body, headers } = await svc.json(`/api/tokens/${a.mint}`);
    expect(status).toBe(200);
    expect(headers.get("cache-control")).toBe(PUBLIC_READ);
    expect(body).toMatchObject({
      mint: a.mint,
      description: "a test token",
      website: null,
      twitter: "https://x.com/alice",
      telegram: null,
      metadataUri: `ipfs://meta-${a.mint}`,
      vaultLamports: "77",
    });
    for (const k of ["launchSignature", "creatorVault", "deployer", "creator"]) expect(typeof body[k]).toBe("string");
    expect(body.sweeps).toHaveLength(25);
    expect(body.sweeps.map((s: { id: number }) => s.id)).toEqual(
      sweeps
        .slice(2)
        .reverse()
        .map((s) => s.sweepId),
    );
    const [sent, failed, confirmed] = body.sweeps;
    expect(sent).toMatchObject({
      status: "sent",
      totalLamports: "0",
      platformLamports: "0",
      confirmedAt: null,
      mint: a.mint,
      symbol: body.symbol,
    });
    expect(failed).toMatchObject({ status: "failed", totalLamports: "0", platformLamports: "0", confirmedAt: null });
    expect(confirmed).toMatchObject({
      status: "confirmed",
      totalLamports: "1024",
      platformLamports: "102",
      confirmedAt: new Date(T0 + 25_000).toISOString(),
    });
    expect(typeof sent.signature).toBe("string");
    expect(sent.createdAt).toBe(new Date(T0 + 27_000 - 1000).toISOString());
    expect(body.sweptLamports).toBe(String(Array.from({ length: 25 }, (_, i) => 1000 + i).reduce((x, y) => x + y, 0)));
  });

  test("a lowercased mint is another address (404); a non-base58 one is 400; an unknown one 404", async () => {
    svc = testService();
    const a = launch(svc.ctx.db, { mint: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin" });
    expect((await svc.json(`/api/tokens/${a.mint}`)).status).toBe(200);
    const lower = await svc.json(`/api/tokens/${a.mint.toLowerCase()}`);
    expect(lower.status).toBe(404);
    expect(Object.keys(lower.body)).toEqual(["error"]);
    expect((await svc.json(`/api/tokens/${address()}`)).status).toBe(404);
    for (const bad of ["not-a-mint", "0OOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOO", "abc", "I".repeat(45)]) {
      const r = await svc.json(`/api/tokens/${bad}`);
      expect(r.status).toBe(400);
      expect(r.headers.get("x-ratelimit-limit")).toBe("60");
    }
  });

  test("a reading older than a minute is refreshed through the chain before answering", async () => {
    let now = T0 + 3_600_000;
    const chain = fakeChain({
      readVaults: async (mints) =>
        mints.map((mint) => ({ mint, curveLamports: 100n, poolLamports: 20n, creatorLamports: 3n, bonded: true })),
    });
    svc = testService({}, { now: () => now, chain });
    const a = launch(svc.ctx.db, { launchedAtMs: T0 });
    setVault(svc.ctx.db, a.mint, 5n, now - 30_000);
    // Fresh enough: no chain call.
    expect((await svc.json(`/api/tokens/${a.mint}`)).body.vaultLamports).toBe("5");
    expect(chain.calls.readVaults).toBe(0);
    now += 31_000;
    const { body } = await svc.json(`/api/tokens/${a.mint}`);
    expect(chain.calls.readVaults).toBe(1);
    expect(body).toMatchObject({ vaultLamports: "123", vaultCheckedAt: new Date(now).toISOString(), bonded: true });
    // The list shows the stored reading too.
    expect((await svc.json("/api/tokens?sort=fees")).body.tokens[0].vaultLamports).toBe("123");
  });

  test("a slow node does not hold the answer: the stored reading comes back within a few seconds", async () => {
    const chain = fakeChain({ readVaults: () => new Promise(() => {}) });
    svc = testService({}, { chain });
    const a = launch(svc.ctx.db, { launchedAtMs: T0 });
    setVault(svc.ctx.db, a.mint, 42n, T0);
    const started = performance.now();
    const { status, body } = await svc.json(`/api/tokens/${a.mint}`);
    const waitedMs = performance.now() - started;
    expect(status).toBe(200);
    expect(body.vaultLamports).toBe("42");
    expect(body.vaultCheckedAt).toBe(new Date(T0).toISOString());
    expect(waitedMs).toBeLessThan(5_000);
    expect(waitedMs).toBeGreaterThan(1_000);
  });

  test("a failing node also leaves the stored reading in place", async () => {
    const chain = fakeChain({
      readVaults: async () => {
        throw new Error("connect ECONNREFUSED http://rpc.example/?key=1");
      },
    });
    svc = testService({}, { chain });
    const a = launch(svc.ctx.db, { launchedAtMs: T0 });
    setVault(svc.ctx.db, a.mint, 42n, T0);
    const { status, body } = await svc.json(`/api/tokens/${a.mint}`);
    expect(status).toBe(200);
    expect(body.vaultLamports).toBe("42");
  });
});

describe("GET /api/token-images/:mint", () => {
  test("serves the stored WebP with a one-year immutable cache; 404 when none; 400 when not an address", async () => {
    svc = testService();
    const withImage = launch(svc.ctx.db, { image: true });
    const without = launch(svc.ctx.db, { image: false });
    const ok = await svc.call(`/api/token-images/${withImage.mint}`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toBe("image/webp");
    expect(ok.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(ok.headers.get("x-ratelimit-limit")).toBe("600");
    expect(new TextDecoder().decode((await ok.arrayBuffer()).slice(8, 12))).toBe("WEBP");
    const missing = await svc.json(`/api/token-images/${without.mint}`);
    expect(missing.status).toBe(404);
    expect(Object.keys(missing.body)).toEqual(["error"]);
    expect(missing.headers.get("cache-control")).not.toContain("immutable");
    expect((await svc.json(`/api/token-images/${address()}`)).status).toBe(404);
    expect((await svc.json("/api/token-images/%20nope")).status).toBe(400);
  });
});
