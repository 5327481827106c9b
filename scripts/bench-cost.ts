/**
 * What the RPC provider bills, with the reading schedule against today's read-everything sweep
 * (issue 42), on the embedded local chain with the real sweep job and indexer:
 *
 *   bun run bench:cost                                 10,000 tokens, 2 virtual hours (~10 min on 2 busy cores)
 *   bun run bench:cost -- --tokens 3000                a quicker run (~3 min)
 *   bun run bench:cost -- --tokens 100000 --hours 6    the issue's scale (1 h 16 min here, 7.2 GB per world)
 *   BENCH_VERBOSE=1 ...                                also lists any fee left uncredited
 *   ... --jobs 1                                       the worlds one after the other (default: at once)
 *
 * Two worlds, each in its own process with its own chain and database, see the same seeded
 * activity: N tokens launched before (with no fees waiting, so every reading is current), then
 * `--hours` virtual hours of pump-like trading with a sweep run every 2 minutes and the indexer
 * streaming:
 *  - new launches (0.2% of N an hour) trade heavily in their first hour and fade over three;
 *  - older tokens wake up now and then (0.5% of N an hour, a few trades each);
 *  - a few heavy traders (0.05% of N) trade all the time.
 * `baseline` reads every token every run (before the schedule). `scheduled` reads what its schedule
 * says is due; its older tokens start in the steady state of long-quiet tokens (waiting the
 * longest interval, their next readings spread over it), as after days of running. Each trade's
 * creator fee is read off the chain in-process (not through the provider). After the window
 * the scheduled world runs one maximum interval more without trading, and then a sweep that reads
 * every token must find nothing left to credit.
 *
 * Printed: provider requests per day by method and response bytes per day (the window scaled to a day),
 * the Yellowstone stream's bytes, the worst delay between a fee accruing and its credit, and the
 * lamports credited by each world (they must be equal). SWEEP_MIN_LAMPORTS is 1 in both worlds so
 * the delay is the schedule's alone (with a minimum, small fees also wait for it, in both worlds).
 * Exits 1 when credited lamports differ, a fee waited past the maximum interval, or the scheduled
 * world's requests or bytes per day exceed 5% of the baseline's.
 */
import { Keypair } from "@solana/web3.js";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Db } from "../db/client";
import { unsweptLamports } from "@fee-ledger/localnet/program";
import { localLaunchProgram, setupChain } from "../src/chain/setup";
import { takeProviderUsage } from "../src/chain/rpc";
import { testConfig } from "../src/config";
import { acquireLease, assertLeaseHeld, releaseLease } from "../src/jobs";
import { setLogSilent } from "../src/lib/log";
import { providerTotals } from "../src/chain/provider-usage";
import { buildService } from "../src/service";
import { runSweepJob } from "../src/sweeps";
import { quietCapMs } from "../src/tokens";
import { recordConfirmedLaunch } from "../src/tokens";
import { startIndexer } from "../indexer";

setLogSilent(true);
const args = process.argv.slice(2);
const arg = (name: string, fallback: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const TOKENS = arg("--tokens", 10_000);
const HOURS = arg("--hours", 2);
const SEED = arg("--seed", 42);
const MAX_INTERVAL_MS = arg("--max-interval-ms", 6 * 3_600_000);
const WATCH = arg("--watch", 3_000);
const JOBS = arg("--jobs", 2);
const textArg = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? (args[i + 1] ?? null) : null;
};
/** set in a world's own process: which world, and the file its result goes to */
const WORLD = textArg("--world");
const OUT = textArg("--out");
const RUN_EVERY_MS = 120_000;
const HOUR_MS = 3_600_000;
const say = (line: string) => process.stdout.write(`${line}\n`);
/** A long run's progress, on stderr so the figures on stdout stay as they are. */
const progress = (line: string) => process.stderr.write(`  ${line}\n`);

/** Deterministic draws: both worlds see exactly the same activity. */
function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4_294_967_296;
  };
}

interface Trade {
  /** token ordinal (1-based, launch order) */
  token: number;
  atMs: number;
  lamports: bigint;
}

interface Plan {
  /** per step: tokens launched (ordinals, in order) and trades, by time */
  steps: { launches: number[]; trades: Trade[] }[];
  tokensAtEnd: number;
}

/** The activity of the window, drawn once. */
function planActivity(startMs: number): Plan {
  const rand = rng(SEED);
  const steps: Plan["steps"] = [];
  const stepsCount = (HOURS * HOUR_MS) / RUN_EVERY_MS;
  const launchPerStep = (TOKENS * 0.002 * RUN_EVERY_MS) / HOUR_MS;
  const wakePerStep = (TOKENS * 0.005 * RUN_EVERY_MS) / HOUR_MS;
  const heavy = Array.from({ length: Math.max(2, Math.round(TOKENS * 0.0005)) }, () => 1 + Math.floor(rand() * TOKENS));
  const born = new Map<number, number>();
  const awake = new Map<number, number>();
  let next = TOKENS + 1;
  const amount = (low: number, high: number) => BigInt(Math.floor((low + rand() * (high - low)) * 1e9));
  for (let step = 0; step < stepsCount; step++) {
    const from = startMs + step * RUN_EVERY_MS;
    const at = () => from + Math.floor(rand() * RUN_EVERY_MS);
    const launches: number[] = [];
    const trades: Trade[] = [];
    for (let n = Math.floor(launchPerStep + rand()); n > 0; n--) {
      born.set(next, from);
      launches.push(next++);
    }
    for (const [token, bornAt] of born) {
      const ageMin = (from - bornAt) / 60_000;
      if (ageMin > 240) born.delete(token);
      else if (rand() < 0.9 * Math.exp(-ageMin / 60)) trades.push({ token, atMs: at(), lamports: amount(0.05, 1) });
    }
    for (let n = Math.floor(wakePerStep + rand()); n > 0; n--)
      awake.set(1 + Math.floor(rand() * TOKENS), 1 + Math.floor(rand() * 4));
    for (const [token, left] of awake) {
      trades.push({ token, atMs: at(), lamports: amount(0.01, 0.3) });
      if (left <= 1) awake.delete(token);
      else awake.set(token, left - 1);
    }
    for (const token of heavy) if (rand() < 0.5) trades.push({ token, atMs: at(), lamports: amount(0.01, 0.1) });
    trades.sort((a, b) => a.atMs - b.atMs);
    steps.push({ launches, trades });
  }
  return { steps, tokensAtEnd: next - 1 };
}

interface WorldResult {
  mode: "baseline" | "scheduled";
  requests: Map<string, number>;
  bytes: Map<string, number>;
  streamBytes: number;
  watchedAccounts: number;
  creditedLamports: bigint;
  feesLamports: bigint;
  worstDelayMs: number;
  leftForReference: bigint;
  tokensTraded: number;
  setupSeconds: number;
  runSeconds: number;
  /** sweep transactions sent in the window, and the token sweeps they carried */
  sweepTransactions: number;
  tokenSweeps: number;
}

const benchEnv = {
  LOCAL_CHAIN_RPC_PORT: "0",
  LOCAL_CHAIN_GRPC_PORT: "0",
  LOCAL_CHAIN_SLOT_MS: "20",
  SWEEP_MIN_LAMPORTS: "1",
};
type Chain = Awaited<ReturnType<typeof setupChain>>;
type TokenOnChain = { id: number; mint: string; curveVault: string; poolVault: string };

/**
 * The N older tokens, launched on the world's own chain (each world needs its own: a sweep leaves
 * the creator address's rent reserve, which another world would then count as fees). They carry
 * no unswept fees (as if swept long ago), so the stored readings match the chain.
 */
function launchOlderTokens(chain: Chain, db: Db, startMs: number): TokenOnChain[] {
  const tokens: TokenOnChain[] = [];
  db.$client.exec("PRAGMA synchronous = OFF");
  for (let i = 1; i <= TOKENS; i++) tokens[i] = launchToken(chain, db, i, startMs - 30 * 24 * HOUR_MS + i);
  db.$client.exec("PRAGMA synchronous = FULL");
  return tokens;
}

function launchToken(chain: Chain, db: Db, ordinal: number, atMs: number): TokenOnChain {
  const { services } = chain;
  const local = chain.local!;
  const creator = services.creatorAddress(ordinal).toBase58();
  const created = local.launch.createToken({ name: `C${ordinal}`, symbol: `C${ordinal}`, uri: "local://c", creator });
  if (created.err) throw new Error(`create ${ordinal} failed`);
  const vaults = services.launchProgram.vaultAddresses({ mint: created.mint, creator });
  const { tokenId } = recordConfirmedLaunch(
    db,
    {
      mint: created.mint,
      name: `C${ordinal}`,
      symbol: `C${ordinal}`,
      description: "",
      website: null,
      twitter: null,
      telegram: null,
      metadataUri: "local://c",
      imageUri: null,
      creatorIndex: ordinal,
      creator,
      creatorVault: vaults.curveVault,
      poolVault: vaults.poolVault,
      deployer: local.launch.deployer.publicKey.toBase58(),
      launchSignature: created.signature,
      launchedAtMs: atMs,
      platformBps: 1000,
      recipients: [{ handle: `c${ordinal}`, bps: 10_000 }],
    },
    atMs,
  );
  return { id: tokenId, mint: created.mint, curveVault: vaults.curveVault, poolVault: vaults.poolVault! };
}

/** One world: its chain, database and virtual clock, and the tokens launched on it by ordinal. */
interface World {
  mode: "baseline" | "scheduled";
  config: ReturnType<typeof testConfig>;
  chain: Chain;
  clock: { nowMs: number };
  service: ReturnType<typeof buildService>;
  db: Db;
  local: NonNullable<Chain["local"]>;
  trader: Keypair;
  tokens: TokenOnChain[];
  indexer: ReturnType<typeof startIndexer> | null;
  setupSeconds: number;
}

/** What the window's trades accrued and how long each fee waited for its credit. */
interface Credits {
  /** per token id: fees not yet credited, as [accrued at, cumulative fees since the start] */
  pending: Map<number, { baseSwept: bigint; cum: bigint; entries: [number, bigint][] }>;
  fees: bigint;
  worstDelayMs: number;
  traded: Set<number>;
}

/** What the provider served in the window, and the sweeps sent in it. */
interface WindowUsage {
  requests: Map<string, number>;
  bytes: Map<string, number>;
  streamBytes: number;
  watchedAccounts: number;
  sent: { txs: bigint; sweeps: bigint };
}

async function runWorld(mode: "baseline" | "scheduled", plan: Plan, startMs: number): Promise<WorldResult> {
  const w = await openWorld(mode, plan, startMs);
  if (mode === "scheduled") seedQuietSchedule(w, startMs);

  w.clock.nowMs = startMs;
  const indexer = await startWorldIndexer(w);
  const creditedBefore = totalSwept(w);
  takeProviderUsage();
  const before = new Map(providerTotals(w.db, w.clock.nowMs).map((p) => [p.method, p]));
  const streamBefore = indexer.state().receivedBytes ?? 0;
  const t0 = performance.now();
  const credits: Credits = { pending: new Map(), fees: 0n, worstDelayMs: 0, traded: new Set() };
  await playWindow(w, plan, startMs, credits, t0);
  const usage = windowUsage(w, indexer, before, streamBefore, startMs);

  await sweepAfterWindow(w, credits);
  const runSeconds = (performance.now() - t0) / 1000;
  const creditedLamports = totalSwept(w) - creditedBefore;
  // The reference: a run that reads every token finds nothing the schedule left behind.
  w.clock.nowMs += RUN_EVERY_MS;
  await sweep(w, true);
  const leftForReference = totalSwept(w) - creditedBefore - creditedLamports;
  for (const p of credits.pending.values()) if (p.entries.length > 0) credits.worstDelayMs = Number.POSITIVE_INFINITY;
  if (process.env.BENCH_VERBOSE) listUncredited(w, credits);
  await indexer.stop();
  await w.service.close();
  await w.chain.stop();
  rmSync(w.config.dataDir, { recursive: true, force: true });
  return {
    mode,
    requests: usage.requests,
    bytes: usage.bytes,
    streamBytes: usage.streamBytes,
    watchedAccounts: usage.watchedAccounts,
    creditedLamports,
    feesLamports: credits.fees,
    worstDelayMs: credits.worstDelayMs,
    leftForReference,
    tokensTraded: credits.traded.size,
    setupSeconds: w.setupSeconds,
    runSeconds,
    sweepTransactions: Number(usage.sent.txs),
    tokenSweeps: Number(usage.sent.sweeps),
  };
}

/** The world's chain, service and funded trader, with the N older tokens launched (not measured). */
async function openWorld(mode: World["mode"], plan: Plan, startMs: number): Promise<World> {
  const config = testConfig(benchEnv);
  const chain = await setupChain(config);
  // Its 100,000 tokens are made by the old local launch program (cheap to create): read them with its adapter.
  chain.services.launchProgram = localLaunchProgram(chain.local!, chain.services.reader);
  const clock = { nowMs: startMs - HOUR_MS };
  const service = buildService(config, { chain: chain.services, now: () => clock.nowMs });
  const db = service.ctx.db;
  const local = chain.local!;
  const trader = Keypair.generate();
  local.node.fund(trader.publicKey, 1_000_000_000_000_000n);
  const setupStarted = performance.now();
  const tokens = launchOlderTokens(chain, db, startMs);
  const setupSeconds = (performance.now() - setupStarted) / 1000;
  progress(`${mode}: ${TOKENS} older tokens launched in ${setupSeconds.toFixed(0)} s`);
  return { mode, config, chain, clock, service, db, local, trader, tokens, indexer: null, setupSeconds };
}

/** Long-quiet tokens: waiting the longest interval, their next readings spread over it. */
function seedQuietSchedule(w: World, startMs: number): void {
  const rand = rng(SEED + 1);
  const cap = quietCapMs(MAX_INTERVAL_MS);
  const seedRow = w.db.$client.query<never, [number, number, number, number]>(
    "INSERT INTO reading_schedule (token_id, interval_ms, next_read_at_ms, active_at_ms) VALUES (?, ?, ?, ?)",
  );
  w.db.$client.transaction(() => {
    for (let i = 1; i <= TOKENS; i++)
      seedRow.run(w.tokens[i]!.id, cap, startMs + Math.floor(rand() * cap), startMs - 7 * 24 * HOUR_MS);
  })();
}

async function startWorldIndexer(w: World): Promise<ReturnType<typeof startIndexer>> {
  const indexer = startIndexer(
    w.service.ctx,
    { services: w.chain.services, local: w.local },
    {
      leaseMs: 30 * 24 * HOUR_MS,
      stateLogMs: 0,
      watchMax: WATCH,
      launchProgramOver: (reader) => localLaunchProgram(w.local, reader),
    },
  );
  w.indexer = indexer;
  for (let i = 0; i < 500 && !indexer.state().connected; i++) await Bun.sleep(20);
  await indexer.idle();
  return indexer;
}

// What the adapter counts: a vault's lamports above its rent reserve (a first trade funds both).
function vaultsOf(w: World, ordinal: number): bigint {
  const t = w.tokens[ordinal]!;
  return unsweptLamports(w.local.node.getBalance(t.curveVault)) + unsweptLamports(w.local.node.getBalance(t.poolVault));
}

function trade(w: World, ordinal: number, lamports: bigint): bigint {
  const before = vaultsOf(w, ordinal);
  const result = w.local.launch.buy({ mint: w.tokens[ordinal]!.mint, buyer: w.trader, solInLamports: lamports });
  if ((result as { err: unknown }).err) throw new Error(`trade of ${ordinal} failed`);
  return vaultsOf(w, ordinal) - before;
}

async function sweep(w: World, everyToken = false): Promise<void> {
  const { db, clock } = w;
  const lease = acquireLease(db, "sweep", "bench-cost", 10 * 60_000, clock.nowMs);
  if (!lease) throw new Error("sweep lease busy");
  try {
    await runSweepJob(
      {
        db,
        chain: w.chain.services,
        sweepMinLamports: 1n,
        platformBuybackBps: 0,
        now: () => clock.nowMs,
        quietMaxIntervalMs: w.mode === "scheduled" && !everyToken ? MAX_INTERVAL_MS : undefined,
        // As the jobs' thread wires it: the indexer's stream decides the run's sweeps.
        streamResolves: () => w.indexer?.state().mode === "grpc" && w.indexer.state().connected,
        settleTimeoutMs: 60_000,
        settlePollMs: 25,
      },
      { lease, signal: new AbortController().signal, assertHeld: () => assertLeaseHeld(db, lease, clock.nowMs) },
    );
  } finally {
    releaseLease(db, lease, { ok: true, error: null }, clock.nowMs);
  }
}

function sweptNow(w: World, ids: readonly number[]): bigint[] {
  const q = w.db.$client.query<{ s: bigint }, [number]>("SELECT swept_lamports AS s FROM tokens WHERE id = ?");
  return ids.map((id) => BigInt(q.get(id)!.s));
}

function totalSwept(w: World): bigint {
  return BigInt(
    w.db.$client.query<{ s: bigint }, []>("SELECT COALESCE(SUM(swept_lamports), 0) AS s FROM tokens").get()!.s,
  );
}

/** Drops the fees the sweeps have credited since, noting how long each waited. */
function checkCredits(w: World, credits: Credits): void {
  const ids = [...credits.pending.keys()];
  const swept = sweptNow(w, ids);
  for (const [i, id] of ids.entries()) {
    const p = credits.pending.get(id)!;
    const credited = swept[i]! - p.baseSwept;
    while (p.entries.length > 0 && p.entries[0]![1] <= credited) {
      credits.worstDelayMs = Math.max(credits.worstDelayMs, w.clock.nowMs - p.entries[0]![0]);
      p.entries.shift();
    }
    if (p.entries.length === 0) credits.pending.delete(id);
  }
}

/** The window: each step's launches and trades, then the run every 2 minutes. */
async function playWindow(w: World, plan: Plan, startMs: number, credits: Credits, t0: number): Promise<void> {
  const { clock } = w;
  for (const [index, step] of plan.steps.entries()) {
    if (index > 0 && index % (HOUR_MS / RUN_EVERY_MS) === 0)
      progress(
        `${w.mode}: virtual hour ${index / (HOUR_MS / RUN_EVERY_MS)} of ${HOURS} in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
      );
    for (const ordinal of step.launches) w.tokens[ordinal] = launchToken(w.chain, w.db, ordinal, clock.nowMs);
    for (const t of step.trades) {
      clock.nowMs = t.atMs;
      const fee = trade(w, t.token, t.lamports);
      credits.fees += fee;
      credits.traded.add(t.token);
      const id = w.tokens[t.token]!.id;
      let p = credits.pending.get(id);
      if (!p) {
        p = { baseSwept: sweptNow(w, [id])[0]!, cum: 0n, entries: [] };
        credits.pending.set(id, p);
      }
      p.cum += fee;
      p.entries.push([t.atMs, p.cum]);
    }
    clock.nowMs = Math.floor((clock.nowMs - startMs) / RUN_EVERY_MS + 1) * RUN_EVERY_MS + startMs;
    // The stream delivers within a slot or two; the run starts once the indexer has stored it.
    await Bun.sleep(60);
    await w.indexer!.idle();
    await sweep(w);
    checkCredits(w, credits);
  }
}

function windowUsage(
  w: World,
  indexer: ReturnType<typeof startIndexer>,
  before: Map<string, ReturnType<typeof providerTotals>[number]>,
  streamBefore: number,
  startMs: number,
): WindowUsage {
  const after = providerTotals(w.db, w.clock.nowMs);
  const sent = w.db.$client
    .query<{ txs: bigint; sweeps: bigint }, [number]>(
      "SELECT COUNT(DISTINCT signature) AS txs, COUNT(*) AS sweeps FROM sweeps WHERE created_at_ms >= ?",
    )
    .get(startMs)!;
  const streamBytes = (indexer.state().receivedBytes ?? 0) - streamBefore;
  const watchedAccounts = indexer.state().accounts ?? 0;
  const requests = new Map<string, number>();
  const bytes = new Map<string, number>();
  for (const p of after) {
    const b = before.get(p.method);
    const n = p.requests - (b?.requests ?? 0);
    if (n > 0) requests.set(p.method, n);
    const nb = p.responseBytes - (b?.responseBytes ?? 0);
    if (nb > 0) bytes.set(p.method, nb);
  }
  return { requests, bytes, streamBytes, watchedAccounts, sent };
}

/** After the window, no trading (not counted). */
async function sweepAfterWindow(w: World, credits: Credits): Promise<void> {
  if (w.mode === "scheduled") {
    const end = w.clock.nowMs + MAX_INTERVAL_MS;
    while (w.clock.nowMs < end) {
      w.clock.nowMs += RUN_EVERY_MS;
      await sweep(w);
      checkCredits(w, credits);
    }
  } else {
    // The window's last fees (and a sweep still landing when its run ended) are credited by the
    // next runs: without them the worlds' credited lamports differ by what the baseline's last
    // runs had in flight, not by anything the schedule did.
    for (let n = 0; n < 10 && credits.pending.size > 0; n++) {
      w.clock.nowMs += RUN_EVERY_MS;
      await sweep(w);
      checkCredits(w, credits);
    }
  }
}

function listUncredited(w: World, credits: Credits): void {
  const { db } = w;
  for (const [id, p] of credits.pending) {
    const row = db.$client
      .query<{ mint: string; swept: bigint; vault: bigint }, [number]>(
        "SELECT mint, swept_lamports AS swept, vault_lamports AS vault FROM tokens WHERE id = ?",
      )
      .get(id)!;
    const sweeps = db.$client
      .query<{ status: string; total: bigint | null; error: string | null }, [number]>(
        "SELECT status, total_lamports AS total, error FROM sweeps WHERE token_id = ?",
      )
      .all(id);
    const aside = db.$client
      .query<{ reason: string; failures: bigint }, [string]>(
        "SELECT reason, failures FROM set_aside WHERE mint = ? AND job = 'sweep'",
      )
      .get(row.mint);
    say(
      `  uncredited: token ${id} fees ${p.cum} base ${p.baseSwept} swept ${row.swept} stored ${row.vault} sweeps ${JSON.stringify(sweeps, (_, v) => (typeof v === "bigint" ? String(v) : v))}${aside ? ` set aside after ${aside.failures} failures: ${aside.reason}` : ""}`,
    );
  }
}

/** A world's result as its process writes it (Maps as entries, lamports as decimal strings). */
function resultToJson(r: WorldResult): string {
  return JSON.stringify(
    {
      ...r,
      requests: [...r.requests],
      bytes: [...r.bytes],
      worstDelayMs: Number.isFinite(r.worstDelayMs) ? r.worstDelayMs : null,
    },
    (_, v) => (typeof v === "bigint" ? v.toString() : v),
  );
}

function resultFromJson(text: string): WorldResult {
  const o = JSON.parse(text);
  return {
    ...o,
    requests: new Map(o.requests),
    bytes: new Map(o.bytes),
    creditedLamports: BigInt(o.creditedLamports),
    feesLamports: BigInt(o.feesLamports),
    leftForReference: BigInt(o.leftForReference),
    worstDelayMs: o.worstDelayMs ?? Number.POSITIVE_INFINITY,
  };
}

// Both worlds' processes draw the window from the same start.
const startMs = arg("--start-ms", Math.floor(Date.now() / HOUR_MS) * HOUR_MS + 24 * HOUR_MS);
const plan = planActivity(startMs);
if (WORLD === "baseline" || WORLD === "scheduled") {
  const r = await runWorld(WORLD, plan, startMs);
  writeFileSync(OUT!, resultToJson(r));
  process.exit(0);
}
const tradesTotal = plan.steps.reduce((n, s) => n + s.trades.length, 0);
const perHour = plan.steps.length / (HOUR_MS / RUN_EVERY_MS);
const hourly: number[] = [];
for (let h = 0; h < perHour; h++) {
  const set = new Set<number>();
  for (const s of plan.steps.slice(h * 30, (h + 1) * 30)) for (const t of s.trades) set.add(t.token);
  hourly.push(set.size);
}
say(
  `bench:cost: ${TOKENS} tokens, ${HOURS} h virtual, a run every 2 min, max interval ${MAX_INTERVAL_MS / HOUR_MS} h, ` +
    `${tradesTotal} trades, ${plan.tokensAtEnd - TOKENS} launches, tokens trading per hour ${hourly.join("/")} ` +
    `(${((100 * hourly.reduce((a, b) => a + b, 0)) / hourly.length / plan.tokensAtEnd).toFixed(2)}% of tokens)`,
);
/** Each world in its own process: two cores run both at once, and neither world's heap or timers slow the other. */
async function worldInProcess(mode: "baseline" | "scheduled"): Promise<WorldResult> {
  const out = join(tmpdir(), `bench-cost-${process.pid}-${mode}.json`);
  const child = Bun.spawn(
    [process.execPath, import.meta.path, ...args, "--world", mode, "--out", out, "--start-ms", String(startMs)],
    { stdout: "inherit", stderr: "inherit" },
  );
  const code = await child.exited;
  if (code !== 0) {
    say(`${mode}: the world's process exited with ${code}`);
    process.exit(1);
  }
  const r = resultFromJson(readFileSync(out, "utf8"));
  rmSync(out, { force: true });
  say(
    `${mode}: ${TOKENS} older tokens launched in ${r.setupSeconds.toFixed(1)} s, ${HOURS} h virtual in ${r.runSeconds.toFixed(1)} s; ` +
      `${r.sweepTransactions} sweep transactions carried ${r.tokenSweeps} token sweeps`,
  );
  return r;
}
const worlds: WorldResult[] =
  JOBS >= 2
    ? await Promise.all([worldInProcess("baseline"), worldInProcess("scheduled")])
    : [await worldInProcess("baseline"), await worldInProcess("scheduled")];
const [base, sched] = worlds as [WorldResult, WorldResult];
const perDay = 24 / HOURS;
const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
const methods = [...new Set([...base.requests.keys(), ...sched.requests.keys()])].sort();
say("\nprovider requests per day by method (baseline -> scheduled):");
for (const m of methods)
  say(
    `  ${m.padEnd(34)} ${Math.round((base.requests.get(m) ?? 0) * perDay)
      .toLocaleString("en-US")
      .padStart(12)} -> ${Math.round((sched.requests.get(m) ?? 0) * perDay)
      .toLocaleString("en-US")
      .padStart(10)}`,
  );
const reqRatio = sum(sched.requests) / sum(base.requests);
const byteRatio = sum(sched.bytes) / sum(base.bytes);
say(
  `  ${"all".padEnd(34)} ${Math.round(sum(base.requests) * perDay)
    .toLocaleString("en-US")
    .padStart(12)} -> ${Math.round(sum(sched.requests) * perDay)
    .toLocaleString("en-US")
    .padStart(10)}  (${(100 * reqRatio).toFixed(2)}%)`,
);
const mb = (n: number) => `${((n * perDay) / 1e6).toFixed(1)} MB`;
say(`response bytes per day: ${mb(sum(base.bytes))} -> ${mb(sum(sched.bytes))} (${(100 * byteRatio).toFixed(2)}%)`);
say(
  `Yellowstone stream bytes per day: ${mb(base.streamBytes)} -> ${mb(sched.streamBytes)}; accounts watched ${base.watchedAccounts} -> ${sched.watchedAccounts}`,
);
const min = (ms: number) => (Number.isFinite(ms) ? `${(ms / 60_000).toFixed(1)} min` : "never credited");
say(`worst delay from a fee to its credit: ${min(base.worstDelayMs)} -> ${min(sched.worstDelayMs)}`);
say(
  `lamports credited: baseline ${base.creditedLamports}, scheduled ${sched.creditedLamports} (fees accrued ${base.feesLamports} / ${sched.feesLamports}); ` +
    `left for a read-everything run after the schedule: ${sched.leftForReference}`,
);
const failures: string[] = [];
if (base.creditedLamports !== sched.creditedLamports) failures.push("credited lamports differ");
if (sched.leftForReference !== 0n) failures.push("the schedule left fees a full read found");
if (!(sched.worstDelayMs <= MAX_INTERVAL_MS)) failures.push("a fee waited past the maximum interval");
if (reqRatio > 0.05) failures.push(`requests per day ${(100 * reqRatio).toFixed(2)}% of the baseline (target 5%)`);
if (byteRatio > 0.05) failures.push(`bytes per day ${(100 * byteRatio).toFixed(2)}% of the baseline (target 5%)`);
say(failures.length === 0 ? "\nok" : `\nMISSED: ${failures.join("; ")}`);
process.exit(failures.length === 0 ? 0 : 1);
