/** The history routes are in `/api/openapi.json`, and their real answers validate against it. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { recordSolvencySnapshot } from "../../src/history/snapshots";
import { documentChecker } from "../helpers/openapi";
import { testService, type TestService, type Json } from "../helpers/service";
import { launch, signIn, sweep } from "../helpers/read-world";

let svc: TestService;
let doc: Json;
let mint = "";

beforeAll(async () => {
  svc = testService({ RATE_LIMIT: "off" });
  const db = svc.ctx.db;
  const now = Date.now();
  const t = launch(db, { recipients: [{ handle: "docs_user", bps: 10_000 }], launchedAtMs: now - 5 * 86_400_000 });
  mint = t.mint;
  sweep(db, t.tokenId, 123_456n, now - 2 * 86_400_000);
  signIn(db, "u-docs", "docs_user", now - 86_400_000);
  recordSolvencySnapshot(db, { treasuryLamports: 100n, atMs: now - 1000, trigger: "sweep" });
  doc = (await svc.json("/api/openapi.json")).body;
});
afterAll(async () => svc && (await svc.cleanup()));

async function conforms(url: string, path: string, status: number): Promise<Json> {
  const { status: got, body } = await svc.json(url);
  expect(got).toBe(status);
  documentChecker(doc).assertBody(path, "GET", status, body, url);
  return body;
}

test("the three history reads are documented and answer what the document says", async () => {
  expect(
    (await conforms(`/api/tokens/${mint}/history?days=30`, "/api/tokens/{mint}/history", 200)).points,
  ).toHaveLength(1);
  await conforms(`/api/tokens/${"1".repeat(32)}/history`, "/api/tokens/{mint}/history", 404);
  await conforms(`/api/tokens/x/history`, "/api/tokens/{mint}/history", 400);
  expect((await conforms("/api/proof/history", "/api/proof/history", 200)).points).toHaveLength(1);
  expect((await conforms("/api/idp/docs_user/history", "/api/idp/{handle}/history", 200)).entries).toHaveLength(1);
  await conforms("/api/idp/unknown_one/history", "/api/idp/{handle}/history", 404);
  const params = doc.paths["/api/proof/history"].get.parameters.map((p: { name: string }) => p.name);
  expect(params).toEqual(["days"]);
  expect(doc.paths["/api/me/export.csv"]).toBeUndefined();
});
