/**
 * Address lookup tables on the local chain, through the real address-lookup-table program as
 * LiteSVM runs it: CreateLookupTable/ExtendLookupTable over RPC, `getAddressLookupTable`, v0
 * transactions loading addresses (with `loadedAddresses` in getTransaction), the loader's rules
 * (no table, an index past the end, addresses extended in the current slot), and the pump
 * adapter's sweep packing against a table made on the local chain.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import {
  AddressLookupTableAccount,
  AddressLookupTableProgram,
  type Connection,
  Keypair,
  PublicKey,
  SystemProgram,
  TransactionMessage,
  VersionedTransaction,
  type TransactionInstruction,
} from "@solana/web3.js";
import bs58 from "bs58";
import type { LocalChain } from "@fee-ledger/localnet";
import { packSweeps, type SweepItem } from "../../../src/chain/packing";
import { createRpcChain } from "../../../src/chain/rpc";
import { deriveCreatorKeypair } from "../../../src/chain/keys";
import { createPumpLaunchProgram } from "../../../src/chain/pump";
import { mapReader } from "../support/fixtures";
import { sendAndConfirm, startTestChain } from "./helpers";

let chain: LocalChain;
let connection: Connection;

beforeEach(async () => {
  ({ chain, connection } = await startTestChain());
});
afterEach(async () => {
  await chain.stop();
});

/** Creates a table owned by the treasury and extends it, 20 addresses a transaction; the slot closes after each. */
async function createTable(addresses: PublicKey[]): Promise<PublicKey> {
  const payer = chain.treasury;
  const [create, table] = AddressLookupTableProgram.createLookupTable({
    authority: payer.publicKey,
    payer: payer.publicKey,
    recentSlot: await connection.getSlot(),
  });
  await sendAndConfirm(chain, connection, [create], payer);
  for (let i = 0; i < addresses.length; i += 20) {
    const extend = AddressLookupTableProgram.extendLookupTable({
      lookupTable: table,
      authority: payer.publicKey,
      payer: payer.publicKey,
      addresses: addresses.slice(i, i + 20),
    });
    await sendAndConfirm(chain, connection, [extend], payer);
  }
  return table;
}

async function v0With(
  instructions: TransactionInstruction[],
  payer: Keypair,
  tables: AddressLookupTableAccount[],
): Promise<{ tx: VersionedTransaction; signature: string }> {
  const { blockhash } = await connection.getLatestBlockhash();
  const tx = new VersionedTransaction(
    new TransactionMessage({ payerKey: payer.publicKey, recentBlockhash: blockhash, instructions }).compileToV0Message(
      tables,
    ),
  );
  tx.sign([payer]);
  return { tx, signature: bs58.encode(tx.signatures[0]!) };
}

describe("address lookup tables", () => {
  test("a table is created and extended by the lookup-table program and read back with getAddressLookupTable", async () => {
    const addresses = Array.from({ length: 45 }, () => Keypair.generate().publicKey);
    const table = await createTable(addresses);
    const account = (await connection.getAddressLookupTable(table)).value;
    expect(account).not.toBeNull();
    expect(account!.state.addresses.map((a) => a.toBase58())).toEqual(addresses.map((a) => a.toBase58()));
    expect(account!.state.authority?.toBase58()).toBe(chain.treasury.publicKey.toBase58());
    expect(account!.isActive()).toBe(true);
    const info = await connection.getAccountInfo(table);
    expect(info?.owner.toBase58()).toBe(AddressLookupTableProgram.programId.toBase58());
    // A recent slot the chain never had is refused by the program itself.
    const [bad] = AddressLookupTableProgram.createLookupTable({
      authority: chain.treasury.publicKey,
      payer: chain.treasury.publicKey,
      recentSlot: 5,
    });
    await expect(
      sendAndConfirm(chain, connection, [bad], chain.treasury).then(
        async (sig) => (await connection.getSignatureStatus(sig)).value?.err,
      ),
    ).resolves.toBeTruthy();
  });

  test("a v0 transaction loading 40 recipients from a table lands, and getTransaction returns its loadedAddresses", async () => {
    const recipients = Array.from({ length: 40 }, () => Keypair.generate().publicKey);
    const table = await createTable(recipients);
    const lut = (await connection.getAddressLookupTable(table)).value!;
    const transfers = recipients.map((to, i) =>
      SystemProgram.transfer({ fromPubkey: chain.treasury.publicKey, toPubkey: to, lamports: 1_000_000 + i }),
    );
    // Without the table the same transfers do not fit in one transaction.
    await expect(v0With(transfers, chain.treasury, []).then(({ tx }) => tx.serialize())).rejects.toThrow();
    const { tx, signature } = await v0With(transfers, chain.treasury, [lut]);
    expect(tx.message.addressTableLookups).toHaveLength(1);
    expect(await connection.sendRawTransaction(tx.serialize())).toBe(signature);
    chain.node.advanceSlots(1);

    const read = await connection.getTransaction(signature, {
      commitment: "confirmed",
      maxSupportedTransactionVersion: 0,
    });
    expect(read?.version).toBe(0);
    expect(read?.meta?.err).toBeNull();
    expect(read!.meta!.loadedAddresses!.writable.map((k) => k.toBase58())).toEqual(recipients.map((r) => r.toBase58()));
    expect(read!.meta!.loadedAddresses!.readonly).toEqual([]);
    expect(read!.transaction.message.addressTableLookups[0]!.accountKey.toBase58()).toBe(table.toBase58());
    // Balances are listed over static then loaded keys, as agave lists them.
    const keys = read!.transaction.message.getAccountKeys({ accountKeysFromLookups: read!.meta!.loadedAddresses! });
    const last = keys.get(keys.length - 1)!;
    expect(last.toBase58()).toBe(recipients[39]!.toBase58());
    expect(read!.meta!.postBalances.at(-1)).toBe(1_000_039);
    expect(await connection.getBalance(recipients[39]!)).toBe(1_000_039);
    // getSignaturesForAddress finds it through a loaded address too.
    expect((await connection.getSignaturesForAddress(recipients[7]!)).map((s) => s.signature)).toEqual([signature]);
  });

  test("the loader refuses a missing table, an index past the end, and addresses extended in the current slot", async () => {
    const recipients = Array.from({ length: 3 }, () => Keypair.generate().publicKey);
    const table = await createTable(recipients);
    const lut = (await connection.getAddressLookupTable(table)).value!;
    const pay = (to: PublicKey) =>
      SystemProgram.transfer({ fromPubkey: chain.treasury.publicKey, toPubkey: to, lamports: 1_000_000 });

    const missing = new AddressLookupTableAccount({ key: Keypair.generate().publicKey, state: lut.state });
    const { tx: noTable } = await v0With([pay(recipients[0]!)], chain.treasury, [missing]);
    await expect(connection.sendRawTransaction(noTable.serialize())).rejects.toThrow(/AddressLookupTableNotFound/);

    const pastEnd = new AddressLookupTableAccount({
      key: table,
      state: { ...lut.state, addresses: [...lut.state.addresses, Keypair.generate().publicKey] },
    });
    const { tx: badIndex } = await v0With([pay(pastEnd.state.addresses[3]!)], chain.treasury, [pastEnd]);
    await expect(connection.sendRawTransaction(badIndex.serialize())).rejects.toThrow(/InvalidAddressLookupTableIndex/);

    // Extend now; in the same slot the new address is not usable yet, in the next it is.
    const fresh = Keypair.generate().publicKey;
    const { tx: extend } = await v0With(
      [
        AddressLookupTableProgram.extendLookupTable({
          lookupTable: table,
          authority: chain.treasury.publicKey,
          payer: chain.treasury.publicKey,
          addresses: [fresh],
        }),
      ],
      chain.treasury,
      [],
    );
    await connection.sendRawTransaction(extend.serialize());
    const extended = (await connection.getAddressLookupTable(table)).value!;
    const { tx: tooSoon } = await v0With([pay(fresh)], chain.treasury, [extended]);
    await expect(connection.sendRawTransaction(tooSoon.serialize())).rejects.toThrow(/InvalidAddressLookupTableIndex/);
    chain.node.advanceSlots(1);
    const { tx: later, signature } = await v0With([pay(fresh)], chain.treasury, [extended]);
    expect(await connection.sendRawTransaction(later.serialize())).toBe(signature);
    expect(await connection.getBalance(fresh, "processed")).toBe(1_000_000);
  });

  test("the pump adapter's sweep packing uses a table created on the local chain: 6 tokens a transaction instead of 5 (with the command key memo), and the node resolves every lookup", async () => {
    const pump = createPumpLaunchProgram(mapReader(new Map()));
    const secret = new Uint8Array(32).fill(9);
    const items: SweepItem[] = Array.from({ length: 14 }, (_, i) => {
      const creatorSigner = deriveCreatorKeypair(secret, i + 1);
      const mint = Keypair.generate().publicKey.toBase58();
      return {
        tokenId: 100_000 + i,
        token: { mint, creator: creatorSigner.publicKey.toBase58() },
        reading: { mint, curveLamports: 5_000_000n, poolLamports: 0n, creatorLamports: 0n, bonded: false },
        creatorSigner,
      };
    });
    // Every key the sweeps name except signers, programs and the payer (a table cannot serve those).
    const keys = new Set<string>();
    const programs = new Set<string>();
    for (const ix of pump.sweepInstructions(
      items.map(({ token, reading }) => ({ token, reading })),
      chain.treasury.publicKey,
    )) {
      programs.add(ix.programId.toBase58());
      for (const k of ix.keys) if (!k.isSigner) keys.add(k.pubkey.toBase58());
    }
    keys.delete(chain.treasury.publicKey.toBase58());
    for (const p of programs) keys.delete(p);
    const table = await createTable([...keys].map((k) => new PublicKey(k)));
    const lut = (await connection.getAddressLookupTable(table)).value!;

    const plain = packSweeps(items, { launchProgram: pump, treasury: chain.treasury.publicKey });
    const packed = packSweeps(items, { launchProgram: pump, treasury: chain.treasury.publicKey, lookupTables: [lut] });
    expect(plain.batches[0]!.items.length).toBe(5);
    expect(packed.batches[0]!.items.length).toBe(6);
    expect(packed.batches.flatMap((b) => b.items)).toEqual(items);

    // Prepared by the service's own sender (v0 against the table), each transaction resolves on
    // the node: the launch program is not deployed locally, so it stops there, never at a lookup.
    const { sender } = createRpcChain({ rpcUrl: chain.rpcUrl, lookupTables: [lut], timeoutMs: 5_000, retries: 0 });
    for (const batch of packed.batches) {
      const prepared = await sender.prepare(batch.instructions, chain.treasury, batch.signers, {
        commandKey: batch.commandKey,
      });
      const tx = VersionedTransaction.deserialize(prepared.wire);
      expect(tx.message.addressTableLookups).toHaveLength(1);
      expect(prepared.wire.length).toBe(batch.sizeBytes);
      const sim = await connection.simulateTransaction(tx, { sigVerify: true });
      expect(JSON.stringify(sim.value.err)).not.toMatch(/AddressLookupTable/);
      expect(sim.value.err).not.toBeNull();
    }
  });
});
