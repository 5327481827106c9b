/**
 * Node-side helpers for the local launch program (create, buy, sell) and the trade simulator that
 * makes fees accrue for the demo and benchmarks. They run in-process against the node, signing
 * with keys the caller passes; the service itself never uses them (it goes through RPC).
 */
import { createHash } from "node:crypto";
import { seededRandom } from "./random";
import { Keypair, PublicKey, LAMPORTS_PER_SOL } from "@solana/web3.js";
import type { LocalNode } from "./node";
import type { PumpLaunchHelpers } from "./pump-launch";
import type { SolanaTxError } from "./errors";
import {
  associatedTokenAddress,
  buildBuyOp,
  buildCreateOp,
  buildSellOp,
  curveStateOf,
  feeFor,
  quoteBuy,
  quoteSell,
  readU64LE,
  type CurveState,
} from "./program";

export interface TradeResult {
  signature: string;
  err: SolanaTxError | null;
  /** tokens bought or sold */
  tokens: bigint;
  /** lamports paid into the curve (buy) or received by the seller (sell) */
  lamports: bigint;
  feeLamports: bigint;
  vault: "curve" | "pool";
}

export class LocalLaunchHelpers {
  /**
   * Pays for tokens created through these helpers when no payer is given. Derived from the chain's
   * program seed, so a chain continued from its state has the same one, funded once at genesis:
   * a restart mints nothing.
   */
  readonly deployer: Keypair;

  constructor(private readonly node: LocalNode) {
    this.deployer = Keypair.fromSeed(
      createHash("sha256").update("localnet launch deployer").update(node.programSeed).digest(),
    );
    if (!node.hasWritten(this.deployer.publicKey.toBase58()))
      node.fund(this.deployer.publicKey, 1_000_000n * BigInt(LAMPORTS_PER_SOL));
  }

  createToken(p: {
    name: string;
    symbol: string;
    uri: string;
    creator: PublicKey | string;
    payer?: Keypair;
    mint?: Keypair;
  }): { mint: string; signature: string; err: SolanaTxError | null } {
    const mint = p.mint ?? Keypair.generate();
    const payer = p.payer ?? this.deployer;
    const ops = buildCreateOp(this.node.programKeys, {
      payer: payer.publicKey,
      mint: mint.publicKey,
      creator: new PublicKey(p.creator),
      name: p.name,
      symbol: p.symbol,
      uri: p.uri,
    });
    const r = this.node.submitInstructions(ops, payer, [mint]);
    return { mint: mint.publicKey.toBase58(), signature: r.signature, err: r.err };
  }

  curveState(mint: string): CurveState | null {
    return curveStateOf(this.node.programKeys, this.node.programState, mint);
  }

  tokenBalance(mint: string, owner: PublicKey): bigint {
    const ata = associatedTokenAddress(mint, owner);
    const acc = this.node.getAccount(ata);
    return acc ? readU64LE(acc.data, 64) : 0n;
  }

  buy(p: { mint: string; buyer: Keypair; solInLamports: bigint }): TradeResult {
    const creator = this.node.creatorOf(p.mint);
    const state = this.curveState(p.mint);
    if (!creator || !state) throw new Error(`unknown local mint ${p.mint}`);
    const tokens = quoteBuy(state, p.solInLamports);
    const fee = feeFor(p.solInLamports, this.node.programConfig.creatorFeeBps);
    const vault = state.bonded ? "pool" : "curve";
    const ops = buildBuyOp(this.node.programKeys, {
      buyer: p.buyer.publicKey,
      mint: new PublicKey(p.mint),
      creator: new PublicKey(creator),
      vault,
      solInLamports: p.solInLamports,
      tokensOut: tokens,
      feeLamports: fee,
    });
    const r = this.node.submitInstructions(ops, p.buyer);
    return { signature: r.signature, err: r.err, tokens, lamports: p.solInLamports, feeLamports: fee, vault };
  }

  sell(p: { mint: string; seller: Keypair; tokensIn: bigint }): TradeResult {
    const creator = this.node.creatorOf(p.mint);
    const state = this.curveState(p.mint);
    if (!creator || !state) throw new Error(`unknown local mint ${p.mint}`);
    const gross = quoteSell(state, p.tokensIn);
    const fee = feeFor(gross, this.node.programConfig.creatorFeeBps);
    const vault = state.bonded ? "pool" : "curve";
    const ops = buildSellOp(this.node.programKeys, {
      seller: p.seller.publicKey,
      mint: new PublicKey(p.mint),
      creator: new PublicKey(creator),
      vault,
      tokensIn: p.tokensIn,
      solOutLamports: gross - fee,
      feeLamports: fee,
    });
    const r = this.node.submitInstructions(ops, p.seller);
    return { signature: r.signature, err: r.err, tokens: p.tokensIn, lamports: gross - fee, feeLamports: fee, vault };
  }
}

export interface SimulatorOptions {
  /** trades per second across all tokens */
  tradesPerSecond: number;
  /** tokens to trade; default every token on the chain (the local program's and pump's) */
  mints?: string[];
  /** number of funded trader wallets (bounded, 1..256) */
  traders?: number;
  minBuyLamports?: bigint;
  maxBuyLamports?: bigint;
  /** share of trades that are sells, 0..1 */
  sellRatio?: number;
  /** seed for a reproducible sequence of trades */
  seed?: number;
}

/**
 * A token launched while the simulator runs is left alone this long: its launcher's first buy is a
 * second transaction priced on the fresh curve, and a simulated trade in between would make it fail
 * its slippage check.
 */
const NEW_MINT_GRACE_MS = 30_000;

/** pump trades one simulator keeps waiting at most; past it a tick's pump trades are skipped. */
const PUMP_TRADES_PENDING_MAX = 64;

/** Trades the chain's tokens (the local program's and pump's) at a steady rate so creator fees accrue. */
export class TradeSimulator {
  private timer: ReturnType<typeof setInterval> | null = null;
  /** when the running simulator first saw each mint; mints there at start are tradeable at once */
  private readonly firstSeenMs = new Map<string, number>();
  private traders: Keypair[] = [];
  private rng: () => number = Math.random;
  private opts: Required<Omit<SimulatorOptions, "mints" | "seed">> & { mints?: string[] } = {
    tradesPerSecond: 0,
    traders: 8,
    minBuyLamports: 10_000_000n,
    maxBuyLamports: 500_000_000n,
    sellRatio: 0.3,
  };
  readonly stats = { trades: 0, failed: 0, feesLamports: 0n };
  /** pump trades waiting their turn, and the last of them (see tradeOnce) */
  private pumpPending = 0;
  private pumpTrades: Promise<void> = Promise.resolve();

  constructor(
    private readonly node: LocalNode,
    private readonly launch: LocalLaunchHelpers,
    private readonly pump: PumpLaunchHelpers | null = null,
  ) {}

  /** Every token on the chain, oldest first. */
  private allMints(): string[] {
    return this.pump ? [...this.node.localMints(), ...this.node.pumpMints()] : this.node.localMints();
  }

  get running(): boolean {
    return this.timer !== null;
  }

  start(options: SimulatorOptions): void {
    this.stop();
    if (!(options.tradesPerSecond > 0) || options.tradesPerSecond > 5_000)
      throw new Error("tradesPerSecond must be in (0, 5000]");
    this.opts = { ...this.opts, ...options, traders: Math.min(256, Math.max(1, options.traders ?? this.opts.traders)) };
    if (options.seed !== undefined) this.rng = seededRandom(options.seed);
    while (this.traders.length < this.opts.traders) {
      const kp = Keypair.generate();
      this.node.fund(kp.publicKey, 1_000_000n * BigInt(LAMPORTS_PER_SOL));
      this.traders.push(kp);
    }
    // Timers fire at most every few ms; several trades per tick keep high rates honest.
    const tickMs = Math.max(10, Math.floor(1000 / options.tradesPerSecond));
    const perTick = Math.max(1, Math.round((options.tradesPerSecond * tickMs) / 1000));
    for (const mint of this.allMints())
      if (!this.firstSeenMs.has(mint)) this.firstSeenMs.set(mint, Number.NEGATIVE_INFINITY);
    this.timer = setInterval(() => {
      const mints = this.settledMints(Date.now());
      for (let i = 0; i < perTick; i++) this.tradeOnce(mints);
    }, tickMs);
    this.timer.unref?.();
  }

  /** Resolves once every pump trade asked for so far has landed or failed (counted in `stats`). */
  settled(): Promise<void> {
    return this.pumpTrades;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private settledMints(nowMs: number): string[] {
    return (this.opts.mints ?? this.allMints()).filter((mint) => {
      const seenMs = this.firstSeenMs.get(mint);
      if (seenMs === undefined) this.firstSeenMs.set(mint, nowMs);
      return seenMs !== undefined && nowMs - seenMs >= NEW_MINT_GRACE_MS;
    });
  }

  /** One random trade; public so tests and the demo can step it by hand. */
  tradeOnce(mints: readonly string[] = this.opts.mints ?? this.allMints()): void {
    if (mints.length === 0 || this.traders.length === 0) return;
    const mint = mints[Math.floor(this.rng() * mints.length)]!;
    const trader = this.traders[Math.floor(this.rng() * this.traders.length)]!;
    const pump = this.pump && this.node.creatorOf(mint) === null ? this.pump : null;
    const helpers = pump ?? this.launch;
    // The same draws in the same order as before pump's coins were traded: a seed replays its trades.
    let held: bigint;
    try {
      held = helpers.tokenBalance(mint, trader.publicKey);
    } catch {
      this.stats.failed++;
      return;
    }
    const sells = held > 0n && this.rng() < this.opts.sellRatio;
    const tokensIn = sells ? (held * BigInt(Math.floor(this.rng() * 1000) + 1)) / 1000n || held : 0n;
    const span = this.opts.maxBuyLamports - this.opts.minBuyLamports;
    const amount = sells
      ? 0n
      : this.opts.minBuyLamports + (span > 0n ? (span * BigInt(Math.floor(this.rng() * 1_000_000))) / 1_000_000n : 0n);
    const count = (r: { err: unknown; feeLamports: bigint }) => {
      this.stats.trades++;
      if (r.err) this.stats.failed++;
      else this.stats.feesLamports += r.feeLamports;
    };
    const failed = () => {
      this.stats.failed++;
    };
    if (pump) {
      // pump's SDK builds its transactions asynchronously (Anchor). The trades run one after another,
      // each built on what the last left, as one trader after another would: built together on one
      // state, all but the first would fail their slippage check.
      if (this.pumpPending >= PUMP_TRADES_PENDING_MAX) return;
      this.pumpPending++;
      this.pumpTrades = this.pumpTrades
        .then(() =>
          sells
            ? pump.sell({ mint, seller: trader, tokensIn })
            : pump.buy({ mint, buyer: trader, solInLamports: amount }),
        )
        .then(count, failed)
        .finally(() => {
          this.pumpPending--;
        });
      return;
    }
    try {
      count(
        sells
          ? this.launch.sell({ mint, seller: trader, tokensIn })
          : this.launch.buy({ mint, buyer: trader, solInLamports: amount }),
      );
    } catch {
      failed();
    }
  }
}
