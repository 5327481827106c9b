/**
 * A service wired to its own local chain on a manual clock (slots move only when a test says so,
 * so "the stream was down for 30 slots" means exactly that on a slow CI box), an indexer
 * subscribed through a TCP proxy the test can cut, and helpers that launch and trade tokens as
 * a user would.
 */
import { Keypair } from "@solana/web3.js";
import { rmSync } from "node:fs";
import net from "node:net";
import { expect } from "bun:test";
import { deriveCreatorKeypair } from "../../src/chain/keys";
import { startLocalChain, type LocalChain } from "@fee-ledger/localnet";
import { createRpcChain } from "../../src/chain/rpc";
import type { ChainServices } from "../../src/chain/services";
import { testConfig } from "../../src/config";
import { acquireLease, assertLeaseHeld } from "../../src/jobs/lease";
import type { JobContext } from "../../src/jobs/scheduler";
import { ledgerTotals } from "../../src/ledger/figures";
import { verifyLedger } from "../../src/ledger/verify";
import { buildService, type Service } from "../../src/service";
import { startIndexer, type Indexer, type IndexerOptions } from "../../indexer";
import { launchOnLocalChain } from "../helpers/launch";
import { localLaunchProgram } from "../../src/chain/setup";

interface TcpProxy {
  url: string;
  /** drops every open connection and refuses new ones until up() */
  down(): void;
  up(): void;
  close(): Promise<void>;
}

/** A loopback TCP proxy: cutting it is what a network partition looks like to the subscriber. */
async function tcpProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let isUp = true;
  const server = net.createServer((client) => {
    if (!isUp) {
      client.destroy();
      return;
    }
    const upstream = net.connect(targetPort, "127.0.0.1");
    sockets.add(client);
    sockets.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  const down = () => {
    isUp = false;
    for (const s of sockets) s.destroy();
    sockets.clear();
  };
  return {
    url: `http://127.0.0.1:${port}`,
    down,
    up() {
      isUp = true;
    },
    async close() {
      down();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface IndexerHarness {
  service: Service;
  chain: ChainServices;
  local: LocalChain;
  proxy: TcpProxy;
  indexer: Indexer | null;
  startIndexer(options?: IndexerOptions): Indexer;
  launch(handle?: string): Promise<{ mint: string; tokenId: number; creator: string }>;
  trade(mint: string, lamports: bigint): void;
  /** closes `n` slots: what landed in them becomes confirmed and the stream delivers it */
  tick(n?: number): void;
  /** a job context holding that job's lease, for calling a job body directly */
  jobContext(job: string): JobContext;
  tokenRow(tokenId: number): { vaultLamports: bigint; vaultCheckedAtMs: number; bonded: boolean };
  chainUnswept(mint: string, creator: string): Promise<bigint>;
  getToken(mint: string): Promise<{ status: number; body: TokenView }>;
  checkBooks(): void;
  close(): Promise<void>;
}

/** The fields of GET /api/tokens/{mint} the indexer tests read (the route answers more). */
interface TokenView {
  vaultLamports: string;
  vaultCheckedAt: string;
  bonded: boolean;
}

export async function indexerHarness(env: Record<string, string> = {}): Promise<IndexerHarness> {
  const config = testConfig({ SWEEP_MIN_LAMPORTS: "1", TRUST_PROXY: "x-forwarded-for", RATE_LIMIT: "0", ...env });
  const treasury = Keypair.generate();
  const masterSecret = crypto.getRandomValues(new Uint8Array(32));
  const local = await startLocalChain({ rpcPort: 0, grpcPort: 0, slotMs: 0, treasury });
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
  const chain: ChainServices = {
    reader: rpc.reader,
    sender: rpc.sender,
    launchProgram: localLaunchProgram(local, rpc.reader),
    treasury,
    creatorKeypair,
    creatorAddress: (i) => creatorKeypair(i).publicKey,
  };
  const service = buildService(config, { chain });
  const proxy = await tcpProxy(local.grpcPort);
  const trader = Keypair.generate();
  local.node.fund(trader.publicKey, 10_000_000_000_000n);
  let nextIndex = 1;

  const h: IndexerHarness = {
    service,
    chain,
    local,
    proxy,
    indexer: null,
    startIndexer(options = {}) {
      h.indexer = startIndexer(
        service.ctx,
        { services: chain, local },
        {
          grpcUrl: proxy.url,
          leaseMs: 3_000,
          grpc: { backoffBaseMs: 50, backoffMaxMs: 500, syncMs: 50, pingMs: 1_000, staleMs: 10_000 },
          pollMs: 200,
          // The tokens here are the old local launch program's: the indexer reads them with its adapter.
          launchProgramOver: (reader) => localLaunchProgram(local, reader),
          ...options,
        },
      );
      return h.indexer;
    },
    async launch(handle = "alice") {
      const creatorIndex = nextIndex++;
      const creator = chain.creatorAddress(creatorIndex).toBase58();
      return launchOnLocalChain(
        service.ctx.db,
        { local, launchProgram: chain.launchProgram },
        { creatorIndex, creator, platformBps: 1000, recipients: [{ handle, bps: 10_000 }] },
      );
    },
    trade(mint, lamports) {
      const result = local.launch.buy({ mint, buyer: trader, solInLamports: lamports });
      expect((result as { err: unknown }).err ?? null).toBeNull();
    },
    tick(n = 1) {
      local.node.advanceSlots(n);
    },
    jobContext(job) {
      const lease = acquireLease(service.ctx.db, job, `test-${job}`, 60_000);
      if (!lease) throw new Error(`lease of ${job} is busy`);
      return { lease, signal: new AbortController().signal, assertHeld: () => assertLeaseHeld(service.ctx.db, lease) };
    },
    tokenRow(tokenId) {
      const r = service.ctx.db.$client
        .query("SELECT vault_lamports AS v, vault_checked_at_ms AS at, bonded FROM tokens WHERE id = ?")
        .get(tokenId) as { v: bigint; at: bigint; bonded: bigint };
      return { vaultLamports: BigInt(r.v), vaultCheckedAtMs: Number(r.at), bonded: Number(r.bonded) === 1 };
    },
    async chainUnswept(mint, creator) {
      const [r] = await chain.launchProgram.readVaults([{ mint, creator }]);
      return r!.curveLamports + r!.poolLamports + r!.creatorLamports;
    },
    async getToken(mint) {
      const res = await service.app.handle(
        new Request(`http://localhost/api/tokens/${mint}`, { headers: { "x-forwarded-for": "203.0.113.9" } }),
      );
      return { status: res.status, body: (await res.json()) as TokenView };
    },
    checkBooks() {
      verifyLedger(service.ctx.db);
      const t = ledgerTotals(service.ctx.db);
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
    },
    async close() {
      await h.indexer?.stop();
      await service.close();
      await proxy.close();
      await local.stop();
      rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
  return h;
}

/** Polls a condition with a generous bound (2-core CI); never a fixed sleep. */
export async function waitFor<T>(
  what: string,
  fn: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
