/**
 * The indexer: keeps vault readings, confirmations (sweeps, payouts, burns, launches) and bonded
 * flags current within about a second, from a Yellowstone gRPC stream when an endpoint is
 * configured and by RPC polling otherwise. The jobs stay correct without it; it only makes them
 * look ahead of their schedule.
 *
 *   const indexer = startIndexer(service.ctx, chainSetup);   // after buildService + setupChain
 *   indexer.state();                                          // also in GET /api/cron/health
 *   await indexer.stop();                                     // before service.close()
 *
 * Only one process subscribes at a time: the `indexer` lease (the jobs' lease table, outside
 * the SPEC job list) is held while running and renewed; another process waits in standby and
 * takes over when the lease lapses. Every write is fenced by that lease.
 */
import type { ChainReader, LaunchProgram } from "../src/chain/ports";
import { type ChainSetup, launchProgramOver } from "../src/chain/setup";
import type { AppContext } from "../src/context";
import { acquireLease, assertLeaseHeld, releaseLease, renewLease, type Lease } from "../src/jobs/lease";
import { log } from "../src/lib/log";
import { scrubErrorText } from "../src/lib/scrub";
import { IndexerCore } from "./core";
import { GrpcSubscriber, type GrpcOptions } from "./grpc";
import { RpcPoller } from "./poller";
import { registerIndexerState, type IndexerState } from "./state";

export type { IndexerState } from "./state";

export const INDEXER_LEASE = "indexer";

export interface IndexerOptions {
  /** Yellowstone endpoint; default: YELLOWSTONE_URL, else the local chain's; null = RPC polling */
  grpcUrl?: string | null;
  grpcToken?: string | null;
  /** for the slot in poll mode; default: RPC_URL, else the local chain's */
  rpcUrl?: string | null;
  pollMs?: number;
  leaseMs?: number;
  holder?: string;
  grpc?: Omit<GrpcOptions, "url" | "token">;
  /** the launch-program adapter over another reader; default: the one matching the chain setup */
  launchProgramOver?: (reader: ChainReader) => LaunchProgram;
  onReadingsStored?: (delaysMs: number[]) => void;
  /** how often the state is written to the log; 0 = never */
  stateLogMs?: number;
}

export interface Indexer {
  state(): IndexerState;
  stop(): Promise<void>;
  /** resolves when queued readings and resolutions are done (tests, benchmarks) */
  idle(): Promise<void>;
  /** true when the open stream's filters include this address (always, when polling) */
  subscribed(address: string): boolean;
  /** counters since start: watched-account updates applied, readings stored */
  stats(): { accountUpdates: number; readingsStored: number };
}

export function startIndexer(
  ctx: AppContext,
  setup: Pick<ChainSetup, "services" | "local">,
  options: IndexerOptions = {},
): Indexer {
  const chain = setup.services;
  const grpcUrl =
    options.grpcUrl !== undefined ? options.grpcUrl : (ctx.config.grpcUrl ?? setup.local?.grpcUrl ?? null);
  const grpcToken = options.grpcToken !== undefined ? options.grpcToken : ctx.config.grpcToken;
  const rpcUrl = options.rpcUrl !== undefined ? options.rpcUrl : (ctx.config.rpcUrl ?? setup.local?.rpcUrl ?? null);
  const programOver = options.launchProgramOver ?? launchProgramOver(setup.local);
  const leaseMs = options.leaseMs ?? 15_000;
  const holder = options.holder ?? `${process.pid}-indexer-${crypto.randomUUID().slice(0, 8)}`;

  let stopped = false;
  let lease: Lease | null = null;
  let controller = new AbortController();
  let core: IndexerCore | null = null;
  let source: GrpcSubscriber | RpcPoller | null = null;
  let reconnectsBefore = 0;
  const counted = { accountUpdates: 0, readingsStored: 0 };
  let lastError: string | null = null;
  let leaseTimer: ReturnType<typeof setTimeout> | null = null;
  let transition: Promise<void> = Promise.resolve();

  const begin = (held: Lease) => {
    lease = held;
    controller = new AbortController();
    core = new IndexerCore({
      ctx,
      chain,
      launchProgramOver: programOver,
      job: { lease: held, signal: controller.signal, assertHeld: () => assertLeaseHeld(ctx.db, held) },
      onReadingsStored: options.onReadingsStored,
    });
    source = grpcUrl
      ? new GrpcSubscriber(core, { url: grpcUrl, token: grpcToken, ...options.grpc })
      : new RpcPoller(core, { rpcUrl, pollMs: options.pollMs });
    source.start();
    log.info("indexer: started", { mode: grpcUrl ? "grpc" : "poll", holder });
  };

  const end = async (why: string) => {
    const s = source;
    const c = core;
    if (s instanceof GrpcSubscriber) reconnectsBefore += s.reconnects;
    source = null;
    controller.abort(new Error(why));
    c?.stop();
    await s?.stop();
    if (c) {
      lastError = c.lastError ?? lastError;
      counted.accountUpdates += c.accountUpdates;
      counted.readingsStored += c.readingsStored;
    }
    core = null;
  };

  // The lease loop: take it when free, renew it while held, step down when it is lost.
  const leaseTick = () => {
    transition = transition.then(async () => {
      if (stopped) return;
      try {
        if (!lease) {
          const held = acquireLease(ctx.db, INDEXER_LEASE, holder, leaseMs, ctx.now());
          if (held) begin(held);
        } else if (!renewLease(ctx.db, lease, leaseMs, ctx.now())) {
          log.warn("indexer: lease lost; standing by");
          lease = null;
          await end("lease lost");
        }
      } catch (error) {
        lastError = scrubErrorText(error);
        log.warn("indexer: lease check failed", { error: lastError });
      }
      if (!stopped) leaseTimer = setTimeout(leaseTick, Math.max(200, Math.floor(leaseMs / 3)));
    });
  };
  leaseTick();

  const state = (): IndexerState => {
    const c = core;
    const s = source;
    const lastSlot = c?.lastSlot ?? null;
    const head = c && c.headSlot > 0n ? c.headSlot : null;
    return {
      mode: stopped ? "stopped" : !s ? "standby" : s instanceof GrpcSubscriber ? "grpc" : "poll",
      connected: s?.connected ?? false,
      lastSlot: lastSlot === null ? null : Number(lastSlot),
      headSlot: head === null ? null : Number(head),
      lagSlots: lastSlot === null || head === null ? null : Math.max(0, Number(head - lastSlot)),
      lastUpdateAt: c?.lastUpdateAtMs ? new Date(c.lastUpdateAtMs).toISOString() : null,
      reconnects: reconnectsBefore + (s instanceof GrpcSubscriber ? s.reconnects : 0),
      lastError: s?.lastError ?? c?.lastError ?? lastError,
      tokens: c?.tokenCount ?? 0,
    };
  };
  const unregister = registerIndexerState(ctx, state);
  const stateLogMs = options.stateLogMs ?? 60_000;
  const stateLog = stateLogMs > 0 ? setInterval(() => log.info("indexer: state", { ...state() }), stateLogMs) : null;
  stateLog?.unref?.();

  return {
    state,
    async idle() {
      await core?.idle();
    },
    subscribed(address) {
      const s = source;
      if (s instanceof GrpcSubscriber) return s.connected && s.subscribed.has(address);
      return Boolean(s?.connected);
    },
    stats() {
      return {
        accountUpdates: counted.accountUpdates + (core?.accountUpdates ?? 0),
        readingsStored: counted.readingsStored + (core?.readingsStored ?? 0),
      };
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      if (leaseTimer) clearTimeout(leaseTimer);
      if (stateLog) clearInterval(stateLog);
      await transition;
      await end("stopping");
      if (lease) {
        try {
          releaseLease(ctx.db, lease, { ok: true, error: null });
        } catch {
          // the database may already be closing; the lease then lapses on its own
        }
        lease = null;
      }
      unregister();
      log.info("indexer: stopped");
    },
  };
}
