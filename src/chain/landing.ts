/**
 * Landing on a congested chain: the compute budget every signed transaction carries and the price
 * it pays. Pure functions; the sender (rpc.ts) asks the node and applies them.
 *
 * - The unit limit is what a simulation of the transaction consumed plus a margin; where it cannot
 *   be simulated, the limit the caller gave (the sweep's per-token table) or a per-instruction table.
 * - The price is the configured estimator's (`FeeEstimator`: agave's per-slot minimums, which read
 *   ~0 for a treasury, or a provider's percentiles), never under the floor (the documented
 *   `DOCUMENTED_FEE_FLOOR_MICRO_LAMPORTS` by default), clamped to the bounds, stepped up ×1.5 per
 *   replacement of a provably expired attempt (never before: two live variants could both land),
 *   and capped so that price × limit stays within the per-transaction fee cap.
 */
import { ComputeBudgetProgram, type TransactionInstruction } from "@solana/web3.js";
import type { PrepareShare } from "./ports";

/**
 * Where the market price comes from. `recent`: agave's getRecentPrioritizationFees, which reports
 * per-slot *minimums* (mostly 0 for a treasury and fresh wallets, whatever the market pays), so the
 * floor carries the price. `helius`: Helius-style `getPriorityFeeEstimate` (percentiles of what
 * was paid). `triton`: Triton's getRecentPrioritizationFees with its `percentile` option.
 */
type FeeEstimator = "recent" | "helius" | "triton";

export interface LandingSettings {
  /**
   * The least price any transaction pays (PRIORITY_FEE_MIN_MICROLAMPORTS): the floor that carries
   * the price where the estimate cannot see the market
   */
  feeMinMicroLamports: bigint;
  /** 0 turns priority fees off (the price instruction then asks for 0) */
  feeMaxMicroLamports: bigint;
  /** which percentile of the recent fees to pay, 1..100 */
  feePercentile: number;
  feeEstimator: FeeEstimator;
  /** the most priority fee one transaction may pay, in lamports */
  feeCapLamports: bigint;
  /** endpoints every send also goes to (a staked or sender endpoint), besides RPC_URL */
  sendUrls: readonly string[];
  /**
   * HISTORY_RPC_URL: an archive (the whole ledger) whose history search alone proves a
   * transaction absent; null: absence is proven from the finalized blocks (absence-proof.ts)
   */
  historyUrl: string | null;
}

export const DEFAULT_LANDING_SETTINGS: LandingSettings = {
  feeMinMicroLamports: 0n,
  feeMaxMicroLamports: 2_000_000n,
  feePercentile: 75,
  feeEstimator: "recent",
  feeCapLamports: 10_000_000n,
  sendUrls: [],
  historyUrl: null,
};

/** MAX_COMPUTE_UNIT_LIMIT: a transaction may ask for no more. */
export const MAX_COMPUTE_UNIT_LIMIT = 1_400_000;
/**
 * Room above the simulated consumption. The same instructions consume the same units unless the
 * state they read changed between the simulation and the landing (a trade into a vault, a pool
 * created); a limit that proves too low fails on chain and the next attempt doubles it.
 */
const COMPUTE_UNIT_MARGIN_PCT = 10;
const COMPUTE_UNIT_MARGIN_MIN = 100;
/** Where a replacement must pay more than a market that asks nothing, it starts from this. */
const FEE_STEP_BASE_MICRO_LAMPORTS = 1_000n;
/** Replacements step ×1.5 each; past this many steps the price is at its cap anyway. */
const MAX_FEE_STEPS = 40;

const COMPUTE_BUDGET_PROGRAM = ComputeBudgetProgram.programId.toBase58();
const SYSTEM_PROGRAM = "11111111111111111111111111111111";
const MEMO_PROGRAMS = new Set([
  "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr",
  "Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo",
]);

/**
 * Units per instruction where a transaction cannot be simulated, from what LiteSVM measures for
 * the same programs (system transfer 150, compute budget 150; a memo ~ 1,000 per signer plus its
 * text) with room; any other program gets agave's default of 200,000.
 */
export function tableComputeUnits(instructions: readonly TransactionInstruction[]): number {
  let units = 0;
  for (const ix of instructions) {
    const program = ix.programId.toBase58();
    if (program === COMPUTE_BUDGET_PROGRAM || program === SYSTEM_PROGRAM) units += 300;
    else if (MEMO_PROGRAMS.has(program)) units += 30_000;
    else units += 200_000;
  }
  return Math.min(units, MAX_COMPUTE_UNIT_LIMIT);
}

/** The instructions without their ComputeBudget ones, and the unit limit one of them asked for. */
export function withoutComputeBudget(instructions: readonly TransactionInstruction[]): {
  instructions: TransactionInstruction[];
  givenLimit: number | null;
} {
  let givenLimit: number | null = null;
  const rest: TransactionInstruction[] = [];
  for (const ix of instructions) {
    if (ix.programId.toBase58() !== COMPUTE_BUDGET_PROGRAM) {
      rest.push(ix);
      continue;
    }
    // SetComputeUnitLimit: discriminator 2, then the units as u32 little-endian.
    if (ix.data[0] === 2 && ix.data.length >= 5) givenLimit = ix.data.readUInt32LE(1);
  }
  return { instructions: rest, givenLimit };
}

export function computeBudgetInstructions(limit: number, priceMicroLamports: bigint): TransactionInstruction[] {
  return [
    ComputeBudgetProgram.setComputeUnitLimit({ units: limit }),
    ComputeBudgetProgram.setComputeUnitPrice({ microLamports: priceMicroLamports }),
  ];
}

/** The limit to ask for: consumption plus the margin, never under `floor`, never over the cap. */
export function computeUnitLimitFor(unitsConsumed: number, floor = 0): number {
  const withMargin =
    unitsConsumed + Math.max(COMPUTE_UNIT_MARGIN_MIN, Math.ceil((unitsConsumed * COMPUTE_UNIT_MARGIN_PCT) / 100));
  return Math.min(MAX_COMPUTE_UNIT_LIMIT, Math.max(withMargin, Math.floor(floor)));
}

/**
 * What decides a transaction's consumption, as far as the sender can see: each instruction's
 * program, data length and discriminator (which instruction of the program it is: 4 bytes for the
 * system program, 1 for compute budget, none for a memo's text, 8 for an Anchor program), and its
 * accounts' signer and writable flags. Transactions of one shape (a run's sweeps of two curve
 * tokens, a payout of three transfers) run the same code; only the state they read differs (a PDA
 * bump found in more tries), which the margin and the most-seen consumption cover.
 */
export function instructionShape(instructions: readonly TransactionInstruction[]): string {
  let shape = "";
  for (const ix of instructions) {
    const program = ix.programId.toBase58();
    const discriminatorBytes =
      program === SYSTEM_PROGRAM ? 4 : program === COMPUTE_BUDGET_PROGRAM ? 1 : MEMO_PROGRAMS.has(program) ? 0 : 8;
    shape += `${program}:${ix.data.length}:${Buffer.from(ix.data.subarray(0, discriminatorBytes)).toString("hex")}:`;
    for (const key of ix.keys) shape += key.isSigner ? (key.isWritable ? "W" : "S") : key.isWritable ? "w" : "r";
    shape += ";";
  }
  return shape;
}

/**
 * A shape's consumption is simulated once in this many transactions of it (a provider bills each
 * simulation); the others take the most any simulation of the shape consumed, plus the margin.
 * A limit that proves too low fails on chain and raises the job's floor (landing/journal.ts).
 */
export const SIMULATE_SHAPE_EVERY = 16;
/** Shapes remembered; the oldest is forgotten past this. */
const SHAPES_MAX = 1_024;

/** The units consumed by each shape's simulations, and how many transactions took it since. */
export class ShapeUnits {
  private readonly shapes = new Map<string, { maxUnits: number; usesSinceSimulated: number }>();

  /** The units to size a transaction of this shape by, or null when it is to be simulated. */
  take(shape: string): number | null {
    const known = this.shapes.get(shape);
    if (!known || known.usesSinceSimulated + 1 >= SIMULATE_SHAPE_EVERY) return null;
    known.usesSinceSimulated++;
    return known.maxUnits;
  }

  simulated(shape: string, units: number): void {
    const known = this.shapes.get(shape);
    this.shapes.delete(shape);
    this.shapes.set(shape, { maxUnits: Math.max(units, known?.maxUnits ?? 0), usesSinceSimulated: 0 });
    if (this.shapes.size > SHAPES_MAX) this.shapes.delete(this.shapes.keys().next().value!);
  }
}

/**
 * The documented floor (PRIORITY_FEE_MIN_MICROLAMPORTS' default for the service): with agave's
 * minimum-reporting fees the estimate reads ~0 on mainnet, and a price only rises ×1.5 per proven
 * expiry (about a minute each), so the first send must already pay what usually lands. 10,000
 * µlamports a unit costs a 20,000-unit payout 200 lamports.
 */
export const DOCUMENTED_FEE_FLOOR_MICRO_LAMPORTS = 10_000n;

/** Helius's priority levels by the percentile each stands for. */
export function heliusPriorityLevel(percentile: number): "Low" | "Medium" | "High" | "VeryHigh" | "UnsafeMax" {
  if (percentile <= 25) return "Low";
  if (percentile <= 50) return "Medium";
  if (percentile <= 75) return "High";
  if (percentile <= 95) return "VeryHigh";
  return "UnsafeMax";
}

/** The nearest-rank percentile of the fees; 0 when there are none. */
export function percentileFee(fees: readonly bigint[], percentile: number): bigint {
  if (fees.length === 0) return 0n;
  const sorted = [...fees].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const rank = Math.max(1, Math.ceil((Math.min(100, Math.max(1, percentile)) / 100) * sorted.length));
  return sorted[rank - 1]!;
}

/**
 * The price to pay: the market's percentile clamped to [min, max], ×1.5 per replacement, at most
 * max, and at most what keeps price × limit within the per-transaction cap.
 */
export function priorityPrice(input: {
  marketMicroLamports: bigint;
  attempt: number;
  computeUnitLimit: number;
  settings: LandingSettings;
}): bigint {
  const { settings } = input;
  if (settings.feeMaxMicroLamports <= 0n) return 0n;
  let price = input.marketMicroLamports;
  if (price < settings.feeMinMicroLamports) price = settings.feeMinMicroLamports;
  const steps = Math.min(MAX_FEE_STEPS, Math.max(0, Math.floor(input.attempt)));
  if (steps > 0 && price < FEE_STEP_BASE_MICRO_LAMPORTS) price = FEE_STEP_BASE_MICRO_LAMPORTS;
  for (let i = 0; i < steps && price < settings.feeMaxMicroLamports; i++) price = (price * 3n + 1n) / 2n;
  if (price > settings.feeMaxMicroLamports) price = settings.feeMaxMicroLamports;
  const limit = BigInt(Math.max(1, input.computeUnitLimit));
  const capped = (settings.feeCapLamports * 1_000_000n) / limit;
  return price > capped ? capped : price;
}

/** The priority fee a transaction pays: price × limit, in lamports, rounded up as validators do. */
export function priorityFeeLamports(priceMicroLamports: bigint, computeUnitLimit: number): bigint {
  return (priceMicroLamports * BigInt(computeUnitLimit) + 999_999n) / 1_000_000n;
}

/** A transaction that failed because its unit limit was too low. */
export function exceededComputeBudget(error: string | null): boolean {
  return error !== null && /ComputationalBudgetExceeded|exceeded CUs meter/i.test(error);
}

/**
 * How long transactions prepared together share one blockhash and one market price. A blockhash
 * lives ~150 blocks (about a minute on mainnet); one taken 10 s ago leaves the rebroadcaster most of it.
 */
const PREPARE_SHARE_MAX_AGE_MS = 10_000;

/** The most accounts getRecentPrioritizationFees takes: a price group's bound. */
export const PRICE_GROUP_MAX_ACCOUNTS = 128;

/**
 * A share for these transactions (each its instructions), paid by `payer`: the transactions packed
 * in order into groups of at most PRICE_GROUP_MAX_ACCOUNTS written accounts, the payer first in
 * each, one price ask per group. A transaction that alone writes more stays out of every group.
 */
export function prepareShareFor(payer: string, transactions: Iterable<Iterable<TransactionInstruction>>): PrepareShare {
  const groups: string[][] = [];
  let group = new Set([payer]);
  for (const instructions of transactions) {
    const writable = new Set([payer]);
    for (const ix of instructions) for (const key of ix.keys) if (key.isWritable) writable.add(key.pubkey.toBase58());
    if (writable.size > PRICE_GROUP_MAX_ACCOUNTS) continue;
    const added = [...writable].filter((account) => !group.has(account));
    if (group.size + added.length > PRICE_GROUP_MAX_ACCOUNTS) {
      groups.push([...group]);
      group = new Set(writable);
      continue;
    }
    for (const account of added) group.add(account);
  }
  if (group.size > 1) groups.push([...group]);
  return { maxAgeMs: PREPARE_SHARE_MAX_AGE_MS, groups };
}
