/**
 * Named operators (issue 63, item 8): each operator has a credential of their own in
 * ADMIN_OPERATORS_FILE (`name:argon2id-hash`), and every audited action names them, through the
 * API's Basic credential and through the /admin page's sign-in alike; a refused withdrawal is
 * audited with why it was refused; a resume's audit row lists the rows it released; a wrong
 * credential is refused (401 at sign-in, rate limited) and no credential is ever stored.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Keypair } from "@solana/web3.js";
import { testConfig } from "../../src/config";
import { raiseIncident, waitingOutflow } from "../../src/custody";
import { buildService } from "../../src/service";
import { testService, type TestService } from "../helpers/service";
import { setupPayouts } from "../jobs/scenarios";
import { moneyWorld, type World } from "../jobs/world";

const ORIGIN = "https://fees.example";
const PASSWORDS = { alice: "alice-has-her-own-long-password", bob: "bob-keeps-another-one-entirely" };
const cleanups: (() => Promise<void> | void)[] = [];
let w: World | null = null;
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await w?.close();
  w = null;
});

// biome-ignore lint/suspicious/noExplicitAny: test-side JSON, checked by the assertions that read it
type Json = any;

/** An operators file for alice and bob (cheap argon2id parameters: the tests hash many times). */
async function operatorsFile(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "operators-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const lines = await Promise.all(
    Object.entries(PASSWORDS).map(
      async ([name, password]) =>
        `${name}:${await Bun.password.hash(password, { algorithm: "argon2id", memoryCost: 256, timeCost: 1 })}`,
    ),
  );
  const path = join(dir, "operators");
  writeFileSync(path, `# who may operate this service\n${lines.join("\n")}\n`);
  return path;
}

const basic = (name: string, password: string) => `Basic ${Buffer.from(`${name}:${password}`).toString("base64")}`;

async function start(env: Record<string, string> = {}): Promise<TestService> {
  const svc = testService({ PUBLIC_URL: ORIGIN, ADMIN_OPERATORS_FILE: await operatorsFile(), ...env });
  cleanups.push(() => svc.cleanup());
  return svc;
}

function signIn(svc: TestService, operator: string, secret: string, ip?: string) {
  return svc.call("/api/admin/session", {
    method: "POST",
    headers: { "content-type": "application/json", origin: ORIGIN },
    body: JSON.stringify({ operator, secret }),
    ...(ip ? { ip } : {}),
  });
}

describe("named operators", () => {
  test("two operators act, one by the API and one through the page; the audit names each", async () => {
    const svc = await start();
    const alice = basic("alice", PASSWORDS.alice);
    const paused = await svc.json("/api/admin/claims/pause", {
      method: "POST",
      headers: { authorization: alice, "content-type": "application/json" },
      body: JSON.stringify({ reason: "looking into a report" }),
    });
    expect(paused).toMatchObject({ status: 200, body: { ok: true, action: "pause_claims" } });

    const opened = await signIn(svc, "bob", PASSWORDS.bob);
    expect(opened.status).toBe(200);
    const cookie = opened.headers.get("set-cookie")!.split(";")[0]!;
    expect(cookie).not.toContain(PASSWORDS.bob);
    expect((await svc.json("/api/admin/session", { headers: { cookie } })).body).toEqual({ signedIn: true });
    const resumed = await svc.json("/api/admin/claims/resume", {
      method: "POST",
      headers: { cookie, origin: ORIGIN, "content-type": "application/json" },
      body: JSON.stringify({ reason: "report was wrong" }),
    });
    expect(resumed.status).toBe(200);

    // The audit as the API shows it (alice's Basic credential) and as the /admin page reads it (bob's session).
    const expected = [
      { actor: "bob", action: "resume_claims", reason: "report was wrong" },
      { actor: "bob", action: "admin_sign_in" },
      { actor: "alice", action: "pause_claims", reason: "looking into a report" },
    ];
    const byApi = await svc.json("/api/admin/audit", { headers: { authorization: alice } });
    expect(byApi.body.entries).toMatchObject(expected);
    const byPage = await svc.json("/api/admin/audit", { headers: { cookie } });
    expect(byPage.body.entries).toMatchObject(expected);

    // Signing out is bob's too; neither password is anywhere in the database.
    const out = await svc.call("/api/admin/session", { method: "DELETE", headers: { cookie, origin: ORIGIN } });
    expect(out.status).toBe(200);
    expect((await svc.json("/api/admin/audit", { headers: { authorization: alice } })).body.entries[0]).toMatchObject({
      actor: "bob",
      action: "admin_sign_out",
    });
    const dump = JSON.stringify(svc.ctx.db.$client.query("SELECT * FROM admin_audit").all(), (_k, v) =>
      typeof v === "bigint" ? String(v) : v,
    );
    for (const password of Object.values(PASSWORDS)) expect(dump).not.toContain(password);
  });

  test("the shared ADMIN_SECRET keeps working beside the operators, audited as admin-api", async () => {
    const secret = "the-shared-admin-secret-0123456789abcdef";
    const svc = await start({ ADMIN_SECRET: secret });
    const done = await svc.json("/api/admin/launches/pause", {
      method: "POST",
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(done.status).toBe(200);
    const audit = await svc.json("/api/admin/audit", { headers: { authorization: basic("alice", PASSWORDS.alice) } });
    expect(audit.body.entries[0]).toMatchObject({ actor: "admin-api", action: "pause_launches" });
  });

  test("a wrong credential is refused: 401 at sign-in (429 past the limit), 404 on the API, and opens nothing", async () => {
    const svc = await start();
    const wrong = await signIn(svc, "alice", PASSWORDS.bob);
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: expect.any(String) });
    expect(wrong.headers.get("set-cookie")).toBeNull();
    expect((await signIn(svc, "mallory", PASSWORDS.alice)).status).toBe(401);
    // A name without a password of its own, or the operator's name with another's password: not an operator.
    expect(
      (await svc.json("/api/admin/audit", { headers: { authorization: basic("alice", PASSWORDS.bob) } })).status,
    ).toBe(404);
    expect(
      (await svc.json("/api/admin/audit", { headers: { authorization: `Bearer ${PASSWORDS.alice}` } })).status,
    ).toBe(404);
    // Rate limited as the page's sign-in always was: past 10 failures from an address, 429.
    const ip = "198.51.100.9";
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await signIn(svc, "alice", `guess-${i}`, ip)).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses[10]).toBe(429);
    expect(svc.ctx.db.$client.query("SELECT COUNT(*) AS n FROM admin_sessions").get()).toEqual({ n: 0n });
    expect(svc.ctx.db.$client.query("SELECT COUNT(*) AS n FROM admin_audit").get()).toEqual({ n: 0n });
  });

  test("a bad operators file stops the start with one line naming the setting, never a line's content", async () => {
    const dir = mkdtempSync(join(tmpdir(), "operators-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, "operators");
    writeFileSync(path, "alice:a-plain-password-by-mistake\n");
    expect(() => buildService(testConfig({ DATA_DIR: dir, ADMIN_OPERATORS_FILE: path }))).toThrow(
      "ADMIN_OPERATORS_FILE line 1: the hash must be an argon2id hash from Bun.password.hash",
    );
  });
});

describe("custody actions by named operators", () => {
  /** The HTTP service on the world's own database and chain, called with one operator's credential. */
  async function http(world: World, env: Record<string, string> = {}) {
    const config = testConfig({ DATA_DIR: world.dir, ADMIN_OPERATORS_FILE: await operatorsFile(), ...env });
    const service = buildService(config, { chain: world.chain });
    cleanups.push(() => service.close());
    return async (as: keyof typeof PASSWORDS, path: string, body?: unknown) => {
      const headers = new Headers({ authorization: basic(as, PASSWORDS[as]), "x-forwarded-for": "203.0.113.7" });
      if (body !== undefined) headers.set("content-type", "application/json");
      const res = await service.app.handle(
        new Request(`http://localhost${path}`, {
          method: body !== undefined ? "POST" : "GET",
          headers,
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        }),
      );
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : null) as Json };
    };
  }

  test("a refused withdrawal is in the audit with who asked, how much and why it was refused", async () => {
    w = await moneyWorld();
    const off = await http(w);
    const notConfigured = await off("alice", "/api/admin/withdrawals", { lamports: "5000000", reason: "revenue" });
    expect(notConfigured.status).toBe(400);
    const call = await http(w, { PLATFORM_WALLET: Keypair.generate().publicKey.toBase58() });
    // The platform has earned nothing yet: over what may be withdrawn.
    const over = await call("bob", "/api/admin/withdrawals", { lamports: "5000000", reason: "monthly revenue" });
    expect(over.status).toBe(400);
    expect(over.body.error).toStartWith("At most 0 lamports");
    const audit = await call("alice", "/api/admin/audit");
    expect(audit.body.entries).toMatchObject([
      {
        actor: "bob",
        action: "withdraw_refused",
        subject: `5000000 lamports: ${over.body.error}`,
        reason: "monthly revenue",
      },
      {
        actor: "alice",
        action: "withdraw_refused",
        subject: "5000000 lamports: Withdrawals are not configured on this deployment.",
        reason: "revenue",
      },
    ]);
    expect(w.db.$client.query("SELECT COUNT(*) AS n FROM withdrawals").get()).toEqual({ n: 0n });
  }, 60_000);

  test("a resume's audit row names the operator and lists every row it released", async () => {
    w = await moneyWorld();
    await setupPayouts(w, 2, 0);
    raiseIncident(w.db, { kind: "outflow-hour", detail: "a test halt", atMs: Date.now() });
    const waiting = waitingOutflow(w.db).payouts;
    expect(waiting).toHaveLength(2);
    const call = await http(w);
    const resumed = await call("bob", "/api/admin/resume", { reason: "checked both claims" });
    expect(resumed.status).toBe(200);
    expect(resumed.body.released.payoutIds).toEqual(waiting.map((p) => p.id));
    const [row] = (await call("alice", "/api/admin/audit")).body.entries;
    expect(row).toMatchObject({ actor: "bob", action: "resume_money", reason: "checked both claims" });
    for (const p of waiting) expect(row.subject).toContain(`#${p.id} ${p.lamports}`);
    const total = waiting.reduce((n, p) => n + p.lamports, 0n);
    expect(row.subject).toContain(`${total} lamports`);
  }, 60_000);
});
