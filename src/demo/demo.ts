/**
 * The demo on the embedded local chain (on by default there; DEMO=0 turns it off; the config
 * refuses it on a real chain). A handful of tokens naming demo handles are created with pump's
 * `create_v2` on the chain's emulated pump program (pump's own SDK builds it) and recorded through
 * the same function a confirmed launch uses; the trade
 * simulator then trades them (and every token launched later) so fees accrue, sweeps land, and a newcomer can sign in with dev
 * login as a demo recipient and claim.
 *
 * Money within a minute: the simulator trades sizes that put a claimable balance (0.01 SOL) on a
 * demo handle within seconds, and sweeps run early (from DEMO_FIRST_SWEEP_MS after start, every
 * DEMO_SWEEP_RETRY_MS through the first minute) instead of waiting up to two minutes for the
 * schedule. Early runs go through the scheduler like any run: same lease, same job body.
 */
import { AppError } from "../lib/errors";
import type { Db } from "../../db/client";
import type { ChainSetup } from "../chain/setup";
import { log } from "../lib/log";
import { recordConfirmedLaunch } from "../tokens";
import { highestCreatorIndexInUse } from "../launches";
import { tokenMints } from "../tokens";

const DEMO_TOKENS = [
  {
    name: "Demo Sunrise",
    symbol: "SUN",
    recipients: [
      { handle: "alice_demo", bps: 6000 },
      { handle: "bob_demo", bps: 4000 },
    ],
  },
  { name: "Demo Harbor", symbol: "HRBR", recipients: [{ handle: "carol_demo", bps: 10_000 }] },
  {
    name: "Demo Lantern",
    symbol: "LNTN",
    recipients: [
      { handle: "alice_demo", bps: 2500 },
      { handle: "dave_demo", bps: 2500 },
      { handle: "erin_demo", bps: 5000 },
    ],
  },
  { name: "Demo Orchard", symbol: "ORCH", recipients: [{ handle: "bob_demo", bps: 10_000 }] },
  {
    name: "Demo Comet",
    symbol: "CMT",
    recipients: [
      { handle: "carol_demo", bps: 5000 },
      { handle: "erin_demo", bps: 5000 },
    ],
  },
] as const;

export interface DemoOptions {
  platformBps: number;
  tradesPerSecond?: number;
  now: () => number;
  /** runs the sweep job now (the scheduler's runNow); absent when jobs are off */
  runSweep?: () => Promise<unknown>;
}

/** Demo trade sizes: large enough that fees reach the claim threshold on a handle within seconds. */
/**
 * About 3 SOL of trades a second across the demo tokens: two trades of 0.1 to 3 SOL. pump's trades
 * cost the chain's thread several times what the old local program's did (pump's SDKs build them,
 * the programs' CPIs run one by one), so the demo trades half as often, twice as large: the same
 * fees, and the chain's JSON-RPC keeps its thread on a loaded machine.
 */
const DEMO_TRADES_PER_SECOND = 2;
const DEMO_MIN_BUY_LAMPORTS = 100_000_000n;
const DEMO_MAX_BUY_LAMPORTS = 3_000_000_000n;
/** When the first early sweep runs, how often after it, and until when; the schedule carries on after. */
const DEMO_FIRST_SWEEP_MS = 6_000;
const DEMO_SWEEP_RETRY_MS = 4_000;
const DEMO_EARLY_SWEEPS_UNTIL_MS = 60_000;

/** Creates the demo tokens when the current chain has none of the database's tokens, then starts trading. */
export async function startDemo(
  db: Db,
  chain: ChainSetup,
  options: DemoOptions,
): Promise<{ mints: string[]; stop(): void }> {
  const local = chain.local;
  if (!local) throw new AppError("CONFIG_INVALID", "the demo runs only on the embedded local chain");
  const known = tokenMints(db, 100);
  const onChain = known.length > 0 ? await chain.services.reader.getAccounts(known) : new Map();
  let mints = known.filter((m) => onChain.get(m));
  if (mints.length === 0) {
    mints = [];
    for (const demo of DEMO_TOKENS) {
      const used = highestCreatorIndexInUse(db);
      const creatorIndex = used === null ? 1 : Number(used) + 1;
      const creator = chain.services.creatorAddress(creatorIndex).toBase58();
      const uri = `local://demo/${demo.symbol.toLowerCase()}.json`;
      if (!local.pump) throw new AppError("CONFIG_INVALID", "the demo needs pump's programs on the local chain");
      const created = await local.pump.createToken({ name: demo.name, symbol: demo.symbol, uri, creator });
      if (created.err) {
        log.error("demo: the chain refused a demo token's create", { err: JSON.stringify(created.err) });
        throw new AppError("INTERNAL", "the demo could not create its tokens");
      }
      const vaults = chain.services.launchProgram.vaultAddresses({ mint: created.mint, creator });
      const launchedAtMs = options.now();
      recordConfirmedLaunch(
        db,
        {
          mint: created.mint,
          name: demo.name,
          symbol: demo.symbol,
          description: "A demo token on the embedded local chain.",
          website: null,
          twitter: null,
          telegram: null,
          metadataUri: uri,
          imageUri: null,
          creatorIndex,
          creator,
          creatorVault: vaults.curveVault,
          poolVault: vaults.poolVault,
          deployer: local.pump.deployer.publicKey.toBase58(),
          launchSignature: created.signature,
          launchedAtMs,
          platformBps: options.platformBps,
          recipients: demo.recipients.map((r) => ({ ...r })),
        },
        launchedAtMs,
      );
      mints.push(created.mint);
    }
    log.info("demo tokens created", { tokens: mints.length });
  }
  // No fixed list: the simulator trades every token on the chain, so launches made through the
  // page accrue fees too.
  local.simulator.start({
    tradesPerSecond: options.tradesPerSecond ?? DEMO_TRADES_PER_SECOND,
    minBuyLamports: DEMO_MIN_BUY_LAMPORTS,
    maxBuyLamports: DEMO_MAX_BUY_LAMPORTS,
  });
  const early = options.runSweep ? startEarlySweeps(options.runSweep) : null;
  return {
    mints,
    stop: () => {
      early?.stop();
      local.simulator.stop();
    },
  };
}

/** Runs the sweep job every few seconds through the demo's first minute, so balances show early. */
function startEarlySweeps(runSweep: () => Promise<unknown>): { stop(): void } {
  const startedAt = Date.now();
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;
  const tick = async () => {
    timer = null;
    try {
      // A scheduled run holding the lease answers "busy": nothing lost, it sweeps the same vaults.
      await runSweep();
    } catch (error) {
      log.warn("demo: early sweep failed", { error });
    }
    if (!stopped && Date.now() - startedAt + DEMO_SWEEP_RETRY_MS <= DEMO_EARLY_SWEEPS_UNTIL_MS)
      schedule(DEMO_SWEEP_RETRY_MS);
  };
  const schedule = (ms: number) => {
    timer = setTimeout(() => void tick(), ms);
    timer.unref?.();
  };
  schedule(DEMO_FIRST_SWEEP_MS);
  return {
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
