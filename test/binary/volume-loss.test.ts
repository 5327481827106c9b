/**
 * A volume lost and restored from the off-site store alone, through the single executable (issue
 * 63, "How it is shown"): the executable runs on its embedded defaults (the local chain and the
 * demo in DATA_DIR) with `BACKUP_URL` at s3rver (a maintained npm S3 server, test/backup/stores.ts)
 * on loopback and `BACKUP_KEY_FILE` outside the volume. An integrator's receiver verifies
 * deliveries with `standardwebhooks`; an operator pauses and resumes claims; a user signs in. The
 * executable is stopped (SIGTERM: it uploads a last generation), the volume is deleted, `fee-ledger
 * restore s3://…` fills an empty one, and the executable starts again on it: the same signing
 * secret verifies new deliveries, the cookie from before answers signed out, and every audit row
 * written before the stop is there with its actor and action.
 *
 * The embedded chain keeps its state in DATA_DIR/chain, which is not backed up (docs/operations.md,
 * "After losing the volume": it is a demo chain): a self-hoster on the embedded defaults who loses
 * the volume comes back to a new, empty chain under the restored books, with the same treasury key
 * (restored from the generation). The restore mark makes the start reconcile with that chain
 * before money moves, and the new chain's history of the treasury does not reach back to the last
 * transaction the books know: money stays halted (`reconciling`, lifted by the reconciliation
 * alone) and sweeps are held, shown as the operator reads it (health, /api/admin/incidents). The
 * demo carries on with new tokens on the new chain. Real money runs on CHAIN=pump, whose chain
 * does not live on the volume; CHAIN=local cannot be pointed at a chain outside it.
 *
 * And a planted newest generation (a plain SQLite file named for 2999 with its own hash, put in
 * the bucket with the store's own keys) is refused by the executable's restore in one line.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { answering, serviceExecutable } from "../helpers/executable";
import type { Json } from "../helpers/service";
import { freePort } from "../helpers/socket";
import { Receiver } from "../webhooks/receiver";
import { s3rverKind, type TestStore } from "../backup/stores";
import { backupKeyFile, BUCKET, dataDir as migratedDataDir, s3Env, setMarker, uniqueSecret } from "../backup/support";

const ADMIN_SECRET = "admin-secret-for-the-binary-volume-loss-0123456789";
const PREFIX = "svc";
const operator = { authorization: `Bearer ${ADMIN_SECRET}`, "content-type": "application/json" };

let work: string;
let binary: string;
let store: TestStore;
let storeSecret: string;
let keyFile: string;
let receiver: Receiver;
let port: number;
let base: string;
let service: Bun.Subprocess<"ignore", "pipe", "pipe"> | null = null;
let output = "";

/** Tests waiting for the service to print something: checked whenever its output grows. */
const outputWaiters: { pattern: RegExp; from: number; resolve: () => void }[] = [];

function outputGrew(): void {
  for (const w of [...outputWaiters])
    if (w.pattern.test(output.slice(w.from))) {
      outputWaiters.splice(outputWaiters.indexOf(w), 1);
      w.resolve();
    }
}

/** Resolves once the service has printed, after output offset `from`, something matching `pattern`. */
function printed(pattern: RegExp, from = 0): Promise<void> {
  if (pattern.test(output.slice(from))) return Promise.resolve();
  return new Promise((resolve) => outputWaiters.push({ pattern, from, resolve }));
}

function collect(stream: ReadableStream<Uint8Array>): void {
  const decoder = new TextDecoder();
  void (async () => {
    for await (const chunk of stream) {
      output += decoder.decode(chunk, { stream: true });
      outputGrew();
    }
  })();
}

/** The store's settings and the backup key, with nothing else of the test's environment. */
function storeEnv(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    ...s3Env(store, storeSecret, { BACKUP_KEY_FILE: keyFile }),
  };
}

/** What the operator sets: the embedded defaults, off-site backups, an admin secret. */
function envOn(dataDir: string): Record<string, string> {
  return {
    PORT: String(port),
    HOST: "127.0.0.1",
    PUBLIC_URL: base,
    DATA_DIR: dataDir,
    LOCAL_CHAIN_RPC_PORT: "0",
    LOCAL_CHAIN_GRPC_PORT: "0",
    ADMIN_SECRET,
    WEBHOOKS_ALLOW_PRIVATE: "1",
    BACKUP_URL: `s3://${BUCKET}/${PREFIX}`,
    ...storeEnv(),
  };
}

/** The executable's service on `dataDir`, answering its health route. */
async function startService(dataDir: string): Promise<void> {
  output = "";
  service = Bun.spawn([binary], { cwd: work, env: envOn(dataDir), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  collect(service.stdout);
  collect(service.stderr);
  await answering(service, `${base}/api/cron/health`, () => output.slice(-3_000), 120_000);
}

/** One of the executable's operator commands, as the operator runs it beside the stopped service. */
async function command(args: string[], env: Record<string, string>) {
  const child = Bun.spawn([binary, ...args], { cwd: work, env, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { exitCode, stdout, stderr };
}

async function json(path: string, init?: RequestInit): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${base}${path}`, init);
  return { status: response.status, body: (await response.json()) as Json };
}

/** Resolves to `read()` once `holds` accepts it; polled, within `timeoutMs`. */
async function until<T>(read: () => Promise<T>, holds: (value: T) => boolean, what: string, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (holds(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms; last: ${JSON.stringify(value)}`);
    await Bun.sleep(200);
  }
}

interface AuditEntry {
  actor: string;
  action: string;
  subject: string | null;
  reason: string | null;
  at: string;
}

const auditTrail = async () =>
  ((await json("/api/admin/audit?limit=500", { headers: operator })).body.entries as AuditEntry[]).map(
    ({ actor, action, subject, reason, at }) => ({ actor, action, subject, reason, at }),
  );

const userSignedIn = async (cookie: string) =>
  (await json("/api/me", { headers: { cookie } })).body.signedIn as boolean;
const adminSignedIn = async (cookie: string) =>
  (await json("/api/admin/session", { headers: { cookie } })).body.signedIn as boolean;

/** Signs in at `path` (same-site, as the page does); the cookie named `name` it sets. */
async function signIn(path: string, body: Json, name: string): Promise<string> {
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
  if (!cookie) throw new Error(`${path} set no ${name} cookie: ${response.headers.getSetCookie().join("; ")}`);
  return cookie.split(";")[0]!;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "cfl-binary-volume-"));
  storeSecret = uniqueSecret();
  // Mounted like the treasury key: outside every volume.
  keyFile = backupKeyFile();
  port = freePort();
  base = `http://127.0.0.1:${port}`;
  receiver = new Receiver().start();
  [store, binary] = await Promise.all([s3rverKind.start(BUCKET, storeSecret), serviceExecutable()]);
}, 240_000);

afterAll(async () => {
  if (service && service.exitCode === null) service.kill("SIGKILL");
  await receiver?.stop();
  await store?.remove();
  rmSync(work, { recursive: true, force: true });
  rmSync(join(keyFile, ".."), { recursive: true, force: true });
});

/** The secrets the service generated on the volume (the local chain's treasury key among them). */
const GENERATED = ["webhooks-key", "master-secret", "treasury.json"] as const;

const EVENT_TYPES = ["launch", "sweep", "payout", "payoutStatus", "burn", "incident"];

/** The embedded chain's answer to a restore mark, as the payouts job reports it. */
const HISTORY_GONE = "the node's history of the treasury does not reach back to the last transaction the books know";

describe("the executable loses its volume and is restored from s3rver alone", () => {
  const volume = () => join(work, "volume");
  let integrator: Webhook;
  let userCookie: string;
  let adminCookie: string;
  let trailBefore: AuditEntry[];
  let secretsBefore: Record<string, string>;

  test("before: deliveries verify at the integrator's receiver, a user and an operator are signed in, the operator's actions are audited", async () => {
    mkdirSync(volume());
    await startService(volume());
    const hook = await json("/api/admin/webhooks", {
      method: "POST",
      headers: operator,
      body: JSON.stringify({ url: receiver.url, reason: "the treasury team's receiver" }),
    });
    expect(hook.status).toBe(200);
    integrator = new Webhook(hook.body.secret);
    for (const [path, reason] of [
      ["claims/pause", "incident 41: pausing claims"],
      ["claims/resume", "incident 41 closed"],
    ] as const) {
      const acted = await json(`/api/admin/${path}`, {
        method: "POST",
        headers: operator,
        body: JSON.stringify({ reason }),
      });
      expect(acted.status).toBe(200);
    }
    userCookie = await signIn("/api/auth/dev-login", { handle: "alice_demo" }, "session");
    adminCookie = await signIn("/api/admin/session", { secret: ADMIN_SECRET }, "admin_session");
    expect(await userSignedIn(userCookie)).toBe(true);
    expect(await adminSignedIn(adminCookie)).toBe(true);

    // The demo's runs (its sweeps) are delivered to the endpoint registered above, signed.
    const [first] = await receiver.waitFor(1, 90_000);
    expect(EVENT_TYPES).toContain((integrator.verify(first!.body, first!.headers) as Json).type);

    trailBefore = await auditTrail();
    expect(trailBefore.map(({ actor, action, reason }) => ({ actor, action, reason })).reverse()).toEqual([
      { actor: "admin-api", action: "create_webhook", reason: "the treasury team's receiver" },
      { actor: "admin-api", action: "pause_claims", reason: "incident 41: pausing claims" },
      { actor: "admin-api", action: "resume_claims", reason: "incident 41 closed" },
      { actor: "admin-page", action: "admin_sign_in", reason: null },
    ]);
  }, 180_000);

  test("SIGTERM: it uploads a last generation to the store and exits 0", async () => {
    const from = output.length;
    service!.kill("SIGTERM");
    expect(await service!.exited).toBe(0);
    const stop = output.slice(from);
    const generation = /"msg":"backup uploaded","generation":"(\d{8}T\d{9}Z-[0-9a-f]{16})"/.exec(stop)?.[1];
    expect(generation).toBeDefined();
    expect(stop.indexOf('"msg":"shutting down"')).toBeLessThan(stop.indexOf('"msg":"backup uploaded"'));
    expect(store.keys()).toContain(`${PREFIX}/${generation}.db`);
    expect(stop).not.toMatch(/"level":"error"/);
  }, 60_000);

  test("the volume is lost; `fee-ledger restore s3://…` fills an empty one from the store alone", async () => {
    secretsBefore = Object.fromEntries(GENERATED.map((name) => [name, readFileSync(join(volume(), name), "utf8")]));
    expect(existsSync(join(volume(), "chain"))).toBe(true);
    rmSync(volume(), { recursive: true, force: true });
    mkdirSync(volume());

    const restored = await command(["restore", `s3://${BUCKET}/${PREFIX}`], { ...storeEnv(), DATA_DIR: volume() });
    expect(restored.stderr).toBe("");
    expect(restored.exitCode).toBe(0);
    expect(restored.stdout).toMatch(
      new RegExp(
        `^restored s3://${BUCKET}/${PREFIX}/\\d{8}T\\d{9}Z-[0-9a-f]{16} to ${join(volume(), "service.db")}; webhooks-key, master-secret, treasury.json written back into DATA_DIR\\n$`,
      ),
    );
    expect(Object.fromEntries(GENERATED.map((name) => [name, readFileSync(join(volume(), name), "utf8")]))).toEqual(
      secretsBefore,
    );
    // The demo chain's state is not in the generation: the restored books face a new chain.
    expect(existsSync(join(volume(), "chain"))).toBe(false);
  }, 60_000);

  test("after: new deliveries verify with the secret the integrator was given before the loss", async () => {
    const before = receiver.received.length;
    await startService(volume());
    // The demo launches its tokens again on the new chain: events that exist only after the restore.
    const launched = await until(
      async () => receiver.received.slice(before).map((d) => integrator.verify(d.body, d.headers) as Json),
      (events) => events.some((event) => event.type === "launch"),
      "a launch delivered after the restore",
    );
    expect(launched.length).toBeGreaterThan(0);
  }, 180_000);

  test("after: the cookies from before answer signed out", async () => {
    expect(await userSignedIn(userCookie)).toBe(false);
    expect(await adminSignedIn(adminCookie)).toBe(false);
  });

  test("after: the audit trail holds every row written before the stop, with its actor, action and time", async () => {
    const trail = await auditTrail();
    // Newest first: the rows from before the loss are the oldest.
    expect(trail.slice(-trailBefore.length)).toEqual(trailBefore);
  });

  test("after: the start reconciles with the chain before money moves; the embedded chain's history is gone, so money stays halted", async () => {
    const health = await until(
      () => json("/api/cron/health"),
      (r) => r.body.jobs.find((j: Json) => j.job === "payouts")?.lastError === HISTORY_GONE,
      "the payouts job's reconciliation to fail on the new chain",
    );
    expect(health.body.ok).toBe(false);
    expect(health.body.halted.kind).toBe("reconciling");
    expect(health.body.reconciliation).toMatchObject({ reason: "restore", finishedAt: null });
    // The operator's view says the same (a `reconciling` halt is lifted by the reconciliation alone).
    const incidents = await json("/api/admin/incidents", { headers: operator });
    expect(incidents.body.halted.kind).toBe("reconciling");
    expect(incidents.body.reconciliation).toMatchObject({ reason: "restore", finishedAt: null });
    // Sweeps wait with the rest: nothing the restored books know is sent again on the new chain.
    await printed(/"msg":"sweep run"[^\n]*"held":true/);

    service!.kill("SIGTERM");
    expect(await service!.exited).toBe(0);
  }, 180_000);
});

describe("a planted newest generation", () => {
  test("a plain SQLite copy named for 2999 with its own hash is refused by `fee-ledger restore s3://…` in one line, and nothing is restored", async () => {
    const books = migratedDataDir();
    try {
      setMarker(books, "genuine");
      const genuine = await command(["backup", `s3://${BUCKET}/planted`], { ...storeEnv(), DATA_DIR: books });
      expect(genuine).toMatchObject({ exitCode: 0, stderr: "" });
      const genuineName = /\/(\d{8}T\d{9}Z-[0-9a-f]{16}) /.exec(genuine.stdout)![1]!;

      const plainFile = join(work, "plain.db");
      expect((await command(["backup", plainFile], { ...storeEnv(), DATA_DIR: books })).exitCode).toBe(0);
      const bytes = new Uint8Array(readFileSync(plainFile));
      const planted = `29991231T235959999Z-${new Bun.CryptoHasher("sha256").update(bytes).digest("hex").slice(0, 16)}`;
      // With the bucket's own keys, as anyone holding them (the service's among them) can.
      await store.put(`planted/${planted}.db`, bytes);

      const empty = join(work, "planted-volume");
      mkdirSync(empty);
      const restore = await command(["restore", `s3://${BUCKET}/planted`], { ...storeEnv(), DATA_DIR: empty });
      expect(restore.exitCode).not.toBe(0);
      expect(restore.stdout).toBe("");
      expect(restore.stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(restore.stderr).toStartWith(
        `restore: refused s3://${BUCKET}/planted/${planted}: it does not open with the key in BACKUP_KEY_FILE`,
      );
      expect(restore.stderr).toContain(`the next newest is s3://${BUCKET}/planted/${genuineName}`);
      expect(readdirSync(empty)).toEqual([]);
    } finally {
      rmSync(books, { recursive: true, force: true });
    }
  }, 90_000);
});
