/**
 * The embedded local chain: a LiteSVM node that speaks Solana JSON-RPC and Yellowstone gRPC on
 * loopback (and Solana PubSub over WebSocket), with a local launch program and a trade simulator.
 * See the package README.
 *
 * API (the one entry point):
 *
 *   const chain = await startLocalChain({
 *     rpcPort: 8899,            // 0 = a free port (tests)
 *     grpcPort: 10000,          // 0 = a free port
 *     wsPort?: 8900,            // PubSub WebSocket; default rpcPort + 1 (with rpcPort 0: the bound port + 1 if free, else any)
 *     slotMs: 400,              // 0 = no timer; move the clock with chain.node.advanceSlots(n)
 *     treasury?: Keypair,       // funded with treasuryLamports (default 1,000,000 SOL) at genesis only;
 *                               // generated if absent (a continued chain keeps the one it began with)
 *     treasuryLamports?: bigint,
 *     creatorFeeBps?: number,   // local program's creator fee, default 30 (0.30 %)
 *     bondThresholdLamports?: bigint, // real SOL on a curve at which it bonds, default 85 SOL
 *     programSeed?: Uint8Array, // derives the program's keys; random per start by default
 *     txHistoryLimit?: number,  // full records for getTransaction, default 50,000 (statuses: 2,000,000)
 *     strictConfirmed?: boolean, // confirmed reads answer the last closed slot, as agave (default false)
 *     allowedHosts?: string[],   // Host names answered besides loopback ("*": any); others 403
 *     allowedOrigins?: string[], // browser origins answered (CORS) besides loopback ("*": any); others 403
 *     bpfPrograms?, upgradeablePrograms?, accounts?, accountDirs?: // loaded at genesis as solana-test-validator's
 *                               // --bpf-program, --upgradeable-program, --account, --account-dir (genesis-accounts.ts)
 *     log?: (msg: string) => void,
 *   });
 *
 *   chain.rpcUrl            "http://127.0.0.1:<port>"  (web3.js Connection, ChainReader/ChainSender)
 *   chain.grpcUrl           "http://127.0.0.1:<port>"  (@triton-one/yellowstone-grpc Client, no token)
 *   chain.wsUrl             "ws://127.0.0.1:<port>"    (PubSub)
 *   chain.rpcPort, grpcPort, wsPort the bound ports (print them at start)
 *   chain.treasury          Keypair, funded
 *   chain.node              LocalNode: getSlot/getBlockHeight/advanceSlots(n)/getBalance/fund(pubkey, lamports)/
 *                           airdrop/getTransaction/vaultFees(kind, creator)/creatorOf(mint)/localMints()/stats
 *   chain.launch            LocalLaunchHelpers: createToken({name, symbol, uri, creator, payer?, mint?}),
 *                           buy({mint, buyer, solInLamports}), sell({mint, seller, tokensIn}),
 *                           curveState(mint), tokenBalance(mint, owner), deployer (funded Keypair)
 *   chain.pump              PumpLaunchHelpers (pump's programs, SDK-built transactions; async):
 *                           createToken({name, symbol, uri, creator, payer?, mint?}), buy({mint, buyer,
 *                           solInLamports}) (migrates a curve it completes), sell({mint, seller, tokensIn}),
 *                           tokenBalance(mint, owner), migrated(mint), deployer; node.pumpMints() lists the coins
 *   chain.simulator         TradeSimulator: start({tradesPerSecond, mints?, traders?, minBuyLamports?,
 *                           maxBuyLamports?, sellRatio?, seed?}), stop(), tradeOnce(), stats, running
 *   chain.faults            dropNextSends(n, match?), delayNextSends(n, slots, match?), failNextSends(n, match?),
 *                           failRpc(method | "*", n, "error" | "timeout", holdMs?), cutStreams(), clear(),
 *                           apply(rule) / list() / injected: the hostile-chain rules of faults.ts, the
 *                           same as JSON-RPC `localnet_fault` / `localnet_faults`
 *   chain.fetch             an in-process fetch to the JSON-RPC (same answers and faults, no socket)
 *   chain.programKeys       LocalProgramKeys (addresses and builders' keys; node-held secrets)
 *   chain.programConfig     { creatorFeeBps, bondThresholdLamports }
 *   chain.stop()            stops the clock, the simulator and the three servers; idempotent
 *
 * The node runs inside the calling process (Bun, or Node 20 and later from the built dist/): LiteSVM
 * is a napi module, JSON-RPC is Bun.serve or node:http, PubSub Bun's WebSocket server or `ws`, and
 * gRPC @grpc/grpc-js, so nothing is spawned and stop() releases everything.
 */
import { Keypair, LAMPORTS_PER_SOL } from "@solana/web3.js";
import { LocalNode } from "./node";
import { RpcServer } from "./rpc-server";
import { ChainFaults, type FaultRule } from "./faults";
import { GeyserServer } from "./grpc-server";
import { PubSubServer } from "./pubsub-server";
import { LocalLaunchHelpers, TradeSimulator } from "./launch";
import { PumpLaunchHelpers } from "./pump-launch";
import type { LocalProgramKeys, LocalProgramConfig } from "./program";
import { Checkpointer, type CheckpointOptions, loadCheckpoint, resetCheckpoint } from "./checkpoint";
import { deployUpgradeable, launchProgramAddress } from "./upgradeable";
import { type GenesisLoads, loadAtGenesis } from "./genesis-accounts";
import { pumpPrograms } from "./native/pump";

/** With GenesisLoads (genesis-accounts.ts): programs and accounts a fresh chain begins with. */
export interface LocalChainOptions extends GenesisLoads {
  rpcPort: number;
  grpcPort: number;
  /** PubSub WebSocket port; default rpcPort + 1, as solana-test-validator and web3.js assume */
  wsPort?: number;
  slotMs?: number;
  treasury?: Keypair;
  treasuryLamports?: bigint;
  creatorFeeBps?: number;
  bondThresholdLamports?: bigint;
  programSeed?: Uint8Array;
  /** full transaction records kept for getTransaction (default 50,000); statuses are kept far longer */
  txHistoryLimit?: number;
  log?: (msg: string) => void;
  /** seeds which reads a `lag` rule's share hits (default 1): a simulation seed reproduces them */
  faultSeed?: number;
  /**
   * Where the chain's state is kept across restarts (checkpoint.ts): given, a start continues the
   * chain saved there (its accounts, clock, program and recent transactions) and saves as it goes.
   * Absent, the chain lives in memory only.
   */
  stateDir?: string;
  /**
   * Confirmed reads answer the last closed slot, as agave's (the `localnet` command's default).
   * Off by default here: callers stepping the clock by hand read at confirmed what they just sent.
   */
  strictConfirmed?: boolean;
  /** with stateDir: forget the saved chain and start fresh */
  reset?: boolean;
  /**
   * pump, pump_amm and pump_fees at their real ids, executed by the node (packages/localnet/src/native/pump/), with
   * their accounts at genesis (default true; false leaves those ids empty, as a plain validator).
   */
  pumpPrograms?: boolean;
  /** with stateDir: compaction and size bounds of the checkpoint */
  checkpoint?: Omit<CheckpointOptions, "dir">;
  /**
   * Host names the JSON-RPC and PubSub answer besides loopback ones (a reverse proxy's, a LAN
   * name); "*" answers any. Others get 403: a page that rebinds its own name to 127.0.0.1 reads nothing.
   */
  allowedHosts?: string[];
  /**
   * Browser origins answered (with CORS) besides loopback ones, e.g. "https://app.example" or a
   * wallet extension's "chrome-extension://<id>"; "*" answers any. Requests from other origins get 403.
   */
  allowedOrigins?: string[];
}

export interface LocalChainFaults {
  /** the next `count` sends answer with a signature and never land */
  dropNextSends(count: number, match?: (signature: string) => boolean): void;
  /** the next `count` sends land `slots` slots later (if their blockhash still allows) */
  delayNextSends(count: number, slots: number, match?: (signature: string) => boolean): void;
  /** the next `count` sends land as failed transactions (fee charged, InstructionError Custom(1)) */
  failNextSends(count: number, match?: (signature: string) => boolean): void;
  /** the next `count` calls of `method` ("*" = any) answer HTTP 503, or hang for holdMs (default 30 s) then answer 504 */
  failRpc(method: string, count: number, mode: "error" | "timeout", holdMs?: number): void;
  /** ends every open gRPC Subscribe stream with UNAVAILABLE; returns how many were cut */
  cutStreams(): number;
  clear(): void;
  /** applies one hostile-chain rule (faults.ts), as JSON-RPC `localnet_fault` does */
  apply(rule: FaultRule): FaultRule;
  /** the active rules, as `localnet_faults` lists them */
  list(): FaultRule[];
  /** faults actually injected so far, by kind */
  readonly injected: Readonly<Record<string, number>>;
}

export interface LocalChain {
  rpcUrl: string;
  grpcUrl: string;
  wsUrl: string;
  rpcPort: number;
  grpcPort: number;
  wsPort: number;
  treasury: Keypair;
  node: LocalNode;
  launch: LocalLaunchHelpers;
  /** pump's coins, as a wallet makes and trades them (null with `pumpPrograms: false`) */
  pump: PumpLaunchHelpers | null;
  simulator: TradeSimulator;
  faults: LocalChainFaults;
  /** in-process transport to the JSON-RPC (for createRpcChain's `fetch`) */
  fetch: typeof fetch;
  /** what the JSON-RPC server answered, per method: what a provider would bill */
  served: RpcServer["served"];
  programKeys: LocalProgramKeys;
  programConfig: LocalProgramConfig;
  /** the seed the program's keys derive from (a restored chain keeps the one it was saved with) */
  programSeed: Uint8Array;
  /** the slot a restored chain continued from, or null for a fresh one */
  restoredFromSlot: bigint | null;
  stop(): Promise<void>;
}

export const DEFAULT_SLOT_MS = 400;
export const DEFAULT_CREATOR_FEE_BPS = 30;
export const DEFAULT_BOND_THRESHOLD_LAMPORTS = 85n * BigInt(LAMPORTS_PER_SOL);
export const DEFAULT_TREASURY_LAMPORTS = 1_000_000n * BigInt(LAMPORTS_PER_SOL);

export async function startLocalChain(opts: LocalChainOptions): Promise<LocalChain> {
  const log = opts.log ?? (() => {});
  const slotMs = opts.slotMs ?? DEFAULT_SLOT_MS;
  if (!Number.isInteger(slotMs) || slotMs < 0) throw new Error("slotMs must be a non-negative integer");
  const programConfig = programConfigOf(opts);
  const { node, saved, treasury, checkpointer } = openNode(opts, slotMs, programConfig, log);

  const chainFaults = new ChainFaults(node, opts.faultSeed ?? 1);
  const browser = { allowedHosts: opts.allowedHosts, allowedOrigins: opts.allowedOrigins };
  const rpc = new RpcServer(node, log, chainFaults, { strictConfirmed: opts.strictConfirmed === true, browser });
  const geyser = new GeyserServer(node);
  const pubsub = new PubSubServer(node, log, browser);
  await listenAll(node, rpc, geyser, pubsub, opts);
  const launch = new LocalLaunchHelpers(node);
  const pump = node.native.size > 0 ? new PumpLaunchHelpers(node) : null;
  const simulator = new TradeSimulator(node, launch, pump);
  node.start();

  const rpcUrl = `http://127.0.0.1:${rpc.port}`;
  const grpcUrl = `http://127.0.0.1:${geyser.port}`;
  const wsUrl = `ws://127.0.0.1:${pubsub.port}`;
  log(
    `local chain: JSON-RPC ${rpcUrl}, PubSub ${wsUrl}, Yellowstone gRPC ${grpcUrl}, slot ${slotMs || "manual"} ms, treasury ${treasury.publicKey.toBase58()}`,
  );

  let stopped = false;
  return {
    rpcUrl,
    grpcUrl,
    wsUrl,
    rpcPort: rpc.port,
    grpcPort: geyser.port,
    wsPort: pubsub.port,
    treasury,
    node,
    launch,
    pump,
    simulator,
    faults: faultsFacade(node, rpc, geyser, chainFaults),
    fetch: rpc.fetch,
    served: rpc.served,
    programKeys: node.programKeys,
    programConfig,
    programSeed: node.programSeed,
    restoredFromSlot: saved ? node.getSlot() : null,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      simulator.stop();
      node.stop();
      await Promise.all([rpc.close(), geyser.close(), pubsub.close()]);
      // After the servers: nothing can change the state the last snapshot holds.
      checkpointer?.close();
    },
  };
}

function programConfigOf(opts: LocalChainOptions): LocalProgramConfig {
  const programConfig: LocalProgramConfig = {
    creatorFeeBps: opts.creatorFeeBps ?? DEFAULT_CREATOR_FEE_BPS,
    bondThresholdLamports: opts.bondThresholdLamports ?? DEFAULT_BOND_THRESHOLD_LAMPORTS,
  };
  if (
    !Number.isInteger(programConfig.creatorFeeBps) ||
    programConfig.creatorFeeBps < 0 ||
    programConfig.creatorFeeBps > 1_000
  ) {
    throw new Error("creatorFeeBps must be an integer in [0, 1000]");
  }
  return programConfig;
}

/** The node with its genesis (or the saved chain it continues), its treasury and its checkpointer. */
function openNode(
  opts: LocalChainOptions,
  slotMs: number,
  programConfig: LocalProgramConfig,
  log: (m: string) => void,
) {
  if (opts.reset && opts.stateDir) resetCheckpoint(opts.stateDir);
  const saved = opts.stateDir ? loadCheckpoint(opts.stateDir) : null;
  const node = new LocalNode({
    slotMs,
    programSeed: opts.programSeed,
    program: programConfig,
    txHistoryLimit: opts.txHistoryLimit,
    log,
    restore: saved?.state,
    nativePrograms: opts.pumpPrograms === false ? [] : pumpPrograms(),
  });
  if (saved) for (const changes of saved.journal) node.applyChanges(changes);
  const programAuthority = node.programKeys.eventAuthority.publicKey;
  deployUpgradeable(node, launchProgramAddress(programAuthority), programAuthority);
  loadAtGenesis(node, opts, saved !== null, log);
  const treasury = genesisTreasury(node, opts, saved !== null, log);
  const checkpointer = opts.stateDir
    ? new Checkpointer(node, { ...opts.checkpoint, dir: opts.stateDir }, saved?.seq ?? 0)
    : null;
  if (checkpointer) node.onSlotClosed = () => checkpointer.flush();
  if (saved) log(`local chain: continued the chain saved in ${opts.stateDir} at slot ${node.getSlot()}`);
  return { node, saved, treasury, checkpointer };
}

/** The three servers bound, or none left open and the node stopped: a failed start leaks nothing. */
async function listenAll(
  node: LocalNode,
  rpc: RpcServer,
  geyser: GeyserServer,
  pubsub: PubSubServer,
  opts: LocalChainOptions,
): Promise<void> {
  try {
    await rpc.listen(opts.rpcPort);
    await geyser.listen(opts.grpcPort);
    await listenPubSub(pubsub, opts, rpc.port);
  } catch (e) {
    await rpc.close();
    await geyser.close();
    await pubsub.close();
    node.stop();
    throw e;
  }
}

function faultsFacade(
  node: LocalNode,
  rpc: RpcServer,
  geyser: GeyserServer,
  chainFaults: ChainFaults,
): LocalChainFaults {
  return {
    dropNextSends: (count, match) => node.addSendFault({ kind: "drop", remaining: count, match }),
    delayNextSends: (count, slots, match) =>
      node.addSendFault({ kind: "delay", remaining: count, delaySlots: slots, match }),
    failNextSends: (count, match) => node.addSendFault({ kind: "fail", remaining: count, match }),
    failRpc: (method, count, mode, holdMs) => rpc.addFault({ method, remaining: count, mode, holdMs }),
    cutStreams: () => geyser.cutStreams(),
    clear: () => {
      chainFaults.clear();
      rpc.clearFaults();
    },
    apply: (rule) => chainFaults.apply(rule),
    list: () => chainFaults.list(),
    get injected() {
      return chainFaults.injected;
    },
  };
}

/**
 * The treasury, funded at genesis only: a continued chain keeps the one it began with (its key too
 * when the chain made it), so a restart mints nothing. A caller's key that differs from the saved
 * one is used unfunded (the saved one stays the chain's). A chain saved before the treasury was
 * kept funds a treasury it never wrote, once, as it did then; from then on it is kept.
 */
function genesisTreasury(node: LocalNode, opts: LocalChainOptions, restored: boolean, log: (m: string) => void) {
  const kept = restored ? node.treasury : null;
  let treasury = opts.treasury;
  if (!treasury && kept) {
    if (!kept.secret)
      throw new Error(
        `the chain saved in ${opts.stateDir} was funded to treasury ${kept.address}, whose key it was given: pass that keypair again (--keypair), or start fresh (--reset)`,
      );
    treasury = Keypair.fromSecretKey(kept.secret);
  }
  treasury ??= Keypair.generate();
  const address = treasury.publicKey.toBase58();
  if (restored && kept) {
    if (kept.address !== address)
      log(
        `local chain: treasury ${address} is not the saved chain's (${kept.address}); a continued chain funds no one`,
      );
    return treasury;
  }
  if (!restored || !node.hasWritten(address))
    node.fund(treasury.publicKey, opts.treasuryLamports ?? DEFAULT_TREASURY_LAMPORTS);
  node.treasury = { address, secret: opts.treasury ? null : treasury.secretKey };
  return treasury;
}

/**
 * web3.js and kit derive the WebSocket URL as the RPC port + 1. With a free RPC port (tests), the
 * next port is tried first so a client given only the RPC URL still finds it; any port otherwise.
 */
async function listenPubSub(pubsub: PubSubServer, opts: LocalChainOptions, rpcPort: number): Promise<void> {
  if (opts.wsPort !== undefined) {
    await pubsub.listen(opts.wsPort);
    return;
  }
  if (opts.rpcPort !== 0) {
    await pubsub.listen(rpcPort + 1);
    return;
  }
  try {
    await pubsub.listen(rpcPort + 1);
  } catch {
    await pubsub.listen(0);
  }
}

export { LocalNode } from "./node";
export { ChainFaults, parseFaultRule, seededRandom, type FaultRule } from "./faults";
export { LocalLaunchHelpers, TradeSimulator } from "./launch";
export { PumpLaunchHelpers, type PumpTradeResult } from "./pump-launch";
export { pumpPrograms } from "./native/pump";
export * as localProgram from "./program";
export { RpcServer } from "./rpc-server";
export {
  BLOCKHASH_VALID_BLOCKS,
  FINALIZATION_SLOTS,
  LAMPORTS_PER_SIGNATURE,
  MAX_COMPUTE_UNIT_LIMIT,
  type AccountUpdate,
  type Commitment,
  type TxRecord,
} from "./node";
export { CheckpointError, loadCheckpoint, resetCheckpoint, type CheckpointOptions } from "./checkpoint";
export {
  NO_UPGRADE_AUTHORITY,
  takeGenesisFlags,
  type GenesisAccountFile,
  type GenesisLoads,
  type GenesisProgram,
  type GenesisUpgradeableProgram,
} from "./genesis-accounts";
