/**
 * Transaction compilation limits and sweep packing.
 *
 * - `compileTransaction({ instructions, payer, recentBlockhash, lookupTables })`: the unsigned
 *   VersionedTransaction the sender signs (legacy message without lookup tables, v0 with them),
 *   so packing measures exactly what will be sent.
 * - `measureTransaction(...)`: its wire size and account count.
 * - `packSweeps(items, options)`: greedily packs sweeps of many tokens into as few transactions as
 *   fit in 1,232 bytes, 64 accounts and the compute-unit cap; each batch carries its compute-budget
 *   instructions, the launch program's sweep instructions, the creator keys that must sign and its
 *   command key (the token ids it sweeps). The sender appends that key's memo when it signs; the
 *   batch is measured with it. Items the launch program has nothing to sweep for, or that cannot
 *   fit even alone, come back in `skipped` with a reason.
 */
import {
  type AddressLookupTableAccount,
  ComputeBudgetProgram,
  type Keypair,
  MessageV0,
  PublicKey,
  TransactionMessage,
  type TransactionInstruction,
  VersionedTransaction,
} from "@solana/web3.js";
import type { CommandKey } from "./command-key";
import { commandKeyMemo, memoComputeUnits } from "./memo";
import type { LaunchProgram, TokenRef, VaultReading } from "./ports";

/** PACKET_DATA_SIZE: the largest transaction a validator accepts. */
export const MAX_TRANSACTION_BYTES = 1232;
/** MAX_TX_ACCOUNT_LOCKS: static keys plus lookup-table keys. */
export const MAX_TRANSACTION_ACCOUNTS = 64;
export const MAX_COMPUTE_UNITS = 1_400_000;

/**
 * Budget per token. No compute usage was measured on mainnet (PUMP.md §8: Rust examples set 200k
 * for a Pump + AMM collect); the local program's memo-based collect measures ~50k per vault. These
 * cover both with room, so a batch never dies of compute exhaustion; the limit costs nothing unless
 * a priority fee is set. Bytes, not compute, bind the batch size at these values.
 */
const DEFAULT_CU_CURVE_ONLY = 80_000;
const DEFAULT_CU_WITH_POOL = 160_000;

// Any 32 bytes will do for measuring: a blockhash is fixed-size.
const MEASURE_BLOCKHASH = new PublicKey(new Uint8Array(32).fill(7)).toBase58();

export interface CompileInput {
  instructions: readonly TransactionInstruction[];
  payer: PublicKey;
  recentBlockhash: string;
  lookupTables?: readonly AddressLookupTableAccount[];
}

export function compileTransaction(input: CompileInput): VersionedTransaction {
  const message = new TransactionMessage({
    payerKey: input.payer,
    recentBlockhash: input.recentBlockhash,
    instructions: [...input.instructions],
  });
  const tables = input.lookupTables ?? [];
  return new VersionedTransaction(
    tables.length > 0 ? message.compileToV0Message([...tables]) : message.compileToLegacyMessage(),
  );
}

export interface TransactionMeasure {
  sizeBytes: number;
  accountCount: number;
}

function measureCompiled(tx: VersionedTransaction): TransactionMeasure {
  const message = tx.message;
  const loaded =
    message instanceof MessageV0
      ? message.addressTableLookups.reduce((n, l) => n + l.writableIndexes.length + l.readonlyIndexes.length, 0)
      : 0;
  return {
    // serialize() of an unsigned transaction writes zeroed signatures of the right count
    sizeBytes: serializedLength(tx),
    accountCount: message.staticAccountKeys.length + loaded,
  };
}

function serializedLength(tx: VersionedTransaction): number {
  try {
    return tx.serialize().length;
  } catch {
    // web3.js throws when the bytes overrun its buffer: certainly too large
    return Number.POSITIVE_INFINITY;
  }
}

export function measureTransaction(
  instructions: readonly TransactionInstruction[],
  payer: PublicKey,
  lookupTables?: readonly AddressLookupTableAccount[],
): TransactionMeasure {
  let tx: VersionedTransaction;
  try {
    tx = compileTransaction({ instructions, payer, recentBlockhash: MEASURE_BLOCKHASH, lookupTables });
  } catch {
    // compile fails when a message would need more than 256 keys: certainly too large
    return { sizeBytes: Number.POSITIVE_INFINITY, accountCount: Number.POSITIVE_INFINITY };
  }
  return measureCompiled(tx);
}

export interface SweepItem {
  /** the token's id in the service's database: what the batch's command key names */
  tokenId: number;
  token: TokenRef;
  reading: VaultReading;
  /** the derived creator key of this token: it signs the move to the treasury */
  creatorSigner: Keypair;
}

export interface PackOptions {
  launchProgram: Pick<LaunchProgram, "sweepInstructions">;
  treasury: PublicKey;
  lookupTables?: readonly AddressLookupTableAccount[];
  computeUnitsCurveOnly?: number;
  computeUnitsWithPool?: number;
  /** the price the batch is measured with (the sender replaces it with the market's when it signs) */
  computeUnitPriceMicroLamports?: bigint;
  /** cap on tokens per transaction, below what fits (e.g. to bound the blast radius of one failure) */
  maxTokensPerTransaction?: number;
}

export interface PackedSweep {
  items: SweepItem[];
  instructions: TransactionInstruction[];
  /** creator keys to pass as extra signers (the treasury pays and signs separately) */
  signers: Keypair[];
  /** the token ids swept, in instruction order: the sender appends it as the last instruction */
  commandKey: CommandKey;
  /** with the command key's memo */
  sizeBytes: number;
  accountCount: number;
  computeUnitLimit: number;
}

export interface PackResult {
  batches: PackedSweep[];
  skipped: { item: SweepItem; reason: "nothing-to-sweep" | "too-large" }[];
}

export function packSweeps(items: readonly SweepItem[], options: PackOptions): PackResult {
  const cuCurve = options.computeUnitsCurveOnly ?? DEFAULT_CU_CURVE_ONLY;
  const cuPool = options.computeUnitsWithPool ?? DEFAULT_CU_WITH_POOL;
  const maxTokens = options.maxTokensPerTransaction ?? Number.POSITIVE_INFINITY;
  // A fee-sharing distribution (with the AMM consolidation before it) costs up to another pool collect.
  const cuFor = (item: SweepItem) =>
    (item.reading.poolLamports > 0n ? cuPool : cuCurve) +
    ((item.reading.feeSharing?.shareLamports ?? 0n) > 0n ? cuPool : 0);

  const build = (batch: readonly SweepItem[]): PackedSweep | null => {
    const sweep = options.launchProgram.sweepInstructions(
      batch.map(({ token, reading }) => ({ token, reading })),
      options.treasury,
    );
    const commandKey: CommandKey = { kind: "sweeps", tokenIds: batch.map((item) => item.tokenId) };
    let memo: TransactionInstruction;
    try {
      memo = commandKeyMemo(commandKey, options.treasury);
    } catch {
      return null; // a key over the memo bound: the batch is too large whatever its bytes
    }
    const computeUnitLimit = batch.reduce((n, item) => n + cuFor(item), 0);
    // The sender adds the memo's own units to the limit it falls back on (rpc.ts).
    if (computeUnitLimit + memoComputeUnits(memo.data.length) > MAX_COMPUTE_UNITS) return null;
    // Both budget instructions are always counted: the sender sets the real price (and sizes the
    // limit by simulation) when it signs, and a u64 price takes the same bytes whatever it is.
    const budget = [
      ComputeBudgetProgram.setComputeUnitLimit({ units: computeUnitLimit }),
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports: options.computeUnitPriceMicroLamports ?? 0n }),
    ];
    const instructions = [...budget, ...sweep];
    const measure = measureTransaction([...instructions, memo], options.treasury, options.lookupTables);
    if (measure.sizeBytes > MAX_TRANSACTION_BYTES || measure.accountCount > MAX_TRANSACTION_ACCOUNTS) return null;
    const signers = signersOf(batch, instructions);
    return { items: [...batch], instructions, signers, commandKey, ...measure, computeUnitLimit };
  };

  const batches: PackedSweep[] = [];
  const skipped: PackResult["skipped"] = [];
  let current: SweepItem[] = [];
  let currentBuilt: PackedSweep | null = null;

  // One pass over the items; each is tried once with the open batch and at most once alone.
  for (const item of items) {
    const alone = options.launchProgram.sweepInstructions(
      [{ token: item.token, reading: item.reading }],
      options.treasury,
    );
    if (alone.length === 0) {
      skipped.push({ item, reason: "nothing-to-sweep" });
      continue;
    }
    if (current.length > 0 && current.length < maxTokens) {
      const grown = build([...current, item]);
      if (grown) {
        current = [...current, item];
        currentBuilt = grown;
        continue;
      }
    }
    if (currentBuilt) batches.push(currentBuilt);
    current = [];
    currentBuilt = null;
    const single = build([item]);
    if (!single) {
      skipped.push({ item, reason: "too-large" });
      continue;
    }
    current = [item];
    currentBuilt = single;
  }
  if (currentBuilt) batches.push(currentBuilt);
  return { batches, skipped };
}

/** The creator keys the instructions actually require, so no unused signature bloats the batch. */
function signersOf(batch: readonly SweepItem[], instructions: readonly TransactionInstruction[]): Keypair[] {
  const required = new Set<string>();
  for (const ix of instructions) for (const k of ix.keys) if (k.isSigner) required.add(k.pubkey.toBase58());
  const out: Keypair[] = [];
  const seen = new Set<string>();
  for (const item of batch) {
    const key = item.creatorSigner.publicKey.toBase58();
    if (required.has(key) && !seen.has(key)) {
      seen.add(key);
      out.push(item.creatorSigner);
    }
  }
  return out;
}
