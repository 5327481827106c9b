/**
 * A service on its own local chain with a virtual clock for the reading schedule's tests: the
 * sweep job is run directly at whatever virtual time a test says, the chain's slots move on their
 * own (every 10 ms) so sweeps land, and each run records which tokens it read.
 */
import { Keypair } from "@solana/web3.js";
import { rmSync } from "node:fs";
import { expect } from "bun:test";
import { deriveCreatorKeypair } from "../../src/chain/keys";
import { startLocalChain, type LocalChain } from "@fee-ledger/localnet";
import type { LaunchProgram } from "../../src/chain/ports";
import { createRpcChain } from "../../src/chain/rpc";
import type { ChainServices } from "../../src/chain/services";
import { testConfig } from "../../src/config";
import { acquireLease, assertLeaseHeld, releaseLease } from "../../src/jobs/lease";
import { buildService, type Service } from "../../src/service";
import { runSweepJob, type SweepRunReport } from "../../src/sweeps/job";
import { startIndexer, type Indexer } from "../../indexer";
import { launchOnLocalChain } from "../helpers/launch";
import { localLaunchProgram } from "../../src/chain/setup";

export const MINUTE_MS = 60_000;

export interface ScheduleWorld {
  service: Service;
  chain: ChainServices;
  local: LocalChain;
  clock: { nowMs: number };
  maxIntervalMs: number;
  launch(): Promise<{ mint: string; tokenId: number; creator: string }>;
  /** a buy of `lamports` on the chain; returns the creator fees it accrued */
  trade(mint: string, creator: string, lamports: bigint): Promise<bigint>;
  /** one sweep run at the clock's time; the mints it read */
  sweep(): Promise<{ read: Set<string>; report: SweepRunReport }>;
  startIndexer(): Indexer;
  tokenRow(tokenId: number): { vaultLamports: bigint; vaultCheckedAtMs: number; sweptLamports: bigint };
  getToken(mint: string): Promise<{ status: number; body: { vaultLamports: string; vaultCheckedAt: string } }>;
  close(): Promise<void>;
}

export async function scheduleWorld(options: {
  maxIntervalMs: number;
  env?: Record<string, string>;
}): Promise<ScheduleWorld> {
  const maxIntervalMs = options.maxIntervalMs;
  const config = testConfig({
    SWEEP_MIN_LAMPORTS: "1",
    SWEEP_QUIET_MAX_INTERVAL_MS: String(maxIntervalMs),
    TRUST_PROXY: "x-forwarded-for",
    RATE_LIMIT: "0",
    ...options.env,
  });
  const treasury = Keypair.generate();
  const masterSecret = crypto.getRandomValues(new Uint8Array(32));
  // 2 ms slots: a run's sweeps are final 32 slots after they land, and the property test waits for
  // hundreds of them (31 s at 10 ms slots, 14 s at 2 ms, for ~1.5 s more CPU).
  const local = await startLocalChain({ rpcPort: 0, grpcPort: 0, slotMs: 2, treasury });
  const rpc = createRpcChain({ rpcUrl: local.rpcUrl, timeoutMs: 10_000, retries: 3, allowNodeCosigners: true });
  const keys = new Map<number, Keypair>();
  const creatorKeypair = (i: number) => {
    let k = keys.get(i);
    if (!k) {
      k = deriveCreatorKeypair(masterSecret, i);
      keys.set(i, k);
    }
    return k;
  };
  // The sweep's reads are recorded while a run is on (a detail's refresh reads through it too).
  let recording: Set<string> | null = null;
  const program: LaunchProgram = localLaunchProgram(local, rpc.reader);
  const readVaults = program.readVaults.bind(program);
  program.readVaults = async (tokens) => {
    if (recording) for (const t of tokens) recording.add(t.mint);
    return readVaults(tokens);
  };
  const direct = localLaunchProgram(local, rpc.reader);
  const chain: ChainServices = {
    reader: rpc.reader,
    sender: rpc.sender,
    launchProgram: program,
    treasury,
    creatorKeypair,
    creatorAddress: (i) => creatorKeypair(i).publicKey,
  };
  const clock = { nowMs: Date.now() };
  const service = buildService(config, { chain, now: () => clock.nowMs });
  const trader = Keypair.generate();
  local.node.fund(trader.publicKey, 10_000_000_000_000n);
  let nextIndex = 1;
  let indexer: Indexer | null = null;
  const unswept = async (mint: string, creator: string) => {
    const [r] = await direct.readVaults([{ mint, creator }]);
    return r!.curveLamports + r!.poolLamports + r!.creatorLamports;
  };

  return {
    service,
    chain,
    local,
    clock,
    maxIntervalMs,
    async launch() {
      const creatorIndex = nextIndex++;
      const creator = chain.creatorAddress(creatorIndex).toBase58();
      return launchOnLocalChain(
        service.ctx.db,
        { local, launchProgram: chain.launchProgram },
        { creatorIndex, creator, platformBps: 1000, recipients: [{ handle: "alice", bps: 10_000 }] },
      );
    },
    async trade(mint, creator, lamports) {
      const before = await unswept(mint, creator);
      const result = local.launch.buy({ mint, buyer: trader, solInLamports: lamports });
      expect((result as { err: unknown }).err ?? null).toBeNull();
      return (await unswept(mint, creator)) - before;
    },
    async sweep() {
      const db = service.ctx.db;
      const lease = acquireLease(db, "sweep", "schedule-test", 10 * MINUTE_MS, clock.nowMs);
      if (!lease) throw new Error("the sweep lease is busy");
      const read = new Set<string>();
      recording = read;
      try {
        const report = await runSweepJob(
          {
            db,
            chain,
            sweepMinLamports: 1n,
            platformBuybackBps: 0,
            now: () => clock.nowMs,
            quietMaxIntervalMs: maxIntervalMs,
            settleTimeoutMs: 20_000,
            settlePollMs: 20,
          },
          { lease, signal: new AbortController().signal, assertHeld: () => assertLeaseHeld(db, lease, clock.nowMs) },
        );
        return { read, report };
      } finally {
        recording = null;
        releaseLease(db, lease, { ok: true, error: null }, clock.nowMs);
      }
    },
    startIndexer() {
      indexer = startIndexer(
        service.ctx,
        { services: chain, local },
        {
          grpcUrl: local.grpcUrl,
          leaseMs: 3_000,
          grpc: { backoffBaseMs: 50, backoffMaxMs: 500, syncMs: 50, pingMs: 1_000, staleMs: 10_000 },
          stateLogMs: 0,
          // The tokens here are the old local launch program's: the indexer reads them with its adapter.
          launchProgramOver: (reader) => localLaunchProgram(local, reader),
        },
      );
      return indexer;
    },
    tokenRow(tokenId) {
      const r = service.ctx.db.$client
        .query<{ v: bigint; at: number; swept: bigint }, [number]>(
          "SELECT vault_lamports AS v, vault_checked_at_ms AS at, swept_lamports AS swept FROM tokens WHERE id = ?",
        )
        .get(tokenId)!;
      return { vaultLamports: BigInt(r.v), vaultCheckedAtMs: Number(r.at), sweptLamports: BigInt(r.swept) };
    },
    async getToken(mint) {
      const res = await service.app.handle(
        new Request(`http://localhost/api/tokens/${mint}`, { headers: { "x-forwarded-for": "203.0.113.9" } }),
      );
      return { status: res.status, body: (await res.json()) as { vaultLamports: string; vaultCheckedAt: string } };
    },
    async close() {
      await indexer?.stop();
      await service.close();
      await local.stop();
      rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}
