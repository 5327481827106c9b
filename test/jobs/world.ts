/**
 * A money world for kill-and-restart, fault and concurrency tests. The local chain runs in the
 * test process (it lives in the process that started it); the jobs run in child processes
 * (fixtures/job-worker.ts, compiled once per state of the sources: test/helpers/executable.ts)
 * that reach it over JSON-RPC with the production adapter, sharing the database file, the master
 * secret, the treasury key and the program seed. A child can be SIGKILLed at any crash point and
 * another started on the same database.
 *
 * Checks read the chain directly from the node (balances, transaction records, mint supply), so
 * they do not trust the code under test.
 */
import { Keypair, PublicKey } from "@solana/web3.js";
import { expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase, type Db } from "../../db/client";
import { recordSignIn, setRouting } from "../../src/identity/identity";
import { deriveCreatorKeypair } from "../../src/chain/keys";
import { startLocalChain, type LocalChain } from "@fee-ledger/localnet";
import { createRpcChain } from "../../src/chain/rpc";
import type { LaunchProgram } from "../../src/chain/ports";
import { ledgerTotals } from "../../src/ledger/figures";
import { verifyLedger } from "../../src/ledger/verify";
import { computeStats } from "../../src/stats/service";
import type { ChainServices } from "../../src/chain/services";
import { loadConfig } from "../../src/config";
import type { JobName } from "../../src/jobs/names";
import { Scheduler, type RunResult } from "../../src/jobs/scheduler";
import { registerMoneyJobs } from "./fixtures/bodies";
import { launchOnLocalChain } from "../helpers/launch";
import { jobWorkerExecutable } from "../helpers/executable";
import { localLaunchProgram } from "../../src/chain/setup";

interface WorkerRun {
  exitCode: number | null;
  signalCode: string | null;
  results: {
    job: string;
    ran: boolean;
    ok?: boolean;
    error?: string | null;
    reason?: string;
    startedAt: number;
    finishedAt: number;
    holder: string;
  }[];
  stderr: string;
}

interface WorkerOptions {
  jobs: string[];
  crashAt?: string;
  runs?: number;
  env?: Record<string, string>;
  timeoutMs?: number;
}

export interface Token {
  mint: string;
  tokenId: number;
  creator: string;
  creatorIndex: number;
}

export interface World {
  dir: string;
  dbPath: string;
  db: Db;
  local: LocalChain;
  treasury: Keypair;
  launchProgram: LaunchProgram;
  launch(recipients: { handle: string; bps: number }[], platformBps?: number): Token;
  trade(mint: string, lamports: bigint): void;
  signIn(
    id: string,
    handle: string,
    routing?: { routing: "hold" | "autopay" | "burn"; wallet?: string | null; declined?: boolean },
  ): void;
  worker(options: WorkerOptions): Promise<WorkerRun>;
  /** runs one job in this process, under its lease, as the service would (setup steps) */
  run(
    job: JobName,
    env?: Record<string, string>,
    settle?: {
      settleTimeoutMs?: number;
      settlePollMs?: number;
      resolveBatchSize?: number;
      readBatchSize?: number;
      sendChunkTokens?: number;
    },
  ): Promise<RunResult>;
  chain: ChainServices;
  /** starts a worker without waiting: the caller awaits `done` */
  spawnWorker(options: WorkerOptions): { done: Promise<WorkerRun>; kill(): void };
  treasuryLamports(): bigint;
  /** network fees the treasury paid for these signatures (only those that landed) */
  feesOf(signatures: readonly string[]): bigint;
  landed(signature: string): { ok: boolean; err: unknown } | null;
  unswept(tokens: readonly Token[]): Promise<Map<string, bigint>>;
  mintSupply(mint: string): bigint;
  /** verifyLedger plus SPEC's stats relations; returns the stats totals */
  checkRelations(): ReturnType<typeof ledgerTotals>;
  close(): Promise<void>;
}

export async function moneyWorld(options: { slotMs?: number; rpcTimeoutMs?: number } = {}): Promise<World> {
  const worker = await jobWorkerExecutable();
  const dir = mkdtempSync(join(tmpdir(), "cfl-money-"));
  const dbPath = join(dir, "service.db");
  const treasury = Keypair.generate();
  const seed = crypto.getRandomValues(new Uint8Array(32));
  const master = crypto.getRandomValues(new Uint8Array(32));
  const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
  const local = await startLocalChain({
    rpcPort: 0,
    grpcPort: 0,
    slotMs: options.slotMs ?? 10,
    treasury,
    programSeed: seed,
  });
  const db = openDatabase(dbPath);
  const rpc = createRpcChain({
    rpcUrl: local.rpcUrl,
    timeoutMs: options.rpcTimeoutMs ?? 10_000,
    retries: 3,
    backoffBaseMs: 50,
    allowNodeCosigners: true,
  });
  const launchProgram = localLaunchProgram(local, rpc.reader);
  const chain: ChainServices = {
    reader: rpc.reader,
    sender: rpc.sender,
    launchProgram,
    treasury,
    creatorKeypair: (index) => deriveCreatorKeypair(master, index),
    creatorAddress: (index) => deriveCreatorKeypair(master, index).publicKey,
  };
  const trader = Keypair.generate();
  local.node.fund(trader.publicKey, 100_000_000_000_000n);
  let nextIndex = 1;
  const children = new Set<ReturnType<typeof Bun.spawn>>();

  const baseEnv = {
    DB_PATH: dbPath,
    RPC_URL: local.rpcUrl,
    PROGRAM_SEED: hex(seed),
    MASTER_SECRET: hex(master),
    TREASURY_KEY: JSON.stringify([...treasury.secretKey]),
    NODE_ENV: "test",
  };

  const spawnWorker = (o: WorkerOptions) => {
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      ...baseEnv,
      JOBS: o.jobs.join(","),
      RUNS: String(o.runs ?? 1),
      ...o.env,
    };
    delete env.CRASH_AT;
    if (o.crashAt) env.CRASH_AT = o.crashAt;
    const child = Bun.spawn([worker], { env, stdout: "pipe", stderr: "pipe" });
    children.add(child);
    const timer = setTimeout(() => child.kill("SIGKILL"), o.timeoutMs ?? 60_000);
    const done = (async (): Promise<WorkerRun> => {
      const [stdout, stderr] = await Promise.all([
        new Response(child.stdout).text(),
        new Response(child.stderr).text(),
      ]);
      await child.exited;
      clearTimeout(timer);
      children.delete(child);
      const results = stdout
        .split("\n")
        .filter((l) => l.startsWith("RESULT "))
        .map((l) => JSON.parse(l.slice(7)));
      return {
        exitCode: child.exitCode,
        signalCode: child.signalCode === null ? null : String(child.signalCode),
        results,
        stderr,
      };
    })();
    return { done, kill: () => child.kill("SIGKILL") };
  };

  const world: World = {
    dir,
    dbPath,
    db,
    local,
    treasury,
    launchProgram,
    launch(recipients, platformBps = 1000) {
      const creatorIndex = nextIndex++;
      const creator = deriveCreatorKeypair(master, creatorIndex).publicKey.toBase58();
      const launched = launchOnLocalChain(
        db,
        { local, launchProgram },
        { creatorIndex, creator, platformBps, recipients },
      );
      return { ...launched, creatorIndex };
    },
    trade(mint, lamports) {
      const result = local.launch.buy({ mint, buyer: trader, solInLamports: lamports });
      expect((result as { err: unknown }).err ?? null).toBeNull();
    },
    signIn(id, handle, routing) {
      recordSignIn(db, { idpUserId: id, displayHandle: handle, name: handle, avatarUrl: "", followers: 0 }, Date.now());
      if (routing)
        setRouting(db, id, {
          routing: routing.routing,
          payoutWallet: routing.wallet ?? null,
          declined: routing.declined ?? false,
        });
    },
    spawnWorker,
    worker: (o) => spawnWorker(o).done,
    chain,
    async run(job, env = {}, settle = {}) {
      const config = loadConfig({
        DATA_DIR: dir,
        JOBS: "0",
        DEMO: "0",
        // Long enough that a run on a loaded machine (four test files at once on two cores) keeps
        // its lease; a killed worker's lease (its own, short) is what takeover tests wait out.
        JOB_LEASE_MS: "10000",
        SWEEP_MIN_LAMPORTS: "1",
        AUTOPAY_MIN_LAMPORTS: "1000",
        ...env,
      });
      const scheduler = new Scheduler(db, { leaseMs: config.jobLeaseMs });
      registerMoneyJobs(scheduler, { db, chain, config, ...settle });
      const deadline = Date.now() + 30_000;
      for (;;) {
        const result = await scheduler.runNow(job);
        if (result.ran || result.reason !== "busy" || Date.now() > deadline) {
          await scheduler.stop();
          return result;
        }
        await Bun.sleep(100);
      }
    },
    treasuryLamports: () => local.node.getBalance(treasury.publicKey),
    feesOf(signatures) {
      let fees = 0n;
      for (const s of new Set(signatures)) fees += local.node.getTransaction(s)?.feeLamports ?? 0n;
      return fees;
    },
    landed(signature) {
      const r = local.node.getTransaction(signature);
      return r ? { ok: r.err === null, err: r.err } : null;
    },
    async unswept(tokens) {
      const readings = await launchProgram.readVaults(tokens);
      return new Map(readings.map((r) => [r.mint, r.curveLamports + r.poolLamports + r.creatorLamports]));
    },
    mintSupply(mint) {
      const acc = local.node.getAccount(new PublicKey(mint));
      if (!acc) return 0n;
      return new DataView(acc.data.buffer, acc.data.byteOffset + 36, 8).getBigUint64(0, true);
    },
    checkRelations() {
      verifyLedger(db);
      const t = ledgerTotals(db);
      const stats = computeStats(db, Date.now());
      // The route's figures are the books' figures, as decimal strings.
      expect(stats.sweptLamports).toBe(t.sweptLamports.toString());
      expect(stats.paidLamports).toBe(t.paidLamports.toString());
      expect(stats.burnedLamports).toBe(t.burnedLamports.toString());
      expect(stats.owedLamports).toBe(t.owedLamports.toString());
      expect(stats.unclaimedLamports).toBe(t.unclaimedLamports.toString());
      // SPEC Stats relations: owed - unclaimed is what was claimed or routed to a burn and has not
      // left the treasury (payouts queued or in flight, burn orders waiting for their buy).
      const inFlight = db.$client
        .query("SELECT COALESCE(SUM(lamports), 0) AS s FROM payouts WHERE status IN ('held', 'queued', 'sent')")
        .get() as { s: bigint };
      const burnWaiting = db.$client
        .query(
          "SELECT COALESCE(SUM(lamports), 0) AS s FROM burn_orders WHERE source = 'recipient' AND status IN ('pending', 'buying')",
        )
        .get() as { s: bigint };
      expect(t.owedLamports - t.unclaimedLamports).toBe(BigInt(inFlight.s) + BigInt(burnWaiting.s));
      expect(t.unclaimedLamports).toBeGreaterThanOrEqual(0n);
      // Rent held in accounts the treasury owns came from the platform or the float it fronted.
      expect(t.sweptLamports + t.floatFrontedLamports).toBe(
        t.owedLamports +
          t.paidLamports +
          t.burnedLamports +
          t.platformLamports +
          t.buybackPendingLamports +
          t.rentLamports +
          t.withdrawnLamports +
          t.withdrawalPendingLamports,
      );
      // Confirmed payouts are the paid figure; sweeps' totals are the swept figure.
      const paid = db.$client
        .query("SELECT COALESCE(SUM(lamports), 0) AS s FROM payouts WHERE status = 'confirmed'")
        .get() as { s: bigint };
      expect(t.paidLamports).toBe(BigInt(paid.s));
      const swept = db.$client
        .query("SELECT COALESCE(SUM(total_lamports), 0) AS s FROM sweeps WHERE status = 'confirmed'")
        .get() as { s: bigint };
      expect(t.sweptLamports).toBe(BigInt(swept.s));
      return t;
    },
    async close() {
      for (const child of children) child.kill("SIGKILL");
      await Promise.all([...children].map((c) => c.exited));
      closeDatabase(db);
      await local.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return world;
}

/** Every signature a table holds (sweeps, payouts, burn buys and burns). */
export function signaturesOf(db: Db, table: "sweeps" | "payouts" | "burn_buys" | "liability_snapshots"): string[] {
  const col =
    table === "burn_buys"
      ? "signature AS s FROM burn_buys UNION SELECT burn_signature AS s FROM burn_buys"
      : table === "liability_snapshots"
        ? "anchor_signature AS s FROM liability_snapshots"
        : `signature AS s FROM ${table}`;
  return (db.$client.query(`SELECT ${col}`).all() as { s: string | null }[])
    .map((r) => r.s)
    .filter((s): s is string => !!s);
}
