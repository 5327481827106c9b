/**
 * The operator document says what every operator route takes and answers, to the field: a service
 * on its embedded local chain is driven through every operator operation (money moved by the cron
 * route's real jobs, incidents, held payouts, a withdrawal, set-aside tokens, a program upgrade,
 * webhooks with deliveries), and each success answer validates against the document's schema with
 * no field missing and none undocumented. A cron run's follow-up read reports what the run did.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Keypair, PublicKey } from "@solana/web3.js";
import { recordSignIn } from "../src/identity/identity";
import { raiseIncident } from "../src/custody";
import { recordTokenFailure, stopToken, watchPrograms } from "../src/jobs";
import { JOB_NAMES } from "../src/jobs/names";
import { immediate } from "../db/transaction";
import { queuePayout } from "../src/payouts";
import { recordFeeSharing } from "../src/tokens/fee-sharing";
import { WebhookDispatcher } from "../src/webhooks/dispatcher";
import { webhookSigningKey } from "../src/webhooks/key";
import { documentChecker, type DocumentChecker } from "./helpers/openapi";
import type { Json } from "./helpers/service";
import { moneyHarness, type MoneyHarness } from "./jobs/harness";
import { Receiver } from "./webhooks/receiver";

const ADMIN = "admin-secret-for-operator-document-0123456789";
const CRON = "cron-secret-for-operator-document-0123456789";
const PLATFORM_WALLET = Keypair.generate().publicKey.toBase58();

let h: MoneyHarness;
let doc: Json;
let strict: DocumentChecker;
let receiver: Receiver;
/** `method path-template` of every operation answered with success and checked against the document. */
const checked = new Set<string>();

beforeAll(async () => {
  h = await moneyHarness({
    ADMIN_SECRET: ADMIN,
    CRON_SECRET: CRON,
    PLATFORM_WALLET,
    WEBHOOKS_ALLOW_PRIVATE: "1",
    RATE_LIMIT: "off",
  });
  receiver = new Receiver().start();
  const served = await h.service.app.handle(new Request("http://localhost/api/openapi-operator.json"));
  doc = await served.json();
  strict = documentChecker(closed(structuredClone(doc)));
}, 60_000);
afterAll(async () => {
  receiver?.stop();
  await h?.close();
});

/** Every object schema that lists its properties refuses others: an answer's field must be documented. */
function closed(node: Json): Json {
  if (Array.isArray(node)) return node.map(closed);
  if (!node || typeof node !== "object") return node;
  for (const key of Object.keys(node)) node[key] = closed(node[key]);
  if (node.properties && node.additionalProperties === undefined) node.additionalProperties = false;
  return node;
}

/** Schemas in the operator paths and components that say nothing of their content. */
function untypedSchemas(node: Json, where: string, out: string[] = []): string[] {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) untypedSchemas(item, `${where}/${i}`, out);
    return out;
  }
  if (!node || typeof node !== "object") return out;
  const isSchemaMap = /\/(properties|schemas)$/.test(where);
  if (!isSchemaMap && /\/(schema|items|properties\/[^/]+)$/.test(where)) {
    const types = [node.type].flat();
    if (Object.keys(node).length === 0) out.push(`${where}: {}`);
    else if (types.includes("object") && !node.properties) out.push(`${where}: an object without properties`);
    else if (types.includes("array") && !node.items) out.push(`${where}: an array without items`);
  }
  for (const [key, value] of Object.entries(node)) untypedSchemas(value, `${where}/${key}`, out);
  return out;
}

const auth = (secret: string) => ({ authorization: `Bearer ${secret}` });

/** Calls an operator route; a success answer is checked against its documented schema. */
async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = auth(ADMIN)) {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    (init.headers as Record<string, string>)["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await h.service.app.handle(new Request(`http://localhost${path}`, init));
  const text = await response.text();
  const json = text ? JSON.parse(text) : null;
  if (response.status < 300) {
    const template = strict.templateOf(path);
    if (!template || !strict.operation(template, method)) throw new Error(`${method} ${path} is not documented`);
    strict.assertBody(template, method, response.status, json, `${method} ${path}`);
    checked.add(`${method.toLowerCase()} ${template}`);
  }
  return { status: response.status, body: json };
}

/** Starts a job through the cron route and reads the run until it has finished. */
async function cronRun(job: string): Promise<Json> {
  const started = await call("POST", `/api/cron/${job}`, undefined, auth(CRON));
  expect(started.status).toBe(202);
  for (;;) {
    const run = await call("GET", `/api/cron/runs/${started.body.runId}`, undefined, auth(CRON));
    expect(run.status).toBe(200);
    if (run.body.state !== "running") return run.body;
    await Bun.sleep(20);
  }
}

const profile = (id: string, handle: string) => ({
  idpUserId: id,
  displayHandle: handle,
  name: handle,
  avatarUrl: "",
  followers: 0,
});

describe("the operator document", () => {
  test("types every body and answer: no schema without its properties or items", () => {
    expect(untypedSchemas(doc.paths, "#/paths")).toEqual([]);
    expect(untypedSchemas(doc.components.schemas, "#/components/schemas")).toEqual([]);
  });

  test("names its jobs and event types as enums", () => {
    const [jobParam] = doc.paths["/api/cron/{job}"].post.parameters;
    expect(jobParam.schema.enum).toEqual([...JOB_NAMES]);
    const clear = doc.paths["/api/admin/set-aside/{mint}/clear"].post;
    expect(clear.requestBody.content["application/json"].schema.properties.job.enum).toEqual(["sweep", "burns", null]);
    expect(doc.components.schemas.JobRun.properties.job.enum).toEqual([...JOB_NAMES]);
    expect(doc.components.schemas.SetAsideItem.properties.job.enum).toEqual(["sweep", "burns"]);
    expect(doc.components.schemas.Webhook.properties.types.items.enum).toContain("incident");
    expect(doc.components.schemas.WebhookDelivery.properties.eventId.type).toBe("string");
    const report = doc.components.schemas.JobRunReport;
    expect(report.discriminator.propertyName).toBe("job");
    expect(Object.keys(report.discriminator.mapping).sort()).toEqual([...JOB_NAMES].sort());
  });
});

describe("every operator answer validates against the document", () => {
  test("cron runs report what they did: a sweep's credits, a payout landing, a paused burn", async () => {
    const db = h.service.ctx.db;
    recordSignIn(db, profile("u-alice", "alice"), Date.now());
    recordSignIn(db, profile("u-bob", "bob"), Date.now());
    const token = await h.launch(
      [
        { handle: "alice", bps: 6000 },
        { handle: "bob", bps: 4000 },
      ],
      1000,
    );
    await h.trade(token.mint, 50_000_000_000n);

    const sweep = await cronRun("sweep");
    expect(sweep).toMatchObject({ job: "sweep", state: "succeeded", error: null });
    expect(sweep.report).toMatchObject({ job: "sweep", pausedByProgramChange: false, held: false, failed: 0 });
    expect(sweep.report.tokensSwept).toBe(1);
    expect(sweep.report.confirmed).toBe(1);

    queuePayout(db, {
      idpUserId: "u-alice",
      lamports: null,
      wallet: Keypair.generate().publicKey.toBase58(),
      kind: "claim",
      minLamports: 1n,
      atMs: Date.now(),
    });
    const payouts = await cronRun("payouts");
    expect(payouts.report).toMatchObject({ job: "payouts", held: false, sent: 1, confirmed: 1, failed: 0 });
    expect(payouts.report.withdrawals).toEqual({ sent: 0, confirmed: 0, failed: 0, requeued: 0, pending: 0 });

    for (const job of ["launches", "market"]) expect((await cronRun(job)).report.job).toBe(job);
    expect((await cronRun("market")).report).toEqual({
      job: "market",
      configured: false,
      updated: 0,
      failedBatches: 0,
    });
    h.checkRelations();
  }, 120_000);

  test("admin reads and actions, custody, set-aside, programs, webhooks and the page's session", async () => {
    const db = h.service.ctx.db;
    const { mint } = db.$client.query<{ mint: string }, []>("SELECT mint FROM tokens LIMIT 1").get()!;
    const tokenId = Number(db.$client.query<{ id: bigint }, []>("SELECT id FROM tokens LIMIT 1").get()!.id);

    // Plain actions, then the reads that show them.
    for (const path of ["tokens/MINT/hide", "tokens/MINT/unhide", "claims/pause", "claims/resume"])
      expect((await call("POST", `/api/admin/${path.replace("MINT", mint)}`, { reason: "check" })).status).toBe(200);
    for (const path of ["launches/pause", "launches/resume"])
      expect((await call("POST", `/api/admin/${path}`)).status).toBe(200);
    expect((await call("POST", "/api/admin/platform-token", { mint })).status).toBe(200);
    expect((await call("POST", "/api/admin/min-claim", { lamports: "10000000" })).status).toBe(200);
    expect((await call("POST", "/api/admin/autopay-min", { lamports: "20000000" })).status).toBe(200);
    expect((await call("GET", "/api/admin/audit?limit=20")).body.entries.length).toBeGreaterThan(5);
    expect((await call("GET", "/api/admin/tokens")).body.tokens.length).toBe(1);
    const overview = await call("GET", "/api/admin/overview");
    expect(overview.body.runs.length).toBeGreaterThan(0);

    // Fee sharing and set-aside tokens.
    immediate(db, () =>
      recordFeeSharing(
        db,
        tokenId,
        {
          currentCreator: PublicKey.unique().toBase58(),
          isSharingConfig: true,
          shareholders: [],
          serviceShareBps: 2500,
          distributableLamports: 0n,
          poolDistributableLamports: 0n,
          shareLamports: 0n,
          blockedReason: null,
        },
        Date.now(),
      ),
    );
    expect((await call("GET", "/api/admin/fee-sharing")).body.items.length).toBe(1);
    for (let i = 0; i < 5; i++)
      recordTokenFailure(db, { mint, job: "burns", reason: "a test failure", atMs: Date.now() });
    stopToken(db, { mint: PublicKey.unique().toBase58(), job: "sweep", reason: "a test stop", atMs: Date.now() });
    const setAside = await call("GET", "/api/admin/set-aside");
    expect(setAside.body.items.map((i: Json) => i.job).sort()).toEqual(["burns", "sweep"]);
    const cleared = await call("POST", `/api/admin/set-aside/${mint}/clear`, { job: "burns", reason: "looked" });
    expect(cleared.body.cleared).toEqual(["burns"]);

    // A program upgrade pauses the burns job; its run says so; acknowledging lets it go on.
    // (The harness's runs watched pump's programs on the local chain first: changes counted from here.)
    const upgraded = upgradeSeen();
    await watchPrograms({ db, chain: upgraded.chain, now: Date.now });
    const changesBefore = (await call("GET", "/api/admin/programs")).body.changes.length;
    upgraded.slot += 1n;
    expect(await watchPrograms({ db, chain: upgraded.chain, now: Date.now })).toHaveLength(1);
    const changes = (await call("GET", "/api/admin/programs")).body.changes;
    expect(changes).toHaveLength(changesBefore + 1);
    const paused = await cronRun("burns");
    expect(paused.report).toMatchObject({ job: "burns", pausedByProgramChange: true, held: false, buysSent: 0 });
    const acknowledged = await call("POST", "/api/admin/programs/acknowledge", { reason: "decoders still fit" });
    // Every open change is acknowledged: the fake's, and those the burns run's own watch of the
    // local chain's pump program recorded against it.
    expect(acknowledged.body.acknowledged.length).toBeGreaterThanOrEqual(changes.length);
    for (const c of acknowledged.body.acknowledged)
      expect(c.address).toBe("6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P");
    expect((await cronRun("burns")).report.pausedByProgramChange).toBe(false);

    // Held payouts, a halt with a payout waiting, and a withdrawal.
    const queue = (id: string, reviewLamports?: bigint) =>
      queuePayout(db, {
        idpUserId: id,
        lamports: 1_000_000n,
        wallet: Keypair.generate().publicKey.toBase58(),
        kind: "claim",
        minLamports: 1n,
        atMs: Date.now(),
        ...(reviewLamports ? { reviewLamports } : {}),
      });
    const refuseMe = queue("u-bob", 1n);
    expect((await call("GET", "/api/admin/payouts/held")).body.payouts).toHaveLength(1);
    expect((await call("POST", `/api/admin/payouts/${refuseMe.payoutId}/refuse`, { reason: "no" })).status).toBe(200);
    const approveMe = queue("u-bob", 1n);
    expect((await call("POST", `/api/admin/payouts/${approveMe.payoutId}/approve`, {})).status).toBe(200);
    raiseIncident(db, { kind: "outflow-hour", detail: "a test halt", atMs: Date.now() });
    const incidents = await call("GET", "/api/admin/incidents");
    expect(incidents.body.halted.kind).toBe("outflow-hour");
    expect(incidents.body.waiting.payouts.map((p: Json) => p.id)).toEqual([approveMe.payoutId]);
    const resumed = await call("POST", "/api/admin/resume", {
      reason: "looked",
      payoutIds: [approveMe.payoutId],
      withdrawalIds: [],
      burnOrderIds: [],
    });
    expect(resumed.body.released.payoutIds).toEqual([approveMe.payoutId]);
    const withdrawals = await call("GET", "/api/admin/withdrawals");
    expect(BigInt(withdrawals.body.withdrawableLamports)).toBeGreaterThan(2_000_000n);
    const withdrawn = await call("POST", "/api/admin/withdrawals", { lamports: "2000000", reason: "revenue" });
    expect(withdrawn.body.withdrawal).toMatchObject({ status: "queued", wallet: PLATFORM_WALLET });
    const afterWithdrawal = await cronRun("payouts");
    expect(afterWithdrawal.report).toMatchObject({ sent: 1, confirmed: 1, withdrawals: { sent: 1, confirmed: 1 } });
    expect((await call("GET", "/api/admin/withdrawals")).body.withdrawals[0].status).toBe("confirmed");

    // Webhooks: registered, deliveries pending and delivered, replayed, removed.
    const created = await call("POST", "/api/admin/webhooks", { url: receiver.url, types: ["sweep", "payout"] });
    expect(created.body.secret).toStartWith("whsec_");
    expect((await call("GET", "/api/admin/webhooks")).body.webhooks).toHaveLength(1);
    const replayed = await call("POST", `/api/admin/webhooks/${created.body.id}/replay`, {
      since: "2000-01-01T00:00:00.000Z",
    });
    expect(replayed.body.queued).toBeGreaterThan(0);
    const deliveries = `/api/admin/webhooks/${created.body.id}/deliveries`;
    expect((await call("GET", deliveries)).body.deliveries[0].status).toBe("pending");
    const dispatcher = new WebhookDispatcher(db, {
      signingKey: webhookSigningKey(h.service.ctx.config),
      allowPrivate: true,
      tickMs: 20,
    }).start();
    try {
      while (receiver.received.length < replayed.body.queued) await Bun.sleep(20);
    } finally {
      await dispatcher.stop();
    }
    const delivered = (await call("GET", deliveries)).body.deliveries;
    expect(delivered.every((d: Json) => d.status === "delivered" && d.httpStatus === 200)).toBe(true);
    expect(delivered.map((d: Json) => d.eventId).sort()).toEqual(
      receiver.received.map((r) => r.headers["webhook-id"]).sort(),
    );
    expect((await call("DELETE", `/api/admin/webhooks/${created.body.id}`, { reason: "done" })).status).toBe(200);

    // The /admin page's session.
    const origin = new URL(h.service.ctx.config.publicUrl).origin;
    expect((await call("GET", "/api/admin/session", undefined, {})).body).toEqual({ signedIn: false });
    expect((await call("POST", "/api/admin/session", { secret: ADMIN }, { origin })).status).toBe(200);
    expect((await call("DELETE", "/api/admin/session", undefined, { origin })).status).toBe(200);
    expect((await call("DELETE", "/api/admin/sessions", { reason: "rotate" })).body.ok).toBe(true);
    h.checkRelations();
  }, 180_000);

  test("every documented operation was answered and checked", () => {
    const documented = Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method} ${path}`),
    );
    expect([...checked].sort()).toEqual(documented.sort());
  });
});

/** A launch program whose ProgramData's deploy slot the test moves, as an upgrade does. */
function upgradeSeen() {
  const program = "6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P";
  const loader = "BPFLoaderUpgradeab1e11111111111111111111111";
  const programData = PublicKey.findProgramAddressSync([new PublicKey(program).toBytes()], new PublicKey(loader))[0];
  const state = {
    slot: 250_000_000n,
    chain: {
      reader: {
        getAccounts: async (addresses: string[]) =>
          new Map(
            addresses.map((a) => [
              a,
              a === programData.toBase58()
                ? { lamports: 1n, owner: loader, executable: false, data: programDataBytes(state.slot) }
                : null,
            ]),
          ),
      },
      launchProgram: { programs: [{ name: "pump", address: program, builtBy: ["sweep", "burns"] as const }] },
    },
  };
  return state;
}

/** ProgramData as BPFLoaderUpgradeable writes it: tag 3, slot, Some(authority), the ELF. */
function programDataBytes(slot: bigint): Uint8Array {
  const data = new Uint8Array(45 + 16);
  const view = new DataView(data.buffer);
  view.setUint32(0, 3, true);
  view.setBigUint64(4, slot, true);
  data[12] = 1;
  return data;
}
