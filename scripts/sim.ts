/**
 * The seeded, deterministic simulation of the money engine under a hostile chain.
 *
 *   bun run sim -- --seeds 200            seeds 1..200
 *   bun run sim -- --seed 1234            one seed, its trace printed
 *   bun run sim -- --seeds 50 --steps 80  longer schedules
 *   bun run sim -- --seeds 1000 --from 5001  seeds 5001..6000
 *
 * Each seed builds its own world in-process: the local chain (LiteSVM node, its JSON-RPC answered
 * through the in-process transport, so every hostile rule of faults.ts applies), a fresh database,
 * the production chain client (src/chain/rpc.ts), and runs the real jobs (sweep, payouts, burns,
 * launches), the indexer's resolution entry points, the claim/routing services and the launch
 * service, driven by a schedule drawn from the seed: user actions (trades, claims, routing changes,
 * autopay, declines, sign-ins, renames, launches: see sim-launches.ts), every fault rule, crashes at
 * the crash points (for the launches job, which has none, at any of its chain reads), lease
 * takeovers, clock jumps (the chain's slots move on with the clock), and in about half the seeds a
 * backup taken early and put back some steps later: restored (`bun run restore`'s marker), or
 * copied back by hand without the marker (a volume snapshot: only the start's hold, with JOBS on or
 * off, and sweeps held before any payouts run). The payouts run then reconciles the books with
 * the treasury's history (src/reconcile) under faults, crashes and takeovers, and the books must
 * come out as they were before (see World.restore). Strangers send dust to the treasury (bursts,
 * and a trickle between the reads of one run) and pre-fund or create the treasury's token
 * accounts: nothing stops, no reconciliation starts for them, their lamports are surplus. A third
 * of the seeds run under a low hourly outflow cap: breakers trip and the operator resumes with the
 * ids waiting then; the outflow of any rolling hour stays within the cap plus what they released.
 * A quarter of the seeds pay no priority-fee floor (the estimator's minimums read ~0).
 * Time is virtual: the simulation advances the chain's slots and the jobs' clock itself; the jobs
 * settle without waiting (settleTimeoutMs 0). After every step the invariants are checked against
 * the chain itself; at the end the faults clear and every `sent` item must reach a terminal state.
 *
 * The trace of a seed (actions, outcomes, a hash of the books after each step) is the same on
 * every run: a failing seed prints itself and the one-line command that replays it.
 */
import { createHash } from "node:crypto";
import { Database } from "bun:sqlite";
import { Keypair, PublicKey, SystemProgram } from "@solana/web3.js";
import {
  NATIVE_MINT,
  TOKEN_PROGRAM_ID,
  createAssociatedTokenAccountIdempotentInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { openDatabase, closeDatabase, type Db } from "../db/client";
import { immediate } from "../db/transaction";
import * as schema from "../db/schema";
import { freeLeasesOfBackup } from "../src/backup";
import {
  activeReconciliation,
  holdForReconciliation,
  latestReconciliation,
  reconcileWithChain,
  restoredAtMs,
  startCheckPassed,
  startHoldTaken,
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
import {
  listIncidents,
  moneyHalt,
  requestWithdrawal,
  resumeMoney,
  type ReleasedRows,
  waitingOutflow,
  withdrawableLamports,
} from "../src/custody";
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
/** The rebroadcaster's interval in the simulated service (REBROADCAST_MS's role). */
const REBROADCAST_INTERVAL_MS = 2_000;
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
const HOUR_MS = 3_600_000;
/** Sweep runs before the first payouts run after a copy is put back by hand: a few, or enough to bury 25 signatures. */
const EARLY_SWEEPS_FEW = [2, 6] as const;
const EARLY_SWEEPS_MANY = [26, 30] as const;
/** Rent of a token account (165 bytes) and of an empty system account: a pre-fund below, between and above. */
const TOKEN_ACCOUNT_RENT = 2_039_280n;
const EMPTY_ACCOUNT_RENT = 890_880n;
/** How the backup taken early is put back: `bun run restore` (its marker), or by hand (none) with JOBS on or off. */
type PutBack = "restore" | "rollback" | "rollback-jobs-off";

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

/** What an `rpcError` rule fails: the reads and sends the jobs make, or every call. */
const RPC_ERROR_METHODS = [
  "getSignatureStatuses",
  "getEpochInfo",
  "getMultipleAccounts",
  "getLatestBlockhash",
  "getTransaction",
  "sendTransaction",
  "getSignaturesForAddress",
  "*",
];
/** What a `lag` rule slows when it names methods; statuses twice, so they are drawn most often. */
const LAG_READS = [
  "getSignatureStatuses",
  "getSignatureStatuses",
  "getEpochInfo",
  "getMultipleAccounts",
  "getTransaction",
  "getLatestBlockhash",
  "getSignaturesForAddress",
];

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
  private restorePlan: { takeAt: number; restoreAt: number; how: PutBack } | null = null;

  /** This seed's configuration: production's, with a low hourly outflow cap or no fee floor in some seeds. */
  readonly cfg: Config;
  /** the low hourly outflow cap this seed runs under (breakers trip, the operator resumes); null: production's */
  readonly hourCap: bigint | null;
  /** strangers' transactions listing the treasury, and what each credited it */
  private readonly strangers = new Map<string, bigint>();
  /** reads left in a trickle of dust: before each read the service makes, a stranger may send some */
  private trickle = 0;
  /** what the operator's resumes released, by id (kept across a restore: the chain keeps what left) */
  private readonly released = {
    payouts: new Map<number, bigint>(),
    withdrawals: new Map<number, bigint>(),
    burnOrders: new Map<number, bigint>(),
  };
  /** every outflow seen (payouts and withdrawals sent, burn buys made), by row, with the send time of its first sighting */
  private readonly outflows = new Map<string, { atMs: number; lamports: bigint; counts: boolean; replaces?: number }>();
  /** a reconciliation that starts from here on was started by something other than a restore or a rollback */
  private reconcileAllowedBeforeMs = START_MS;
  /** the strangers' wallet: anyone may send lamports to any address, or create an account for it */
  private readonly strangerKey: Keypair;

  constructor(readonly seed: number) {
    this.rand = seededRandom(seed * 2_654_435_761);
    // Drawn apart from the schedule, so the schedule's draws do not depend on them.
    const settings = seededRandom(seed ^ 0x27d4eb2f);
    this.hourCap = settings() < 0.3 ? [3_000_000n, 8_000_000n, 20_000_000n][Math.floor(settings() * 3)]! : null;
    const noFloor = settings() < 0.25;
    this.cfg = {
      ...config(),
      custody: {
        ...config().custody,
        ...(this.hourCap === null ? {} : { outflowMaxLamportsPerHour: this.hourCap }),
      },
      landing: { ...config().landing, ...(noFloor ? { feeMinMicroLamports: 0n } : {}) },
    };
    this.strangerKey = Keypair.fromSeed(Uint8Array.from({ length: 32 }, () => Math.floor(settings() * 256)));
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
    this.chain = this.chainServices(seed, treasury, master);
    this.launch = new LocalLaunchHelpers(this.node);
    this.trader = Keypair.fromSeed(bytes());
    this.deployer = Keypair.fromSeed(bytes());
    this.node.fund(this.trader.publicKey, 1_000_000_000_000n);
    this.node.fund(this.deployer.publicKey, 100_000_000_000n);
    this.node.fund(this.strangerKey.publicKey, 100_000_000_000n);
    for (let i = 0; i < 2; i++) {
      const launcher = Keypair.fromSeed(bytes());
      this.node.fund(launcher.publicKey, 10_000_000_000n);
      this.launchers.push(launcher);
    }
    this.ctx = {
      config: this.cfg,
      db: this.db,
      scheduler: new Scheduler(this.db, { holder: "sim", leaseMs: LEASE_MS }),
      limiter: new RateLimiter(),
      metrics: createServiceMetrics(),
      chain: this.chain,
      now: () => this.nowMs,
    };
    this.launches = new SimLaunches(this);
    this.populate(bytes);
  }

  /** The production chain client over the in-process JSON-RPC, its reads interruptible by crashes. */
  private chainServices(seed: number, treasury: Keypair, master: Uint8Array): ChainServices {
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
      // Production's landing (the documented fee floor over agave's minimum-reporting estimates).
      landing: this.cfg.landing,
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
    return {
      reader,
      sender: rpc.sender,
      launchProgram,
      treasury,
      creatorKeypair: (i) => deriveCreatorKeypair(master, i),
      creatorAddress: (i) => deriveCreatorKeypair(master, i).publicKey,
    };
  }

  /** The users, the tokens and the platform token's setting, with fees and sign-ins from the start. */
  private populate(bytes: () => Uint8Array): void {
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
    const before = () => {
      this.dustDuringRead();
      this.interrupt?.();
    };
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
      // The balance "now" the reconciliation compares a listing with, at or after the listing's slot.
      ...(reader.getBalancesAt
        ? {
            getBalancesAt: async (a: readonly string[], minContextSlot: bigint) => {
              before();
              return reader.getBalancesAt!(a, minContextSlot);
            },
          }
        : {}),
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
    const db = this.db;
    const sweeps = {
      db,
      chain: this.chain,
      sweepMinLamports: this.cfg.sweepMinLamports,
      platformBuybackBps: this.cfg.platformBuybackBps,
      now,
      sendConcurrency: 1,
      // The custody breakers run as in production: a false halt would leave payouts queued
      // and the settling would say so.
      reserves: this.cfg.custody,
      // As src/register-jobs.ts: nothing is swept before the start's check of the treasury's history.
      sendsAllowed: () => startCheckPassed({ db, chain: this.chain, now }),
      // Odd seeds read by the reading schedule (a short maximum, so quiet tokens come due
      // within a seed's clock); even seeds read every token every run.
      quietMaxIntervalMs: this.seed % 2 === 1 ? QUIET_MAX_INTERVAL_MS : undefined,
      ...settle,
    };
    const payouts = { db, chain: this.chain, config: this.cfg, now, ...settle };
    const burns = { db, chain: this.chain, now, outflowCaps: this.cfg.custody, ...settle };
    if (job === "sweep") {
      const r = await runSweepJob(sweeps, ctx);
      if (r.held) this.count("sweepHeld");
      return `${r.held ? "held " : ""}sent=${r.transactionsSent} confirmed=${r.confirmed} failed=${r.failed} pending=${r.pending}`;
    }
    if (job === "payouts") {
      // As production's payouts body (src/register-jobs.ts): the reconciliation with the chain
      // first, and nothing else while one is active.
      const rec = await reconcileWithChain({ db: this.db, chain: this.chain, now, payouts, sweeps, burns }, ctx);
      const reconciled =
        rec.status === "clean" ? "" : `reconcile ${rec.status} applied=${rec.applied} unknown=${rec.unknown}; `;
      // The same while the start's check has not passed yet: nothing is signed.
      if (activeReconciliation(this.db) || startHoldTaken(this.db)) return `${reconciled}held`;
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
            sweepMinLamports: this.cfg.sweepMinLamports,
            platformBuybackBps: this.cfg.platformBuybackBps,
            now,
            sendConcurrency: 1,
            ...settle,
          },
          ctx,
          row.s,
        );
      else if (row.k === "payout")
        await resolvePayoutSignature({ db: this.db, chain: this.chain, config: this.cfg, now, ...settle }, ctx, row.s);
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
    switch (this.int(0, 10)) {
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
          method: this.pick(RPC_ERROR_METHODS),
          count: this.int(1, 4),
          as: this.pick(["429", "503", "429", "503", "timeout"] as const),
          holdMs: 10_000,
        };
      case 5:
        return this.randomLagRule();
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
      case 8: {
        // Nodes restarted from a recent snapshot: recent slots missing above their floor (-32007),
        // so a landed payout there looks absent to them; its absence must be corroborated elsewhere.
        const slot = Number(this.node.getSlot());
        const fromSlot = Math.max(0, slot - this.pick([20, 100, 300]));
        return {
          kind: "historyHole",
          fromSlot,
          toSlot: Math.min(slot, fromSlot + this.pick([5, 60, 250])),
          share: this.pick([0.3, 0.7, 1]),
        };
      }
      case 9:
        // A gateway answering each call of a batch from a node of its own (eRPC).
        return { kind: "batchFanOut" };
      default:
        return { kind: "clear" };
    }
  }

  /** Reads that answer from behind the tip: some rules lag two of the reads the jobs make, others every call. */
  private randomLagRule(): FaultRule {
    const some = this.rand() < 0.7;
    return {
      kind: "lag",
      slots: this.pick([5, 40, 200, 400, 600]),
      share: this.pick([0.3, 0.7, 1, 1]),
      ...(some ? { methods: [this.pick(LAG_READS), this.pick(LAG_READS)] } : {}),
      count: this.int(5, 80),
    };
  }

  // ------------------------------------------------------------------ one step

  async step(): Promise<string> {
    this.nowMs += this.int(500, 4_000);
    const other = this.rand();
    if (other < 0.06) return `strangers -> ${this.stranger()}`;
    // Under a low cap the operator resumes what halted (with the ids waiting then), or tries to when nothing did.
    if (this.hourCap !== null && (other < 0.1 || (other < 0.25 && moneyHalt(this.db) !== null)))
      return `resume -> ${this.resume()}`;
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
      reserveLamports: this.cfg.custody.treasuryReserveLamports,
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
          reserveLamports: this.cfg.custody.treasuryReserveLamports,
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

  // ------------------------------------------------------------------ strangers

  /**
   * A stranger's transactions: dust to the treasury (one, or many in a row), a trickle of dust
   * between the reads of the next runs, lamports sent to the treasury's token account of a mint
   * with burn orders or to its WSOL account (below a token account's rent, or above), or that
   * account created for the treasury (a transaction that lists the treasury and moves none of its
   * lamports). None of it may stop anything, hold money or be owed to anybody.
   */
  private stranger(): string {
    const what = this.rand();
    if (what < 0.4) {
      const n = this.pick([1, 1, 2, 3, 5, 12, 30]);
      return `dust x${n}: ${this.dust(n)} lamports`;
    }
    if (what < 0.55) {
      this.trickle = this.int(5, 60);
      this.count("dustTrickle");
      return `dust trickle over the next ${this.trickle} reads`;
    }
    const treasury = this.chain.treasury.publicKey;
    const burning = this.db.$client
      .query<{ mint: string }, []>("SELECT DISTINCT mint FROM burn_orders ORDER BY mint")
      .all()
      .map((r) => r.mint);
    const wsol = what >= 0.85 || burning.length === 0;
    const mint = wsol ? NATIVE_MINT : new PublicKey(this.pick(burning));
    const ata = getAssociatedTokenAddressSync(mint, treasury, true, TOKEN_PROGRAM_ID);
    const label = wsol ? "WSOL" : `mint ${this.mintIndex(mint.toBase58())}`;
    if (this.rand() < 0.2) {
      // Created for the treasury by a stranger who pays for it (the ATA program's idempotent create).
      const r = this.node.submitInstructions(
        [createAssociatedTokenAccountIdempotentInstruction(this.strangerKey.publicKey, ata, treasury, mint)],
        this.strangerKey,
      );
      if (r.record) this.strangers.set(r.signature, this.treasuryDelta(r.signature));
      this.node.advanceSlots(1);
      this.count("strangerCreate");
      return `created the treasury's ${label} token account: ${r.err ? "err" : "ok"}`;
    }
    // A new account takes at least an empty account's rent; one that exists, anything.
    const held = this.node.getBalance(ata);
    const lamports =
      held === 0n
        ? this.rand() < 0.7
          ? EMPTY_ACCOUNT_RENT + BigInt(this.int(0, Number(TOKEN_ACCOUNT_RENT - EMPTY_ACCOUNT_RENT - 1n)))
          : TOKEN_ACCOUNT_RENT + BigInt(this.int(0, 3_000_000))
        : BigInt(this.int(1, 3_000_000));
    const r = this.node.submitInstructions(
      [SystemProgram.transfer({ fromPubkey: this.strangerKey.publicKey, toPubkey: ata, lamports })],
      this.strangerKey,
    );
    this.node.advanceSlots(1);
    this.count("strangerPrefund");
    // Below a token account's rent, before the buy that creates it: the ATA program tops it up.
    if (held === 0n && lamports < TOKEN_ACCOUNT_RENT && !wsol) this.count("strangerPrefundBelowRent");
    return `pre-funded the treasury's ${label} token account (held ${held}) with ${lamports}: ${r.err ? "err" : "ok"}`;
  }

  /**
   * `n` transfers of a few lamports to the treasury, in a row; returns what they sent. The proof of
   * reserves counts them as surplus: each adds to the treasury exactly what it sent, and to what
   * is owed nothing.
   */
  private dust(n: number): bigint {
    const treasury = this.chain.treasury.publicKey;
    const owedBefore = owedForReserves(this.db);
    const transfer = (lamports: bigint) => {
      const before = this.node.getBalance(treasury);
      const r = this.node.submitInstructions(
        [SystemProgram.transfer({ fromPubkey: this.strangerKey.publicKey, toPubkey: treasury, lamports })],
        this.strangerKey,
      );
      return { ...r, gained: this.node.getBalance(treasury) - before };
    };
    let sent = 0n;
    for (let i = 0; i < n; i++) {
      const lamports = BigInt(this.int(1, 5_000));
      let r = transfer(lamports);
      if (this.strangers.has(r.signature)) {
        // The same transfer in the same slot is the same transaction: the next slot's is another.
        this.node.advanceSlots(1);
        r = transfer(lamports);
      }
      if (r.err || !r.record) throw new Error(`the sim's dust transfer failed: ${JSON.stringify(r.err)}`);
      if (r.gained !== lamports)
        throw new InvariantViolation(`dust of ${lamports} moved the treasury's balance by ${r.gained}`);
      this.strangers.set(r.signature, lamports);
      sent += lamports;
      if (this.rand() < 0.3) this.node.advanceSlots(1);
    }
    this.count("dust", n);
    const owedAfter = owedForReserves(this.db);
    if (owedAfter !== owedBefore)
      throw new InvariantViolation(
        `dust of ${sent} moved what the proof of reserves counts as owed by ${owedAfter - owedBefore}`,
      );
    return sent;
  }

  /** Before each read the service makes during a trickle, a stranger may send dust (between a listing and a balance read too). */
  private dustDuringRead(): void {
    if (this.trickle <= 0) return;
    this.trickle--;
    if (this.rand() < 0.5) {
      this.dust(1);
      this.count("dustMidRun");
    }
  }

  /** What a landed transaction did to the treasury's balance (0 when it only lists it). */
  private treasuryDelta(signature: string): bigint {
    const tx = this.node.getTransaction(signature);
    const treasury = this.chain.treasury.publicKey;
    const i = tx?.accountKeys.findIndex((k) => k.equals(treasury)) ?? -1;
    return tx && i >= 0 ? tx.postBalances[i]! - tx.preBalances[i]! : 0n;
  }

  private mintIndex(mint: string): number {
    return this.db.$client
      .query<{ mint: string }, []>("SELECT mint FROM tokens ORDER BY id")
      .all()
      .findIndex((m) => m.mint === mint);
  }

  /**
   * Strangers' credits: booked as surplus (treasury_credits) with exactly what they gave, never
   * anything the service signed; no reconciliation starts without a restore or a rollback, however
   * much dust arrives; and no anomaly of a stranger's making sets a mint aside.
   */
  private checkStrangers(): void {
    const credits = this.db.$client
      .query<{ signature: string; lamports: bigint }, []>("SELECT signature, lamports FROM treasury_credits")
      .all();
    for (const c of credits) {
      const sent = this.strangers.get(c.signature);
      if (sent === undefined)
        throw new InvariantViolation(`treasury credit ${c.signature} booked for a transaction no stranger sent`);
      if (BigInt(c.lamports) !== sent)
        throw new InvariantViolation(`treasury credit ${c.signature} booked ${c.lamports}, the stranger gave ${sent}`);
    }
    const started = this.db.$client
      .query<{ reason: string; status: string }, [number]>(
        "SELECT reason, status FROM reconciliations WHERE started_at_ms >= ? ORDER BY id LIMIT 1",
      )
      .get(this.reconcileAllowedBeforeMs);
    if (started)
      throw new InvariantViolation(
        `a reconciliation (${started.reason}, ${started.status}) started without a restore or a rollback: strangers' transactions held money`,
      );
    const anomaly = listIncidents(this.db, 500).find((i) => i.kind === "token-anomaly" && i.resolvedAtMs === null);
    if (anomaly) throw new InvariantViolation(`a mint was set aside for a transaction's anomaly: ${anomaly.detail}`);
  }

  /** At the end: every stranger's transaction among the treasury's newest 25 is known to the books (booked or read). */
  private checkStrangersKnown(): void {
    const newest = this.node.signaturesForAddress(this.chain.treasury.publicKey.toBase58(), { limit: 25 });
    for (const entry of newest) {
      if (!this.strangers.has(entry.signature)) continue;
      const known = this.db.$client
        .query<{ n: bigint }, [string]>(
          `SELECT (SELECT COUNT(*) FROM treasury_credits WHERE signature = ?1)
                + (SELECT COUNT(*) FROM reconciliation_items WHERE signature = ?1 AND status = 'ignored') AS n`,
        )
        .get(entry.signature);
      if (Number(known?.n ?? 0) === 0)
        throw new InvariantViolation(`the stranger's ${entry.signature} is among the treasury's newest and not booked`);
    }
  }

  // ------------------------------------------------------------------ outflow caps and resumes

  /**
   * The operator resumes with the ids /admin lists at that moment (sometimes a claim arrives
   * between the listing and the confirmation: it is not released). Nothing halted, or the
   * reconciliation holding money: the resume is refused and grants nothing.
   */
  private resume(): string {
    const halt = moneyHalt(this.db);
    const listed = waitingOutflow(this.db);
    let late = "";
    // (Not while the books wait on the chain: a claim then would not be in the books compared after.)
    // (Nor while settling: the books before and after a restore are compared there, and a user's
    // claim in between is new money out, not the reconciliation's.)
    if (halt && !this.held() && !this.settling && this.rand() < 0.3) {
      const u = this.pick(this.users);
      late = `; claim ${u.id} after the listing -> ${this.claim(u)}`;
    }
    try {
      const r = immediate(this.db, () =>
        resumeMoney(this.db, { actor: "sim", reason: "looked at what waits", atMs: this.nowMs, release: listed }),
      );
      if (!halt) throw new InvariantViolation("a resume with nothing halted was not refused");
      this.noteRelease(listed);
      this.count("resume");
      return `resolved ${r.resolved}, released ${r.releasedLamports} (${listed.payouts.length} payouts, ${listed.withdrawals.length} withdrawals, ${listed.burnOrders.length} burn orders)${late}`;
    } catch (error) {
      if (isAppError(error, "MONEY_NOT_HALTED") && !halt) {
        this.count("resumeRefused");
        return `refused: nothing halted${late}`;
      }
      if (isAppError(error, "MONEY_HELD_RECONCILING") && halt && (this.held() || halt.kind === "reconciling")) {
        this.count("resumeRefusedReconciling");
        return `refused: reconciling${late}`;
      }
      throw error;
    }
  }

  /** Whether an outflow cap halts money (what the operator's resume lets out). */
  private haltedByCap(): boolean {
    const kind = moneyHalt(this.db)?.kind;
    return kind === "outflow-hour" || kind === "outflow-day";
  }

  /** While halted by a breaker, the operator resumes (settling: every round, so what waits goes out). */
  private resumeIfHalted(): string | null {
    if (!this.haltedByCap()) return null;
    return this.resume();
  }

  private noteRelease(rows: ReleasedRows): void {
    for (const r of rows.payouts) this.released.payouts.set(r.id, r.lamports);
    for (const r of rows.withdrawals) this.released.withdrawals.set(r.id, r.lamports);
    for (const r of rows.burnOrders) this.released.burnOrders.set(r.id, r.lamports);
  }

  /**
   * Records every outflow when first seen, at the moment it left (a restore brings rows back with
   * the reconciliation's time: the first sighting is what left when), and whether it still counts.
   */
  private observeOutflow(): void {
    const rows = this.db.$client
      .query<{ k: string; at: bigint | null; lamports: bigint; counts: bigint; replaces: bigint | null }, []>(
        `SELECT 'payout:' || id AS k, sent_at_ms AS at, lamports, status IN ('sent', 'confirmed') AS counts, replaces_id AS replaces
           FROM payouts WHERE sent_at_ms IS NOT NULL
         UNION ALL SELECT 'withdrawal:' || id, sent_at_ms, lamports, status IN ('sent', 'confirmed'), NULL
           FROM withdrawals WHERE sent_at_ms IS NOT NULL
         UNION ALL SELECT 'buy:' || id, created_at_ms, lamports, status <> 'failed', NULL FROM burn_buys`,
      )
      .all();
    for (const r of rows) {
      const seen = this.outflows.get(r.k);
      const counts = Number(r.counts) === 1;
      if (seen) seen.counts = counts;
      else
        this.outflows.set(r.k, {
          atMs: Number(r.at),
          lamports: BigInt(r.lamports),
          counts,
          ...(r.replaces === null ? {} : { replaces: Number(r.replaces) }),
        });
    }
  }

  /** Whether an outflow row left as released: by its id, or (a payout) as the replacement of a released one. */
  private releasedRow(key: string): boolean {
    const [kind, id] = key.split(":") as [string, string];
    if (kind === "withdrawal") return this.released.withdrawals.has(Number(id));
    if (kind !== "payout") return false;
    let at: number | undefined = Number(id);
    for (let hops = 0; at !== undefined && hops < 100; hops++) {
      if (this.released.payouts.has(at)) return true;
      at = this.outflows.get(`payout:${at}`)?.replaces;
    }
    return false;
  }

  /**
   * What of each burn buy was released: its orders a resume listed, or rests split off a listed
   * one (a buy that took it only in part), by id. An order nobody listed is never released.
   */
  private releasedBuys(): Map<string, bigint> {
    const orders = this.db.$client
      .query<{ id: bigint; lamports: bigint; buy: bigint | null; from: bigint | null }, []>(
        "SELECT id, lamports, buy_id AS buy, split_from_id AS 'from' FROM burn_orders",
      )
      .all();
    const splitFrom = new Map(orders.map((o) => [Number(o.id), o.from === null ? null : Number(o.from)]));
    const listed = (id: number): boolean => {
      let at: number | null | undefined = id;
      for (let hops = 0; at !== null && at !== undefined && hops < 1000; hops++) {
        if (this.released.burnOrders.has(at)) return true;
        at = splitFrom.get(at);
      }
      return false;
    };
    const out = new Map<string, bigint>();
    for (const o of orders) {
      if (o.buy === null || !listed(Number(o.id))) continue;
      const key = `buy:${o.buy}`;
      out.set(key, (out.get(key) ?? 0n) + BigInt(o.lamports));
    }
    return out;
  }

  /** The outflow of every rolling hour stays within the cap plus what resumes released, by id. */
  private checkOutflow(): void {
    if (this.hourCap === null) return;
    this.observeOutflow();
    const events = [...this.outflows.entries()].filter(([, e]) => e.counts).sort((a, b) => a[1].atMs - b[1].atMs);
    const buysReleased = this.releasedBuys();
    for (const [, end] of events) {
      let out = 0n;
      let released = 0n;
      for (const [key, e] of events) {
        if (e.atMs < end.atMs - HOUR_MS || e.atMs > end.atMs) continue;
        out += e.lamports;
        if (this.releasedRow(key)) released += e.lamports;
        released += buysReleased.get(key) ?? 0n;
      }
      const allowed = this.hourCap + released;
      if (out > allowed)
        throw new InvariantViolation(
          `${out} lamports left in the hour up to ${end.atMs - START_MS} ms, above the cap ${this.hourCap} plus ${allowed - this.hourCap} released`,
        );
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
    // The rebroadcaster's pass matters while a signed transaction is still live (a dropped send):
    // then it comes more often, as its timer keeps firing while one waits.
    const live = this.db.$client.query("SELECT 1 FROM chain_transactions WHERE state = 'live' LIMIT 1").get() !== null;
    if (this.rand() < (live ? 0.35 : 0.1)) {
      // The rebroadcaster's pass, between the jobs as its timer runs in the service.
      // As its timer does: the pass comes an interval after the sends before it, so they are due.
      this.nowMs += REBROADCAST_INTERVAL_MS;
      const r = await rebroadcastPass(
        { db: this.db, chain: this.chain, now: () => this.nowMs },
        { intervalMs: REBROADCAST_INTERVAL_MS },
      );
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
    // While a reconciliation is pending (or the start's check), the payouts run is the reconciliation: its points.
    const prefix = job === "payouts" && this.held() ? "reconcile:" : withdrawing ? "withdrawals:" : `${job}:`;
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

  /** Whether money waits on the chain's history: a reconciliation, or the start's check not passed yet. */
  held(): boolean {
    return this.reconciling() || startHoldTaken(this.db);
  }

  /**
   * About half the seeds take a backup early and put it back some steps later (within `steps`):
   * restored, or copied back by hand with JOBS on or off.
   */
  planRestore(steps: number): void {
    if (steps < 6 || this.rand() >= 0.55) return;
    const takeAt = this.int(0, Math.floor(steps / 3));
    const restoreAt = this.int(takeAt + 3, takeAt + Math.max(3, Math.floor(steps / 2)));
    const how = this.rand();
    this.restorePlan = {
      takeAt,
      restoreAt,
      how: how < 0.45 ? "restore" : how < 0.75 ? "rollback" : "rollback-jobs-off",
    };
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
    return `${plan.how} -> ${await this.restore(plan.how)}`;
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
   * `restore`: as `bun run restore` does it (its marker, the backup's leases freed), then the
   * start. `rollback`: copied back by hand (a volume snapshot, a file): no marker, nothing freed;
   * the start takes its hold as every start does, and sweep runs (burns runs too with JOBS on)
   * come before any payouts run, with trades and strangers between, so that a sweep not held would
   * have something to send and bury the forgotten payouts under signatures the books know.
   * `rollback-jobs-off`: the same with runs fired by a cron (sweep first, then payouts, burns).
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
  async restore(how: PutBack): Promise<string> {
    const { before, sweptBefore, putBackAtMs } = await this.putBack(how);
    const runs: string[] = [];
    if (how !== "restore") runs.push(await this.runsBeforePayouts(how === "rollback"));
    const round = await this.reconcileRounds(how, runs);
    if (this.held())
      throw new InvariantViolation(`the reconciliation after the ${how} did not finish: ${runs.slice(-2).join(" | ")}`);
    // From here on, a reconciliation that starts is not this one's.
    this.reconcileAllowedBeforeMs = this.nowMs + 1;
    const done = this.reconciliationSince(how, putBackAtMs);
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
    if (sweptSince) this.compareGrown(before, this.moneyState());
    else this.compareMoney(before, this.moneyState());
    if (!done) return `the start's check found nothing to reconcile in ${round} rounds: ${runs.join(" | ")}`;
    this.count("reconciledItems", done.applied);
    if (how !== "restore") this.count("rollbackReconciled");
    return `reconciled ${done.applied}/${done.total} of ${done.scanned} scanned in ${round} rounds: ${runs.join(" | ")}`;
  }

  /**
   * The world at rest, its money state and sweeps noted, then the backup put back as `how` puts it
   * and the start's hold taken.
   */
  private async putBack(
    how: PutBack,
  ): Promise<{ before: ReturnType<World["moneyState"]>; sweptBefore: Set<string>; putBackAtMs: number }> {
    const backup = this.backup!;
    this.backup = null;
    const rest = await this.quiesce();
    if (rest) throw new InvariantViolation(`before the ${how}: ${rest}`);
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
    const putBackAtMs = this.nowMs;
    if (how === "restore") {
      // As `bun run restore`: the backup's leases freed, the books marked restored.
      freeLeasesOfBackup(this.db);
      holdForReconciliation(this.db, "restore", this.nowMs);
    }
    // Every start holds money until the treasury's history is checked (src/workers/jobs-thread.ts), JOBS on or off.
    holdForReconciliation(this.db, "start", this.nowMs);
    this.count(how);
    return { before, sweptBefore, putBackAtMs };
  }

  /** The money jobs' runs while the books are held, hostile for the first rounds; returns the rounds run. */
  private async reconcileRounds(how: PutBack, runs: string[]): Promise<number> {
    let round = 0;
    for (; round < RECONCILE_ROUNDS && this.held(); round++) {
      this.nowMs += LEASE_MS + 1; // any lease a crashed run left has expired
      const hostile = round < HOSTILE_RECONCILE_ROUNDS;
      if (hostile && this.rand() < 0.6) {
        const rule = this.randomRule();
        // Holes in the address history too: a listing with a gap does not chain the treasury's
        // balances (src/reconcile/continuity.ts), so the reconciliation waits for a whole one.
        if (rule.kind === "historyHole") this.count("historyHoleInReconcile");
        this.faults.apply(rule);
        if (rule.kind === "clear") this.count("clear");
        runs.push(`fault ${rule.kind}`);
      } else if (round === HOSTILE_RECONCILE_ROUNDS) this.faults.clear();
      // An operator who tries to resume meanwhile is refused: only the reconciliation lets money go.
      if (this.rand() < 0.1) runs.push(`resume ${this.resume()}`);
      // Production runs the sweep job during the reconciliation too; burns wait for it. A cron
      // (JOBS off) fires them in its order; the schedules (JOBS on), in any.
      for (const job of how === "rollback" ? this.shuffled(MONEY_JOBS) : MONEY_JOBS) {
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
    return round;
  }

  /** The reconciliation started since the put-back, which must have finished; null when none started. */
  private reconciliationSince(how: PutBack, putBackAtMs: number) {
    const done = this.db.$client
      .query<{ id: bigint }, [number]>("SELECT id FROM reconciliations WHERE started_at_ms >= ? ORDER BY id DESC")
      .get(putBackAtMs)
      ? latestReconciliation(this.db)
      : null;
    // A restore always reconciles; a copy put back by hand only when the chain moved since (the check finds it).
    if ((how === "restore" || done) && done?.status !== "done")
      throw new InvariantViolation(
        `the reconciliation after the ${how} ended ${done?.status ?? "never started"}: ${this.db.$client
          .query<{ signature: string; note: string | null }, []>(
            "SELECT signature, note FROM reconciliation_items WHERE status = 'unknown' ORDER BY position",
          )
          .all()
          .map((u) => `${u.signature.slice(0, 8)}… ${u.note}`)
          .join("; ")}`,
      );
    return done;
  }

  /**
   * After a copy put back by hand, before any payouts run: sweep runs (with JOBS on, burns runs as
   * well, as their schedules fire), minutes apart, trades and strangers' dust between. None may
   * send before the start's check has passed.
   */
  private async runsBeforePayouts(jobsOn: boolean): Promise<string> {
    const [lo, hi] = this.rand() < 0.2 ? EARLY_SWEEPS_MANY : EARLY_SWEEPS_FEW;
    const n = this.int(lo, hi);
    const outcomes: Record<string, number> = {};
    for (let i = 0; i < n; i++) {
      this.nowMs += LEASE_MS + 1 + this.int(0, 90_000);
      const between = this.rand();
      if (between < 0.6) this.trade();
      else if (between < 0.75) this.dust(this.int(1, 5));
      const job: Job = jobsOn && this.rand() < 0.3 ? "burns" : "sweep";
      const plan = this.rand() < 0.15 ? this.planFor(job, "crash") : null;
      const outcome = await this.runJob(job, plan);
      const kind = `${job} ${outcome.startsWith("ok held") ? "held" : outcome.split(" ")[0]}`;
      outcomes[kind] = (outcomes[kind] ?? 0) + 1;
      this.node.advanceSlots(this.int(1, 40));
      this.checkBooks();
    }
    this.count("sweepsBeforePayouts", n);
    return `before payouts: ${Object.entries(outcomes)
      .map(([k, v]) => `${k} x${v}`)
      .join(", ")}`;
  }

  private shuffled<T>(list: readonly T[]): T[] {
    const out = [...list];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
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
      // Halted by an outflow cap with orders still waiting is not rest: the operator resumes next round.
      for (
        let round = 0;
        round === 0 || (round < SETTLE_ROUNDS && (buying || this.moneyLive() || this.haltedByCap()));
        round++
      ) {
        this.nowMs += LEASE_MS + 1;
        buying = false;
        this.resumeIfHalted();
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
      return `queued or sent items did not settle: ${this.liveItems()}`;
    } finally {
      this.settling = settling;
    }
  }

  /** What is still queued or in flight, and why money may be halted: a failure's detail. */
  private liveItems(): string {
    const live = this.db.$client
      .query<{ what: string }, []>(
        `SELECT 'sweep ' || id AS what FROM sweeps WHERE status = 'sent'
         UNION ALL SELECT 'payout ' || id || ' ' || status FROM payouts WHERE status IN ('sent', 'queued')
         UNION ALL SELECT 'withdrawal ' || id || ' ' || status FROM withdrawals WHERE status IN ('sent', 'queued')
         UNION ALL SELECT 'burn buy ' || id || ' ' || status || COALESCE(' (' || error || ')', '') FROM burn_buys WHERE status IN ('sent', 'bought', 'burning')
         UNION ALL SELECT 'launch ' || mint || ' ' || status FROM launch_intents WHERE status IN ('prepared', 'metadata')
         UNION ALL SELECT 'set aside ' || job || ' ' || mint || ': ' || COALESCE(reason, '') FROM set_aside WHERE set_aside_at_ms IS NOT NULL`,
      )
      .all();
    const halt = moneyHalt(this.db);
    return `${live.map((l) => l.what).join(", ")}; halted: ${halt ? `${halt.kind}: ${halt.detail}` : "no"}`;
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

  /**
   * After a put-back that swept new fees (the trades between the sweeps of a rollback): the
   * withdrawals are the same, every payout confirmed before is confirmed as it was, and what the
   * new fees paid out since is new payouts, each wallet holding exactly its new payouts more.
   */
  private compareGrown(before: MoneyState, after: MoneyState): void {
    this.compareMoney(before, after, ["withdrawals"]);
    const differ = (what: string) => {
      throw new InvariantViolation(`after the restore and its reconciliation, ${what}`);
    };
    const paidSince = new Map<string, bigint>();
    for (const [id, payout] of after.payouts) {
      const was = before.payouts.get(id);
      if (was !== undefined && was !== payout) differ(`payout ${id} differs: ${was} -> ${payout}`);
      if (was !== undefined) continue;
      // moneyState keeps the row's json_array text as a JSON string.
      const [, wallet, lamports] = JSON.parse(JSON.parse(payout) as string) as [string, string, string, string];
      paidSince.set(wallet, (paidSince.get(wallet) ?? 0n) + BigInt(lamports));
    }
    for (const id of before.payouts.keys()) if (!after.payouts.has(id)) differ(`payout ${id} is no longer confirmed`);
    for (const [wallet, was] of before.wallets) {
      const grew = BigInt(after.wallets.get(wallet) ?? "0") - BigInt(was);
      if (grew !== (paidSince.get(wallet) ?? 0n))
        differ(`wallet ${wallet} received ${grew} more, its new payouts say ${paidSince.get(wallet) ?? 0n}`);
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
    // trips here is a false halt, unless it is the outflow cap this seed set low.
    const halt = listIncidents(this.db, 500).find(
      (i) =>
        i.resolvedAtMs === null &&
        i.halts &&
        !(this.hourCap !== null && (i.kind === "outflow-hour" || i.kind === "outflow-day")),
    );
    if (halt) throw new InvariantViolation(`money halted in a healthy world: ${halt.kind}: ${halt.detail}`);
    if (startHoldTaken(this.db)) throw new InvariantViolation("the start's hold is still on in a healthy world");
    this.checkStrangers();
    this.checkOutflow();
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
    this.trickle = 0;
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
    const resumes: string[] = [];
    for (let round = 0; round < SETTLE_ROUNDS && !settled(); round++) {
      this.nowMs += LEASE_MS + 1; // any lease a crashed run left has expired
      const resumed = this.resumeIfHalted();
      if (resumed) resumes.push(`round ${round}: ${resumed}`);
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
    if (!settled())
      return `sent items did not reach a terminal state after the faults cleared: ${this.liveItems()}${resumes.length > 0 ? `; resumes: ${resumes.join(" | ")}` : ""}`;
    this.launches.check(true);
    // One more payouts run after the last stranger's transaction: it reads the treasury's newest.
    this.nowMs += LEASE_MS + 1; // any lease a crashed run left has expired
    const last = await this.runJob("payouts", null);
    if (last === "busy" || last.startsWith("error")) return `last payouts run: ${last}`;
    this.checkStrangersKnown();
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
