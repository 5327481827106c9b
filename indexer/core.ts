/**
 * What the indexer does with what it learns, whatever the source (gRPC stream or RPC polling):
 *  - keeps the set of watched accounts in step with the database (every token's vaults, creator
 *    address and bonding-curve state; pending launches' mints), so new launches are watched
 *    without restarting anything;
 *  - turns account changes into vault readings through the launch-program adapter over the
 *    account cache and stores them with the sweep job's own writer;
 *  - hands every transaction that may settle a pending sweep, payout, burn or launch to the
 *    job's own resolver for that signature (idempotent: a confirmation seen twice is a no-op);
 *  - catches up over RPC after any gap: everything watched is read again and everything pending
 *    is resolved, so a missed update can delay a figure but never lose it.
 * It never writes the ledger itself: every write goes through the shared service functions,
 * fenced by the indexer's lease.
 */
import type { Db } from "../db/client";
import { tokens } from "../db/schema";
import { columnsOf, statement, type TableRow } from "../db/statement";
import { resolveBurnSignature } from "../src/burns";
import type { ChainReader, LaunchProgram, TokenRef, VaultAddresses } from "../src/chain/ports";
import type { ChainServices } from "../src/chain/services";
import type { AppContext } from "../src/context";
import type { JobContext } from "../src/jobs";
import { settleIntent } from "../src/launches";
import { intentsAwaitingCreate, intentsWithSignatureToSettle } from "../src/launches";
import { log } from "../src/lib/log";
import { resolvePayoutSignature, resolveSentPayouts } from "../src/payouts";
import { activeSince, mostRecentlyActive, storeVaultReadings } from "../src/tokens";
import { resolveSentSweeps, resolveSweepSignature } from "../src/sweeps";
import { AccountCache } from "./cache";

export interface TrackedToken {
  id: number;
  ref: TokenRef;
  addresses: string[];
}

export interface CoreOptions {
  ctx: AppContext;
  chain: ChainServices;
  /** the same launch-program adapter, built over another reader */
  launchProgramOver: (reader: ChainReader) => LaunchProgram;
  job: JobContext;
  /** how long a signature the stream showed is retried while the node still calls it pending */
  resolveRetryMs?: number;
  /** how long the first change of a burst waits for the rest before readings are stored */
  coalesceMs?: number;
  /** called after each stored batch of readings with each token's delay from its update (ms) */
  onReadingsStored?: (delaysMs: number[]) => void;
  /** the most tokens watched at once, newest first (default: the INDEXER_WATCH_TOKENS setting) */
  watchMax?: number;
}

const RPC_FILL_CHUNK = 1_000;
// Money moves only at finalized (~13 s after landing on mainnet): the later retries cover that.
const RESOLVE_RETRY_DELAYS_MS = [100, 250, 500, 1_000, 2_000, 4_000, 8_000, 8_000];
/** Bound on transactions waiting for their slot to be finalized; beyond it they are asked at once. */
const AWAITING_FINAL_MAX = 10_000;

/**
 * `base` with its account reads answered empty and their addresses pushed to `asked`: a launch
 * program's `readVaults` over it says which accounts a token's reading needs, with no request made.
 */
export function recordingReader(base: ChainReader, asked: string[]): ChainReader {
  return {
    ...base,
    getAccounts: async (addresses) => {
      asked.push(...addresses);
      return new Map(addresses.map((a) => [a, null]));
    },
    getBalances: async (addresses) => {
      asked.push(...addresses);
      return new Map(addresses.map((a) => [a, 0n]));
    },
  };
}

export class IndexerCore {
  readonly cache: AccountCache;
  private readonly program: LaunchProgram;
  private readonly discover: { program: LaunchProgram; asked: string[] };
  private readonly tokens = new Map<number, TrackedToken>();
  private readonly byAddress = new Map<string, number[]>();
  private maxTokenId = 0;
  /** the latest activity (reading_schedule.active_at_ms) already taken into the watched set; null before the first sync */
  private activeCursorMs: number | null = null;
  private intentMints = new Set<string>();
  private syncing: Promise<void> = Promise.resolve();
  /** tokenId -> earliest update time (ms) not yet reflected in the stored reading */
  private readonly dirty = new Map<number, number>();
  private flushing: Promise<void> | null = null;
  private flushQueued = false;
  /** signature -> retry attempt and the transaction's accounts */
  private readonly resolveQueue = new Map<string, { attempt: number; keys: readonly string[]; final: boolean }>();
  /**
   * Sent sweeps, payouts and burns the stream showed at confirmed, by signature: the slot they
   * landed in and their accounts. Money moves only at finalized, so they wait here for the stream
   * to show that slot finalized (free) instead of the node being asked until then (billed).
   */
  private readonly awaitingFinal = new Map<string, { slot: bigint; keys: readonly string[] }>();
  /** statuses being asked ahead for transactions just finalized; they resolve once it answers */
  private readonly prefetching = new Set<Promise<void>>();
  /** the newest slot the stream showed finalized; null until it shows one (then nothing waits) */
  finalizedSlot: bigint | null = null;
  private resolving: Promise<void> | null = null;
  private readonly retryTimers = new Set<ReturnType<typeof setTimeout>>();
  private stopped = false;
  /** newest slot a source has shown; RPC fills are stamped with it */
  headSlot = 0n;
  lastSlot: bigint | null = null;
  lastUpdateAtMs: number | null = null;
  accountUpdates = 0;
  readingsStored = 0;
  lastError: string | null = null;

  private readonly watchMax: number;

  constructor(private readonly o: CoreOptions) {
    this.watchMax = Math.max(1, Math.floor(o.watchMax ?? o.ctx.config.indexerWatchTokens));
    this.cache = new AccountCache(o.chain.reader);
    this.program = memoizeVaultAddresses(
      o.launchProgramOver(this.cache.reader(() => this.headSlot)),
      2 * this.watchMax,
    );
    const asked: string[] = [];
    // The adapter itself says which accounts a reading needs: ask it with a reader that records.
    const recorder = recordingReader(o.chain.reader, asked);
    this.discover = { program: o.launchProgramOver(recorder), asked };
  }

  private get db(): Db {
    return this.o.ctx.db;
  }

  get tokenCount(): number {
    return this.tokens.size;
  }

  /** Accounts in the stream's filters. */
  get watchedCount(): number {
    return this.byAddress.size;
  }

  /** Every watched account address, for the stream's account filters. */
  watchedAddresses(): string[] {
    return [...this.byAddress.keys()];
  }

  /** Addresses whose transactions may settle something: the treasury and pending launches' mints. */
  transactionAddresses(): string[] {
    return [this.o.chain.treasury.publicKey.toBase58(), ...this.intentMints];
  }

  /**
   * Picks up tokens launched, tokens that showed activity and launches pending since the last
   * call. Returns true when the watched set changed (the stream's filters must follow).
   */
  syncWatched(): Promise<{ changed: boolean; newTokens: TrackedToken[] }> {
    // One at a time: discovery shares one recording reader.
    const run = this.syncing.then(() => this.syncOnce());
    this.syncing = run.then(
      () => {},
      () => {},
    );
    return run;
  }

  private async syncOnce(): Promise<{ changed: boolean; newTokens: TrackedToken[] }> {
    const newTokens: TrackedToken[] = [];
    const watch = async (rows: readonly { id: number; mint: string; creator: string }[]) => {
      for (const row of rows) {
        const tracked = this.tokens.get(row.id);
        if (tracked) {
          // Most recent activity last: the map's first keys are the ones to drop.
          this.tokens.delete(row.id);
          this.tokens.set(row.id, tracked);
        } else newTokens.push(await this.track(row.id, { mint: row.mint, creator: row.creator }));
      }
    };
    if (this.activeCursorMs === null) {
      // The first sync starts at the `watchMax` most recently active tokens (a token that never
      // traded counts from its launch), least recent first.
      this.activeCursorMs = latestActivityMs(this.db);
      await watch(tokenRefsOf(this.db, mostRecentlyActive(this.db, this.watchMax).reverse()));
      this.maxTokenId = Math.max(this.maxTokenId, newestTokenId(this.db));
    } else {
      const launched = tokensAfter(this.db, this.maxTokenId);
      if (launched.length > 0) this.maxTokenId = launched[launched.length - 1]!.id;
      await watch(launched);
      // Tokens that traded (a changed reading by the sweep, a detail's refresh or this stream)
      // join or move to the newest end: the stream follows the trading, not the launch order.
      const active = activeSince(this.db, this.activeCursorMs + 1);
      if (active.length > 0) {
        this.activeCursorMs = active[active.length - 1]!.activeAtMs;
        await watch(
          tokenRefsOf(
            this.db,
            active.map((a) => a.id),
          ),
        );
      }
    }
    const before = this.tokens.size;
    for (let over = this.tokens.size - this.watchMax; over > 0; over--) {
      const oldest = this.tokens.keys().next().value;
      if (oldest === undefined) break;
      this.untrack(oldest);
    }
    const mints = new Set(intentsAwaitingCreate(this.db).map((i) => i.mint));
    const intentsChanged = mints.size !== this.intentMints.size || [...mints].some((m) => !this.intentMints.has(m));
    this.intentMints = mints;
    // A page limit means more may be waiting: the next call takes the rest.
    const dropped = before !== this.tokens.size;
    return {
      changed: newTokens.length > 0 || dropped || intentsChanged,
      newTokens: newTokens.filter((t) => this.tokens.has(t.id)),
    };
  }

  private async track(id: number, ref: TokenRef): Promise<TrackedToken> {
    this.discover.asked.length = 0;
    await this.discover.program.readVaults([ref]);
    const addresses = [
      ...new Set([...this.discover.asked, this.o.chain.launchProgram.vaultAddresses(ref).bondingCurve]),
    ];
    const token: TrackedToken = { id, ref, addresses };
    this.tokens.set(id, token);
    for (const a of addresses) {
      const list = this.byAddress.get(a);
      if (list) list.push(id);
      else this.byAddress.set(a, [id]);
    }
    return token;
  }

  /** Stops watching a token: its filters leave the stream at the next request, its accounts the cache. */
  private untrack(id: number): void {
    const token = this.tokens.get(id);
    if (!token) return;
    this.tokens.delete(id);
    this.dirty.delete(id);
    for (const a of token.addresses) {
      const rest = (this.byAddress.get(a) ?? []).filter((other) => other !== id);
      if (rest.length > 0) {
        this.byAddress.set(a, rest);
        continue;
      }
      this.byAddress.delete(a);
      this.cache.forget(a);
    }
  }

  // ------------------------------------------------------------------ accounts

  /** An account update from the stream. Unwatched addresses are ignored. */
  onAccount(
    address: string,
    snapshot: Parameters<AccountCache["applyStream"]>[1],
    slot: bigint,
    writeVersion: bigint,
    seenAtMs: number,
  ): void {
    const ids = this.byAddress.get(address);
    if (!ids) return;
    this.accountUpdates++;
    if (!this.cache.applyStream(address, snapshot, slot, writeVersion)) return;
    for (const id of ids) this.markDirty(id, seenAtMs);
    this.noteSlot(slot);
  }

  noteHead(slot: bigint): void {
    if (slot > this.headSlot) this.headSlot = slot;
  }

  /** A slot whose updates have all been handed over (the stream confirmed it). */
  noteSlot(slot: bigint): void {
    this.noteHead(slot);
    if (this.lastSlot === null || slot > this.lastSlot) this.lastSlot = slot;
  }

  markDirty(tokenId: number, seenAtMs: number): void {
    const prev = this.dirty.get(tokenId);
    if (prev === undefined || seenAtMs < prev) this.dirty.set(tokenId, seenAtMs);
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.flushQueued || this.stopped) return;
    this.flushQueued = true;
    // A slot's updates arrive as a burst of messages, one per macrotask; waiting a couple of
    // milliseconds lets one commit (one fsync) carry many of them instead of one each.
    setTimeout(() => {
      this.flushQueued = false;
      void this.flush();
    }, this.o.coalesceMs ?? 2);
  }

  /** Stores readings for every dirty token; resolves when none is left. */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (this.dirty.size === 0 || this.stopped) return Promise.resolve();
    this.flushing = this.drainDirty().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  private async drainDirty(): Promise<void> {
    while (this.dirty.size > 0 && !this.stopped) {
      const batch = [...this.dirty].slice(0, 2_000);
      for (const [id] of batch) this.dirty.delete(id);
      try {
        await this.storeReadings(batch);
      } catch (error) {
        // Put them back for the next update or catch-up; a failed store never drops a change.
        for (const [id, at] of batch) if (!this.dirty.has(id)) this.dirty.set(id, at);
        this.fail("storing vault readings failed", error);
        const timer = setTimeout(() => {
          this.retryTimers.delete(timer);
          this.scheduleFlush();
        }, 1_000);
        this.retryTimers.add(timer);
        return;
      }
    }
  }

  private async storeReadings(batch: [number, number][]): Promise<void> {
    const tokens = batch.map(([id]) => this.tokens.get(id)).filter((t): t is TrackedToken => Boolean(t));
    if (tokens.length === 0) return;
    const readings = await this.program.readVaults(tokens.map((t) => t.ref));
    const byMint = new Map(readings.map((r) => [r.mint, r]));
    const atMs = this.o.ctx.now();
    // A changed figure is a trade: the sweep reads the token at its next run, and it stays watched.
    storeVaultReadings(
      this.db,
      tokens.map((t) => ({ tokenId: t.id, reading: byMint.get(t.ref.mint) ?? null })),
      atMs,
      this.o.job.assertHeld,
      { kind: "activity" },
    );
    const storedAt = Date.now();
    this.readingsStored += tokens.length;
    this.lastUpdateAtMs = atMs;
    this.o.onReadingsStored?.(batch.map(([, seen]) => storedAt - seen));
  }

  // ------------------------------------------------------------------ transactions

  /** A transaction the stream showed (it touched the treasury or a pending launch's mint). */
  onTransaction(signature: string, slot: bigint, accountKeys: readonly string[]): void {
    this.noteSlot(slot);
    if (!this.isPending(signature, accountKeys)) return;
    // A launch settles at confirmed; the rest wait for their slot to be finalized, when the stream
    // shows finalized slots at all (an endpoint that does not is asked at once, as before).
    const launch = accountKeys.some((k) => this.intentMints.has(k));
    const landing = this.finalizedSlot !== null && slot > this.finalizedSlot;
    if (!launch && landing && this.awaitingFinal.size < AWAITING_FINAL_MAX) {
      this.awaitingFinal.set(signature, { slot, keys: accountKeys });
      return;
    }
    this.enqueueResolve(signature, 0, accountKeys);
  }

  /** A slot the stream showed finalized: what landed at or before it may now be decided. */
  noteFinalized(slot: bigint): void {
    if (this.finalizedSlot !== null && slot <= this.finalizedSlot) return;
    this.finalizedSlot = slot;
    const due: [string, readonly string[]][] = [];
    for (const [signature, held] of this.awaitingFinal) {
      if (held.slot > slot) continue;
      this.awaitingFinal.delete(signature);
      // Settled meanwhile (the job's own settle loop, a catch-up): nothing to ask.
      if (this.isPending(signature, held.keys)) due.push([signature, held.keys]);
    }
    const resolveDue = () => {
      for (const [signature, keys] of due) this.enqueueResolve(signature, 0, keys, true);
    };
    // A run's transactions land together: their statuses in one ask, not one each.
    const prefetch =
      due.length > 1 ? this.o.chain.sender.prefetchOutcomes?.(due.map(([signature]) => signature)) : null;
    if (!prefetch) {
      resolveDue();
      return;
    }
    const asked: Promise<void> = prefetch
      .catch((error: unknown) => this.fail("asking statuses ahead failed", error))
      .finally(() => {
        this.prefetching.delete(asked);
        resolveDue();
      });
    this.prefetching.add(asked);
  }

  private isPending(signature: string, accountKeys: readonly string[]): boolean {
    if (isSentSignature(this.db, signature)) return true;
    return accountKeys.some((k) => this.intentMints.has(k));
  }

  private enqueueResolve(signature: string, attempt: number, keys: readonly string[], final = false): void {
    if (this.stopped) return;
    const queued = this.resolveQueue.get(signature);
    this.resolveQueue.set(signature, {
      attempt: Math.max(attempt, queued?.attempt ?? 0),
      keys,
      final: final || (queued?.final ?? false),
    });
    if (!this.resolving) this.resolving = this.drainResolves().finally(() => (this.resolving = null));
  }

  private async drainResolves(): Promise<void> {
    while (this.resolveQueue.size > 0 && !this.stopped) {
      const [signature, { attempt, keys, final }] = this.resolveQueue.entries().next().value as [
        string,
        { attempt: number; keys: readonly string[]; final: boolean },
      ];
      this.resolveQueue.delete(signature);
      let pending = 0;
      try {
        pending = await this.resolveSignature(signature, keys, final);
      } catch (error) {
        this.fail("resolving a transaction failed", error, { signature });
        pending = 1;
      }
      // The stream can run ahead of the RPC node that answers `outcome`: ask again shortly.
      if (pending > 0 && attempt < RESOLVE_RETRY_DELAYS_MS.length) {
        const timer = setTimeout(() => {
          this.retryTimers.delete(timer);
          this.enqueueResolve(signature, attempt + 1, keys);
        }, RESOLVE_RETRY_DELAYS_MS[attempt]!);
        this.retryTimers.add(timer);
      }
    }
  }

  /** Every kind of pending thing with this signature, through the jobs' own resolvers. */
  private async resolveSignature(signature: string, keys: readonly string[], final: boolean): Promise<number> {
    const { ctx, chain, job } = this.o;
    const db = this.db;
    let pending = 0;
    const sweptTokens = sweptTokenIds(db, signature);
    if (sweptTokens.length > 0) {
      // Seen on the stream at confirmed: money moves only at finalized. Unless the stream showed
      // its slot finalized, one status request says whether it is still landing; the outcome
      // (more requests) is asked once it may be decided.
      pending +=
        !final && (await this.stillLanding(signature))
          ? 1
          : await resolveSweepSignature(this.sweepDeps(), job, signature);
      // A confirmation subtracts what it credited from the stored reading; if the reading was
      // already taken after the sweep landed, that would count the sweep twice: read again.
      for (const id of sweptTokens) this.markDirty(id, Date.now());
    }
    pending += await resolvePayoutSignature({ db, chain, config: ctx.config, now: ctx.now }, job, signature);
    pending += await resolveBurnSignature({ db, chain, now: ctx.now }, job, signature);
    for (const intent of intentsAwaitingCreate(db)) {
      // settleIntent verifies the transaction creates this launch; anything else changes nothing.
      if (intent.signature !== signature && !keys.includes(intent.mint)) continue;
      const result = await settleIntent(ctx, chain, intent, signature);
      if (result.kind === "pending" || result.kind === "not_found") pending += 1;
    }
    return pending;
  }

  /** True when the node sees the transaction landed without error but not finalized yet. */
  private async stillLanding(signature: string): Promise<boolean> {
    try {
      const status = (await this.o.chain.reader.getSignatureStatuses([signature], false)).get(signature);
      return (
        status != null &&
        status.err === null &&
        (status.confirmationStatus === "processed" || status.confirmationStatus === "confirmed")
      );
    } catch {
      return false;
    }
  }

  private sweepDeps() {
    const { ctx, chain } = this.o;
    return {
      db: this.db,
      chain,
      sweepMinLamports: ctx.config.sweepMinLamports,
      platformBuybackBps: ctx.config.platformBuybackBps,
      now: ctx.now,
    };
  }

  // ------------------------------------------------------------------ catch-up

  /**
   * Reads again over RPC everything a gap may have hidden (call syncWatched first): every watched account, then every
   * pending signature through the jobs' resolvers, then stores every token's reading.
   * `fillSlot` is a slot the RPC state is known to include (the stream's head when it began).
   */
  async catchUp(fillSlot: bigint): Promise<void> {
    const started = Date.now();
    const addresses = this.watchedAddresses();
    for (let i = 0; i < addresses.length && !this.stopped; i += RPC_FILL_CHUNK) {
      await this.cache.fill(addresses.slice(i, i + RPC_FILL_CHUNK), fillSlot);
    }
    await this.resolveAllPending();
    const now = Date.now();
    for (const id of this.tokens.keys()) this.markDirty(id, now);
    await this.flush();
    log.debug("indexer: caught up", { tokens: this.tokens.size, accounts: addresses.length, ms: Date.now() - started });
  }

  private async resolveAllPending(): Promise<void> {
    const { ctx, chain, job } = this.o;
    const db = this.db;
    await resolveSentSweeps(this.sweepDeps(), job);
    await resolveSentPayouts({ db, chain, config: ctx.config, now: ctx.now }, job);
    for (const s of pendingBurnSignatures(db)) {
      if (!this.stopped) await resolveBurnSignature({ db, chain, now: ctx.now }, job, s);
    }
    for (const intent of intentsWithSignatureToSettle(db)) {
      if (this.stopped) break;
      try {
        await settleIntent(ctx, chain, intent, intent.signature!);
      } catch (error) {
        this.fail("settling a launch failed", error, { intent: intent.id });
      }
    }
  }

  private fail(message: string, error: unknown, fields: Record<string, unknown> = {}): void {
    this.lastError = error instanceof Error ? error.message : String(error);
    log.warn(`indexer: ${message}`, { ...fields, error });
  }

  /** Waits for queued work (tests and shutdown); bounded by the caller. */
  async idle(): Promise<void> {
    while (this.flushing || this.resolving || this.flushQueued || this.prefetching.size > 0) {
      await Promise.all([this.flushing, this.resolving, ...this.prefetching]);
      if (this.flushQueued) await new Promise((r) => setTimeout(r, (this.o.coalesceMs ?? 2) + 1));
    }
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.retryTimers) clearTimeout(t);
    this.retryTimers.clear();
    this.awaitingFinal.clear();
    this.resolveQueue.clear();
  }
}

/**
 * The port declares `vaultAddresses` a pure derivation, and the adapter's `readVaults` calls it
 * for every token on every read; deriving and base58-encoding the same keys for each stream
 * update is most of a reading's cost, so this instance remembers them (bounded by the tokens
 * watched). Readings are still computed by the adapter's own code.
 */
function memoizeVaultAddresses(program: LaunchProgram, maxEntries: number): LaunchProgram {
  const derive = program.vaultAddresses.bind(program);
  const memo = new Map<string, VaultAddresses>();
  program.vaultAddresses = (token: TokenRef) => {
    const key = `${token.mint}:${token.creator}`;
    let addresses = memo.get(key);
    if (!addresses) {
      addresses = derive(token);
      if (memo.size >= maxEntries) memo.clear();
      memo.set(key, addresses);
    }
    return addresses;
  };
  return program;
}

// ------------------------------------------------------------------ reads
// The indexer only reads these tables to decide what to watch and what to hand to the jobs'
// resolvers; every write goes through the owning feature's service.

const TOKEN_REF_FIELDS = ["id", "mint", "creator"] as const;
type TokenRefRow = Pick<TableRow<typeof tokens>, (typeof TOKEN_REF_FIELDS)[number]>;
const TOKEN_REF_COLUMNS = columnsOf(tokens, { only: TOKEN_REF_FIELDS });

const newestTokenIdRow = statement<{ id: bigint | null }, []>("SELECT MAX(id) AS id FROM tokens");
const latestActivityRow = statement<{ at: bigint | null }, []>("SELECT MAX(active_at_ms) AS at FROM reading_schedule");
const tokenRefsIn = statement<TokenRefRow, [idsJson: string]>(
  `SELECT ${TOKEN_REF_COLUMNS} FROM tokens WHERE id IN (SELECT value FROM json_each(?))`,
);
const tokenRefsAfter = statement<TokenRefRow, [afterId: number]>(
  `SELECT ${TOKEN_REF_COLUMNS} FROM tokens WHERE id > ? ORDER BY id LIMIT 5000`,
);
const sentSweep = statement<{ one: bigint }, [signature: string]>(
  "SELECT 1 AS one FROM sweeps WHERE signature = ? AND status = 'sent' LIMIT 1",
);
const sentPayout = statement<{ one: bigint }, [signature: string]>(
  "SELECT 1 AS one FROM payouts WHERE signature = ? AND status = 'sent' LIMIT 1",
);
const sentBurnStep = statement<{ one: bigint }, [signature: string]>(
  "SELECT 1 AS one FROM burn_buys WHERE (signature = ?1 AND status = 'sent') OR (burn_signature = ?1 AND status = 'burning') LIMIT 1",
);
const sweptTokens = statement<{ id: bigint }, [signature: string]>(
  "SELECT token_id AS id FROM sweeps WHERE signature = ?",
);
const pendingBurnSignatureRows = statement<{ s: string }, []>(
  "SELECT signature AS s FROM burn_buys WHERE status = 'sent' UNION SELECT burn_signature AS s FROM burn_buys WHERE status = 'burning' LIMIT 1000",
);

/** The newest token's id (0 when there is none). */
function newestTokenId(db: Db): number {
  const row = newestTokenIdRow(db).get();
  return row?.id == null ? 0 : Number(row.id);
}

/** The latest activity noted in the reading schedule (0 when none). */
function latestActivityMs(db: Db): number {
  const row = latestActivityRow(db).get();
  return row?.at == null ? 0 : Number(row.at);
}

/** The mint and creator of each token id, in the order given. */
function tokenRefsOf(db: Db, ids: readonly number[]): { id: number; mint: string; creator: string }[] {
  if (ids.length === 0) return [];
  const rows = tokenRefsIn(db).all(JSON.stringify(ids));
  const byId = new Map(rows.map((r) => [Number(r.id), { id: Number(r.id), mint: r.mint, creator: r.creator }]));
  return ids.map((id) => byId.get(id)).filter((r): r is { id: number; mint: string; creator: string } => Boolean(r));
}

/** Tokens created after `afterId`, oldest first, a bounded page at a time. */
function tokensAfter(db: Db, afterId: number): { id: number; mint: string; creator: string }[] {
  return tokenRefsAfter(db)
    .all(afterId)
    .map((r) => ({ id: Number(r.id), mint: r.mint, creator: r.creator }));
}

/** true when a sent sweep, payout or burn (buy or burn step) waits on this signature. */
function isSentSignature(db: Db, signature: string): boolean {
  return (
    sentSweep(db).get(signature) !== null ||
    sentPayout(db).get(signature) !== null ||
    sentBurnStep(db).get(signature) !== null
  );
}

/** The tokens a sweep transaction with this signature covers. */
function sweptTokenIds(db: Db, signature: string): number[] {
  return sweptTokens(db)
    .all(signature)
    .map((r) => Number(r.id));
}

/** Signatures of burn steps still in flight (the buy sent, or the burn sent), a bounded batch. */
function pendingBurnSignatures(db: Db): string[] {
  return pendingBurnSignatureRows(db)
    .all()
    .map((r) => r.s);
}
