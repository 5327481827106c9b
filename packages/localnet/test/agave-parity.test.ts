/**
 * Where a web3.js 1.x client found the command answering otherwise than agave 2.x (issue 64, item
 * 14): a fresh chain's first slots, the bootstrap validator's stake, the largest accounts, a send
 * whose signature does not verify, and the text of an instruction error. The clock stands still (--slot-ms 0) and moves by localnet_advanceSlots, so
 * every answer is the same on a loaded machine.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createSolanaRpc } from "@solana/kit";
import {
  Authorized,
  ComputeBudgetProgram,
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  Lockup,
  PublicKey,
  SendTransactionError,
  StakeProgram,
  SystemProgram,
  Transaction,
  TransactionExpiredBlockheightExceededError,
  sendAndConfirmTransaction,
} from "@solana/web3.js";
import { type ChainProcess, startChainProcess } from "./agave-process";

let chain: ChainProcess;
/** processed: the clock stands still, so nothing reaches confirmed unless a test moves it */
let connection: Connection;
let payer: Keypair;

beforeAll(async () => {
  chain = await startChainProcess(["--slot-ms", "0"]);
  connection = new Connection(chain.rpcUrl, { commitment: "processed", wsEndpoint: chain.wsUrl });
});
afterAll(async () => {
  try {
    (connection as unknown as { _rpcWebSocket: { close(): void } })._rpcWebSocket.close();
  } catch {}
  await chain?.stop();
});

async function fundedPayer(): Promise<Keypair> {
  if (payer) return payer;
  payer = Keypair.generate();
  const signature = await connection.requestAirdrop(payer.publicKey, 100 * LAMPORTS_PER_SOL);
  await connection.confirmTransaction({ signature, ...(await connection.getLatestBlockhash()) });
  return payer;
}

describe("a fresh chain (these run first, before anything moves the clock)", () => {
  test("getBlock serves the slot every commitment answers, from the first moment on", async () => {
    const rpc = createSolanaRpc(chain.rpcUrl);
    for (const commitment of ["finalized", "confirmed"] as const) {
      const slot = await connection.getSlot(commitment);
      const full = await connection.getBlock(slot, { commitment, maxSupportedTransactionVersion: 0 });
      const none = await connection.getBlock(slot, {
        commitment,
        transactionDetails: "none",
        maxSupportedTransactionVersion: 0,
      });
      const accounts = await connection.getBlock(slot, {
        commitment,
        transactionDetails: "accounts",
        maxSupportedTransactionVersion: 0,
      });
      expect([none?.blockhash, accounts?.blockhash]).toEqual([full!.blockhash, full!.blockhash]);
      const parsed = await connection.getParsedBlock(slot, { commitment, maxSupportedTransactionVersion: 0 });
      expect(parsed.parentSlot).toBe(slot - 1);
      // kit sends finalized as no commitment at all (agave's default)
      const byKit = await (commitment === "finalized"
        ? rpc.getBlock(BigInt(slot), { maxSupportedTransactionVersion: 0 })
        : rpc.getBlock(BigInt(slot), { commitment, maxSupportedTransactionVersion: 0 })
      ).send();
      expect(byKit?.blockhash as string | undefined).toBe(parsed.blockhash);
    }
    // every slot from the first kept one to the confirmed one is a block, none skipped
    const first = await connection.getFirstAvailableBlock();
    const confirmed = await connection.getSlot("confirmed");
    expect(first).toBeLessThanOrEqual(await connection.getSlot("finalized"));
    const blocks = await connection.getBlocks(first, confirmed, "confirmed");
    expect(blocks).toEqual(Array.from({ length: confirmed - first + 1 }, (_, i) => first + i));
  });

  test("getLargestAccounts answers 20 accounts, as a test validator (the runtime's genesis accounts count)", async () => {
    const largest = await connection.getLargestAccounts({ commitment: "confirmed" });
    expect(largest.value).toHaveLength(20);
    const addresses = largest.value.map((a) => a.address.toBase58());
    expect(new Set(addresses).size).toBe(20);
    const { current } = await connection.getVoteAccounts();
    // the bootstrap stake is among the largest, as on a test validator
    const stakeAccounts = await connection.getProgramAccounts(StakeProgram.programId, {
      commitment: "confirmed",
      filters: [{ memcmp: { offset: 124, bytes: current[0]!.votePubkey } }],
    });
    expect(addresses).toContain(stakeAccounts[0]!.pubkey.toBase58());
    const lamports = largest.value.map((a) => a.lamports);
    expect(lamports).toEqual([...lamports].sort((a, b) => b - a));
    // methods agave 2.x removed stay removed
    for (const removed of ["getConfirmedSignaturesForAddress2", "getFeeCalculatorForBlockhash"])
      expect((await chain.call(removed, [])).error?.code).toBe(-32601);
  });
});

describe("the bootstrap validator", () => {
  test("its vote account holds the cluster's stake, and web3.js's StakeProgram.delegate to it succeeds", async () => {
    const owner = await fundedPayer();
    const { current } = await connection.getVoteAccounts();
    expect(current).toHaveLength(1);
    const votePubkey = new PublicKey(current[0]!.votePubkey);
    const vote = await connection.getAccountInfo(votePubkey);
    expect(vote?.owner.toBase58()).toBe(VOTE_PROGRAM_ID);
    expect(vote?.data.length).toBe(3762);
    // the stake account delegated to it at genesis: what getVoteAccounts reports as active
    const bootstrap = await connection.getProgramAccounts(StakeProgram.programId, {
      filters: [{ memcmp: { offset: 124, bytes: votePubkey.toBase58() } }],
    });
    expect(bootstrap).toHaveLength(1);
    expect(bootstrap[0]!.account.data.readBigUInt64LE(156)).toBe(BigInt(current[0]!.activatedStake));
    expect(current[0]!.nodePubkey).toBe((await chain.call("getIdentity")).result.identity);

    const stake = Keypair.generate();
    await sendAndConfirmTransaction(
      connection,
      StakeProgram.createAccount({
        fromPubkey: owner.publicKey,
        stakePubkey: stake.publicKey,
        authorized: new Authorized(owner.publicKey, owner.publicKey),
        lockup: new Lockup(0, 0, owner.publicKey),
        lamports: 2 * LAMPORTS_PER_SOL,
      }),
      [owner, stake],
    );
    const delegated = await sendAndConfirmTransaction(
      connection,
      StakeProgram.delegate({ stakePubkey: stake.publicKey, authorizedPubkey: owner.publicKey, votePubkey }),
      [owner],
    );
    expect((await connection.getSignatureStatus(delegated)).value?.err).toBeNull();
    const data = (await connection.getAccountInfo(stake.publicKey))!.data;
    expect(data.readUInt32LE(0)).toBe(2); // StakeStateV2::Stake
    expect(new PublicKey(data.subarray(124, 156)).toBase58()).toBe(votePubkey.toBase58());
  });
});

const VOTE_PROGRAM_ID = "Vote111111111111111111111111111111111111111";

describe("sends refused as agave refuses them", () => {
  test("a heap frame request with invalid data fails with agave's text: invalid instruction data", async () => {
    const owner = await fundedPayer();
    const refused = await sendAndConfirmTransaction(
      connection,
      new Transaction().add(
        ComputeBudgetProgram.requestHeapFrame({ bytes: 1_000 }),
        SystemProgram.transfer({ fromPubkey: owner.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1 }),
      ),
      [owner],
    ).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SendTransactionError);
    expect((refused as SendTransactionError).transactionError.message).toBe(
      "Transaction simulation failed: Error processing Instruction 0: invalid instruction data",
    );
  });

  test("a signature that does not verify: preflight refuses it; skipped, the send answers and the confirmation expires", async () => {
    const owner = await fundedPayer();
    const latest = await connection.getLatestBlockhash();
    const tx = new Transaction({ feePayer: owner.publicKey, ...latest }).add(
      SystemProgram.transfer({ fromPubkey: owner.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1_000 }),
    );
    tx.sign(owner);
    const wire = tx.serialize();
    wire[5]! ^= 0xff; // inside the payer's signature
    await expect(connection.sendRawTransaction(wire)).rejects.toThrow("Transaction signature verification failure");
    const signature = await connection.sendRawTransaction(wire, { skipPreflight: true });
    const confirming = connection.confirmTransaction({ signature, ...latest }, "confirmed").then(
      () => "resolved",
      (e: unknown) => e,
    );
    // the last test here: past its blockhash's life, web3.js's cached blockhash is spent too
    await chain.advance(160);
    const outcome = await confirming;
    expect(outcome).toBeInstanceOf(TransactionExpiredBlockheightExceededError);
    expect((await connection.getSignatureStatus(signature, { searchTransactionHistory: true })).value).toBeNull();
  });
});
