/**
 * The runtime native programs run in (packages/localnet/src/native/runtime.ts): a transaction naming one runs all or
 * nothing with the rest of its instructions, its CPIs into LiteSVM's programs and its events are
 * recorded as agave records them, and the runtime's rules (writable, owner, signer seeds,
 * balanced lamports) hold against a program that breaks them. A toy program stands in for pump's.
 */
import { describe, expect, test } from "bun:test";
import {
  Keypair,
  PublicKey,
  SystemProgram,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import { LocalNode } from "../src/node";
import { EVENT_IX_TAG, eventAuthorityOf, type NativeProgram, ProgramError } from "../src/native/runtime";

const TOY = Keypair.generate().publicKey;
const VAULT_SEED = Buffer.from("vault");
const [VAULT] = PublicKey.findProgramAddressSync([VAULT_SEED], TOY);
const EVENT_AUTHORITY = eventAuthorityOf(TOY);
const OTHER_SEED = Buffer.from("other");
const OTHER_BUMP = PublicKey.findProgramAddressSync([OTHER_SEED], TOY)[1];

/**
 * 0: user (signer) pays `amount` into the vault by a System transfer CPI, the vault is made the
 *    toy's and an event and return data are written;
 * 1: the same, then fails with 6001 (nothing may stay);
 * 2: the vault signs a transfer with wrong seeds;
 * 3: moves lamports out of an account the toy does not own;
 * 4: moves `amount` from account 1 (the toy's) to account 4, logging both as `Program data:` fields.
 */
const toy: NativeProgram = {
  programId: TOY,
  name: "toy",
  genesisAccounts: () => [],
  process(ctx) {
    const [user, vault, system, authority] = ctx.accounts.map((a) => a.pubkey);
    const op = ctx.data[0];
    const amount = Buffer.from(ctx.data).readBigUInt64LE(1);
    ctx.consume(1_000);
    if (op === 2) {
      // A PDA of the toy's, but not the vault: its seeds sign for another address.
      ctx.invoke(SystemProgram.transfer({ fromPubkey: vault!, toPubkey: user!, lamports: 1 }), [
        [OTHER_SEED, Uint8Array.of(OTHER_BUMP)],
      ]);
      return;
    }
    if (op === 3) {
      ctx.moveLamports(user!, vault!, amount);
      return;
    }
    if (op === 4) {
      const target = ctx.accounts[4]!.pubkey;
      ctx.logData(vault!.toBytes(), target.toBytes());
      ctx.moveLamports(vault!, target, amount);
      return;
    }
    ctx.invoke(SystemProgram.transfer({ fromPubkey: user!, toPubkey: vault!, lamports: amount }));
    ctx.log("paid");
    const event = new Uint8Array(16);
    event.set([1, 2, 3, 4, 5, 6, 7, 8]);
    new DataView(event.buffer).setBigUint64(8, amount, true);
    ctx.emitEvent(event);
    ctx.setReturnData(Uint8Array.of(42));
    void system;
    void authority;
    if (op === 1) throw new ProgramError(6001, "TooMuch", "too much");
  },
};

function node(): LocalNode {
  return new LocalNode({
    slotMs: 0,
    program: { creatorFeeBps: 100, bondThresholdLamports: 85_000_000_000n },
    nativePrograms: [toy],
  });
}

function toyIx(user: PublicKey, op: number, amount: bigint): TransactionInstruction {
  const data = Buffer.alloc(9);
  data[0] = op;
  data.writeBigUInt64LE(amount, 1);
  return new TransactionInstruction({
    programId: TOY,
    keys: [
      { pubkey: user, isSigner: true, isWritable: true },
      { pubkey: VAULT, isSigner: false, isWritable: true },
      { pubkey: SystemProgram.programId, isSigner: false, isWritable: false },
      { pubkey: EVENT_AUTHORITY, isSigner: false, isWritable: false },
    ],
    data,
  });
}

/** op 4: `amount` from the toy's `source` to `target`. */
function creditIx(user: PublicKey, source: PublicKey, target: PublicKey, amount: bigint): TransactionInstruction {
  const ix = toyIx(user, 4, amount);
  ix.keys[1] = { pubkey: source, isSigner: false, isWritable: true };
  ix.keys.push({ pubkey: target, isSigner: false, isWritable: true });
  return ix;
}

/** An account the toy owns, holding 10 SOL. */
function toyAccount(n: LocalNode): PublicKey {
  const address = Keypair.generate().publicKey;
  n.setAccount(address, { lamports: 10_000_000_000n, owner: TOY, executable: false, data: new Uint8Array(8) });
  return address;
}

/** Rent-exempt minimum of an account with no data. */
const EMPTY_RENT = 890_880n;

function send(n: LocalNode, payer: Keypair, ixs: TransactionInstruction[]) {
  const tx = new VersionedTransaction(
    new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: n.getLatestBlockhash().blockhash,
      instructions: ixs,
    }).compileToV0Message(),
  );
  tx.sign([payer]);
  const r = n.execute(tx, { failOnChain: false });
  if (!r.landed) throw new Error(`not landed: ${JSON.stringify(r.err)}`);
  return r.record;
}

describe("native programs", () => {
  test("a toy's instruction runs with the transaction's others: CPI, event, logs, return data, fee once", () => {
    const n = node();
    const user = Keypair.generate();
    const other = Keypair.generate().publicKey;
    n.fund(user.publicKey, 10_000_000_000n);
    const record = send(n, user, [
      SystemProgram.transfer({ fromPubkey: user.publicKey, toPubkey: other, lamports: 1_000_000 }),
      toyIx(user.publicKey, 0, 2_000_000n),
    ]);
    expect(record.err).toBeNull();
    expect(n.getBalance(other)).toBe(1_000_000n);
    expect(n.getBalance(VAULT)).toBe(2_000_000n);
    expect(n.getBalance(user.publicKey)).toBe(10_000_000_000n - 3_000_000n - 5000n);
    expect(record.feeLamports).toBe(5000n);
    // The toy's CPI (System transfer) and its event's self-CPI, at stack height 2.
    const inner = record.innerInstructions.find((i) => i.index === 1)!.instructions;
    expect(inner.map((i) => record.accountKeys[i.programIdIndex]!.toBase58())).toEqual([
      SystemProgram.programId.toBase58(),
      TOY.toBase58(),
    ]);
    expect(inner.map((i) => i.stackHeight)).toEqual([2, 2]);
    const eventIx = inner[1]!;
    expect(Buffer.from(eventIx.data.subarray(0, 8))).toEqual(Buffer.from(EVENT_IX_TAG));
    expect(record.accountKeys[eventIx.accounts[0]!]!.equals(EVENT_AUTHORITY)).toBe(true);
    expect(record.logs).toContain(`Program ${TOY.toBase58()} invoke [1]`);
    expect(record.logs).toContain("Program 11111111111111111111111111111111 invoke [2]");
    expect(record.logs).toContain("Program log: paid");
    expect(record.logs.some((l) => l.startsWith("Program data: "))).toBe(true);
    expect(record.logs.at(-1)).toBe(`Program ${TOY.toBase58()} success`);
    expect(record.returnData?.programId.equals(TOY)).toBe(true);
    expect([...record.returnData!.data]).toEqual([42]);
    expect(record.computeUnits > 1_000n).toBe(true);
  });

  test("a failure after a transfer leaves every account as before, the fee charged", () => {
    const n = node();
    const user = Keypair.generate();
    const other = Keypair.generate().publicKey;
    n.fund(user.publicKey, 10_000_000_000n);
    const record = send(n, user, [
      SystemProgram.transfer({ fromPubkey: user.publicKey, toPubkey: other, lamports: 1_000_000 }),
      toyIx(user.publicKey, 1, 2_000_000n),
    ]);
    expect(record.err).toEqual({ InstructionError: [1, { Custom: 6001 }] });
    expect(n.getBalance(other)).toBe(0n);
    expect(n.getBalance(VAULT)).toBe(0n);
    expect(n.getBalance(user.publicKey)).toBe(10_000_000_000n - 5000n);
    expect(record.logs).toContain(
      "Program log: AnchorError occurred. Error Code: TooMuch. Error Number: 6001. Error Message: too much.",
    );
    expect(record.logs.at(-1)).toBe(`Program ${TOY.toBase58()} failed: custom program error: 0x1771`);
  });

  test("a CPI transfer of more than the payer holds fails as the System program's does, nothing moved", () => {
    const n = node();
    const user = Keypair.generate();
    n.fund(user.publicKey, 1_000_000_000n);
    const record = send(n, user, [toyIx(user.publicKey, 0, 2_000_000_000n)]);
    expect(record.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(record.logs).toContain(
      `Program log: Transfer: insufficient lamports ${1_000_000_000n - 5000n}, need 2000000000`,
    );
    expect(record.logs).toContain("Program 11111111111111111111111111111111 failed: custom program error: 0x1");
    expect(n.getBalance(user.publicKey)).toBe(1_000_000_000n - 5000n);
    expect(n.getBalance(VAULT)).toBe(0n);
  });

  test("wrong signer seeds and a debit of another's account are refused by the runtime", () => {
    const n = node();
    const user = Keypair.generate();
    n.fund(user.publicKey, 10_000_000_000n);
    n.fund(VAULT, 5_000_000n);
    const seeds = send(n, user, [toyIx(user.publicKey, 2, 0n)]);
    expect(seeds.err).toEqual({ InstructionError: [0, "PrivilegeEscalation"] });
    const debit = send(n, user, [toyIx(user.publicKey, 3, 1_000n)]);
    expect(debit.err).toEqual({ InstructionError: [0, "ExternalAccountLamportSpend"] });
    expect(n.getBalance(VAULT)).toBe(5_000_000n);
    expect(n.getBalance(user.publicKey)).toBe(10_000_000_000n - 10_000n);
  });

  test("simulation answers the same and leaves no trace", () => {
    const n = node();
    const user = Keypair.generate();
    n.fund(user.publicKey, 10_000_000_000n);
    const tx = new VersionedTransaction(
      new TransactionMessage({
        payerKey: user.publicKey,
        recentBlockhash: n.getLatestBlockhash().blockhash,
        instructions: [toyIx(user.publicKey, 0, 7_000_000n)],
      }).compileToV0Message(),
    );
    tx.sign([user]);
    const sim = n.simulate(tx, { sigVerify: true, replaceRecentBlockhash: false, postAccounts: true });
    expect(sim.err).toBeNull();
    expect([...sim.returnData!.data]).toEqual([42]);
    expect(sim.postAccounts?.get(VAULT.toBase58())?.lamports).toBe(7_000_000n);
    expect(n.getBalance(VAULT)).toBe(0n);
    expect(n.getBalance(user.publicKey)).toBe(10_000_000_000n);
  });

  test("logData writes one bare `Program data:` line, each field in base64, with no CPI", () => {
    const n = node();
    const user = Keypair.generate();
    n.fund(user.publicKey, 10_000_000_000n);
    const source = toyAccount(n);
    const target = Keypair.generate().publicKey;
    n.fund(target, EMPTY_RENT);
    const record = send(n, user, [creditIx(user.publicKey, source, target, 1n)]);
    expect(record.err).toBeNull();
    const data = record.logs.filter((l) => l.startsWith("Program data: "));
    expect(data).toEqual([
      `Program data: ${source.toBuffer().toString("base64")} ${target.toBuffer().toString("base64")}`,
    ]);
    expect(record.innerInstructions.flatMap((i) => i.instructions)).toHaveLength(0);
  });

  test("a program credits an address that does not exist: it becomes a System account when it ends rent-exempt", () => {
    const n = node();
    const user = Keypair.generate();
    n.fund(user.publicKey, 10_000_000_000n);
    const source = toyAccount(n);
    const target = Keypair.generate().publicKey;
    const record = send(n, user, [creditIx(user.publicKey, source, target, EMPTY_RENT)]);
    expect(record.err).toBeNull();
    const created = n.getAccount(target)!;
    expect(created.lamports).toBe(EMPTY_RENT);
    expect(created.owner.equals(SystemProgram.programId)).toBe(true);
    expect(created.data.length).toBe(0);
    expect(n.getBalance(source)).toBe(10_000_000_000n - EMPTY_RENT);

    // Below rent after one instruction but topped up by the next: rent is checked at the transaction's end.
    const later = Keypair.generate().publicKey;
    const topped = send(n, user, [
      creditIx(user.publicKey, source, later, 1_000n),
      SystemProgram.transfer({ fromPubkey: user.publicKey, toPubkey: later, lamports: EMPTY_RENT - 1_000n }),
    ]);
    expect(topped.err).toBeNull();
    expect(n.getBalance(later)).toBe(EMPTY_RENT);
  });

  test("an account left below rent fails the transaction with InsufficientFundsForRent and its index, nothing kept but the fee", () => {
    const n = node();
    const user = Keypair.generate();
    n.fund(user.publicKey, 10_000_000_000n);
    const source = toyAccount(n);
    const other = Keypair.generate().publicKey;
    const target = Keypair.generate().publicKey;
    const record = send(n, user, [
      SystemProgram.transfer({ fromPubkey: user.publicKey, toPubkey: other, lamports: 1_000_000 }),
      creditIx(user.publicKey, source, target, EMPTY_RENT - 1n),
    ]);
    const index = record.accountKeys.findIndex((k) => k.equals(target));
    expect(index).toBeGreaterThan(0);
    expect(record.err).toEqual({ InsufficientFundsForRent: { account_index: index } });
    expect(n.getAccount(target)).toBeNull();
    expect(n.getBalance(other)).toBe(0n);
    expect(n.getBalance(source)).toBe(10_000_000_000n);
    expect(n.getBalance(user.publicKey)).toBe(10_000_000_000n - 5000n);
    expect(record.feeLamports).toBe(5000n);

    // An account already below rent may stay so only without growing (agave's rent-state rule).
    const paying = Keypair.generate().publicKey;
    n.fund(paying, 1_000n);
    const grown = send(n, user, [creditIx(user.publicKey, source, paying, 1n)]);
    expect(grown.err).toEqual({
      InsufficientFundsForRent: { account_index: grown.accountKeys.findIndex((k) => k.equals(paying)) },
    });
    expect(n.getBalance(paying)).toBe(1_000n);
  });
});
