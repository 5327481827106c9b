/**
 * The on-request vault refresh of token detail (SPEC: when the stored reading is over a minute
 * old, wait at most a few seconds for the node, else serve the stored reading).
 *
 * Refreshes are read in batches: the stale mints asked for while the node is busy with earlier
 * reads go in one `readVaults` call, and their readings in one write. A page of random details
 * otherwise made one node call and one commit per request; measured at 100k tokens with 32
 * connections, each call cost the request thread an HTTP round trip, its JSON and ~5 KB of garbage,
 * and the node's thread ~20 KB, so the collector ran for every few hundred details.
 *
 * One reading per mint is in flight at a time, so a busy page does not multiply node calls; a
 * reading is written only if no sweep or other reading landed since it was taken, so a slow answer
 * can never overwrite a newer figure or count swept fees twice. Everything is bounded: the mints
 * waiting, the mints per call and the calls in flight; past the bound a detail is served from its
 * stored reading at once.
 */
import type { AppContext } from "../context";
import type { TokenRef, VaultReading } from "../chain/ports";
import { log } from "../lib/log";
import { immediate } from "../../db/transaction";
import { writeWithoutWaiting } from "../../db/write-without-waiting";
import { unsweptLamports } from "./readings";
import { storeVaultReadingIfUnchanged } from "./records";

export const VAULT_STALE_MS = 60_000;
const VAULT_REFRESH_WAIT_MS = 3_000;
/** Mints in one node call: one `getMultipleAccounts` page of 100 keys holds 25 tokens' four accounts. */
export const VAULT_REFRESH_BATCH_MAX = 25;
/** Node calls in flight at once; further stale mints wait for one of them to end and go in the next. */
const VAULT_REFRESH_CALLS_MAX = 2;
/** Stale mints waiting for a call; past this a detail answers from its stored reading at once. */
const VAULT_REFRESH_WAITING_MAX = 1_000;

export interface StaleToken {
  tokenId: number;
  mint: string;
  creator: string;
  /** both creator vaults as recorded at launch; null: derived by the launch program */
  vaults: TokenRef["vaults"];
  vaultCheckedAtMs: number;
  lastSweptAtMs: number | null;
}

interface Waiting {
  token: StaleToken;
  done: Promise<boolean>;
  resolve: (stored: boolean) => void;
}

export interface VaultRefresherOptions {
  batchMax?: number;
  callsMax?: number;
  waitingMax?: number;
}

/** Batches the detail route's refreshes for one service (its chain and its database). */
export class VaultRefresher {
  /** by mint, in the order asked */
  private readonly waiting = new Map<string, Waiting>();
  /** by mint: readings being taken now */
  private readonly reading = new Map<string, Promise<boolean>>();
  private callsInFlight = 0;
  private flushQueued = false;
  private readonly batchMax: number;
  private readonly callsMax: number;
  private readonly waitingMax: number;

  constructor(
    private readonly ctx: Pick<AppContext, "chain" | "db" | "now">,
    options: VaultRefresherOptions = {},
  ) {
    this.batchMax = options.batchMax ?? VAULT_REFRESH_BATCH_MAX;
    this.callsMax = options.callsMax ?? VAULT_REFRESH_CALLS_MAX;
    this.waitingMax = options.waitingMax ?? VAULT_REFRESH_WAITING_MAX;
  }

  /** Resolves true once a fresh reading of the token is stored, false when none will be. */
  refresh(token: StaleToken): Promise<boolean> {
    const pending = this.reading.get(token.mint) ?? this.waiting.get(token.mint)?.done;
    if (pending) return pending;
    if (this.waiting.size >= this.waitingMax) return Promise.resolve(false);
    let resolve: (stored: boolean) => void = () => {};
    const done = new Promise<boolean>((r) => {
      resolve = r;
    });
    this.waiting.set(token.mint, { token, done, resolve });
    this.queueFlush();
    return done;
  }

  /**
   * After the requests already received this turn were handled, so that the stale mints they ask
   * for share a call (a quiet page waits one turn of the event loop, not a timer).
   */
  private queueFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    setImmediate(() => {
      this.flushQueued = false;
      this.flush();
    });
  }

  private flush(): void {
    while (this.waiting.size > 0 && this.callsInFlight < this.callsMax) {
      const batch: Waiting[] = [];
      for (const [mint, w] of this.waiting) {
        if (batch.length >= this.batchMax) break;
        this.waiting.delete(mint);
        this.reading.set(mint, w.done);
        batch.push(w);
      }
      this.callsInFlight++;
      void this.read(batch).finally(() => {
        this.callsInFlight--;
        for (const w of batch) this.reading.delete(w.token.mint);
        if (this.waiting.size > 0) this.queueFlush();
      });
    }
  }

  private async read(batch: readonly Waiting[]): Promise<void> {
    const chain = this.ctx.chain;
    let stored: boolean[] = batch.map(() => false);
    try {
      if (!chain) return;
      const readings = await chain.launchProgram.readVaults(
        batch.map((w) => ({ mint: w.token.mint, creator: w.token.creator, vaults: w.token.vaults })),
      );
      stored = this.store(batch, readings);
    } catch (error) {
      log.warn("vault refresh failed", { mints: batch.length, error });
    } finally {
      for (const [i, w] of batch.entries()) w.resolve(stored[i]!);
    }
  }

  /** The batch's readings in one write; none when another connection holds the write lock. */
  private store(batch: readonly Waiting[], readings: readonly VaultReading[]): boolean[] {
    const byMint = new Map(readings.map((r) => [r.mint, r]));
    const checkedAtMs = this.ctx.now();
    const db = this.ctx.db;
    // Cached readings: never wait for the jobs' write lock (null when it is held).
    const written = writeWithoutWaiting(db, () =>
      immediate(db, () =>
        batch.map(({ token }) => {
          const r = byMint.get(token.mint);
          if (!r) return false;
          const reading = { vaultLamports: unsweptLamports(r), bonded: r.bonded, checkedAtMs };
          return storeVaultReadingIfUnchanged(db, token.tokenId, reading, token);
        }),
      ),
    );
    return written ?? batch.map(() => false);
  }
}

const refreshers = new WeakMap<AppContext, VaultRefresher>();

/** True when a fresh reading was written (the caller reads the token again). */
export async function refreshVaultIfStale(
  ctx: AppContext,
  token: StaleToken,
  waitMs = VAULT_REFRESH_WAIT_MS,
): Promise<boolean> {
  if (!ctx.chain || ctx.now() - token.vaultCheckedAtMs <= VAULT_STALE_MS) return false;
  let refresher = refreshers.get(ctx);
  if (!refresher) {
    refresher = new VaultRefresher(ctx);
    refreshers.set(ctx, refresher);
  }
  const reading = refresher.refresh(token);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), waitMs);
  });
  try {
    return await Promise.race([reading, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
