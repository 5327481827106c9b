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
import type { ChainServices } from "../src/chain/services";
import { type ChainSetup, launchProgramOver } from "../src/chain/setup";
import type { AppContext } from "../src/context";
import { acquireLease, assertLeaseHeld, releaseLease, renewLease, type Lease } from "../src/jobs";
import { log } from "../src/lib/log";
import { scrubErrorText } from "../src/lib/scrub";
import { IndexerCore } from "./core";
import { GrpcSubscriber, type GrpcOptions } from "./grpc";
import { RpcPoller } from "./poller";
import { registerIndexerState, type IndexerState } from "../src/jobs";
import { flushProviderUsage } from "../src/chain/provider-usage";
/** The core alone (cache, adapter and writer, no subscription): the indexer benchmark feeds it directly. */
export { IndexerCore, recordingReader } from "./core";
export { emptyRequest } from "./grpc";

const INDEXER_LEASE = "indexer";

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
  /** the most tokens watched at once, newest first (default: the INDEXER_WATCH_TOKENS setting) */
  watchMax?: number;
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
  const run = new LeasedIndexer(ctx, setup.services, settingsFor(ctx, setup, options), options);
  run.leaseTick();
  const state = () => run.state();
  const unregister = registerIndexerState(ctx, state);
  const stateLogMs = options.stateLogMs ?? 60_000;
  const stateLog = stateLogMs > 0 ? setInterval(() => log.info("indexer: state", { ...state() }), stateLogMs) : null;
  stateLog?.unref?.();

  return {
    state,
    idle: () => run.idle(),
    subscribed: (address) => run.subscribed(address),
    stats: () => run.stats(),
    async stop() {
      if (stateLog) clearInterval(stateLog);
      if (!(await run.stop())) return;
      unregister();
      log.info("indexer: stopped");
    },
  };
}

/** Where the indexer listens and which adapter reads its cache: the options, else the configuration. */
interface IndexerSettings {
  grpcUrl: string | null;
  grpcToken: string | null;
  rpcUrl: string | null;
  launchProgramOver: (reader: ChainReader) => LaunchProgram;
  leaseMs: number;
  holder: string;
}

function settingsFor(ctx: AppContext, setup: Pick<ChainSetup, "local">, options: IndexerOptions): IndexerSettings {
  return {
    grpcUrl: options.grpcUrl !== undefined ? options.grpcUrl : (ctx.config.grpcUrl ?? setup.local?.grpcUrl ?? null),
    grpcToken: options.grpcToken !== undefined ? options.grpcToken : ctx.config.grpcToken,
    rpcUrl: options.rpcUrl !== undefined ? options.rpcUrl : (ctx.config.rpcUrl ?? setup.local?.rpcUrl ?? null),
    launchProgramOver: options.launchProgramOver ?? launchProgramOver(),
    leaseMs: options.leaseMs ?? 15_000,
    holder: options.holder ?? `${process.pid}-indexer-${crypto.randomUUID().slice(0, 8)}`,
  };
}

/**
 * One indexer process: a core and a source while it holds the lease, nothing while it stands by.
 * Lease transitions run one at a time (`transition`), so a stop never races a start.
 */
class LeasedIndexer {
  private stopped = false;
  private lease: Lease | null = null;
  private controller = new AbortController();
  private core: IndexerCore | null = null;
  private source: GrpcSubscriber | RpcPoller | null = null;
  private reconnectsBefore = 0;
  private readonly counted = { accountUpdates: 0, readingsStored: 0, receivedBytes: 0 };
  private lastError: string | null = null;
  private leaseTimer: ReturnType<typeof setTimeout> | null = null;
  private transition: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: AppContext,
    private readonly chain: ChainServices,
    private readonly settings: IndexerSettings,
    private readonly options: IndexerOptions,
  ) {}

  private begin(held: Lease): void {
    const { ctx, settings, options } = this;
    this.lease = held;
    this.controller = new AbortController();
    const core = new IndexerCore({
      ctx,
      chain: this.chain,
      launchProgramOver: settings.launchProgramOver,
      job: { lease: held, signal: this.controller.signal, assertHeld: () => assertLeaseHeld(ctx.db, held) },
      onReadingsStored: options.onReadingsStored,
      watchMax: options.watchMax,
    });
    this.core = core;
    this.source = settings.grpcUrl
      ? new GrpcSubscriber(core, { url: settings.grpcUrl, token: settings.grpcToken, ...options.grpc })
      : new RpcPoller(core, { rpcUrl: settings.rpcUrl, pollMs: options.pollMs });
    this.source.start();
    log.info("indexer: started", { mode: settings.grpcUrl ? "grpc" : "poll", holder: settings.holder });
  }

  private async end(why: string): Promise<void> {
    const s = this.source;
    const c = this.core;
    if (s instanceof GrpcSubscriber) {
      this.reconnectsBefore += s.reconnects;
      this.counted.receivedBytes += s.receivedBytes;
    }
    this.source = null;
    this.controller.abort(new Error(why));
    c?.stop();
    await s?.stop();
    if (c) {
      this.lastError = c.lastError ?? this.lastError;
      this.counted.accountUpdates += c.accountUpdates;
      this.counted.readingsStored += c.readingsStored;
    }
    this.core = null;
  }

  /** The lease loop: take it when free, renew it while held, step down when it is lost. */
  leaseTick(): void {
    const { ctx, settings } = this;
    this.transition = this.transition.then(async () => {
      if (this.stopped) return;
      try {
        // The jobs' thread's provider requests (every job's, and this indexer's) join the bill.
        flushProviderUsage(ctx.db, ctx.now());
        if (!this.lease) {
          const held = acquireLease(ctx.db, INDEXER_LEASE, settings.holder, settings.leaseMs, ctx.now());
          if (held) this.begin(held);
        } else if (!renewLease(ctx.db, this.lease, settings.leaseMs, ctx.now())) {
          log.warn("indexer: lease lost; standing by");
          this.lease = null;
          await this.end("lease lost");
        }
      } catch (error) {
        this.lastError = scrubErrorText(error);
        log.warn("indexer: lease check failed", { error: this.lastError });
      }
      if (!this.stopped)
        this.leaseTimer = setTimeout(() => this.leaseTick(), Math.max(200, Math.floor(settings.leaseMs / 3)));
    });
  }

  state(): IndexerState {
    const c = this.core;
    const s = this.source;
    const lastSlot = c?.lastSlot ?? null;
    const head = c && c.headSlot > 0n ? c.headSlot : null;
    return {
      mode: this.stopped ? "stopped" : !s ? "standby" : s instanceof GrpcSubscriber ? "grpc" : "poll",
      connected: s?.connected ?? false,
      lastSlot: lastSlot === null ? null : Number(lastSlot),
      headSlot: head === null ? null : Number(head),
      lagSlots: lastSlot === null || head === null ? null : Math.max(0, Number(head - lastSlot)),
      lastUpdateAt: c?.lastUpdateAtMs ? new Date(c.lastUpdateAtMs).toISOString() : null,
      reconnects: this.reconnectsBefore + (s instanceof GrpcSubscriber ? s.reconnects : 0),
      lastError: s?.lastError ?? c?.lastError ?? this.lastError,
      tokens: c?.tokenCount ?? 0,
      accounts: c?.watchedCount ?? 0,
      receivedBytes: this.counted.receivedBytes + (s instanceof GrpcSubscriber ? s.receivedBytes : 0),
    };
  }

  async idle(): Promise<void> {
    await this.core?.idle();
  }

  subscribed(address: string): boolean {
    const s = this.source;
    if (s instanceof GrpcSubscriber) return s.connected && s.subscribed.has(address);
    return Boolean(s?.connected);
  }

  stats(): { accountUpdates: number; readingsStored: number } {
    return {
      accountUpdates: this.counted.accountUpdates + (this.core?.accountUpdates ?? 0),
      readingsStored: this.counted.readingsStored + (this.core?.readingsStored ?? 0),
    };
  }

  /** Ends the run and gives the lease back; false when it had already stopped. */
  async stop(): Promise<boolean> {
    if (this.stopped) return false;
    this.stopped = true;
    if (this.leaseTimer) clearTimeout(this.leaseTimer);
    await this.transition;
    await this.end("stopping");
    if (this.lease) {
      try {
        releaseLease(this.ctx.db, this.lease, { ok: true, error: null });
      } catch {
        // the database may already be closing; the lease then lapses on its own
      }
      this.lease = null;
    }
    return true;
  }
}
