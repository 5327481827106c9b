/**
 * Strangers and hand rollbacks through HTTP only, on `npm start`'s demo chain (issue 61, items 1
 * and 3). A stranger sends three transfers a second to the treasury while a demo recipient claims:
 * the claim still goes out with the next payouts run (dust is surplus, it never holds money). Then the data
 * folder's database is copied back by hand to a copy taken before that claim (no restore marker,
 * as a volume snapshot put back leaves none) and the service runs with JOBS=off, driven by the
 * cron route, sweeps first: everything that reached the claimant's wallet is booked as paid, once.
 */
import { afterAll, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { Connection, Keypair, LAMPORTS_PER_SOL, PublicKey, SystemProgram, Transaction } from "@solana/web3.js";
import { overHttp, runJob } from "../helpers/cron";
import { answering, serviceExecutable } from "../helpers/executable";
import { freePortsSync } from "../helpers/socket";
import { appendTail, followStderr } from "../helpers/stderr";

const dataDir = mkdtempSync(join(tmpdir(), "cfl-rollback-e2e-"));
const dbPath = join(dataDir, "service.db");
const copyPath = join(dataDir, "..", `${dataDir.split("/").pop()}-copy.db`);
const [rpcPort, , httpPort] = freePortsSync(3) as [number, number, number];
const base = `http://127.0.0.1:${httpPort}`;
const rpcUrl = `http://127.0.0.1:${rpcPort}`;
const CRON = "rollback-cron-secret-0123456789abcdef0123";
const CLAIM_LAMPORTS = 10_000_000n;

let child: ReturnType<typeof Bun.spawn> | null = null;
let stderrTail = "";

function env(extra: Record<string, string>): Record<string, string> {
  const inherited: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) inherited[k] = v;
  delete inherited.CRASH_AT;
  return {
    ...inherited,
    DATA_DIR: dataDir,
    PORT: String(httpPort),
    PUBLIC_URL: base,
    LOCAL_CHAIN_RPC_PORT: String(rpcPort),
    LOCAL_CHAIN_GRPC_PORT: "0",
    LOCAL_CHAIN_SLOT_MS: "100",
    PAYOUTS_SCHEDULE: "*/2 * * * * *",
    SWEEP_SCHEDULE: "*/3 * * * * *",
    SWEEP_MIN_LAMPORTS: "100000",
    SWEEP_QUIET_MAX_INTERVAL_MS: "0",
    RATE_LIMIT: "0",
    CRON_SECRET: CRON,
    LOG_LEVEL: "warn",
    JOB_LEASE_MS: "5000",
    ...extra,
  };
}

async function start(extra: Record<string, string> = {}): Promise<void> {
  const started = Bun.spawn([await serviceExecutable()], { env: env(extra), stdout: "ignore", stderr: "pipe" });
  followStderr(started.stderr, (text) => {
    stderrTail = appendTail(stderrTail, text);
  });
  child = started;
  await answering(started, `${base}/api/stats`, () => stderrTail);
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
    await Bun.sleep(200);
  }
}

const get = async (path: string) => (await fetch(`${base}${path}`)).json() as Promise<Record<string, unknown>>;

async function signIn(handle: string): Promise<string> {
  const res = await fetch(`${base}/api/auth/dev-login`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify({ handle }),
  });
  expect(res.status).toBeLessThan(400);
  return (res.headers.get("set-cookie") ?? "").split(";")[0]!;
}

async function claim(cookie: string, wallet: string): Promise<void> {
  await until("carol's balance", 120_000, async () => {
    const me = (await get("/api/idp/carol_demo")) as { balanceLamports: string };
    return BigInt(me.balanceLamports) >= CLAIM_LAMPORTS ? true : null;
  });
  const res = await fetch(`${base}/api/claim`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base, cookie },
    body: JSON.stringify({ wallet, lamports: CLAIM_LAMPORTS.toString() }),
  });
  expect(res.status).toBe(200);
}

/** Reads the database file beside the running service. */
function reading<T>(read: (db: Database) => T): T {
  const db = new Database(dbPath, { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

const count = (sql: string): number => reading((db) => Number((db.query(sql).get() as { n: bigint | number }).n));

const confirmedTo = (wallet: string): bigint =>
  reading((db) =>
    BigInt(
      (
        db
          .query("SELECT COALESCE(SUM(lamports), 0) AS n FROM payouts WHERE wallet = ? AND status = 'confirmed'")
          .get(wallet) as { n: bigint | number }
      ).n,
    ),
  );

/** A stranger's 1-lamport-and-up transfers to `to`, three a second, until stopped. */
function trickle(connection: Connection, stranger: Keypair, to: PublicKey): { stop(): Promise<number> } {
  let sent = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const { blockhash } = await connection.getLatestBlockhash("confirmed").catch(() => ({ blockhash: null }));
      if (blockhash) {
        for (let i = 0; i < 3 && running; i++) {
          const tx = new Transaction({ feePayer: stranger.publicKey, recentBlockhash: blockhash }).add(
            SystemProgram.transfer({ fromPubkey: stranger.publicKey, toPubkey: to, lamports: ++sent }),
          );
          tx.sign(stranger);
          await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true }).catch(() => {});
        }
      }
      // The trickle's own pace (three a second), not a wait for a condition.
      await Bun.sleep(1_000);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return sent;
    },
  };
}

afterAll(async () => {
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(copyPath, { force: true });
});

test("dust does not hold a claim; a database copied back by hand books what the chain paid, with JOBS=off", async () => {
  await start();
  // Signed in before the copy: the copy knows carol's account (one it does not know is issue 61's item 9).
  await signIn("carol_demo");
  const wallet = Keypair.generate().publicKey.toBase58();
  // The copy is taken with the service stopped, as a volume snapshot of a stopped container would be.
  await stop();
  copyFileSync(dbPath, copyPath);
  await start();

  const connection = new Connection(rpcUrl, "confirmed");
  const stranger = Keypair.generate();
  await connection.confirmTransaction(
    {
      signature: await connection.requestAirdrop(stranger.publicKey, LAMPORTS_PER_SOL),
      ...(await connection.getLatestBlockhash()),
    },
    "confirmed",
  );
  const treasury = new PublicKey(String((await get("/api/proof")).treasury));
  const trickleFromMs = Date.now();
  const dust = trickle(connection, stranger, treasury);
  try {
    await claim(await signIn("carol_demo"), wallet);
    await until("carol's claim confirmed under the trickle", 180_000, async () =>
      confirmedTo(wallet) >= CLAIM_LAMPORTS ? true : null,
    );
  } finally {
    expect(await dust.stop()).toBeGreaterThan(0);
  }
  // The dust held nothing (on a quiet machine the claim confirms in seconds, the issue asks under a
  // minute; a wall-clock bound would measure the machine's load): no reconciliation started for it,
  // money never halted, and the first payouts run after the claim sent it.
  expect(count(`SELECT COUNT(*) AS n FROM reconciliations WHERE started_at_ms >= ${trickleFromMs}`)).toBe(0);
  expect(count(`SELECT COUNT(*) AS n FROM custody_incidents WHERE halts = 1 AND at_ms >= ${trickleFromMs}`)).toBe(0);
  expect(count("SELECT COUNT(*) AS n FROM treasury_credits")).toBeGreaterThan(0);
  const payout = reading(
    (db) =>
      db.query("SELECT created_at_ms AS queued, sent_at_ms AS sent FROM payouts WHERE wallet = ?").get(wallet) as {
        queued: number;
        sent: number;
      },
  );
  const runsThatLeftItQueued = count(
    `SELECT COUNT(*) AS n FROM job_runs WHERE job = 'payouts' AND ok = 1
      AND started_at_ms > ${payout.queued} AND finished_at_ms < ${payout.sent}`,
  );
  expect(runsThatLeftItQueued).toBe(0);
  const paidOnChain = BigInt(await connection.getBalance(new PublicKey(wallet), "finalized"));
  expect(paidOnChain).toBeGreaterThanOrEqual(CLAIM_LAMPORTS);
  await stop();

  // Copied back by hand: the copy knows nothing of the claim.
  for (const suffix of ["-wal", "-shm"]) rmSync(`${dbPath}${suffix}`, { force: true });
  copyFileSync(copyPath, dbPath);
  expect(confirmedTo(wallet)).toBe(0n);
  await start({ JOBS: "0" });
  const call = overHttp(base);
  // The cron route sweeps first, as often as it likes: each sweep known to the copy would bury
  // the claim's payout deeper in the treasury's history.
  for (let i = 0; i < 30; i++) expect((await runJob(call, "sweep", CRON)).state).toBe("succeeded");
  await until("the copy reconciled by the payouts runs", 180_000, async () => {
    await runJob(call, "payouts", CRON);
    const status = reading(
      (db) =>
        (db.query("SELECT status FROM reconciliations ORDER BY id DESC LIMIT 1").get() as { status: string } | null)
          ?.status,
    );
    return status === "done" ? true : null;
  });
  expect(confirmedTo(wallet)).toBe(paidOnChain);
  expect(BigInt(await connection.getBalance(new PublicKey(wallet), "finalized"))).toBe(paidOnChain);
}, 600_000);
