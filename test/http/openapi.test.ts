/**
 * `/api/openapi.json` is a valid OpenAPI 3.1 document (checked by a real validator), describes
 * exactly the public reads, and every public read's actual answers on a seeded history validate
 * against it (success and error bodies alike).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { seedDatabase } from "../../scripts/seed";
import { documentChecker } from "../helpers/openapi";
import { testService, type TestService, type Json } from "../helpers/service";
import { fakeChain } from "../helpers/read-world";

let svc: TestService;
let doc: Json;
let samples: ReturnType<typeof seedDatabase>["samples"];

beforeAll(async () => {
  svc = testService({ RATE_LIMIT: "off" }, { chain: fakeChain({ treasuryLamports: 123_456_789n }) });
  samples = seedDatabase(svc.ctx.db, { tokens: 120, seed: 11 }).samples;
  doc = (await svc.json("/api/openapi.json")).body;
}, 60_000);
afterAll(async () => svc && (await svc.cleanup()));

async function expectConforms(url: string, docPath: string, status = 200): Promise<Json> {
  const { status: got, body } = await svc.json(url);
  expect(got).toBe(status);
  documentChecker(doc).assertBody(docPath, "GET", status, body, url);
  return body;
}

describe("GET /api/openapi.json", () => {
  test("is a valid OpenAPI 3.1 document", async () => {
    const result = await new Validator().validate(doc);
    if (!result.valid) throw new Error(JSON.stringify(result.errors).slice(0, 2000));
    expect(result.valid).toBe(true);
    expect(doc.openapi).toStartWith("3.1");
  });

  test("describes the public data reads and the unstable launch routes, nothing else", () => {
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        "/api/ca",
        "/api/cron/health",
        "/api/idp/{handle}",
        "/api/launch/config",
        "/api/ledger",
        "/api/ledger/stream",
        "/api/proof",
        "/api/idp/{handle}/payouts",
        "/api/idp/{handle}/tokens",
        "/api/stats",
        "/api/token-images/{mint}",
        "/api/tokens",
        "/api/tokens/{mint}",
        "/api/launch/intent",
        "/api/launch/metadata",
        "/api/launch/confirm",
        "/api/rpc",
        "/api/tokens/{mint}/history",
        "/api/proof/history",
        "/api/idp/{handle}/history",
        "/api/proof/liabilities",
      ].sort(),
    );
    for (const path of ["/api/launch/intent", "/api/launch/metadata", "/api/launch/confirm", "/api/rpc"]) {
      expect(doc.paths[path].post.tags).toEqual(["launch"]);
    }
    expect(doc.tags.find((t: { name: string }) => t.name === "launch").description).toContain("Unstable");
    const params = doc.paths["/api/tokens"].get.parameters.map((p: { name: string }) => p.name).sort();
    expect(params).toEqual(["cursor", "limit", "q", "sort"]);
  });

  test("the interactive docs page is served", async () => {
    const r = await svc.call("/api/docs");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("text/html");
    expect(await r.text()).toContain("/api/openapi.json".replace(/^\/api\//, ""));
  });
});

describe("the public reads answer what the document says", () => {
  test("tokens: every sort, a search, deep pages", async () => {
    for (const sort of ["new", "fees", "mcap"]) {
      let body = await expectConforms(`/api/tokens?sort=${sort}&limit=60`, "/api/tokens");
      expect(body.tokens.length).toBeGreaterThan(0);
      body = await expectConforms(
        `/api/tokens?sort=${sort}&limit=60&cursor=${encodeURIComponent(body.nextCursor)}`,
        "/api/tokens",
      );
    }
    for (const q of [samples.nameFragments[0]!, `@${samples.handles[0]}`, samples.mints[0]!, "x"]) {
      await expectConforms(`/api/tokens?q=${encodeURIComponent(q)}`, "/api/tokens");
    }
    await expectConforms("/api/tokens?limit=0", "/api/tokens", 400);
  });

  test("token detail, hidden ones included, and its errors", async () => {
    // Fifteen of the seed's 60, as for accounts below: each check validates a whole detail (~60 ms),
    // and all 60 ran past 20 s on a loaded machine.
    for (const mint of samples.mints.slice(0, 15)) await expectConforms(`/api/tokens/${mint}`, "/api/tokens/{mint}");
    const hidden = svc.ctx.db.$client.query("SELECT mint FROM tokens WHERE hidden = 1 LIMIT 1").get() as {
      mint: string;
    } | null;
    if (hidden) await expectConforms(`/api/tokens/${hidden.mint}`, "/api/tokens/{mint}");
    await expectConforms("/api/tokens/bad", "/api/tokens/{mint}", 400);
    await expectConforms(`/api/tokens/${"2".repeat(44)}`, "/api/tokens/{mint}", 404);
  });

  test("account records, pinned and unpinned", async () => {
    const pinned = samples.pinnedHandles.slice(0, 15);
    const unpinned = samples.unpinnedHandles.slice(0, 15);
    expect(pinned.length).toBeGreaterThan(0);
    expect(unpinned.length).toBeGreaterThan(0);
    let payouts = 0;
    for (const handle of [...pinned, ...unpinned, ...samples.handles]) {
      const body = await expectConforms(`/api/idp/${handle}`, "/api/idp/{handle}");
      payouts += body.payouts.length;
    }
    expect(payouts).toBeGreaterThan(0);
    await expectConforms("/api/idp/no-way", "/api/idp/{handle}", 400);
    await expectConforms("/api/idp/nobody_here", "/api/idp/{handle}", 404);
  });

  test("the ledger feed to its end, with every event type", async () => {
    const types = new Set<string>();
    let before: string | null = null;
    let pages = 0;
    do {
      const body: Json = await expectConforms(
        `/api/ledger?limit=100${before ? `&before=${encodeURIComponent(before)}` : ""}`,
        "/api/ledger",
      );
      for (const e of body.events) types.add(e.type);
      before = body.nextBefore;
      pages++;
    } while (before && pages < 50);
    expect([...types].sort()).toEqual(["burn", "launch", "payout", "payoutStatus", "sweep"]);
    await expectConforms("/api/ledger?before=nope", "/api/ledger", 400);
  });

  test("stats, job health, launch config, platform token and proof", async () => {
    await expectConforms("/api/stats", "/api/stats");
    await expectConforms("/api/cron/health", "/api/cron/health");
    await expectConforms("/api/launch/config", "/api/launch/config");
    await expectConforms("/api/ca", "/api/ca");
    const proof = await expectConforms("/api/proof", "/api/proof");
    expect(proof.treasuryLamports).toBe("123456789");
  });
});
