/**
 * The OpenAPI documents are as exact as the code, so a client generated from them is typed and a
 * validating proxy lets through exactly what the service accepts: both documents validate with
 * @apidevtools/swagger-parser; resources and events are named components; integers, path
 * patterns, enums, error bodies and headers say what the routes do; and every golden public
 * response (test/golden/public-responses.json) validates against the schema of its status.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import SwaggerParser from "@apidevtools/swagger-parser";
import { readGolden } from "../scripts/public-responses";
import { limitRuleFor } from "../src/http/rate-limit";
import { JOB_NAMES } from "../src/jobs/names";
import { documentChecker } from "./helpers/openapi";
import { type Json, type TestService, testService } from "./helpers/service";

let svc: TestService;
let doc: Json;
let operatorDoc: Json;

beforeAll(async () => {
  svc = testService({ RATE_LIMIT: "off" });
  doc = (await svc.json("/api/openapi.json")).body;
  operatorDoc = (await svc.json("/api/openapi-operator.json")).body;
});
afterAll(async () => svc && (await svc.cleanup()));

type Operation = { path: string; method: string; op: Json };
const operations = (d: Json): Operation[] =>
  Object.entries<Json>(d.paths).flatMap(([path, item]) =>
    Object.entries<Json>(item).map(([method, op]) => ({ path, method, op })),
  );
const schemaNamed = (name: string) => doc.components.schemas[name];
const refTo = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const parameter = (path: string, name: string) =>
  doc.paths[path].get.parameters.find((p: { name: string }) => p.name === name);

/** Every schema object in the document's paths, with where it sits. */
function* schemasIn(node: unknown, where: string): Generator<[Json, string]> {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) yield* schemasIn(item, `${where}/${i}`);
    return;
  }
  if (!node || typeof node !== "object") return;
  yield [node, where];
  for (const [key, value] of Object.entries(node)) yield* schemasIn(value, `${where}/${key}`);
}

describe("the documents", () => {
  test("both validate with @apidevtools/swagger-parser (structure and every $ref)", async () => {
    for (const d of [doc, operatorDoc]) {
      const checked = (await SwaggerParser.validate(structuredClone(d))) as { openapi?: string };
      expect(checked.openapi).toStartWith("3.1");
    }
  });

  test("operation ids are camelCase and unique", () => {
    const ids = [...operations(doc), ...operations(operatorDoc)].map((o) => o.op.operationId);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z0-9]*$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.paths["/api/token-images/{mint}"].get.operationId).toBe("getApiTokenImagesByMint");
  });
});

describe("outputs", () => {
  test("resources are named components, referenced with $ref; no titled schema is inlined in a path", () => {
    for (const name of ["Token", "TokenDetail", "Recipient", "Sweep", "Payout", "AccountRecord", "AccountToken"])
      expect(schemaNamed(name)?.type).toBe("object");
    for (const name of ["Stats", "TokenPage", "LedgerPage", "PayoutsPage", "Health", "Proof", "Error"])
      expect(schemaNamed(name)).toBeDefined();
    expect(schemaNamed("TokenPage").properties.tokens.items).toEqual(refTo("Token"));
    expect(schemaNamed("TokenDetail").properties.recipients.items).toEqual(refTo("Recipient"));
    expect(schemaNamed("TokenDetail").properties.sweeps.items).toEqual(refTo("Sweep"));
    expect(schemaNamed("AccountRecord").properties.payouts.items).toEqual(refTo("Payout"));
    expect(doc.paths["/api/tokens"].get.responses["200"].content["application/json"].schema).toEqual(
      refTo("TokenPage"),
    );
    for (const [schema, where] of schemasIn(doc.paths, "paths")) {
      if (typeof schema.title === "string") throw new Error(`a titled schema is inlined at ${where}`);
    }
  });

  test("ledger events: one named schema per type, a oneOf discriminated by type", () => {
    const events = schemaNamed("LedgerPage").properties.events.items;
    expect(events).toEqual(refTo("LedgerEvent"));
    const union = schemaNamed("LedgerEvent");
    expect(union.anyOf).toBeUndefined();
    expect(union.oneOf).toEqual(
      ["LaunchEvent", "SweepEvent", "PayoutEvent", "PayoutStatusEvent", "BurnEvent"].map(refTo),
    );
    expect(union.discriminator).toEqual({
      propertyName: "type",
      mapping: {
        launch: "#/components/schemas/LaunchEvent",
        sweep: "#/components/schemas/SweepEvent",
        payout: "#/components/schemas/PayoutEvent",
        payoutStatus: "#/components/schemas/PayoutStatusEvent",
        burn: "#/components/schemas/BurnEvent",
      },
    });
    for (const [type, name] of Object.entries({ launch: "LaunchEvent", burn: "BurnEvent" }))
      expect(schemaNamed(name).properties.type.const).toBe(type);
  });

  test("fixed values are enums: payout statuses alike on the payout and its event, routing with null", () => {
    const statuses = schemaNamed("Payout").properties.status;
    expect(statuses.type).toBe("string");
    expect(statuses.enum).toEqual(expect.arrayContaining(["queued", "sent", "confirmed", "failed", "replaced"]));
    expect(schemaNamed("PayoutEvent").properties.status).toEqual(statuses);
    expect(schemaNamed("Recipient").properties.routing).toMatchObject({
      type: ["string", "null"],
      enum: ["hold", "autopay", "burn", null],
    });
    expect(schemaNamed("Sweep").properties.status.enum).toEqual(["sent", "confirmed", "failed"]);
  });

  test("every error status has the {error} body; every answer says its cache-control", () => {
    for (const { path, method, op } of operations(doc)) {
      expect(op.responses["500"]).toBeDefined();
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        const where = `${method} ${path} ${status}`;
        if (Number(status) >= 400) {
          expect({ where, schema: response.content?.["application/json"]?.schema }).toEqual({
            where,
            schema: refTo("Error"),
          });
          expect({ where, cache: response.headers["cache-control"].schema.enum }).toEqual({
            where,
            cache: ["no-store"],
          });
        } else {
          expect({ where, cache: response.headers["cache-control"].schema.enum }).toEqual({
            where,
            cache: [expect.any(String)],
          });
        }
      }
    }
    const image = doc.paths["/api/token-images/{mint}"].get.responses;
    expect(Object.keys(image).sort()).toEqual(["200", "400", "404", "429", "500"]);
    expect(image["200"].headers["cache-control"].schema.enum).toEqual(["public, max-age=31536000, immutable"]);
  });

  test("every rate-limited route declares 429 with retry-after and x-ratelimit-* on every answer", () => {
    const limited: string[] = [];
    for (const { path, method, op } of operations(doc)) {
      const sample = path.replace("{mint}", "11111111111111111111111111111111").replace("{handle}", "someone");
      const has429 = op.responses["429"] !== undefined;
      if (has429)
        expect(op.responses["429"].headers["retry-after"]).toEqual({ $ref: "#/components/headers/RetryAfter" });
      if (!limitRuleFor(method.toUpperCase(), sample)) continue;
      limited.push(path);
      expect({ path, has429 }).toEqual({ path, has429: true });
      for (const response of Object.values<Json>(op.responses))
        for (const name of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"])
          expect(response.headers[name]).toBeDefined();
    }
    expect(limited).toContain("/api/stats");
    expect(doc.components.headers.XRateLimitReset.description).toContain("unix seconds");
  });
});

describe("inputs", () => {
  test("integer parameters are integers with SPEC's bounds and the real defaults", () => {
    const integer = (minimum: number, maximum: number, defaultValue: number) =>
      expect.objectContaining({ type: "integer", minimum, maximum, default: defaultValue });
    expect(parameter("/api/tokens", "limit").schema).toEqual(integer(1, 60, 24));
    expect(parameter("/api/ledger", "limit").schema).toEqual(integer(1, 100, 50));
    expect(parameter("/api/tokens/{mint}/history", "days").schema).toEqual(integer(1, 365, 90));
    expect(parameter("/api/proof/history", "days").schema).toEqual(integer(1, 365, 30));
    expect(parameter("/api/idp/{handle}/tokens", "limit").schema).toEqual(integer(1, 100, 100));
    expect(parameter("/api/idp/{handle}/payouts", "limit").schema).toEqual(integer(1, 100, 100));
    for (const { path, op } of operations(doc))
      for (const p of op.parameters ?? []) {
        expect({ path, name: p.name, anyOf: p.schema.anyOf }).toEqual({ path, name: p.name, anyOf: undefined });
        expect(p.schema["x-document-as"]).toBeUndefined();
      }
    const bps = schemaNamed("LaunchDraftRecipient").properties.bps;
    expect(bps).toMatchObject({ type: "integer", minimum: 1, maximum: 10_000 });
    expect(bps.anyOf).toBeUndefined();
  });

  test("path parameters carry the patterns the routes check", () => {
    for (const { path, op } of operations(doc))
      for (const p of (op.parameters ?? []).filter((q: Json) => q.in === "path")) {
        const want = { mint: "^[1-9A-HJ-NP-Za-z]{32,44}$", handle: "^@?[A-Za-z0-9_]{1,15}$" }[p.name as string];
        expect({ path, name: p.name, pattern: p.schema.pattern }).toEqual({ path, name: p.name, pattern: want });
      }
  });
});

describe("the operator document", () => {
  test("describes exactly the operator routes the app serves, each behind its bearer scheme", () => {
    const served = svc.app.routes
      .filter((r) => /^\/api\/(admin|cron)\//.test(r.path) && r.path !== "/api/cron/health")
      .map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:([A-Za-z]+)/g, "{$1}")}`)
      .sort();
    const documented = operations(operatorDoc)
      .map((o) => `${o.method} ${o.path}`)
      .sort();
    expect(documented).toEqual(served);
    expect(Object.keys(operatorDoc.components.securitySchemes).sort()).toEqual(["adminSecret", "cronSecret"]);
    for (const { path, method, op } of operations(operatorDoc)) {
      expect(op.tags).toEqual(["operator"]);
      if (path === "/api/admin/session" && method === "post") expect(op.security).toEqual([]);
      else expect(op.security).toEqual([path.startsWith("/api/cron/") ? { cronSecret: [] } : { adminSecret: [] }]);
    }
    const cron = operatorDoc.paths["/api/cron/{job}"].post.responses;
    expect(Object.keys(cron).sort()).toEqual(["202", "404", "409", "429", "500", "503"]);
    expect(operatorDoc.components.schemas.CronRunStarted.required.sort()).toEqual(["job", "runId"]);
    expect(operatorDoc.components.schemas.CronRun.properties.job.enum).toEqual([...JOB_NAMES]);
    // The public document leaves them out (SPEC Versioning 4).
    expect(Object.keys(doc.paths).filter((p) => /^\/api\/(admin|cron\/(?!health))/.test(p))).toEqual([]);
  });
});

describe("the golden public responses", () => {
  test("every documented one validates against the schema of its status, with the documented headers", () => {
    const check = documentChecker(doc);
    let validated = 0;
    for (const recorded of readGolden()) {
      const [method, url] = recorded.request.split(" ") as [string, string];
      const template = check.templateOf(url);
      if (!template || !check.operation(template, method)) continue;
      const response = check.operation(template, method).responses[String(recorded.status)];
      if (!response) throw new Error(`${recorded.request}: ${recorded.status} is not documented`);
      const cache = response.headers["cache-control"].schema.enum[0];
      expect({ request: recorded.request, cache: recorded.headers["cache-control"] }).toEqual({
        request: recorded.request,
        cache,
      });
      expect({ request: recorded.request, limited: "x-ratelimit-limit" in recorded.headers }).toEqual({
        request: recorded.request,
        limited: "x-ratelimit-limit" in response.headers,
      });
      const type = recorded.headers["content-type"] ?? "";
      if (recorded.body === undefined || !type.includes("json")) continue;
      check.assertBody(template, method, recorded.status, JSON.parse(recorded.body), recorded.request);
      validated++;
    }
    expect(validated).toBeGreaterThan(100);
  });
});
