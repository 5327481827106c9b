/**
 * `jsonParsed` transactions and blocks: System, SPL Token, associated-token-account and memo
 * instructions come back parsed as agave's transaction-status parsers write them (program name,
 * `parsed: { type, info }` with agave's field names), top-level and inner, through web3.js's
 * getParsedTransaction / getParsedBlock and kit's getTransaction / getBlock with `jsonParsed`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  type Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  NONCE_ACCOUNT_LENGTH,
  NonceAccount,
  type ParsedInstruction,
  type ParsedTransactionWithMeta,
  type PartiallyDecodedInstruction,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionInstruction,
} from "@solana/web3.js";
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  MINT_SIZE,
  NATIVE_MINT,
  TOKEN_PROGRAM_ID,
  createAssociatedTokenAccountIdempotentInstruction,
  createAssociatedTokenAccountInstruction,
  createBurnInstruction,
  createCloseAccountInstruction,
  createInitializeAccount3Instruction,
  createInitializeMint2Instruction,
  createMintToInstruction,
  createSyncNativeInstruction,
  createTransferCheckedInstruction,
  createTransferInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import { createSolanaRpc, type Signature } from "@solana/kit";
import bs58 from "bs58";
import type { LocalChain } from "../src/index";
import { sendAndConfirm, startTestChain } from "./helpers";

const MEMO_PROGRAM_ID = new PublicKey("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr");
const SYSTEM = SystemProgram.programId.toBase58();
const TOKEN = TOKEN_PROGRAM_ID.toBase58();

let chain: LocalChain;
let connection: Connection;
let payer: Keypair;

beforeAll(async () => {
  ({ chain, connection } = await startTestChain());
  payer = Keypair.generate();
  chain.node.fund(payer.publicKey, 100n * BigInt(LAMPORTS_PER_SOL));
});
afterAll(async () => {
  await chain.stop();
});

async function parsedTx(signature: string): Promise<ParsedTransactionWithMeta> {
  const tx = await connection.getParsedTransaction(signature, { maxSupportedTransactionVersion: 0 });
  if (!tx) throw new Error(`no transaction ${signature}`);
  return tx;
}

type Ix = ParsedInstruction | PartiallyDecodedInstruction;
const parsedOf = (ix: Ix) => ("parsed" in ix ? ix : null);

function innerOf(tx: ParsedTransactionWithMeta, index: number): Ix[] {
  return tx.meta?.innerInstructions?.find((i) => i.index === index)?.instructions ?? [];
}

/** The native mint as genesis holds it on a test validator (LiteSVM starts without it). */
function addNativeMint(): void {
  if (chain.node.getAccount(NATIVE_MINT.toBase58())) return;
  const data = new Uint8Array(MINT_SIZE);
  data[44] = 9;
  data[45] = 1;
  chain.node.setAccount(NATIVE_MINT, {
    lamports: chain.node.minimumBalanceForRentExemption(MINT_SIZE),
    data,
    owner: TOKEN_PROGRAM_ID,
    executable: false,
  });
}

describe("getParsedTransaction", () => {
  test("System instructions: createAccount, transfer, allocate, assign, and a memo", async () => {
    const created = Keypair.generate();
    const allocated = Keypair.generate();
    const to = Keypair.generate().publicKey;
    const owner = Keypair.generate().publicKey;
    const signature = await sendAndConfirm(
      chain,
      connection,
      [
        SystemProgram.createAccount({
          fromPubkey: payer.publicKey,
          newAccountPubkey: created.publicKey,
          lamports: 2_000_000,
          space: 16,
          programId: owner,
        }),
        SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 1_234_567 }),
        SystemProgram.allocate({ accountPubkey: allocated.publicKey, space: 8 }),
        SystemProgram.assign({ accountPubkey: allocated.publicKey, programId: owner }),
        new TransactionInstruction({
          programId: MEMO_PROGRAM_ID,
          keys: [{ pubkey: payer.publicKey, isSigner: true, isWritable: false }],
          data: Buffer.from("payout #7 🦖", "utf8"),
        }),
      ],
      payer,
      [created, allocated],
    );
    const tx = await parsedTx(signature);
    expect(tx.meta?.err).toBeNull();
    const [create, transfer, allocate, assign, memo] = tx.transaction.message.instructions;
    expect(create).toEqual({
      program: "system",
      programId: SystemProgram.programId,
      parsed: {
        type: "createAccount",
        info: {
          source: payer.publicKey.toBase58(),
          newAccount: created.publicKey.toBase58(),
          lamports: 2_000_000,
          space: 16,
          owner: owner.toBase58(),
        },
      },
      stackHeight: null,
    } as unknown as Ix);
    expect(parsedOf(transfer!)?.parsed).toEqual({
      type: "transfer",
      info: { source: payer.publicKey.toBase58(), destination: to.toBase58(), lamports: 1_234_567 },
    });
    expect(parsedOf(allocate!)?.parsed).toEqual({
      type: "allocate",
      info: { account: allocated.publicKey.toBase58(), space: 8 },
    });
    expect(parsedOf(assign!)?.parsed).toEqual({
      type: "assign",
      info: { account: allocated.publicKey.toBase58(), owner: owner.toBase58() },
    });
    expect(memo).toMatchObject({ program: "spl-memo", programId: MEMO_PROGRAM_ID, parsed: "payout #7 🦖" });
  });

  test("advanceNonceAccount, and the nonce account's creation", async () => {
    const nonce = Keypair.generate();
    const createSig = await sendAndConfirm(
      chain,
      connection,
      SystemProgram.createNonceAccount({
        fromPubkey: payer.publicKey,
        noncePubkey: nonce.publicKey,
        authorizedPubkey: payer.publicKey,
        lamports: await connection.getMinimumBalanceForRentExemption(NONCE_ACCOUNT_LENGTH),
      }).instructions,
      payer,
      [nonce],
    );
    const created = await parsedTx(createSig);
    expect(created.transaction.message.instructions.map((ix) => parsedOf(ix)?.parsed.type)).toEqual([
      "createAccount",
      "initializeNonce",
    ]);
    expect(parsedOf(created.transaction.message.instructions[1]!)?.parsed.info).toEqual({
      nonceAccount: nonce.publicKey.toBase58(),
      recentBlockhashesSysvar: "SysvarRecentB1ockHashes11111111111111111111",
      rentSysvar: "SysvarRent111111111111111111111111111111111",
      nonceAuthority: payer.publicKey.toBase58(),
    });

    chain.node.advanceSlots(1);
    const info = await connection.getAccountInfo(nonce.publicKey);
    const value = NonceAccount.fromAccountData(info!.data).nonce;
    const tx = new Transaction().add(
      SystemProgram.nonceAdvance({ noncePubkey: nonce.publicKey, authorizedPubkey: payer.publicKey }),
    );
    tx.recentBlockhash = value;
    tx.feePayer = payer.publicKey;
    tx.sign(payer);
    const signature = await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    chain.node.advanceSlots(1);
    const advanced = await parsedTx(signature);
    expect(advanced.meta?.err).toBeNull();
    expect(advanced.transaction.message.instructions[0]).toMatchObject({
      program: "system",
      parsed: {
        type: "advanceNonce",
        info: {
          nonceAccount: nonce.publicKey.toBase58(),
          recentBlockhashesSysvar: "SysvarRecentB1ockHashes11111111111111111111",
          nonceAuthority: payer.publicKey.toBase58(),
        },
      },
    });
  });

  test("SPL Token and ATA: a mint, ATAs (create, createIdempotent), mintTo, transfers, burn, close, wrapped SOL", async () => {
    const mint = Keypair.generate();
    const holder = Keypair.generate();
    const holderAta = getAssociatedTokenAddressSync(mint.publicKey, holder.publicKey);
    const payerAta = getAssociatedTokenAddressSync(mint.publicKey, payer.publicKey);
    chain.node.fund(holder.publicKey, BigInt(LAMPORTS_PER_SOL));
    const setupSig = await sendAndConfirm(
      chain,
      connection,
      [
        SystemProgram.createAccount({
          fromPubkey: payer.publicKey,
          newAccountPubkey: mint.publicKey,
          lamports: await connection.getMinimumBalanceForRentExemption(MINT_SIZE),
          space: MINT_SIZE,
          programId: TOKEN_PROGRAM_ID,
        }),
        createInitializeMint2Instruction(mint.publicKey, 6, payer.publicKey, null),
        createAssociatedTokenAccountInstruction(payer.publicKey, holderAta, holder.publicKey, mint.publicKey),
        createAssociatedTokenAccountIdempotentInstruction(payer.publicKey, payerAta, payer.publicKey, mint.publicKey),
        createMintToInstruction(mint.publicKey, holderAta, payer.publicKey, 5_000_000n),
      ],
      payer,
      [mint],
    );
    const setup = await parsedTx(setupSig);
    expect(setup.meta?.err).toBeNull();
    const ixs = setup.transaction.message.instructions;
    expect(parsedOf(ixs[1]!)).toMatchObject({
      program: "spl-token",
      programId: TOKEN_PROGRAM_ID,
      parsed: {
        type: "initializeMint2",
        info: { mint: mint.publicKey.toBase58(), decimals: 6, mintAuthority: payer.publicKey.toBase58() },
      },
    });
    expect(parsedOf(ixs[2]!)).toEqual({
      program: "spl-associated-token-account",
      programId: ASSOCIATED_TOKEN_PROGRAM_ID,
      parsed: {
        type: "create",
        info: {
          source: payer.publicKey.toBase58(),
          account: holderAta.toBase58(),
          wallet: holder.publicKey.toBase58(),
          mint: mint.publicKey.toBase58(),
          systemProgram: SYSTEM,
          tokenProgram: TOKEN,
        },
      },
      stackHeight: null,
    } as unknown as ParsedInstruction);
    expect(parsedOf(ixs[3]!)?.parsed.type).toBe("createIdempotent");
    expect(parsedOf(ixs[4]!)?.parsed).toEqual({
      type: "mintTo",
      info: {
        mint: mint.publicKey.toBase58(),
        account: holderAta.toBase58(),
        amount: "5000000",
        mintAuthority: payer.publicKey.toBase58(),
      },
    });
    // The ATA program's inner instructions are parsed too, each with its stack height.
    const inner = innerOf(setup, 2);
    expect(inner.length).toBeGreaterThan(0);
    const innerTypes = inner.map((ix) => `${(ix as ParsedInstruction).program}:${parsedOf(ix)?.parsed.type}`);
    expect(innerTypes).toContain("spl-token:initializeAccount3");
    expect(innerTypes.some((t) => t.startsWith("system:"))).toBe(true);
    const init = inner.find((ix) => parsedOf(ix)?.parsed.type === "initializeAccount3") as ParsedInstruction;
    expect(init.parsed.info).toEqual({
      account: holderAta.toBase58(),
      mint: mint.publicKey.toBase58(),
      owner: holder.publicKey.toBase58(),
    });
    // web3.js's type omits it; the answer carries it
    expect((init as ParsedInstruction & { stackHeight?: number }).stackHeight).toBe(2);

    const plain = Keypair.generate();
    const moveSig = await sendAndConfirm(
      chain,
      connection,
      [
        SystemProgram.createAccount({
          fromPubkey: payer.publicKey,
          newAccountPubkey: plain.publicKey,
          lamports: await connection.getMinimumBalanceForRentExemption(165),
          space: 165,
          programId: TOKEN_PROGRAM_ID,
        }),
        createInitializeAccount3Instruction(plain.publicKey, mint.publicKey, holder.publicKey),
        createTransferCheckedInstruction(holderAta, mint.publicKey, payerAta, holder.publicKey, 1_500_000n, 6),
        createTransferInstruction(holderAta, plain.publicKey, holder.publicKey, 500_000n),
        createBurnInstruction(plain.publicKey, mint.publicKey, holder.publicKey, 500_000n),
        createCloseAccountInstruction(plain.publicKey, payer.publicKey, holder.publicKey),
      ],
      payer,
      [plain, holder],
    );
    const moved = await parsedTx(moveSig);
    expect(moved.meta?.err).toBeNull();
    const [, initialize, checked, transfer, burn, close] = moved.transaction.message.instructions.map(
      (ix) => parsedOf(ix)?.parsed,
    );
    expect(initialize).toEqual({
      type: "initializeAccount3",
      info: {
        account: plain.publicKey.toBase58(),
        mint: mint.publicKey.toBase58(),
        owner: holder.publicKey.toBase58(),
      },
    });
    expect(checked).toEqual({
      type: "transferChecked",
      info: {
        source: holderAta.toBase58(),
        mint: mint.publicKey.toBase58(),
        destination: payerAta.toBase58(),
        tokenAmount: { amount: "1500000", decimals: 6, uiAmount: 1.5, uiAmountString: "1.5" },
        authority: holder.publicKey.toBase58(),
      },
    });
    expect(transfer).toEqual({
      type: "transfer",
      info: {
        source: holderAta.toBase58(),
        destination: plain.publicKey.toBase58(),
        amount: "500000",
        authority: holder.publicKey.toBase58(),
      },
    });
    expect(burn).toEqual({
      type: "burn",
      info: {
        account: plain.publicKey.toBase58(),
        mint: mint.publicKey.toBase58(),
        amount: "500000",
        authority: holder.publicKey.toBase58(),
      },
    });
    expect(close).toEqual({
      type: "closeAccount",
      info: {
        account: plain.publicKey.toBase58(),
        destination: payer.publicKey.toBase58(),
        owner: holder.publicKey.toBase58(),
      },
    });

    // Wrapping SOL: an ATA on the native mint, lamports in, syncNative.
    addNativeMint();
    const wsol = getAssociatedTokenAddressSync(NATIVE_MINT, payer.publicKey);
    const wrapSig = await sendAndConfirm(
      chain,
      connection,
      [
        createAssociatedTokenAccountIdempotentInstruction(payer.publicKey, wsol, payer.publicKey, NATIVE_MINT),
        SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: wsol, lamports: 3_000_000 }),
        createSyncNativeInstruction(wsol),
      ],
      payer,
    );
    const wrapped = await parsedTx(wrapSig);
    expect(wrapped.meta?.err).toBeNull();
    expect(parsedOf(wrapped.transaction.message.instructions[2]!)).toMatchObject({
      program: "spl-token",
      parsed: { type: "syncNative", info: { account: wsol.toBase58() } },
    });
  });

  test("an instruction agave cannot parse stays partially decoded: data it cannot read, or another program", async () => {
    const other = Keypair.generate().publicKey;
    const signature = await sendAndConfirm(
      chain,
      connection,
      [
        // a System transfer whose data is cut short: the transaction fails, the parse does too
        new TransactionInstruction({
          programId: SystemProgram.programId,
          keys: [
            { pubkey: payer.publicKey, isSigner: true, isWritable: true },
            { pubkey: other, isSigner: false, isWritable: true },
          ],
          data: Buffer.from([2, 0, 0, 0, 1]),
        }),
      ],
      payer,
    );
    const tx = await parsedTx(signature);
    const ix = tx.transaction.message.instructions[0] as PartiallyDecodedInstruction;
    expect("parsed" in ix).toBe(false);
    expect(ix.programId.toBase58()).toBe(SYSTEM);
    expect(ix.accounts.map((k) => k.toBase58())).toEqual([payer.publicKey.toBase58(), other.toBase58()]);
    expect(ix.data).toBe(bs58.encode([2, 0, 0, 0, 1]));
  });
});

describe("parsed blocks", () => {
  test("getParsedBlock and getBlock with jsonParsed parse the block's instructions; kit reads the same", async () => {
    const to = Keypair.generate().publicKey;
    const signature = await sendAndConfirm(
      chain,
      connection,
      [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 777_000 })],
      payer,
    );
    const status = await connection.getSignatureStatus(signature);
    const slot = status.value!.slot;
    const expected = {
      type: "transfer",
      info: { source: payer.publicKey.toBase58(), destination: to.toBase58(), lamports: 777_000 },
    };

    // web3.js types this overload as the accounts-only shape; it answers the full one
    const block = (await connection.getParsedBlock(slot, { maxSupportedTransactionVersion: 0 })) as unknown as {
      transactions: { transaction: { signatures: string[]; message: { instructions: Ix[] } } }[];
    };
    const inBlock = block.transactions.find((t) => t.transaction.signatures[0] === signature);
    expect(parsedOf(inBlock!.transaction.message.instructions[0]!)?.parsed).toEqual(expected);

    const rpc = createSolanaRpc(chain.rpcUrl);
    const kitBlock = await rpc
      .getBlock(BigInt(slot), {
        encoding: "jsonParsed",
        maxSupportedTransactionVersion: 0,
        commitment: "confirmed",
        transactionDetails: "full",
      })
      .send();
    const kitTx = kitBlock!.transactions.find((t) => t.transaction.signatures[0] === signature);
    // kit reads u64s as bigints
    expect(kitTx!.transaction.message.instructions[0]).toMatchObject({
      program: "system",
      parsed: { type: "transfer", info: { ...expected.info, lamports: 777_000n } },
    });

    const kitRead = await rpc
      .getTransaction(signature as Signature, {
        encoding: "jsonParsed",
        maxSupportedTransactionVersion: 0,
        commitment: "confirmed",
      })
      .send();
    expect(kitRead!.transaction.message.instructions[0]).toMatchObject({
      program: "system",
      programId: SYSTEM,
      parsed: { type: "transfer", info: { lamports: 777_000n } },
    });
  });
});
