/**
 * Sweep packing: no transaction exceeds 1,232 bytes, 64 accounts or the compute cap, and each
 * holds as many tokens as fit. The per-transaction figures are pinned here (see the report).
 */
import { describe, expect, test } from "bun:test";
import { AddressLookupTableAccount, Keypair, PublicKey, VersionedTransaction } from "@solana/web3.js";
import { deriveCreatorKeypair } from "../../src/chain/keys";
import {
  MAX_COMPUTE_UNITS,
  MAX_TRANSACTION_ACCOUNTS,
  MAX_TRANSACTION_BYTES,
  type PackedSweep,
  type SweepItem,
  compileTransaction,
  packSweeps,
} from "../../src/chain/packing";
import { commandKeyMemo } from "../../src/chain/memo";
import { createPumpLaunchProgram } from "../../src/chain/pump";
import { mapReader } from "./support/fixtures";

const launch = createPumpLaunchProgram(mapReader(new Map()));
const secret = new Uint8Array(32).fill(3);
const treasury = Keypair.generate();
let nextIndex = 0;

function items(n: number, reading: { curve: bigint; pool: bigint; creator: bigint }): SweepItem[] {
  return Array.from({ length: n }, () => {
    const creatorSigner = deriveCreatorKeypair(secret, nextIndex++);
    const mint = Keypair.generate().publicKey.toBase58();
    return {
      // ids of a service with ~100k tokens: four base-36 digits each in the command key
      tokenId: 100_000 + nextIndex,
      token: { mint, creator: creatorSigner.publicKey.toBase58() },
      reading: {
        mint,
        curveLamports: reading.curve,
        poolLamports: reading.pool,
        creatorLamports: reading.creator,
        bonded: reading.pool > 0n,
      },
      creatorSigner,
    };
  });
}

/** One table holding every key the sweeps use except signers (which a table cannot carry). */
function lookupTableFor(list: SweepItem[]): AddressLookupTableAccount[] {
  const keys = new Set<string>(["ComputeBudget111111111111111111111111111111"]);
  for (const it of list) {
    for (const ix of launch.sweepInstructions([{ token: it.token, reading: it.reading }], treasury.publicKey)) {
      keys.add(ix.programId.toBase58());
      for (const k of ix.keys) if (!k.isSigner) keys.add(k.pubkey.toBase58());
    }
  }
  keys.delete(treasury.publicKey.toBase58());
  const all = [...keys].map((k) => new PublicKey(k));
  const tables: AddressLookupTableAccount[] = [];
  for (let i = 0; i < all.length; i += 256) {
    tables.push(
      new AddressLookupTableAccount({
        key: Keypair.generate().publicKey,
        state: {
          deactivationSlot: 2n ** 64n - 1n,
          lastExtendedSlot: 0,
          lastExtendedSlotStartIndex: 0,
          authority: undefined,
          addresses: all.slice(i, i + 256),
        },
      }),
    );
  }
  return tables;
}

/** Sign for real, with the command key memo the sender appends, and check the measured figures were the truth. */
function checkBatch(batch: PackedSweep, tables?: AddressLookupTableAccount[]) {
  expect(batch.sizeBytes).toBeLessThanOrEqual(MAX_TRANSACTION_BYTES);
  expect(batch.accountCount).toBeLessThanOrEqual(MAX_TRANSACTION_ACCOUNTS);
  expect(batch.computeUnitLimit).toBeLessThanOrEqual(MAX_COMPUTE_UNITS);
  expect(batch.commandKey).toEqual({ kind: "sweeps", tokenIds: batch.items.map((it) => it.tokenId) });
  const tx = compileTransaction({
    instructions: [...batch.instructions, commandKeyMemo(batch.commandKey, treasury.publicKey)],
    payer: treasury.publicKey,
    recentBlockhash: Keypair.generate().publicKey.toBase58(),
    lookupTables: tables,
  });
  tx.sign([treasury, ...batch.signers]);
  expect(tx.signatures.every((s) => s.some((b) => b !== 0))).toBe(true);
  const wire = tx.serialize();
  expect(wire.length).toBe(batch.sizeBytes);
  expect(VersionedTransaction.deserialize(wire).signatures.length).toBe(1 + batch.items.length);
}

const FEES = 5_000_000n;

describe("packSweeps", () => {
  const cases = [
    // With the command key memo (its program id and token ids): 7 -> 6 and 5 -> 4 with a table; legacy unchanged.
    { name: "curve vault only", reading: { curve: FEES, pool: 0n, creator: 0n }, legacy: 5, withTable: 6 },
    { name: "both vaults (migrated)", reading: { curve: FEES, pool: FEES, creator: 0n }, legacy: 2, withTable: 4 },
    { name: "creator balance only", reading: { curve: 0n, pool: 0n, creator: FEES }, legacy: 8, withTable: 8 },
  ];
  for (const c of cases) {
    test(`${c.name}: ${c.legacy} tokens per legacy transaction, ${c.withTable} with a lookup table, never over the limits`, () => {
      const list = items(40, c.reading);
      const legacy = packSweeps(list, { launchProgram: launch, treasury: treasury.publicKey });
      expect(legacy.skipped).toEqual([]);
      expect(legacy.batches.flatMap((b) => b.items)).toEqual(list); // every token once, in order
      for (const b of legacy.batches) checkBatch(b);
      expect(legacy.batches[0]!.items.length).toBe(c.legacy);

      const tables = lookupTableFor(list);
      const packed = packSweeps(list, { launchProgram: launch, treasury: treasury.publicKey, lookupTables: tables });
      for (const b of packed.batches) checkBatch(b, tables);
      expect(packed.batches[0]!.items.length).toBe(c.withTable);
      expect(packed.batches.flatMap((b) => b.items)).toEqual(list);
    });
  }

  test("full batches really are full: one more token would break a limit", () => {
    const list = items(12, { curve: FEES, pool: FEES, creator: 0n });
    const { batches } = packSweeps(list, { launchProgram: launch, treasury: treasury.publicKey });
    const first = batches[0]!;
    const grown = packSweeps(list.slice(0, first.items.length + 1), {
      launchProgram: launch,
      treasury: treasury.publicKey,
      maxTokensPerTransaction: first.items.length + 1,
    });
    expect(grown.batches.length).toBe(2);
  });

  test("tokens with nothing above the creator reserve are skipped, not sent", () => {
    const dust = items(3, { curve: 100n, pool: 0n, creator: 0n });
    const real = items(2, { curve: FEES, pool: 0n, creator: 0n });
    const { batches, skipped } = packSweeps([dust[0]!, real[0]!, dust[1]!, real[1]!, dust[2]!], {
      launchProgram: launch,
      treasury: treasury.publicKey,
    });
    expect(skipped.map((s) => s.reason)).toEqual(["nothing-to-sweep", "nothing-to-sweep", "nothing-to-sweep"]);
    expect(batches.flatMap((b) => b.items)).toEqual(real);
  });

  test("mixed readings and a priority fee still respect every limit; maxTokensPerTransaction caps batches", () => {
    const list = [
      ...items(7, { curve: FEES, pool: 0n, creator: 0n }),
      ...items(5, { curve: FEES, pool: FEES, creator: FEES }),
      ...items(6, { curve: 0n, pool: 0n, creator: FEES }),
    ];
    const { batches } = packSweeps(list, {
      launchProgram: launch,
      treasury: treasury.publicKey,
      computeUnitPriceMicroLamports: 10_000n,
    });
    for (const b of batches) checkBatch(b);
    expect(batches.flatMap((b) => b.items)).toEqual(list);
    const capped = packSweeps(list, {
      launchProgram: launch,
      treasury: treasury.publicKey,
      maxTokensPerTransaction: 2,
    });
    expect(Math.max(...capped.batches.map((b) => b.items.length))).toBe(2);
  });

  test("the compute budget bounds a batch too", () => {
    const list = items(20, { curve: 0n, pool: 0n, creator: FEES });
    const { batches } = packSweeps(list, {
      launchProgram: launch,
      treasury: treasury.publicKey,
      computeUnitsCurveOnly: 400_000,
    });
    expect(batches[0]!.items.length).toBe(3); // 3 × 400k ≤ 1.4M < 4 × 400k
  });
});
