/**
 * The Yellowstone gRPC subscriber. One stream carries the watched accounts, the transactions
 * that touch the treasury or a pending launch's mint, and slot updates (for liveness and lag).
 *
 * Resilience: a ping every `pingMs` (load balancers drop quiet HTTP/2 streams) and a watchdog
 * that treats `staleMs` without any message as a dead stream; reconnects with exponential backoff
 * and full jitter, bounded by `backoffMaxMs`; each reconnect asks to resume from the last slot
 * applied (`fromSlot`), and falls back to a plain subscription when the endpoint refuses it.
 * Either way, every (re)connection is followed by a catch-up read over RPC, so whatever a gap
 * hid is found even when the endpoint cannot replay it.
 */
import { AppError } from "../src/lib/errors";
import Client, {
  CommitmentLevel,
  SlotStatus,
  type SubscribeRequest,
  SubscribeUpdate,
} from "@triton-one/yellowstone-grpc";
import { encodeBase58 } from "@fee-ledger/localnet/address";
import { log } from "../src/lib/log";
import { scrubErrorText } from "../src/lib/scrub";
import type { IndexerCore } from "./core";

export interface GrpcOptions {
  url: string;
  token: string | null;
  pingMs?: number;
  staleMs?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** how often the database is checked for new launches and pending launch mints */
  syncMs?: number;
  random?: () => number;
}

/** Keys per account filter: providers cap filter sizes; more filters of fewer keys always fit. */
const KEYS_PER_FILTER = 5_000;

type Stream = Awaited<ReturnType<Client["subscribe"]>>;

/** What one stream's handlers have seen, read by its timers and its catch-up. */
interface StreamState {
  lastMessageAt: number;
  /** the first ping came back: the endpoint took the subscription */
  answered: boolean;
  /** the stream ended, failed or closed */
  done: boolean;
}

/** The wait before reconnect number `failures` (from 1): exponential to its bound, full jitter. */
export function reconnectBackoffMs(
  failures: number,
  o: Pick<GrpcOptions, "backoffBaseMs" | "backoffMaxMs" | "random">,
): number {
  const base = o.backoffBaseMs ?? 250;
  const max = o.backoffMaxMs ?? 15_000;
  const ceiling = Math.min(max, base * 2 ** Math.min(failures - 1, 20));
  return Math.floor((o.random ?? Math.random)() * ceiling);
}

export class GrpcSubscriber {
  connected = false;
  reconnects = 0;
  /** protobuf payload bytes of every message received, across reconnects (the provider bills bandwidth) */
  receivedBytes = 0;
  lastError: string | null = null;
  private stopped = false;
  private client: Client | null = null;
  private stream: Stream | null = null;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  /** the next subscription goes without fromSlot (the last one asked for it and was refused) */
  private skipFromSlot = false;
  private session_: { askedFromSlot: boolean; answered: boolean } = { askedFromSlot: false, answered: false };
  private pingId = 1;
  /** addresses of the last filters the endpoint accepted (written on an open stream) */
  subscribed = new Set<string>();

  constructor(
    private readonly core: IndexerCore,
    private readonly o: GrpcOptions,
  ) {}

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.closeStream();
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      const opened = Date.now();
      try {
        await this.session();
      } catch (error) {
        this.lastError = describe(error);
        log.warn("indexer: stream ended", { error: this.lastError });
      }
      // Endpoints refuse a fromSlot they no longer hold (or never did) by failing the stream before
      // it answers; whatever the reason, the next attempt subscribes plainly and the catch-up
      // covers the gap.
      this.skipFromSlot = this.session_.askedFromSlot && !this.session_.answered;
      this.connected = false;
      this.closeStream();
      if (this.stopped) break;
      this.reconnects++;
      // A session that lived a while was healthy: start the backoff over.
      failures = Date.now() - opened > 30_000 ? 1 : failures + 1;
      await this.sleep(this.backoff(failures));
    }
  }

  backoff(failures: number): number {
    return reconnectBackoffMs(failures, this.o);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wake = null;
        resolve();
      }
      this.wake = done;
    });
  }

  private request(withFromSlot: boolean): SubscribeRequest {
    const accounts: SubscribeRequest["accounts"] = {};
    const watched = this.core.watchedAddresses();
    for (let i = 0; i < watched.length; i += KEYS_PER_FILTER) {
      accounts[`vaults-${i / KEYS_PER_FILTER}`] = {
        account: watched.slice(i, i + KEYS_PER_FILTER),
        owner: [],
        filters: [],
      };
    }
    const resume = withFromSlot && !this.skipFromSlot && this.core.lastSlot !== null;
    return {
      accounts,
      slots: { head: { filterByCommitment: false } },
      transactions: {
        pending: {
          accountInclude: this.core.transactionAddresses(),
          accountExclude: [],
          accountRequired: [],
          vote: false,
        },
      },
      transactionsStatus: {},
      blocks: {},
      blocksMeta: {},
      entry: {},
      accountsDataSlice: [],
      commitment: CommitmentLevel.CONFIRMED,
      // Inclusive: the last slot may have been cut halfway; applying it again changes nothing.
      ...(resume ? { fromSlot: this.core.lastSlot!.toString() } : {}),
    };
  }

  private async session(): Promise<void> {
    const stream = await this.openStream();
    this.stream = stream;
    this.session_ = { askedFromSlot: false, answered: false };
    const state: StreamState = { lastMessageAt: Date.now(), answered: false, done: false };
    const firstPong = this.pingId++;
    const ended = this.listen(stream, state, firstPong);
    // Swallow the rejection if the session ends another way first; it is awaited below.
    ended.catch(() => {});

    await this.core.syncWatched();
    const request = this.request(true);
    const resumed = request.fromSlot !== undefined;
    this.session_ = { askedFromSlot: resumed, answered: false };
    await this.write(stream, request);
    // The pong comes after the server has taken the filters (and any replay), so it is the sign
    // the subscription was accepted; a refused fromSlot ends the stream before it.
    await this.write(stream, { ...emptyRequest(), ping: { id: firstPong } });
    const fillSlot = this.core.headSlot;

    const timers: ReturnType<typeof setInterval>[] = [];
    const watchdog = this.watchdog(state, timers);
    watchdog.catch(() => {});
    this.keepAlive(stream, state, timers);

    try {
      // The stream is open before the catch-up starts, so nothing falls between the two.
      await Promise.race([
        waitUntil(() => state.answered || this.stopped, 10_000, "the endpoint did not answer the subscription"),
        ended,
        watchdog,
      ]);
      if (this.stopped) return;
      this.connected = true;
      this.subscribed = addressesOf(request);
      log.info("indexer: stream open", {
        url: redact(this.o.url),
        resumedFrom: resumed ? this.core.lastSlot?.toString() : null,
        accounts: this.core.watchedAddresses().length,
      });
      await this.catchUpWhileOpen(fillSlot, state, ended, watchdog);
      await Promise.race([ended, watchdog]);
    } finally {
      for (const t of timers) clearInterval(t);
    }
  }

  /** A stream on the kept connection, connecting first when there is none. */
  private async openStream(): Promise<Stream> {
    if (!this.client) {
      const client = new Client(this.o.url, this.o.token ?? undefined, {
        grpcMaxDecodingMessageSize: 64 * 1024 * 1024,
      });
      await client.connect();
      this.client = client;
    }
    try {
      return await this.client.subscribe();
    } catch (error) {
      // A connection that cannot open a stream is rebuilt next time.
      this.client = null;
      throw error;
    }
  }

  /** Applies the stream's updates as they come; settles when the stream ends (rejects on its error). */
  private listen(stream: Stream, state: StreamState, firstPong: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      stream.on("data", (u: SubscribeUpdate) => {
        state.lastMessageAt = Date.now();
        this.receivedBytes += messageBytes(u);
        if (u.pong?.id === firstPong) state.answered = this.session_.answered = true;
        try {
          this.dispatch(u);
        } catch (error) {
          log.warn("indexer: could not apply an update", { error });
        }
      });
      stream.on("error", (e: Error) => {
        state.done = true;
        reject(e);
      });
      stream.on("end", () => {
        state.done = true;
        resolve();
      });
      stream.on("close", () => {
        state.done = true;
        resolve();
      });
    });
  }

  /** Rejects once the stream has been quiet for `staleMs`; its timer joins `timers`. */
  private watchdog(state: StreamState, timers: ReturnType<typeof setInterval>[]): Promise<void> {
    return new Promise<void>((_, reject) => {
      const staleMs = this.o.staleMs ?? 20_000;
      timers.push(
        setInterval(
          () => {
            if (Date.now() - state.lastMessageAt > staleMs) reject(new AppError("INDEXER_STREAM_SILENT", { staleMs }));
          },
          Math.min(1_000, staleMs / 4),
        ),
      );
    });
  }

  /** The pings that keep the stream alive and the checks for new launches; their timers join `timers`. */
  private keepAlive(stream: Stream, state: StreamState, timers: ReturnType<typeof setInterval>[]): void {
    timers.push(
      setInterval(() => {
        void this.write(stream, { ...emptyRequest(), ping: { id: this.pingId++ } }).catch(() => {});
      }, this.o.pingMs ?? 10_000),
    );
    let syncing = false;
    timers.push(
      setInterval(() => {
        if (syncing || !state.answered) return;
        syncing = true;
        void this.followDatabase(stream).finally(() => (syncing = false));
      }, this.o.syncMs ?? 250),
    );
  }

  /** A failed catch-up (the RPC node down, say) keeps the healthy stream and tries again. */
  private async catchUpWhileOpen(
    fillSlot: bigint,
    state: StreamState,
    ended: Promise<void>,
    watchdog: Promise<void>,
  ): Promise<void> {
    for (let attempt = 1; !this.stopped && !state.done; attempt++) {
      try {
        await Promise.race([this.core.catchUp(fillSlot), ended, watchdog]);
        break;
      } catch (error) {
        if (state.done) throw error;
        this.lastError = describe(error);
        log.warn("indexer: catch-up failed; retrying", { error: this.lastError });
        await Promise.race([this.sleep(this.backoff(attempt)), ended, watchdog]);
      }
    }
  }

  /** New launches and pending launch mints join the filters on the open stream. */
  private async followDatabase(stream: Stream): Promise<void> {
    try {
      const { changed, newTokens } = await this.core.syncWatched();
      if (!changed || stream !== this.stream) return;
      // Filters first, then the RPC read: an update after the read is then never missed.
      const request = this.request(false);
      await this.write(stream, request);
      this.subscribed = addressesOf(request);
      const addresses = newTokens.flatMap((t) => t.addresses);
      if (addresses.length > 0) {
        await this.core.cache.fill(addresses, this.core.headSlot);
        const now = Date.now();
        for (const t of newTokens) this.core.markDirty(t.id, now);
      }
    } catch (error) {
      log.warn("indexer: following new launches failed", { error });
    }
  }

  private dispatch(u: SubscribeUpdate): void {
    if (u.account?.account) {
      const a = u.account.account;
      const lamports = BigInt(a.lamports);
      this.core.onAccount(
        encodeBase58(a.pubkey),
        lamports > 0n
          ? { lamports, owner: encodeBase58(a.owner), executable: a.executable, data: new Uint8Array(a.data) }
          : null,
        BigInt(u.account.slot),
        BigInt(a.writeVersion),
        u.createdAt ? u.createdAt.getTime() : Date.now(),
      );
    } else if (u.transaction?.transaction) {
      const info = u.transaction.transaction;
      const message = info.transaction?.message;
      const keys = [
        ...(message?.accountKeys ?? []),
        ...(info.meta?.loadedWritableAddresses ?? []),
        ...(info.meta?.loadedReadonlyAddresses ?? []),
      ].map((k) => encodeBase58(k));
      this.core.onTransaction(encodeBase58(info.signature), BigInt(u.transaction.slot), keys);
    } else if (u.slot) {
      const slot = BigInt(u.slot.slot);
      this.core.noteHead(slot);
      if (u.slot.status === SlotStatus.SLOT_CONFIRMED) this.core.noteSlot(slot);
      else if (u.slot.status === SlotStatus.SLOT_FINALIZED) this.core.noteFinalized(slot);
    }
  }

  private write(stream: Stream, request: SubscribeRequest): Promise<void> {
    return new Promise((resolve, reject) =>
      stream.write(request, (e: Error | null | undefined) => (e ? reject(e) : resolve())),
    );
  }

  private closeStream(): void {
    const s = this.stream;
    this.stream = null;
    try {
      s?.destroy();
    } catch {
      // already closed
    }
  }
}

/**
 * A message's size as it came over the wire, framing excluded: the client hands over decoded
 * messages, so it is encoded again (a few microseconds; updates come per trade, not per token).
 */
function messageBytes(u: SubscribeUpdate): number {
  try {
    return SubscribeUpdate.encode(u).finish().length;
  } catch {
    return 0;
  }
}

function addressesOf(request: SubscribeRequest): Set<string> {
  const out = new Set<string>();
  for (const f of Object.values(request.accounts)) for (const a of f.account) out.add(a);
  for (const f of Object.values(request.transactions)) for (const a of f.accountInclude) out.add(a);
  return out;
}

/** A subscribe request that asks for nothing: the base every request here spreads. */
export function emptyRequest(): SubscribeRequest {
  return {
    accounts: {},
    slots: {},
    transactions: {},
    transactionsStatus: {},
    blocks: {},
    blocksMeta: {},
    entry: {},
    accountsDataSlice: [],
  };
}

async function waitUntil(fn: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!fn()) {
    if (Date.now() > deadline) throw new AppError("INDEXER_UNANSWERED", { awaited: what, timeoutMs });
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Endpoints may carry a key in their path or query; logs get the host only. */
function redact(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "endpoint";
  }
}

/** The napi client's messages are generic; its cause and gRPC status say what happened. */
function describe(error: unknown): string {
  const e = error as { message?: string; code?: unknown; details?: unknown; cause?: unknown };
  const parts = [scrubErrorText(error)];
  if (e && typeof e === "object") {
    if (e.code !== undefined) parts.push(`code ${String(e.code)}`);
    if (typeof e.details === "string" && e.details) parts.push(scrubErrorText(e.details));
    if (e.cause) parts.push(scrubErrorText(e.cause));
  }
  return parts.join(": ");
}
