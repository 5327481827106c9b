/**
 * Builds the chain the service runs on from configuration: the embedded local chain (the default)
 * or pump.fun over an RPC URL. Either way the service talks JSON-RPC through the same ChainReader
 * and ChainSender, and the launch program behind the same port. This is the one place an adapter
 * is picked: everything else (services, jobs, the indexer) holds the ports.
 *
 * On the local chain the treasury key and the master secret are generated once into DATA_DIR
 * (files readable by the owner only); on a real chain they must come from the environment or files.
 */
import type { Keypair } from "@solana/web3.js";
import { join } from "node:path";
import type { Config } from "../config";
import { ConfigError } from "../config";
import { readOrCreateSecretFile } from "../lib/secret-file";
import { deriveCreatorKeypair, isKeyInvalid, loadMasterSecret, loadTreasuryKeypair } from "./keys";
import type { LocalChain } from "@fee-ledger/localnet";
import { LocalLaunchProgram } from "./local/adapter";
import type { LocalProgramConfig } from "@fee-ledger/localnet/program";
import type { ChainReader, LaunchProgram } from "./ports";
import { createRpcChain } from "./rpc";
import type { ChainServices } from "./services";

/** The settings the chain is built from. */
export type ChainConfig = Pick<
  Config,
  | "chain"
  | "rpcUrl"
  | "dataDir"
  | "localChain"
  | "masterSecret"
  | "masterSecretFile"
  | "treasuryKey"
  | "treasuryKeyFile"
> &
  Partial<Pick<Config, "landing" | "explorerUrl">>;

export interface ChainSetup {
  services: ChainServices;
  /** present on the embedded local chain: the demo, the tests and the benchmarks drive it */
  local: LocalChain | null;
  /** the same launch-program adapter over another reader (the indexer's account cache) */
  launchProgramOver(reader: ChainReader): LaunchProgram;
  stop(): Promise<void>;
}

/**
 * The launch-program adapter of a chain, over any reader: pump.fun's, on every chain (the embedded
 * local chain hosts pump's programs at their real ids), so every chain runs the code that ships.
 */
export function launchProgramOver(): (reader: ChainReader) => LaunchProgram {
  return pumpLaunchProgram;
}

/** The local launch program's adapter for a chain of the package, over any reader. */
export function localLaunchProgram(
  chain: Pick<LocalChain, "programKeys" | "programConfig">,
  reader: ChainReader,
): LaunchProgram {
  return new LocalLaunchProgram(chain.programKeys, chain.programConfig, reader);
}

/**
 * The adapters are loaded when first used: the pump SDKs with their IDLs, and the embedded node
 * with LiteSVM, are tens of MB in every thread that loads them, and each thread needs one at most
 * (the request and jobs threads of the embedded default only the local adapter, not the node).
 */
function pumpLaunchProgram(reader: ChainReader): LaunchProgram {
  const { createPumpLaunchProgram } = require("./pump/adapter") as typeof import("./pump/adapter");
  return createPumpLaunchProgram(reader);
}

async function loadLocalnet(): Promise<typeof import("@fee-ledger/localnet")> {
  return import("@fee-ledger/localnet");
}

export function secretsFor(config: ChainConfig): { treasury: Keypair; masterSecret: Uint8Array } {
  try {
    const masterSource =
      config.masterSecret ??
      config.masterSecretFile ??
      (config.chain === "local" ? join(config.dataDir, "master-secret") : null);
    const treasurySource =
      config.treasuryKey ??
      config.treasuryKeyFile ??
      (config.chain === "local" ? join(config.dataDir, "treasury.json") : null);
    if (!masterSource || !treasurySource)
      throw new ConfigError("MASTER_SECRET and TREASURY_KEY are required on a real chain");
    if (config.chain === "local" && !config.masterSecret && !config.masterSecretFile) {
      readOrCreateSecretFile(masterSource, () =>
        Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex"),
      );
    }
    if (config.chain === "local" && !config.treasuryKey && !config.treasuryKeyFile) {
      readOrCreateSecretFile(treasurySource, () => {
        const { Keypair } = require("@solana/web3.js") as typeof import("@solana/web3.js");
        return JSON.stringify([...Keypair.generate().secretKey]);
      });
    }
    return { treasury: loadTreasuryKeypair(treasurySource), masterSecret: loadMasterSecret(masterSource) };
  } catch (error) {
    if (isKeyInvalid(error)) {
      // Name the setting that was set (the _FILE one when that is it), never the value.
      const treasury = error.context.setting === "treasury key";
      const base = treasury ? "TREASURY_KEY" : "MASTER_SECRET";
      const fromFile = treasury
        ? !config.treasuryKey && config.treasuryKeyFile
        : !config.masterSecret && config.masterSecretFile;
      const which = fromFile ? `${base}_FILE` : base;
      throw new ConfigError(`${which} is not valid: ${error.message}`);
    }
    throw error;
  }
}

/**
 * Where an embedded local chain started in another thread listens, and the seed its launch
 * program's keys derive from: all a thread needs to build the chain services over it.
 */
export interface LocalChainEndpoints {
  rpcUrl: string;
  grpcUrl: string;
  wsUrl: string | null;
  programSeed: Uint8Array;
  programConfig: LocalProgramConfig;
}

/**
 * Full transaction records the embedded node keeps for getTransaction (the node's default is 50,000). Statuses outlive records by far, so a landed transaction
 * never looks unlanded; the service reads a record back within seconds of sending it, and 50,000
 * records of a payout backlog held most of the process's memory.
 */
const EMBEDDED_TX_HISTORY_LIMIT = 10_000;

/** The origin of the explorer template, as a browser sends it; none when unset or not a URL. */
export function explorerOrigin(explorerUrl: string | null): string[] {
  if (explorerUrl === null) return [];
  try {
    return [new URL(explorerUrl.replace(/\{(kind|id)\}/g, "x")).origin];
  } catch {
    return [];
  }
}

/**
 * Starts the embedded local chain's node in the thread that calls this and returns it with its
 * endpoints. The program seed is random unless given, or the saved chain's when the chain continues
 * from DATA_DIR (another thread derives the same keys from the endpoints' seed).
 */
export async function startEmbeddedChain(
  config: ChainConfig,
  options: { programSeed?: Uint8Array; log?: (message: string) => void } = {},
): Promise<{ local: LocalChain; endpoints: LocalChainEndpoints }> {
  const programSeed = options.programSeed ?? crypto.getRandomValues(new Uint8Array(32));
  const { startLocalChain } = await loadLocalnet();
  const local = await startLocalChain({
    rpcPort: config.localChain.rpcPort,
    grpcPort: config.localChain.grpcPort,
    wsPort: config.localChain.wsPort,
    slotMs: config.localChain.slotMs,
    treasury: secretsFor(config).treasury,
    programSeed,
    txHistoryLimit: EMBEDDED_TX_HISTORY_LIMIT,
    stateDir: config.localChain.stateDir ?? undefined,
    // The chain answers browsers only from loopback pages, and from the explorer the page links
    // to when one is set (an explorer given the local RPC URL reads it from the browser).
    allowedOrigins: explorerOrigin(config.explorerUrl ?? null),
    log: options.log,
  });
  return {
    local,
    endpoints: {
      rpcUrl: local.rpcUrl,
      grpcUrl: local.grpcUrl,
      wsUrl: local.wsUrl,
      // A chain continued from DATA_DIR keeps the program (and its addresses) it was saved with.
      programSeed: local.programSeed,
      programConfig: local.programConfig,
    },
  };
}

/**
 * The chain of a thread other than the embedded node's own: JSON-RPC clients to the node, the
 * local launch program's adapter from the node's program seed, and the service's keys. Stopping it
 * stops nothing: the node's thread owns the node.
 */
/** How this thread reaches the node: the jobs' thread passes a paced fetch (src/workers/pace.ts). */
export interface ChainClientOptions {
  fetch?: typeof fetch;
}

export function setupChainOverEndpoints(
  config: ChainConfig,
  endpoints: LocalChainEndpoints,
  client: ChainClientOptions = {},
): ChainSetup {
  const { treasury, masterSecret } = secretsFor(config);
  const creatorKeypair = creatorKeysOf(masterSecret);
  const over = pumpLaunchProgram;
  // The old local launch program's vault keys are held by the node, which co-signs on receipt.
  const rpc = createRpcChain({
    rpcUrl: endpoints.rpcUrl,
    timeoutMs: 10_000,
    retries: 3,
    allowNodeCosigners: true,
    fetch: client.fetch,
    landing: config.landing,
  });
  return {
    services: {
      reader: rpc.reader,
      sender: rpc.sender,
      launchProgram: over(rpc.reader),
      treasury,
      creatorKeypair,
      creatorAddress: (index) => creatorKeypair(index).publicKey,
      rpcUrl: endpoints.rpcUrl,
    },
    local: null,
    launchProgramOver: over,
    stop: async () => {},
  };
}

/** Creator keys derived on demand, bounded: derivation is cheap, so the cache only spares repeated work within a run. */
function creatorKeysOf(masterSecret: Uint8Array): (index: number) => Keypair {
  const creatorKeys = new Map<number, Keypair>();
  return (index) => {
    let key = creatorKeys.get(index);
    if (!key) {
      key = deriveCreatorKeypair(masterSecret, index);
      if (creatorKeys.size > 10_000) creatorKeys.clear();
      creatorKeys.set(index, key);
    }
    return key;
  };
}

export async function setupChain(
  config: ChainConfig,
  log: (message: string) => void = () => {},
  client: ChainClientOptions = {},
): Promise<ChainSetup> {
  if (config.chain === "local") {
    // The same clients as another thread's, with the node at hand (the demo, tests and benchmarks drive it).
    const { local, endpoints } = await startEmbeddedChain(config, { log });
    return { ...setupChainOverEndpoints(config, endpoints, client), local, stop: () => local.stop() };
  }

  const { treasury, masterSecret } = secretsFor(config);
  const creatorKeypair = creatorKeysOf(masterSecret);
  const rpc = createRpcChain({
    rpcUrl: config.rpcUrl!,
    timeoutMs: 10_000,
    retries: 3,
    fetch: client.fetch,
    landing: config.landing,
  });
  return {
    services: {
      reader: rpc.reader,
      sender: rpc.sender,
      launchProgram: launchProgramOver()(rpc.reader),
      treasury,
      creatorKeypair,
      creatorAddress: (index) => creatorKeypair(index).publicKey,
    },
    local: null,
    launchProgramOver: launchProgramOver(),
    stop: async () => {},
  };
}
