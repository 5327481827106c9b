/**
 * Lose the volume, lose nothing (issue 49), end to end on `npm start`'s local chain, whose state
 * survives the service's restarts: a backup is taken while the demo runs; claims, autopay, sweeps
 * and burns go on; the service stops; the old backup is restored; the service starts again (and is
 * killed once in the middle of its reconciliation, then started again). Nothing is sent that was
 * not needed, every wallet holds what it was paid once, every account's balance is what it was
 * before the restore, the stats and the proof of reserves agree with it, and the books audit.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Connection, Keypair, PublicKey } from "@solana/web3.js";
import { Database } from "bun:sqlite";
import { closeDatabase, openDatabase } from "../../db/client";
import { verifyLedger } from "../../src/ledger/verify";
import { freePortsSync } from "../helpers/socket";
import { appendTail, followStderr } from "../helpers/stderr";
import { answering, serviceExecutable } from "../helpers/executable";

const ROOT = join(import.meta.dir, "..", "..");
const dataDir = mkdtempSync(join(tmpdir(), "cfl-restore-e2e-"));
const backupPath = join(dataDir, "..", `${dataDir.split("/").pop()}-backup.db`);
// The RPC port and the next (its WebSocket), then the HTTP port: one pick, so they cannot overlap.
const [rpcPort, , httpPort] = freePortsSync(3) as [number, number, number];
const ports = { http: httpPort, rpc: rpcPort };
const base = `http://127.0.0.1:${ports.http}`;
const rpcUrl = `http://127.0.0.1:${ports.rpc}`;
const CLAIM_LAMPORTS = 10_000_000n;
/** Set for the service, so that `settled()` knows when an autopay is due. */
const AUTOPAY_MIN_LAMPORTS = 10_000_000n;
/** No trading and no new sweeps (what was sent still resolves): the books can stand still. */
const QUIET = { DEMO: "0", SWEEP_SCHEDULE: "*/2 * * * * *", SWEEP_MIN_LAMPORTS: "1000000000000000" };

let child: ReturnType<typeof Bun.spawn> | null = null;
/** The last characters the service wrote to stderr (STDERR_TAIL_CHARS), to explain a failed wait. */
let stderrTail = "";

function env(extra: Record<string, string>): Record<string, string> {
  const inherited: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) inherited[k] = v;
  delete inherited.CRASH_AT;
  return {
    ...inherited,
    DATA_DIR: dataDir,
    PORT: String(ports.http),
    PUBLIC_URL: base,
    LOCAL_CHAIN_RPC_PORT: String(ports.rpc),
    LOCAL_CHAIN_GRPC_PORT: "0",
    LOCAL_CHAIN_SLOT_MS: "100",
    PAYOUTS_SCHEDULE: "*/2 * * * * *",
    BURNS_SCHEDULE: "*/3 * * * * *",
    RATE_LIMIT: "0",
    AUTOPAY_MIN_LAMPORTS: String(AUTOPAY_MIN_LAMPORTS),
    LOG_LEVEL: "warn",
    // A killed process's job leases lapse in seconds, so the next start takes over soon.
    JOB_LEASE_MS: "5000",
    ...extra,
  };
}

async function start(extra: Record<string, string> = {}): Promise<ReturnType<typeof Bun.spawn>> {
  const started = Bun.spawn([await serviceExecutable()], { env: env(extra), stdout: "ignore", stderr: "pipe" });
  // One tail across the starts: a failure right after a restart may have its cause in the last one.
  followStderr(started.stderr, (text) => {
    stderrTail = appendTail(stderrTail, text);
  });
  child = started;
  return started;
}

async function stop(): Promise<void> {
  if (!child) return;
  child.kill("SIGTERM");
  await child.exited;
  child = null;
}

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value !== null) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; the service's stderr ended with:\n${stderrTail}`);
    await Bun.sleep(300);
  }
}

const get = async (path: string) => (await fetch(`${base}${path}`)).json() as Promise<Record<string, unknown>>;

async function signIn(handle: string): Promise<string> {
  const res = await fetch(`${base}/api/auth/dev-login`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify({ handle }),
  });
  if (res.status >= 400)
    throw new Error(`dev login as ${handle}: ${res.status}; the service's stderr ended with:\n${stderrTail}`);
  return (res.headers.get("set-cookie") ?? "").split(";")[0]!;
}

async function post(path: string, cookie: string, body: unknown): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base, cookie },
    body: JSON.stringify(body),
  });
}

async function balanceOf(handle: string): Promise<bigint> {
  return BigInt(((await get(`/api/idp/${handle}`)) as { balanceLamports: string }).balanceLamports);
}

async function script(name: string, ...args: string[]): Promise<number> {
  const run = Bun.spawn([process.execPath, "run", join(ROOT, "scripts", `${name}.ts`), ...args], {
    env: env({}),
    stdout: "ignore",
    stderr: "ignore",
  });
  return run.exited;
}

/** Reads from the database file beside the running service. */
function reading<T>(read: (db: Database) => T): T {
  const db = new Database(join(dataDir, "service.db"), { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

const count = (sql: string): number => reading((db) => Number((db.query(sql).get() as { n: number }).n));

/**
 * What keeps the books from standing still: rows queued or in flight, and an autopay due but not
 * queued yet. A sweep's credit makes alice's autopay due, and the payouts job queues it only at
 * its next run: stats read in between count as owed what is about to be paid, and the books after
 * the restore (rightly) count it paid. A CI run read them there (paid 31,232,790 lamports more
 * after the restore than before, all of it alice's autopay); with the payouts job slowed to every
 * 30 s, it happens on every run unless this waits for the autopay too.
 */
const OPEN_ROWS = `
  SELECT 'payout ' || id || ' ' || status AS row FROM payouts WHERE status IN ('held', 'queued', 'sent')
  UNION ALL SELECT 'burn_buy ' || id || ' ' || status FROM burn_buys WHERE status IN ('sent', 'bought', 'burning')
  UNION ALL SELECT 'burn_order ' || id || ' ' || status FROM burn_orders WHERE status <> 'done'
  UNION ALL SELECT 'sweep ' || id || ' ' || status FROM sweeps WHERE status = 'sent'
  UNION ALL SELECT 'autopay due ' || i.idp_user_id || ' ' || a.balance FROM identities i
    JOIN ledger_accounts a ON a.kind = 'user' AND a.ref = i.idp_user_id
   WHERE i.routing = 'autopay' AND i.payout_wallet IS NOT NULL AND a.balance >= ${AUTOPAY_MIN_LAMPORTS}`;

/**
 * The rows `OPEN_ROWS` names. Only empty once the demo stops trading: while it trades, every sweep
 * run sends sweeps and makes burn orders for bob, so the whole service is rarely quiet.
 */
function inFlight(): string[] {
  return reading((db) => (db.query(OPEN_ROWS).all() as { row: string }[]).map((r) => r.row));
}

const settled = (): boolean => inFlight().length === 0;

/** Waits until `settled()`; a timeout names the rows still open. */
async function untilSettled(what: string, timeoutMs: number): Promise<void> {
  try {
    await until(what, timeoutMs, async () => (settled() ? true : null));
  } catch (error) {
    throw new Error(`${(error as Error).message}\nstill open: ${inFlight().join(", ") || "nothing"}`);
  }
}

/** No payout queued or in flight (claims and autopay), while sweeps and burns go on. */
async function payoutsSettled(confirmedAtLeast: number): Promise<boolean> {
  const open = count(`SELECT COUNT(*) AS n FROM payouts WHERE status IN ('held', 'queued', 'sent')`);
  const confirmed = count(`SELECT COUNT(*) AS n FROM payouts WHERE status = 'confirmed'`);
  return open === 0 && confirmed >= confirmedAtLeast;
}

interface Books {
  balances: Record<string, string>;
  payouts: string[];
  treasurySignatures: number;
}

/** The books as the database file holds them (the service stopped). */
function books(): Omit<Books, "treasurySignatures"> {
  const db = openDatabase(join(dataDir, "service.db"));
  try {
    verifyLedger(db);
    const rows = db.$client.query("SELECT kind, ref, balance FROM ledger_accounts ORDER BY kind, ref").all() as {
      kind: string;
      ref: string;
      balance: bigint;
    }[];
    const payouts = db.$client.query("SELECT id, status, signature FROM payouts ORDER BY id").all() as {
      id: bigint;
      status: string;
      signature: string | null;
    }[];
    return {
      balances: Object.fromEntries(rows.map((r) => [`${r.kind}:${r.ref}`, String(r.balance)])),
      payouts: payouts.map((p) => `${p.id}:${p.status}:${p.signature}`),
    };
  } finally {
    closeDatabase(db);
  }
}

afterAll(async () => {
  await stop();
  if (process.env.KEEP_DATA) console.log(`kept ${dataDir}`);
  else {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(backupPath, { force: true });
  }
});

test("a restore of an older backup is reconciled with the chain before money moves", async () => {
  await answering(await start(), `${base}/api/stats`, () => stderrTail);
  const wallets = { alice: Keypair.generate().publicKey.toBase58(), carol: Keypair.generate().publicKey.toBase58() };
  const alice = await signIn("alice_demo");
  const bob = await signIn("bob_demo");
  const carol = await signIn("carol_demo");
  expect((await post("/api/routing", alice, { routing: "autopay", wallet: wallets.alice })).status).toBe(200);
  expect((await post("/api/routing", bob, { routing: "burn" })).status).toBe(200);
  const claim = async () => {
    await until("carol's balance", 120_000, async () =>
      (await balanceOf("carol_demo")) >= CLAIM_LAMPORTS ? true : null,
    );
    const res = await post("/api/claim", carol, { wallet: wallets.carol, lamports: CLAIM_LAMPORTS.toString() });
    expect(res.status).toBe(200);
  };
  await claim();
  // The backup is taken with sweeps and burns possibly in flight (the restore follows them up), but
  // with no payout in flight, so carol's first claim is in it as paid.
  await until("the first claim paid", 120_000, async () => ((await payoutsSettled(1)) ? true : null));
  expect(await script("backup", backupPath)).toBe(0);

  // After the backup: another claim, autopay, sweeps and burns while the demo trades.
  await claim();
  await until("autopay and burns since the backup", 180_000, async () => {
    const { events } = (await get("/api/ledger?limit=100")) as { events: { type: string; handle?: string }[] };
    const autopaid = events.some((e) => e.type === "payout" && e.handle === "alice_demo");
    const burned = events.some((e) => e.type === "burn");
    return autopaid && burned ? true : null;
  });
  // The demo stops trading for the rest: the books can then stand still.
  await stop();
  await answering(await start(QUIET), `${base}/api/stats`, () => stderrTail);
  await untilSettled("everything in flight settled", 120_000);
  // Stats and the proof are memoised for seconds: read figures counted after the books stood still.
  const settledAtMs = Date.now();
  const fresh = (at: unknown) => Date.parse(String(at)) >= settledAtMs;
  const stats = await until("stats counted after that", 30_000, async () => {
    const s = await get("/api/stats");
    return fresh(s.updatedAt) ? s : null;
  });
  const proof = await until("a proof checked after that", 30_000, async () => {
    const p = await get("/api/proof");
    return fresh(p.checkedAt) ? p : null;
  });
  await stop();
  const before = books();
  const chain = new Connection(rpcUrl, "confirmed");

  expect(await script("restore", backupPath)).toBe(0);
  // Killed in the middle of its reconciliation, then started again.
  const killed = await start({ ...QUIET, CRASH_AT: "reconcile:after-write@2" });
  await killed.exited;
  expect(killed.signalCode).toBe("SIGKILL");
  await start(QUIET);
  let lastHealth: unknown = null;
  await until("the reconciliation done", 120_000, async () => {
    const health = (await get("/api/cron/health")) as { reconciliation?: { status: string }; halted: unknown };
    lastHealth = health;
    return health.reconciliation?.status === "done" && health.halted === null ? health : null;
  }).catch((error) => {
    throw new Error(`${(error as Error).message}: ${JSON.stringify(lastHealth)}`);
  });
  await untilSettled("everything settled after it", 60_000);
  // Stats and the proof of reserves (the same owed figure, still covered) agree with what they said
  // before the restore, once their figures are recounted; the treasury paid network fees since (a
  // liabilities anchor of the reconciled books), nothing more.
  const fields = {
    stats: ["owedLamports", "paidLamports", "sweptLamports", "burnedLamports", "unclaimedLamports"],
    proof: ["owedLamports", "solvent"],
  };
  const same = (a: Record<string, unknown>, b: Record<string, unknown>, keys: string[]) =>
    keys.every((k) => a[k] === b[k]);
  let seen: unknown = null;
  await until("the stats and the proof as before", 60_000, async () => {
    const [statsNow, proofNow] = await Promise.all([get("/api/stats"), get("/api/proof")]);
    seen = { statsNow, proofNow };
    return same(statsNow, stats, fields.stats) && same(proofNow, proof, fields.proof) ? true : null;
  }).catch((error) => {
    throw new Error(`${(error as Error).message}: ${JSON.stringify({ seen, stats, proof })}`);
  });
  const treasuryAfter = BigInt((await get("/api/proof")).treasuryLamports as string);
  const treasuryBefore = BigInt(proof.treasuryLamports as string);
  expect(treasuryAfter <= treasuryBefore && treasuryBefore - treasuryAfter < 100_000n).toBe(true);
  const paid = before.payouts.filter((p) => p.includes(":confirmed:")).length;
  expect(paid).toBeGreaterThanOrEqual(3);
  expect(BigInt(await chain.getBalance(new PublicKey(wallets.carol)))).toBe(2n * CLAIM_LAMPORTS);
  await stop();
  expect(books()).toEqual(before);
}, 600_000);
