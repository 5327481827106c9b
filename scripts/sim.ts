/**
 * The seeded, deterministic simulation of the money engine under a hostile chain.
 *
 *   bun run sim -- --seeds 200            seeds 1..200
 *   bun run sim -- --seed 1234            one seed, its trace printed
 *   bun run sim -- --seeds 50 --steps 80  longer schedules
 *
 * Each seed builds its own world in-process: the local chain (LiteSVM node, its JSON-RPC answered
 * through the in-process transport, so every hostile rule of faults.ts applies), a fresh database,
 * the production chain client (src/chain/rpc.ts), and runs the real jobs (sweep, payouts, burns,
 * launches), the indexer's resolution entry points, the claim/routing services and the launch
 * service, driven by a schedule drawn from the seed: user actions (trades, claims, routing changes,
 * autopay, declines, sign-ins, renames, launches: see sim-launches.ts), every fault rule, crashes at
 * the crash points (for the launches job, which has none, at any of its chain reads), lease
 * takeovers, clock jumps (the chain's slots move on with the clock), and in about half the seeds a
 * backup taken early and restored some steps later: the payouts run then reconciles the books with
 * the treasury's history (src/reconcile) under faults, crashes and takeovers, and the books must
 * come out as they were before the restore (see World.restore).
 * Time is virtual: the simulation advances the chain's slots and the jobs' clock itself; the jobs
 * settle without waiting (settleTimeoutMs 0). After every step the invariants are checked against
 * the chain itself; at the end the faults clear and every `sent` item must reach a terminal state.
 *
 * The trace of a seed (actions, outcomes, a hash of the books after each step) is the same on
 * every run: a failing seed prints itself and the one-line command that replays it.
 */
import { createHash } from "node:crypto";
import { Database } from "bun:sqlite";
import { Keypair, PublicKey } from "@solana/web3.js";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { openDatabase, closeDatabase, type Db } from "../db/client";
import * as schema from "../db/schema";
import { freeLeasesOfBackup } from "../src/backup";
import {
  activeReconciliation,
  holdForReconciliation,
  latestReconciliation,
  reconcileWithChain,
  restoredAtMs,
} from "../src/reconcile";
import { recordSignIn, setRouting } from "../src/identity";
import { resolveBurnSignature, runBurnsJob } from "../src/burns";
import { deriveCreatorKeypair } from "../src/chain/keys";
import { ChainFaults, seededRandom, type FaultRule } from "@fee-ledger/localnet";
import { LocalLaunchHelpers } from "@fee-ledger/localnet";
import { LocalNode } from "@fee-ledger/localnet";
import { RpcServer } from "@fee-ledger/localnet";
import { createRpcChain } from "../src/chain/rpc";
import type { ChainServices } from "../src/chain/services";
import { localLaunchProgram } from "../src/chain/setup";
import { loadConfig, type Config } from "../src/config";
import {
  acquireLease,
  assertLeaseHeld,
  CRASH_POINTS,
  type CrashPointName,
  type JobContext,
  releaseLease,
  Scheduler,
  type SchedulingContext,
  setCrashHook,
} from "../src/jobs";
import { accountFigures, ledgerTotals, verifyLedger } from "../src/ledger";
import { isAppError } from "../src/lib/errors";
import { moneyHalt, requestWithdrawal, withdrawableLamports } from "../src/custody";
import { setLogSilent } from "../src/lib/log";
import { queuePayout, resolvePayoutSignature, runPayoutsJob } from "../src/payouts";
import { rebroadcastPass } from "../src/landing";
import { owedForReserves } from "../src/proof";
import { PLATFORM_TOKEN_MINT_KEY, setClaimsPaused } from "../src/settings";
import { resolveSweepSignature, runSweepJob } from "../src/sweeps";
import { recordConfirmedLaunch } from "../src/tokens";
import type { ChainReader } from "../src/chain/ports";
import { RateLimiter } from "../src/http/rate-limit";
import { getIntent, INTENT_WINDOW_MS, LANDING_GRACE_MS, runLaunchesJob, settleIntent } from "../src/launches";
import { createServiceMetrics } from "../src/lib/metrics";
import { describeError, SimInvariantViolation, SimLaunches } from "./sim-launches";

const START_MS = 1_800_000_000_000;
const LEASE_MS = 30_000;
const USERS = 6;
const TOKENS = 3;
const TREASURY_LAMPORTS = 5_000_000_000n;
const JOBS = ["sweep", "payouts", "burns", "launches"] as const;
/** Slots the chain moves on per millisecond of a clock jump (400 ms slots), capped: past 150 every blockhash is dead. */
const SLOT_MS = 400;
const MAX_JUMP_SLOTS = 1_000;
/** Rounds of every job once faults clear; crashes may still hit the first ones. */
const SETTLE_ROUNDS = 16;
const CRASHING_SETTLE_ROUNDS = 5;
/** Rounds of the money jobs after a restore until the reconciliation must be done; faults and crashes in the first ones. */
const RECONCILE_ROUNDS = 16;
const HOSTILE_RECONCILE_ROUNDS = 8;
const MONEY_JOBS = ["sweep", "payouts", "burns"] as const;
/** The reading schedule's longest wait in the odd seeds (a quiet token is read at least this often). */
const QUIET_MAX_INTERVAL_MS = 300_000;
type Job = (typeof JOBS)[number];

export interface SeedResult {
  seed: number;
  ok: boolean;
  steps: number;
  trace: string[];
  /** faults injected by kind (chain rules that fired, crashes, takeovers, clock jumps) */
  faults: Record<string, number>;
  /** crashes and lease takeovers that fired, by mode and point (`crash@payouts:after-send`) */
  crashes: Record<string, number>;
  error?: string;
}

interface MoneyState {
  /** ledger account (kind:ref) -> balance, nonzero ones */
  accounts: Map<string, string>;
  /** confirmed payout id -> user, wallet, amount, signature */
  payouts: Map<string, string>;
  /** confirmed withdrawal id -> wallet, amount, signature */
  withdrawals: Map<string, string>;
  /** wallet -> lamports on chain */
  wallets: Map<string, string>;
}

/** The backup put back as the database the jobs use (what `bun run restore` copies into place). */
function restoredCopy(backup: Uint8Array): Db {
  const client = Database.deserialize(backup, { safeIntegers: true, strict: true });
  client.exec("PRAGMA foreign_keys = ON");
  return drizzle({ client, schema }) as Db;
}

class SimCrash extends Error {
  override readonly name = "SimCrash";
}

const InvariantViolation = SimInvariantViolation;

/** A crash or takeover planned for one job run: at a crash point, or (launches) at its n-th chain read. */
type RunPlan = { point: CrashPointName | "launches:read"; hit: number; mode: "crash" | "takeover" };

/** Where the platform's withdrawals go: one address for every seed (each seed's chain is new). */
const PLATFORM_WALLET = Keypair.fromSeed(new Uint8Array(32).fill(7)).publicKey.toBase58();

let sharedConfig: Config | null = null;
function config(): Config {
  sharedConfig ??= loadConfig({
    DATA_DIR: "/tmp/cfl-sim-unused",
    JOBS: "0",
    DEMO: "0",
    AUTOPAY_MIN_LAMPORTS: "1000000",
    SWEEP_MIN_LAMPORTS: "1000000",
    PLATFORM_BUYBACK_BPS: "5000",
    PLATFORM_WALLET: PLATFORM_WALLET,
  });
  return sharedConfig;
}

/** One seed's world. Everything random is drawn from `rand`, so the seed fixes the whole run. */
class World {
  readonly rand: () => number;
  readonly node: LocalNode;
  readonly faults: ChainFaults;
  readonly rpc: RpcServer;
  db: Db;
  readonly chain: ChainServices;
  readonly launch: LocalLaunchHelpers;
  readonly trader: Keypair;
  readonly deployer: Keypair;
  readonly launchers: Keypair[] = [];
  ctx: SchedulingContext;
  readonly launches: SimLaunches;
  readonly users: { id: string; handle: string; wallet: string; signedIn: boolean }[] = [];
  readonly mints: string[] = [];
  readonly counts: Record<string, number> = {};
  /** crashes and takeovers that fired, by point */
  readonly crashes: Record<string, number> = {};
  nowMs = START_MS;
  paused = false;
  private handleSerial = 0;
  /** called before every chain read the service makes (crashes and takeovers of the launches job) */
  private interrupt: (() => void) | null = null;
  /** the process "died" at a crash: every chain read from here on fails until the run is over */
  private dead = false;

  /** the faults have cleared and the jobs run until everything sent is terminal */
  private settling = false;
  /**
   * The copy of the books a restore will put back (taken between two steps, as a backup is), and
   * the steps it is taken and restored at. While it is held, the actions whose effects a restore
   * loses by design and the reconciliation cannot find on chain (sign-ins and renames, which pin
   * handles; routing changes; launches; the claims pause) are not drawn: see restore().
   */
  private backup: Uint8Array | null = null;
  private restorePlan: { takeAt: number; restoreAt: number } | null = null;

  constructor(readonly seed: number) {
    this.rand = seededRandom(seed * 2_654_435_761);
    const bytes = () => this.bytes();
    this.node = new LocalNode({
      slotMs: 0,
      programSeed: bytes(),
      program: { creatorFeeBps: 30, bondThresholdLamports: 85_000_000_000n },
    });
    this.faults = new ChainFaults(this.node, seed);
    this.rpc = new RpcServer(this.node, () => {}, this.faults);
    const treasury = Keypair.fromSeed(bytes());
    const master = bytes();
    this.node.fund(treasury.publicKey, TREASURY_LAMPORTS);
    this.db = openDatabase(":memory:");
    const jitter = seededRandom(seed ^ 0x5bd1e995);
    const rpc = createRpcChain({
      rpcUrl: "http://sim.invalid/",
      fetch: this.rpc.fetch,
      // Answers are in-process (microtasks): only an injected timeout ever reaches this.
      timeoutMs: 25,
      retries: 2,
      backoffBaseMs: 1,
      backoffMaxMs: 4,
      retryAfterMaxMs: 0,
      random: jitter,
      sleep: async () => {},
      allowNodeCosigners: true,
    });
    const reader = this.interruptible(rpc.reader);
    const launchProgram = localLaunchProgram(this.node, reader);
    // Every third seed buys on thin pools: a buy moves the price as on a pool 0.005 SOL deep, so the
    // burns job buys the larger orders in parts (cut orders, several buys of a mint across runs).
    // Not while settling: one part per run would outlast its bounded rounds.
    if (seed % 3 === 0) {
      const build = launchProgram.buildBurnBuy.bind(launchProgram);
      launchProgram.buildBurnBuy = async (token, buyer, lamports, slippageBps) => {
        const plan = await build(token, buyer, lamports, slippageBps);
        // A basis-point count (at most 10,000), worked out in bigint; only the ratio becomes a number.
        const thinPoolBps = Number((lamports * 10_000n) / (5_000_000n + lamports));
        return this.settling ? plan : { ...plan, priceImpactBps: thinPoolBps };
      };
    }
    this.chain = {
      reader,
      sender: rpc.sender,
      launchProgram,
      treasury,
      creatorKeypair: (i) => deriveCreatorKeypair(master, i),
      creatorAddress: (i) => deriveCreatorKeypair(master, i).publicKey,
    };
    this.launch = new LocalLaunchHelpers(this.node);
    this.trader = Keypair.fromSeed(bytes());
    this.deployer = Keypair.fromSeed(bytes());
    this.node.fund(this.trader.publicKey, 1_000_000_000_000n);
    this.node.fund(this.deployer.publicKey, 100_000_000_000n);
    for (let i = 0; i < 2; i++) {
      const launcher = Keypair.fromSeed(bytes());
      this.node.fund(launcher.publicKey, 10_000_000_000n);
      this.launchers.push(launcher);
    }
    this.ctx = {
      config: config(),
      db: this.db,
      scheduler: new Scheduler(this.db, { holder: "sim", leaseMs: LEASE_MS }),
      limiter: new RateLimiter(),
      metrics: createServiceMetrics(),
      chain: this.chain,
      now: () => this.nowMs,
    };
    this.launches = new SimLaunches(this);
    for (let i = 0; i < USERS; i++) {
      this.users.push({
        id: `u${i}`,
        handle: `h${i}`,
        wallet: Keypair.fromSeed(bytes()).publicKey.toBase58(),
        signedIn: false,
      });
    }
    for (let t = 0; t < TOKENS; t++) this.createToken(t + 1, bytes());
    this.db.$client
      .query("INSERT INTO settings (key, value) VALUES (?, ?)")
      .run(PLATFORM_TOKEN_MINT_KEY, this.mints[0]!);
    // Fees from the start, and half the users signed in, so the first steps already move money.
    for (const mint of this.mints)
      this.launch.buy({ mint, buyer: this.trader, solInLamports: BigInt(this.int(50, 300)) * 10_000_000n });
    this.node.advanceSlots(1);
    for (const u of this.users.slice(0, USERS / 2)) this.signIn(u);
  }

  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.rand() * list.length)]!;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.rand() * (hi - lo + 1));
  }
  count(kind: string, n = 1): void {
    this.counts[kind] = (this.counts[kind] ?? 0) + n;
  }
  bytes(): Uint8Array {
    return Uint8Array.from({ length: 32 }, () => Math.floor(this.rand() * 256));
  }
  /** The handles launches name: the users' current ones. */
  handles(): string[] {
    return this.users.map((u) => u.handle);
  }

  private interruptible(reader: ChainReader): ChainReader {
    const before = () => this.interrupt?.();
    return {
      getBalances: async (a) => {
        before();
        return reader.getBalances(a);
      },
      getAccounts: async (a) => {
        before();
        return reader.getAccounts(a);
      },
      getTransaction: async (s) => {
        before();
        return reader.getTransaction(s);
      },
      getSignatureStatuses: async (s, h) => {
        before();
        return reader.getSignatureStatuses(s, h);
      },
      getBlockHeight: async () => {
        before();
        return reader.getBlockHeight();
      },
      getLatestBlockhash: async () => {
        before();
        return reader.getLatestBlockhash();
      },
      // The reconciliation pages the treasury's history (getSignaturesForAddress) through the same
      // hostile node pool as every other read.
      ...(reader.signaturesForAddress
        ? {
            signaturesForAddress: async (address: string, options: { before?: string; limit: number }) => {
              before();
              return reader.signaturesForAddress!(address, options);
            },
          }
        : {}),
    };
  }

  private createToken(index: number, mintSeed: Uint8Array): void {
    const creator = this.chain.creatorAddress(index).toBase58();
    const mint = Keypair.fromSeed(mintSeed);
    const created = this.launch.createToken({
      name: `Sim ${index}`,
      symbol: `S${index}`,
      uri: `local://sim/${index}`,
      creator,
      payer: this.deployer,
      mint,
    });
    if (created.err) throw new Error(`sim token ${index} not created`);
    const a = this.users[(index * 2) % USERS]!;
    const b = this.users[(index * 2 + 1) % USERS]!;
    const vaults = this.chain.launchProgram.vaultAddresses({ mint: created.mint, creator });
    recordConfirmedLaunch(
      this.db,
      {
        mint: created.mint,
        name: `Sim ${index}`,
        symbol: `S${index}`,
        description: "",
        website: null,
        twitter: null,
        telegram: null,
        metadataUri: `local://sim/${index}`,
        imageUri: null,
        creatorIndex: index,
        creator,
        creatorVault: vaults.curveVault,
        deployer: this.deployer.publicKey.toBase58(),
        launchSignature: created.signature,
        launchedAtMs: this.nowMs,
        platformBps: [3000, 250, 0][index % 3]!,
        recipients: [
          { handle: a.handle, bps: 6000 },
          { handle: b.handle, bps: 4000 },
        ],
      },
      this.nowMs,
    );
    this.mints.push(created.mint);
  }

  close(): void {
    setCrashHook(null);
    void this.rpc.close();
    this.node.stop();
    closeDatabase(this.db);
  }

  // ------------------------------------------------------------------ jobs

  /** Runs a job as the scheduler would (lease, fencing), with an optional crash or takeover at a point. */
  async runJob(job: Job, plan: RunPlan | null, holder = "sim-a"): Promise<string> {
    const lease = acquireLease(this.db, job, holder, LEASE_MS, this.nowMs);
    if (!lease) return "busy";
    const controller = new AbortController();
    const ctx: JobContext = {
      lease,
      signal: controller.signal,
      // A dead process writes nothing more: a job that isolates errors would otherwise book its
      // failed reads (a mint set aside for an error that was the crash).
      assertHeld: () => {
        if (this.dead) throw new SimCrash("dead");
        assertLeaseHeld(this.db, lease, this.nowMs);
      },
    };
    this.arm(job, plan, controller);
    try {
      const report = await this.body(job, ctx);
      // A job that isolates its errors (launches, burns) may have gone on past the crash: the
      // process died there all the same, and its later reads all failed.
      if (this.dead) return `crashed@${plan?.point}`;
      releaseLease(this.db, lease, { ok: true, error: null }, this.nowMs);
      return `ok ${report}`;
    } catch (error) {
      if (error instanceof SimCrash || this.dead) return `crashed@${plan?.point}`;
      if (isAppError(error, "LEDGER_INVARIANT") || error instanceof InvariantViolation) throw error;
      releaseLease(this.db, lease, { ok: false, error: String(error) }, this.nowMs);
      if (isAppError(error, "LEASE_LOST")) return "lease-lost";
      return `error ${describeError(error)}`;
    } finally {
      setCrashHook(null);
      this.interrupt = null;
      this.dead = false;
    }
  }

  /** Arms the plan: at its point's n-th hit the process dies, or another process takes the lease over. */
  private arm(job: Job, plan: RunPlan | null, controller: AbortController): void {
    let hits = 0;
    const fire = (name: string) => {
      if (!plan || name !== plan.point || ++hits !== plan.hit) return;
      this.crashes[`${plan.mode}@${name}`] = (this.crashes[`${plan.mode}@${name}`] ?? 0) + 1;
      if (plan.mode === "crash") {
        this.count("crash");
        this.dead = true;
        throw new SimCrash(name);
      }
      // Another process takes the lease over mid-run: the clock passes the lease, B acquires it;
      // A's next write must be refused (fencing) and A must stop.
      this.count("leaseTakeover");
      this.nowMs += LEASE_MS + 1;
      const stolen = acquireLease(this.db, job, "sim-b", LEASE_MS, this.nowMs);
      if (stolen) releaseLease(this.db, stolen, { ok: true, error: null }, this.nowMs);
      controller.abort();
    };
    setCrashHook(fire);
    this.interrupt = () => {
      if (this.dead) throw new SimCrash("dead");
      fire("launches:read");
    };
  }

  private async body(job: Job, ctx: JobContext): Promise<string> {
    const now = () => this.nowMs;
    const settle = { settleTimeoutMs: 0, settlePollMs: 0 };
    const sweeps = {
      db: this.db,
      chain: this.chain,
      sweepMinLamports: config().sweepMinLamports,
      platformBuybackBps: config().platformBuybackBps,
      now,
      sendConcurrency: 1,
      // The custody breakers run as in production: a false halt would leave payouts queued
      // and the settling would say so.
      reserves: config().custody,
      // Odd seeds read by the reading schedule (a short maximum, so quiet tokens come due
      // within a seed's clock); even seeds read every token every run.
      quietMaxIntervalMs: this.seed % 2 === 1 ? QUIET_MAX_INTERVAL_MS : undefined,
      ...settle,
    };
    const payouts = { db: this.db, chain: this.chain, config: config(), now, ...settle };
    const burns = { db: this.db, chain: this.chain, now, outflowCaps: config().custody, ...settle };
    if (job === "sweep") {
      const r = await runSweepJob(sweeps, ctx);
      return `sent=${r.transactionsSent} confirmed=${r.confirmed} failed=${r.failed} pending=${r.pending}`;
    }
    if (job === "payouts") {
      // As production's payouts body (src/register-jobs.ts): the reconciliation with the chain
      // first, and nothing else while one is active.
      const rec = await reconcileWithChain({ db: this.db, chain: this.chain, now, payouts, sweeps, burns }, ctx);
      const reconciled =
        rec.status === "clean" ? "" : `reconcile ${rec.status} applied=${rec.applied} unknown=${rec.unknown}; `;
      if (activeReconciliation(this.db)) return `${reconciled}held`;
      const r = await runPayoutsJob(payouts, ctx);
      if (r.replaced > 0) this.count("payoutsReplaced", r.replaced);
      return `${reconciled}sent=${r.sent} confirmed=${r.confirmed} failed=${r.failed} replaced=${r.replaced} pending=${r.pending}`;
    }
    if (job === "burns") {
      // A burn of tokens the chain may have burned already waits for the reconciliation too.
      if (activeReconciliation(this.db)) return "held: reconciling";
      const r = await runBurnsJob(burns, ctx);
      if (r.parts > 0) this.count("burnBuyParts", r.parts);
      return `buys=${r.buysSent} bought=${r.bought} burned=${r.burned} failed=${r.failed}${r.parts ? ` parts=${r.parts}` : ""}`;
    }
    const r = await runLaunchesJob(this.ctx, ctx);
    return `confirmed=${r.confirmed} failed=${r.failed} expired=${r.expired} bonded=${r.bonded}`;
  }

  /** The indexer's entry points: it resolves a signature the stream showed, as a run would. */
  async indexerResolve(): Promise<string> {
    const rows = this.db.$client
      .query<{ k: string; s: string; intent?: string }, []>(
        `SELECT 'sweep' AS k, signature AS s FROM sweeps WHERE status = 'sent'
         UNION ALL SELECT 'payout', signature FROM payouts WHERE status = 'sent'
         UNION ALL SELECT 'burn', signature FROM burn_buys WHERE status = 'sent'
         UNION ALL SELECT 'burn', burn_signature FROM burn_buys WHERE status = 'burning' ORDER BY 1, 2`,
      )
      .all();
    const launches = this.launches.streamed().map((x) => ({ k: "launch", s: x.signature, intent: x.intent }));
    const all = [...rows, ...launches];
    if (all.length === 0) return "nothing";
    const row = this.pick(all);
    const lease = acquireLease(this.db, "indexer-sim", "sim-indexer", LEASE_MS, this.nowMs);
    if (!lease) return "busy";
    const ctx: JobContext = { lease, signal: new AbortController().signal, assertHeld: () => {} };
    try {
      const now = () => this.nowMs;
      const settle = { settleTimeoutMs: 0, settlePollMs: 0 };
      if (row.k === "sweep")
        await resolveSweepSignature(
          {
            db: this.db,
            chain: this.chain,
            sweepMinLamports: config().sweepMinLamports,
            platformBuybackBps: config().platformBuybackBps,
            now,
            sendConcurrency: 1,
            ...settle,
          },
          ctx,
          row.s,
        );
      else if (row.k === "payout")
        await resolvePayoutSignature({ db: this.db, chain: this.chain, config: config(), now, ...settle }, ctx, row.s);
      else if (row.k === "burn")
        await resolveBurnSignature({ db: this.db, chain: this.chain, now, ...settle }, ctx, row.s);
      else await this.resolveLaunch(row.intent ?? "", row.s);
      return `resolved ${row.k}`;
    } catch (error) {
      if (isAppError(error, "LEDGER_INVARIANT")) throw error;
      return `error ${(error as Error).name}`;
    } finally {
      releaseLease(this.db, lease, { ok: true, error: null }, this.nowMs);
    }
  }

  /** As the indexer's resolveSignature does for a transaction touching a waiting intent's mint. */
  private async resolveLaunch(intentId: string, signature: string): Promise<string> {
    const intent = getIntent(this.db, intentId);
    if (intent?.status !== "metadata") return "not waiting";
    return (await settleIntent(this.ctx, this.chain, intent, signature)).kind;
  }

  // ------------------------------------------------------------------ users

  signIn(u: World["users"][number], handle = u.handle): string {
    try {
      recordSignIn(
        this.db,
        { idpUserId: u.id, displayHandle: handle, name: handle, avatarUrl: "", followers: 0 },
        this.nowMs,
      );
      u.signedIn = true;
      u.handle = handle;
      return "ok";
    } catch (error) {
      return `refused ${isAppError(error) ? error.code : (error as Error).name}`;
    }
  }

  claim(u: World["users"][number]): string {
    if (!u.signedIn) return "not signed in";
    const balance = accountFigures(this.db, "user", u.id).balanceLamports;
    const lamports = this.rand() < 0.6 || balance < 2n ? null : balance / 2n;
    try {
      const q = queuePayout(this.db, {
        idpUserId: u.id,
        lamports,
        wallet: u.wallet,
        kind: "claim",
        minLamports: 1n,
        atMs: this.nowMs,
      });
      return `queued ${q.lamports}`;
    } catch (error) {
      if (isAppError(error, "PAYOUT_IN_FLIGHT", "INSUFFICIENT_BALANCE")) return `refused ${error.code}`;
      throw error;
    }
  }

  route(u: World["users"][number]): string {
    if (!u.signedIn) return "not signed in";
    const choice = this.pick(["hold", "autopay", "burn", "declined"] as const);
    setRouting(this.db, u.id, {
      routing: choice === "declined" ? "burn" : choice,
      payoutWallet: choice === "autopay" || this.rand() < 0.5 ? u.wallet : null,
      declined: choice === "declined",
    });
    return choice;
  }

  rename(u: World["users"][number]): string {
    if (!u.signedIn) return "not signed in";
    // The same account under a new handle (a rename on the provider); credits already pinned stay.
    return this.signIn(u, `${u.handle.split("x")[0]}x${++this.handleSerial}`);
  }

  // ------------------------------------------------------------------ faults

  randomRule(): FaultRule {
    const methods = [
      "getSignatureStatuses",
      "getEpochInfo",
      "getMultipleAccounts",
      "getLatestBlockhash",
      "getTransaction",
      "sendTransaction",
      "getSignaturesForAddress",
      "*",
    ];
    switch (this.int(0, 8)) {
      case 0:
        return { kind: "dropSends", count: this.int(1, 2) };
      case 1:
        return { kind: "delaySends", count: this.int(1, 2), slots: this.pick([2, 20, 80, 200]) };
      case 2:
        return { kind: "failSends", count: 1 };
      case 3:
        return { kind: "ghostSends", count: this.int(1, 2), slots: this.int(1, 5) };
      case 4:
        return {
          kind: "rpcError",
          method: this.pick(methods),
          count: this.int(1, 4),
          as: this.pick(["429", "503", "429", "503", "timeout"] as const),
          holdMs: 10_000,
        };
      case 5: {
        const reads = [
          "getSignatureStatuses",
          "getSignatureStatuses",
          "getEpochInfo",
          "getMultipleAccounts",
          "getTransaction",
          "getLatestBlockhash",
          "getSignaturesForAddress",
        ];
        const some = this.rand() < 0.7;
        return {
          kind: "lag",
          slots: this.pick([5, 40, 200, 400, 600]),
          share: this.pick([0.3, 0.7, 1, 1]),
          ...(some ? { methods: [this.pick(reads), this.pick(reads)] } : {}),
          count: this.int(5, 80),
        };
      }
      case 6:
        // A market that asks for a priority fee: underpriced sends (the launch wallet's, or ours
        // signed before the market rose) are lost; rebroadcasts and replacements at the next fee
        // step must land them without paying anything twice.
        return {
          kind: "congestion",
          priceMicroLamports: this.pick([1_000, 10_000, 50_000]),
          dropShare: this.pick([0.5, 0.95, 1]),
        };
      case 7:
        // Nodes that keep history only from a recent slot: a landed transaction looks absent to
        // them, and an absence they report must never count as an expiry.
        return {
          kind: "prunedHistory",
          firstSlot: Number(this.node.getSlot()) - this.pick([0, 50, 300]),
          share: this.pick([0.3, 0.7, 1]),
        };
      default:
        return { kind: "clear" };
    }
  }

  // ------------------------------------------------------------------ one step

  async step(): Promise<string> {
    this.nowMs += this.int(500, 4_000);
    const roll = this.rand();
    if (roll < 0.12) {
      // Long gaps too: a transaction landed long ago, read through a node behind, is the trap.
      const k = this.pick([1, 2, 5, 20, 40, 60, 160, 220, 320]);
      this.node.advanceSlots(k);
      return `slots +${k}`;
    }
    if (roll < 0.24) return this.trade();
    if (roll < 0.6) return this.jobStep();
    if (roll < 0.65) return `indexer -> ${await this.indexerResolve()}`;
    // A backup is held: what a restore loses by design is not drawn (see restore()).
    if (this.backup !== null && ((roll >= 0.65 && roll < 0.71) || roll >= 0.995)) return this.trade();
    if (roll < 0.71) {
      const outcome = await this.launches.act();
      this.node.advanceSlots(this.int(0, 2));
      return outcome;
    }
    if (roll < 0.82) {
      const u = this.pick(this.users);
      const what = this.rand();
      if (this.backup !== null) return `claim ${u.id} -> ${this.claim(u)}`;
      if (!u.signedIn || what < 0.1) return `signin ${u.id} -> ${this.signIn(u)}`;
      if (what < 0.55) return `claim ${u.id} -> ${this.claim(u)}`;
      if (what < 0.9) return `route ${u.id} -> ${this.route(u)}`;
      return `rename ${u.id} -> ${this.rename(u)}`;
    }
    if (roll < 0.95) {
      if (this.rand() < 0.25) {
        // The trap of the double payout: a long gap, then statuses read through a node so far
        // behind that whatever landed meanwhile is absent, while heights come from a node ahead.
        const rule: FaultRule = {
          kind: "lag",
          slots: 600,
          share: 1,
          methods: ["getSignatureStatuses"],
          count: this.int(3, 30),
        };
        this.faults.apply(rule);
        const gap = this.int(190, 300);
        this.node.advanceSlots(gap);
        return `fault ${JSON.stringify(rule)} slots +${gap}`;
      }
      const rule = this.randomRule();
      this.faults.apply(rule);
      if (rule.kind === "clear") this.count("clear");
      return `fault ${JSON.stringify(rule)}`;
    }
    if (roll < 0.97) {
      const jump = this.pick([60_000, 3_600_000, 86_400_000]);
      this.nowMs += jump;
      // Time passes for the chain too: a blockhash handed out before the jump is dead after it.
      this.node.advanceSlots(Math.min(jump / SLOT_MS, MAX_JUMP_SLOTS));
      this.count("clockJump");
      return `clock +${jump}ms`;
    }
    if (roll < 0.995) return `withdraw -> ${this.withdraw()}`;
    this.paused = !this.paused;
    setClaimsPaused(this.db, this.paused);
    return this.paused ? "claims paused" : "claims resumed";
  }

  /** The operator withdraws some of the platform's revenue, within what may be withdrawn now. */
  withdraw(): string {
    const least = 890_880n;
    const most = withdrawableLamports(this.db, {
      treasuryLamports: this.node.getBalance(this.chain.treasury.publicKey),
      owedLamports: owedForReserves(this.db),
      reserveLamports: config().custody.treasuryReserveLamports,
    });
    if (most < least) return "nothing to withdraw";
    // Lamports stay bigint: a random share in millionths of the room above the least.
    const lamports = least + ((most - least) * BigInt(Math.floor(this.rand() * 1_000_000))) / 1_000_000n;
    try {
      const w = requestWithdrawal(
        this.db,
        {
          lamports,
          reason: "sim",
          actor: "sim",
          wallet: PLATFORM_WALLET,
          treasuryLamports: this.node.getBalance(this.chain.treasury.publicKey),
          owedLamports: () => owedForReserves(this.db),
          reserveLamports: config().custody.treasuryReserveLamports,
          atMs: this.nowMs,
        },
        () => {},
      );
      this.count("withdrawal");
      return `queued ${w.lamports}`;
    } catch (error) {
      // The custody's refusals (amount, rent, limit, reason) are each a code of kind input.
      if (isAppError(error) && error.kind === "input") return `refused ${error.message}`;
      throw error;
    }
  }

  /** A trade on any token recorded (the seeded ones and those launched meanwhile): fees accrue. */
  private trade(): string {
    const mints = this.db.$client.query<{ mint: string }, []>("SELECT mint FROM tokens ORDER BY id").all();
    const mint = this.pick(mints).mint;
    const lamports = BigInt(this.int(5, 400)) * 10_000_000n;
    const r = this.launch.buy({ mint, buyer: this.trader, solInLamports: lamports });
    this.node.advanceSlots(1);
    return `trade ${mints.findIndex((m) => m.mint === mint)} ${lamports} ${r.err ? "err" : "ok"}`;
  }

  private async jobStep(): Promise<string> {
    if (this.rand() < 0.15) {
      // The rebroadcaster's pass, between the jobs as its timer runs in the service.
      const r = await rebroadcastPass({ db: this.db, chain: this.chain, now: () => this.nowMs }, { intervalMs: 2_000 });
      if (r.sent > 0) this.count("rebroadcast");
      this.node.advanceSlots(1);
      return `rebroadcast sent ${r.sent} landed ${r.landed} lapsed ${r.lapsed}`;
    }
    const job = this.pick(JOBS);
    const r = this.rand();
    const plan = r < 0.12 ? this.planFor(job, "crash") : r < 0.18 ? this.planFor(job, "takeover") : null;
    const outcome = await this.runJob(job, plan);
    this.node.advanceSlots(this.int(1, 3));
    return `job ${job}${plan ? ` ${plan.mode}@${plan.point}#${plan.hit}` : ""} -> ${outcome}`;
  }

  /**
   * Before the schedule: fees swept and credited once (no faults yet), so claims, autopay and burn
   * orders have money from the first step and the payouts and burns points are reached under faults.
   */
  async warmUp(): Promise<string> {
    const first = await this.runJob("sweep", null);
    this.node.advanceSlots(40);
    const second = await this.runJob("sweep", null);
    const claims = this.users.filter((u) => u.signedIn && this.rand() < 0.5).map((u) => `${u.id} ${this.claim(u)}`);
    return `sweep -> ${first}; sweep -> ${second}; claims: ${claims.join(", ")}`;
  }

  /** A crash or takeover at one of the job's points (the n-th time it is reached). */
  private planFor(job: Job, mode: RunPlan["mode"]): RunPlan {
    // The payouts run also sends and resolves withdrawals: while one is live, its points half the
    // time (more while settling, where every seed's last withdrawal goes; not always, since the
    // settling's first run is where dropped payouts are proven expired).
    const withdrawing =
      job === "payouts" &&
      this.db.$client.query("SELECT 1 FROM withdrawals WHERE status IN ('queued', 'sent') LIMIT 1").get() !== null &&
      this.rand() < (this.settling ? 0.7 : 0.5);
    // While a reconciliation is pending, the payouts run is the reconciliation: its points.
    const prefix = job === "payouts" && this.reconciling() ? "reconcile:" : withdrawing ? "withdrawals:" : `${job}:`;
    let points: RunPlan["point"][] =
      job === "launches" ? ["launches:read"] : CRASH_POINTS.filter((p) => p.startsWith(prefix));
    // Some of the time at the point the payouts' state makes reachable, which a uniform pick rarely
    // meets: a batch in flight, the point only its proven expiry reaches; a payout queued, its save.
    if (prefix === "payouts:" && this.rand() < 0.4) {
      const state = this.db.$client
        .query<{ status: string }, []>(
          "SELECT status FROM payouts WHERE status IN ('sent', 'queued') ORDER BY status = 'sent' DESC LIMIT 1",
        )
        .get();
      if (state) points = [state.status === "sent" ? "payouts:after-expiry" : "payouts:after-save"];
    }
    const point = this.pick(points);
    // The scan is reached once per reconciliation.
    const once = point === "reconcile:after-scan";
    return { point, hit: mode === "crash" && !once ? this.int(1, 2) : 1, mode };
  }

  // ------------------------------------------------------------------ backup and restore

  /** Whether the books wait on a reconciliation with the chain: a restore marked them, or one runs. */
  reconciling(): boolean {
    return activeReconciliation(this.db) !== null || restoredAtMs(this.db) !== null;
  }

  /** About half the seeds take a backup early and restore it some steps later (within `steps`). */
  planRestore(steps: number): void {
    if (steps < 6 || this.rand() >= 0.5) return;
    const takeAt = this.int(0, Math.floor(steps / 3));
    this.restorePlan = { takeAt, restoreAt: this.int(takeAt + 3, takeAt + Math.max(3, Math.floor(steps / 2))) };
  }

  /** The backup or the restore due at step `i` (of `steps`), as that step's action; null when none is. */
  async scheduled(i: number, steps: number): Promise<string | null> {
    const plan = this.restorePlan;
    if (!plan) return null;
    if (this.backup === null) {
      // A launch in flight would confirm after the backup: its token is one the restored books
      // cannot know (see restore()), so the backup waits for it.
      if (i < plan.takeAt || i >= steps - 1 || this.launchInFlight()) return null;
      this.restorePlan = { ...plan, takeAt: Number.POSITIVE_INFINITY };
      // A consistent copy of the books between two commits, as `VACUUM INTO` makes it.
      this.backup = this.db.$client.serialize();
      this.count("backup");
      return "backup taken";
    }
    if (i < plan.restoreAt && i < steps - 1) return null;
    return `restore -> ${await this.restore()}`;
  }

  private launchInFlight(): boolean {
    return (
      this.db.$client.query("SELECT 1 FROM launch_intents WHERE status IN ('prepared', 'metadata') LIMIT 1").get() !==
      null
    );
  }

  /**
   * The disk is lost and the backup put back; the jobs go on under faults, crashes and takeovers,
   * and the payouts run reconciles the books with the treasury's history before money moves.
   *
   * What is compared: the world comes to rest first (faults clear, everything queued or sent
   * settles), so the books just before the restore are a fixed point. A claim queued and not sent
   * when the disk is lost is lost with it (its user claims again), and no chain can show it; so
   * are sign-ins, renames (handle pins), routing changes, launches and the claims pause made
   * after the backup (the recovery promise names them), and those are not drawn while a backup is
   * held. After the reconciliation and a second rest, every ledger account holds exactly what it
   * held before the restore, the confirmed payouts and withdrawals are the same (id, wallet,
   * amount, signature), and no wallet on chain received a lamport more. Payouts that expired or
   * failed after the backup never touched the chain: the restored books do not hold them.
   */
  async restore(): Promise<string> {
    const backup = this.backup!;
    this.backup = null;
    const rest = await this.quiesce();
    if (rest) throw new InvariantViolation(`before the restore: ${rest}`);
    this.check();
    const before = this.moneyState();
    const sweptBefore = new Set(
      this.db.$client
        .query<{ signature: string }, []>("SELECT DISTINCT signature FROM sweeps")
        .all()
        .map((r) => r.signature),
    );
    const lost = this.db;
    this.useDatabase(restoredCopy(backup));
    closeDatabase(lost);
    // As `bun run restore` and the start after it: the backup's leases freed, the books held.
    freeLeasesOfBackup(this.db);
    holdForReconciliation(this.db, "restore", this.nowMs);
    this.count("restore");
    const runs: string[] = [];
    let round = 0;
    for (; round < RECONCILE_ROUNDS && this.reconciling(); round++) {
      this.nowMs += LEASE_MS + 1; // any lease a crashed run left has expired
      const hostile = round < HOSTILE_RECONCILE_ROUNDS;
      if (hostile && this.rand() < 0.6) {
        const rule = this.randomRule();
        this.faults.apply(rule);
        if (rule.kind === "clear") this.count("clear");
        runs.push(`fault ${rule.kind}`);
      } else if (round === HOSTILE_RECONCILE_ROUNDS) this.faults.clear();
      // Production runs the sweep job during the reconciliation too; burns wait for it.
      for (const job of MONEY_JOBS) {
        const r = this.rand();
        const plan = !hostile
          ? null
          : r < 0.3
            ? this.planFor(job, "crash")
            : r < 0.36
              ? this.planFor(job, "takeover")
              : null;
        const outcome = await this.runJob(job, plan);
        if (job === "payouts") runs.push(`${plan ? `${plan.mode}@${plan.point}#${plan.hit} ` : ""}${outcome}`);
        this.node.advanceSlots(this.int(1, 40));
        this.checkBooks();
      }
    }
    if (this.reconciling())
      throw new InvariantViolation(
        `the reconciliation after the restore did not finish: ${runs.slice(-2).join(" | ")}`,
      );
    const done = latestReconciliation(this.db);
    if (done?.status !== "done")
      throw new InvariantViolation(
        `the reconciliation after the restore ended ${done?.status}: ${this.db.$client
          .query<{ signature: string; note: string | null }, []>(
            "SELECT signature, note FROM reconciliation_items WHERE status = 'unknown' ORDER BY position",
          )
          .all()
          .map((u) => `${u.signature.slice(0, 8)}… ${u.note}`)
          .join("; ")}`,
      );
    const settled = await this.quiesce();
    if (settled) throw new InvariantViolation(`after the reconciliation: ${settled}`);
    // A sweep sent after the restore credits fees the rest before it left in a vault (a token the
    // sweep job did not take then): new money, not the reconciliation's. The balances then differ
    // by it; what the chain decides (payouts, withdrawals, wallets) is still compared.
    const sweptSince = this.db.$client
      .query<{ signature: string }, []>("SELECT DISTINCT signature FROM sweeps WHERE status = 'confirmed'")
      .all()
      .some((r) => !sweptBefore.has(r.signature));
    if (sweptSince) this.count("restoreSweptAfter");
    this.compareMoney(before, this.moneyState(), sweptSince ? ["payouts", "withdrawals", "wallets"] : undefined);
    this.count("reconciledItems", done.applied);
    return `reconciled ${done.applied}/${done.total} of ${done.scanned} scanned in ${round} rounds: ${runs.join(" | ")}`;
  }

  private useDatabase(db: Db): void {
    this.db = db;
    this.ctx = { ...this.ctx, db, scheduler: new Scheduler(db, { holder: "sim", leaseMs: LEASE_MS }) };
  }

  /** Faults clear and the money jobs run until nothing is queued or in flight (bounded); null once there. */
  private async quiesce(): Promise<string | null> {
    this.faults.clear();
    // Paused claims would stay queued: the operator lifts the pause (in the restored books too).
    this.paused = false;
    setClaimsPaused(this.db, false);
    const settling = this.settling;
    this.settling = true;
    try {
      // Every token comes due for a reading (the odd seeds' schedule), so no fee is left unswept;
      // every blockhash handed out dies, so what was dropped is proven expired and sent again.
      this.nowMs += QUIET_MAX_INTERVAL_MS + 1;
      this.node.advanceSlots(MAX_JUMP_SLOTS);
      // A mint's orders bought in parts (a thin pool) take a run per part: the rest stays pending
      // with no buy in flight. Rest means the burns run bought nothing more, so that the books
      // before a restore and after it are compared at the same point.
      let buying = false;
      for (let round = 0; round === 0 || (round < SETTLE_ROUNDS && (buying || this.moneyLive())); round++) {
        this.nowMs += LEASE_MS + 1;
        buying = false;
        for (const job of MONEY_JOBS) {
          // Crashes in the first rounds too, as in settle(): this is where expiries are proven.
          const plan = round < CRASHING_SETTLE_ROUNDS && this.rand() < 0.3 ? this.planFor(job, "crash") : null;
          const outcome = await this.runJob(job, plan);
          if (outcome === "busy" || outcome.startsWith("error")) return `${job} run: ${outcome}`;
          if (job === "burns" && !/ buys=0 /.test(outcome)) buying = true;
          this.node.advanceSlots(40);
        }
      }
      if (!this.moneyLive()) return null;
      const live = this.db.$client
        .query<{ what: string }, []>(
          `SELECT 'sweep ' || id AS what FROM sweeps WHERE status = 'sent'
           UNION ALL SELECT 'payout ' || id || ' ' || status FROM payouts WHERE status IN ('sent', 'queued')
           UNION ALL SELECT 'withdrawal ' || id || ' ' || status FROM withdrawals WHERE status IN ('sent', 'queued')
           UNION ALL SELECT 'burn buy ' || id || ' ' || status FROM burn_buys WHERE status IN ('sent', 'bought', 'burning')`,
        )
        .all();
      return `queued or sent items did not settle: ${live.map((l) => l.what).join(", ")}; halted: ${moneyHalt(this.db)?.kind ?? "no"}`;
    } finally {
      this.settling = settling;
    }
  }

  private moneyLive(): boolean {
    const row = this.db.$client
      .query<{ n: bigint }, []>(
        `SELECT (SELECT COUNT(*) FROM sweeps WHERE status = 'sent') + (SELECT COUNT(*) FROM payouts WHERE status IN ('sent', 'queued'))
              + (SELECT COUNT(*) FROM withdrawals WHERE status IN ('sent', 'queued'))
              + (SELECT COUNT(*) FROM burn_buys WHERE status IN ('sent', 'bought', 'burning')) AS n`,
      )
      .get();
    return Number(row?.n ?? 0) > 0;
  }

  /** What a restore must give back: balances, the money that left, and the wallets on chain. */
  private moneyState(): MoneyState {
    const rows = (sql: string) =>
      new Map(
        (this.db.$client.query(sql).all() as { k: string; v: unknown }[]).map((r) => [
          String(r.k),
          JSON.stringify(r.v, (_k, v) => (typeof v === "bigint" ? v.toString() : v)),
        ]),
      );
    const wallets = new Map<string, string>();
    for (const a of [...this.users.map((u) => u.wallet), PLATFORM_WALLET])
      wallets.set(a, String(this.node.getBalance(new PublicKey(a))));
    return {
      accounts: rows("SELECT kind || ':' || ref AS k, balance AS v FROM ledger_accounts WHERE balance <> 0"),
      payouts: rows(
        "SELECT id AS k, json_array(idp_user_id, wallet, CAST(lamports AS TEXT), signature) AS v FROM payouts WHERE status = 'confirmed'",
      ),
      withdrawals: rows(
        "SELECT id AS k, json_array(wallet, CAST(lamports AS TEXT), signature) AS v FROM withdrawals WHERE status = 'confirmed'",
      ),
      wallets,
    };
  }

  private compareMoney(
    before: MoneyState,
    after: MoneyState,
    parts: readonly (keyof MoneyState)[] = ["accounts", "payouts", "withdrawals", "wallets"],
  ): void {
    for (const part of parts) {
      const keys = new Set([...before[part].keys(), ...after[part].keys()]);
      const differ = [...keys]
        .filter((k) => before[part].get(k) !== after[part].get(k))
        .map((k) => `${k}: ${before[part].get(k) ?? "none"} -> ${after[part].get(k) ?? "none"}`);
      if (differ.length > 0)
        throw new InvariantViolation(
          `after the restore and its reconciliation, ${part} differ from before the restore: ${differ.slice(0, 4).join("; ")}`,
        );
    }
  }

  /** The books' own invariants: what holds at every moment, a reconciliation half done included. */
  private checkBooks(): void {
    verifyLedger(this.db);
    ledgerTotals(this.db);
  }

  // ------------------------------------------------------------------ invariants

  /** Checked after every step, against the chain itself (the node, not through the faults). */
  check(): void {
    const db = this.db;
    verifyLedger(db);
    const totals = ledgerTotals(db); // throws unless swept = owed + paid + burned + platform + buyback
    // credited = paid + burned + balance, for every person's and every unclaimed handle's account
    const accounts = db.$client
      .query<{ kind: "user" | "handle"; ref: string }, []>(
        "SELECT kind, ref FROM ledger_accounts WHERE kind IN ('user', 'handle') ORDER BY id",
      )
      .all();
    for (const a of accounts) accountFigures(db, a.kind, a.ref);
    this.launches.check(false);
    const sentLanded = this.checkPayouts();
    this.checkSweeps();
    this.checkRent();
    this.checkWithdrawals();
    // The world is healthy (its faults are the chain's, not theft or broken books): a breaker that
    // trips here is a false halt.
    const halt = moneyHalt(this.db);
    if (halt) throw new InvariantViolation(`money halted in a healthy world: ${halt.kind}: ${halt.detail}`);
    this.checkReserves(sentLanded);
    if (totals.sweptLamports < 0n) throw new InvariantViolation("negative swept");
  }

  private landedOk(signature: string | null): boolean {
    if (!signature) return false;
    const r = this.node.getTransaction(signature);
    return r !== null && r.err === null;
  }

  /**
   * No payout paid on chain more than once: each wallet holds exactly its confirmed payouts plus
   * those landed and not yet finalized (still `sent`); a replaced or failed payout that landed
   * breaks it. Returns what landed for payouts still `sent`.
   */
  private checkPayouts(): bigint {
    const payouts = this.db.$client
      .query<{ wallet: string; status: string; lamports: bigint; signature: string | null }, []>(
        "SELECT wallet, status, lamports, signature FROM payouts",
      )
      .all();
    const expected = new Map<string, bigint>();
    let sentLanded = 0n;
    for (const p of payouts) {
      const landed = this.landedOk(p.signature);
      if ((p.status === "replaced" || p.status === "failed") && landed)
        throw new InvariantViolation(`payout ${p.signature} is ${p.status} but landed`);
      const counts = p.status === "confirmed" || (p.status === "sent" && landed);
      if (p.status === "confirmed" && !landed)
        throw new InvariantViolation(`payout ${p.signature} confirmed but not landed`);
      if (p.status === "sent" && landed) sentLanded += BigInt(p.lamports);
      if (counts) expected.set(p.wallet, (expected.get(p.wallet) ?? 0n) + BigInt(p.lamports));
    }
    for (const u of this.users) {
      const onChain = this.node.getBalance(new PublicKey(u.wallet));
      const want = expected.get(u.wallet) ?? 0n;
      if (onChain !== want)
        throw new InvariantViolation(`wallet of ${u.id} holds ${onChain} on chain, its payouts say ${want}`);
    }
    return sentLanded;
  }

  /** No lamport credited that did not reach the treasury: per confirmed sweep transaction, the credits equal what it received net. */
  private checkSweeps(): void {
    const treasury = this.chain.treasury.publicKey;
    const bySig = this.db.$client
      .query<{ signature: string; t: bigint }, []>(
        "SELECT signature, SUM(total_lamports) AS t FROM sweeps WHERE status = 'confirmed' GROUP BY signature",
      )
      .all();
    for (const s of bySig) {
      const r = this.node.getTransaction(s.signature);
      if (!r || r.err !== null) throw new InvariantViolation(`sweep ${s.signature} credited but not landed`);
      const i = r.accountKeys.findIndex((k) => k.equals(treasury));
      const received = r.postBalances[i]! - r.preBalances[i]! + (i === 0 ? r.feeLamports : 0n);
      if (received !== BigInt(s.t))
        throw new InvariantViolation(`sweep ${s.signature} credited ${s.t}, the treasury received ${received}`);
    }
    const failed = this.db.$client
      .query<{ signature: string }, []>("SELECT signature FROM sweeps WHERE status = 'failed'")
      .all();
    for (const s of failed)
      if (this.landedOk(s.signature)) throw new InvariantViolation(`sweep ${s.signature} failed but landed`);
  }

  /**
   * No withdrawal paid twice or booked without landing: the platform wallet holds exactly the
   * confirmed withdrawals plus those landed and not yet resolved (still `sent`).
   */
  private checkWithdrawals(): void {
    const rows = this.db.$client
      .query<{ status: string; lamports: bigint; signature: string | null }, []>(
        "SELECT status, lamports, signature FROM withdrawals",
      )
      .all();
    let expected = 0n;
    for (const w of rows) {
      const landed = this.landedOk(w.signature);
      if (w.status === "failed" && landed) throw new InvariantViolation(`withdrawal ${w.signature} failed but landed`);
      if (w.status === "confirmed" && !landed)
        throw new InvariantViolation(`withdrawal ${w.signature} confirmed but not landed`);
      if (w.status === "confirmed" || (w.status === "sent" && landed)) expected += BigInt(w.lamports);
    }
    const onChain = this.node.getBalance(new PublicKey(PLATFORM_WALLET));
    if (onChain !== expected)
      throw new InvariantViolation(`the platform wallet holds ${onChain}, its withdrawals say ${expected}`);
  }

  /** Rent the books hold in an account is there on chain: no rent booked for an account that is gone. */
  private checkRent(): void {
    const held = this.db.$client
      .query<{ ref: string; balance: bigint }, []>(
        "SELECT ref, balance FROM ledger_accounts WHERE kind = 'rent' AND balance <> 0",
      )
      .all();
    // A burn that landed and closed its token account is booked when the job settles it: until
    // then the books still hold that account's rent.
    const settling = new Set(
      this.db.$client
        .query<{ mint: string }, []>("SELECT DISTINCT mint FROM burn_buys WHERE status = 'burning'")
        .all()
        .flatMap((b) => this.chain.launchProgram.buyRentAccounts(b.mint, this.chain.treasury.publicKey.toBase58())),
    );
    for (const r of held) {
      if (settling.has(r.ref)) continue;
      const onChain = this.node.getBalance(new PublicKey(r.ref));
      if (onChain < BigInt(r.balance))
        throw new InvariantViolation(`rent of ${r.ref}: the books hold ${r.balance}, the chain ${onChain}`);
    }
  }

  /** Treasury >= owed, counting as paid what already left it for payouts and buys in flight. */
  private checkReserves(sentLanded: bigint): void {
    const buysLanded = this.db.$client
      .query<{ signature: string; r: bigint }, []>(
        "SELECT b.signature, COALESCE(SUM(CASE WHEN o.source = 'recipient' THEN o.lamports END), 0) AS r FROM burn_buys b JOIN burn_orders o ON o.buy_id = b.id WHERE b.status = 'sent' GROUP BY b.id",
      )
      .all();
    let buysInFlight = 0n;
    for (const b of buysLanded) if (this.landedOk(b.signature)) buysInFlight += BigInt(b.r);
    const treasuryLamports = this.node.getBalance(this.chain.treasury.publicKey);
    const owed = owedForReserves(this.db) - sentLanded - buysInFlight;
    if (treasuryLamports < owed) throw new InvariantViolation(`treasury ${treasuryLamports} < owed ${owed}`);
  }

  /** A hash of the books (no times, no signatures): what the trace compares. */
  booksHash(): string {
    const h = createHash("sha256");
    const q = (sql: string) =>
      h.update(JSON.stringify(this.db.$client.query(sql).all(), (_k, v) => (typeof v === "bigint" ? v.toString() : v)));
    q("SELECT kind, ref, balance FROM ledger_accounts ORDER BY kind, ref");
    q("SELECT id, idp_user_id, status, lamports, wallet FROM payouts ORDER BY id");
    q("SELECT id, token_id, status, total_lamports FROM sweeps ORDER BY id");
    q("SELECT id, mint, status, lamports, token_amount FROM burn_buys ORDER BY id");
    q("SELECT id, mint, status, lamports FROM burn_orders ORDER BY id");
    q("SELECT mint, status FROM launch_intents ORDER BY mint");
    q("SELECT mint, creator_index FROM tokens ORDER BY id");
    return h.digest("hex").slice(0, 12);
  }

  /**
   * Faults clear and the launch windows pass (the chain moves on with the clock, so every handed-out
   * blockhash dies); the jobs run until every sent item and every intent is terminal (bounded).
   */
  async settle(): Promise<string | null> {
    this.settling = true;
    // A withdrawal at the end of every seed where the platform has earned enough, so the recovery
    // rounds crash at its points too (short runs rarely reach one otherwise).
    if (this.withdraw().startsWith("queued")) this.count("withdrawalAtSettle");
    this.faults.clear();
    setClaimsPaused(this.db, false);
    this.nowMs += INTENT_WINDOW_MS + LANDING_GRACE_MS + 1;
    this.node.advanceSlots(MAX_JUMP_SLOTS);
    const live = this.db.$client.query<{ n: number }, []>(
      `SELECT (SELECT COUNT(*) FROM sweeps WHERE status = 'sent') + (SELECT COUNT(*) FROM payouts WHERE status IN ('sent', 'queued'))
            + (SELECT COUNT(*) FROM withdrawals WHERE status IN ('sent', 'queued'))
            + (SELECT COUNT(*) FROM burn_buys WHERE status IN ('sent', 'bought', 'burning'))
            + (SELECT COUNT(*) FROM launch_intents WHERE status IN ('prepared', 'metadata')) AS n`,
    );
    const settled = () => Number(live.get()?.n ?? 0) === 0;
    for (let round = 0; round < SETTLE_ROUNDS && !settled(); round++) {
      this.nowMs += LEASE_MS + 1; // any lease a crashed run left has expired
      // The stream (or its replay from the last slot after a restart) shows every landed create.
      for (const x of this.launches.streamed()) await this.resolveLaunch(x.intent, x.signature);
      for (const job of JOBS) {
        // Recovery crashes too: money mostly moves here, so the points after a send or a
        // confirmation are reached here far more than during the steps. Then clean rounds.
        const plan = round < CRASHING_SETTLE_ROUNDS && this.rand() < 0.5 ? this.planFor(job, "crash") : null;
        const outcome = await this.runJob(job, plan);
        if (outcome === "busy" || outcome.startsWith("error")) return `final ${job} run: ${outcome}`;
        this.node.advanceSlots(40);
        this.check();
      }
    }
    if (!settled()) return "sent items did not reach a terminal state after the faults cleared";
    this.launches.check(true);
    return null;
  }
}

export async function runSeed(seed: number, options: { steps?: number } = {}): Promise<SeedResult> {
  const steps = options.steps ?? 40;
  const trace: string[] = [];
  let world: World | null = null;
  try {
    world = new World(seed);
    world.check();
    trace.push(`warm-up ${await world.warmUp()} #${world.booksHash()}`);
    world.check();
    world.planRestore(steps);
    for (let i = 0; i < steps; i++) {
      const action = (await world.scheduled(i, steps)) ?? (await world.step());
      world.check();
      trace.push(`${i} ${action} #${world.booksHash()}`);
    }
    const stuck = await world.settle();
    world.check();
    trace.push(`settled ${stuck ?? "ok"} #${world.booksHash()}`);
    if (stuck) throw new InvariantViolation(stuck);
    return {
      seed,
      ok: true,
      steps,
      trace,
      faults: { ...world.faults.injected, ...world.counts },
      crashes: { ...world.crashes },
    };
  } catch (error) {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    trace.push(`FAILED ${text}`);
    return {
      seed,
      ok: false,
      steps,
      trace,
      faults: world ? { ...world.faults.injected, ...world.counts } : {},
      crashes: world ? { ...world.crashes } : {},
      error: text,
    };
  } finally {
    world?.close();
  }
}

function argValue(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(): Promise<void> {
  setLogSilent(true);
  const args = process.argv.slice(2);
  const single = argValue(args, "--seed");
  const seedCount = Number(argValue(args, "--seeds") ?? "100");
  const first = Number(argValue(args, "--from") ?? "1");
  const steps = Number(argValue(args, "--steps") ?? "40");
  if (
    (single !== undefined && !/^\d+$/.test(single)) ||
    !Number.isInteger(seedCount) ||
    seedCount < 1 ||
    !Number.isInteger(steps) ||
    steps < 1 ||
    steps > 10_000
  ) {
    console.error("usage: bun run sim -- --seeds N [--from S] [--steps K] | --seed S [--steps K]");
    process.exit(2);
  }
  const seeds = single !== undefined ? [Number(single)] : Array.from({ length: seedCount }, (_, i) => first + i);
  const totals: Record<string, number> = {};
  const crashes: Record<string, number> = {};
  const started = performance.now();
  let failed = 0;
  for (const [n, seed] of seeds.entries()) {
    const result = await runSeed(seed, { steps });
    for (const [k, v] of Object.entries(result.faults)) totals[k] = (totals[k] ?? 0) + v;
    for (const [k, v] of Object.entries(result.crashes)) crashes[k] = (crashes[k] ?? 0) + v;
    if (single !== undefined) for (const line of result.trace) console.log(line);
    if (!result.ok) {
      failed++;
      console.error(`seed ${seed} FAILED: ${result.error}`);
      console.error(`  replay: bun run sim -- --seed ${seed} --steps ${steps}`);
    }
    if (single === undefined && (n + 1) % 100 === 0) {
      const sec = (performance.now() - started) / 1000;
      console.log(
        `${n + 1}/${seeds.length} seeds, ${failed} failed, ${sec.toFixed(1)} s (${((n + 1) / sec).toFixed(2)} seeds/s)`,
      );
      if ((n + 1) % 500 === 0)
        console.log(`  faults so far: ${JSON.stringify(Object.fromEntries(Object.entries(totals).sort()))}`);
    }
  }
  const sec = (performance.now() - started) / 1000;
  console.log(
    `${seeds.length} seeds x ${steps} steps: ${seeds.length - failed} passed, ${failed} failed in ${sec.toFixed(1)} s`,
  );
  console.log(`faults injected: ${JSON.stringify(Object.fromEntries(Object.entries(totals).sort()))}`);
  console.log(`crashes and takeovers by point: ${JSON.stringify(Object.fromEntries(Object.entries(crashes).sort()))}`);
  process.exit(failed === 0 ? 0 : 1);
}

if (import.meta.main) await main();
