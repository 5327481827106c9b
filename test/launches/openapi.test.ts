/**
 * The launch routes' OpenAPI description: a valid 3.1 document under the `launch` tag, marked
 * unstable, that shows the draft's shape and every response body. Built from the same plugin
 * options as `/api/openapi.json`, with the launch paths let through.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { openapi } from "@elysiajs/openapi";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Elysia } from "elysia";
import { LAUNCH_TAG, launchRoutes } from "../../src/launches/routes";
import { testService, type TestService, type Json } from "../helpers/service";
import { stubChain } from "./support";

let svc: TestService;
let doc: Json;

beforeAll(async () => {
  svc = testService({}, { chain: stubChain() });
  const app = new Elysia()
    .use(
      openapi({
        specPath: "/doc.json",
        openapiVersion: "3.1.0",
        exclude: { paths: [/^(?!\/api\/(launch|rpc))/] },
        documentation: { info: { title: "launch", version: "0" }, tags: [LAUNCH_TAG] },
      }),
    )
    .use(launchRoutes(svc.ctx));
  doc = await (await app.handle(new Request("http://localhost/doc.json"))).json();
});
afterAll(async () => svc && (await svc.cleanup()));

const schemaOf = (node: Json): Json => (node?.$ref ? doc.components.schemas[node.$ref.split("/").pop()] : node);

test("is a valid OpenAPI 3.1 document", async () => {
  const result = await new Validator().validate(doc);
  if (!result.valid) throw new Error(JSON.stringify(result.errors).slice(0, 2000));
});

test("every launch route sits under the launch tag, marked unstable", () => {
  const tag = doc.tags.find((t: { name: string }) => t.name === "launch");
  expect(tag.description).toStartWith("Unstable.");
  expect(tag["x-unstable"]).toBe(true);
  for (const path of ["/api/launch/intent", "/api/launch/metadata", "/api/launch/confirm", "/api/rpc"]) {
    const op = doc.paths[path].post;
    expect({ path, tags: op.tags }).toEqual({ path, tags: ["launch"] });
    expect(op.description).toStartWith("Unstable.");
    expect(op["x-unstable"]).toBe(true);
  }
});

test("shows the draft's shape and the response bodies", () => {
  const intentBody = schemaOf(doc.paths["/api/launch/intent"].post.requestBody.content["application/json"].schema);
  const draftSchema = schemaOf(intentBody.properties.draft);
  expect(Object.keys(draftSchema.properties).sort()).toEqual(
    ["description", "firstBuyLamports", "name", "recipients", "symbol", "telegram", "twitter", "website"].sort(),
  );
  expect(Object.keys(schemaOf(draftSchema.properties.recipients.items).properties).sort()).toEqual(["bps", "handle"]);

  const intentOk = schemaOf(doc.paths["/api/launch/intent"].post.responses["200"].content["application/json"].schema);
  expect(Object.keys(intentOk.properties)).toEqual(
    expect.arrayContaining(["intent", "creator", "message", "expiresAt"]),
  );
  const metadataOk = schemaOf(
    doc.paths["/api/launch/metadata"].post.responses["200"].content["application/json"].schema,
  );
  expect(Object.keys(metadataOk.properties)).toEqual(
    expect.arrayContaining(["metadataUri", "imageUri", "transactions"]),
  );
  const upload = doc.paths["/api/launch/metadata"].post.requestBody.content["multipart/form-data"].schema;
  expect(Object.keys(schemaOf(upload).properties).sort()).toEqual(["image", "intent", "signature", "thumbnail"]);
  const confirm = doc.paths["/api/launch/confirm"].post.responses;
  expect(schemaOf(confirm["202"].content["application/json"].schema).properties.status.const).toBe("pending");
  expect(JSON.stringify(schemaOf(confirm["200"].content["application/json"].schema))).toContain("failed");
  for (const status of ["409", "410", "503"]) {
    expect(
      schemaOf(doc.paths["/api/launch/intent"].post.responses[status].content["application/json"].schema).required,
    ).toEqual(["error"]);
  }
  for (const status of ["401", "413", "415", "502"])
    expect(doc.paths["/api/launch/metadata"].post.responses[status]).toBeDefined();
});
