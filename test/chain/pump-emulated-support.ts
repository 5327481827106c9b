/**
 * The service's pump adapter against the local chain's emulated pump programs (the curve and pool
 * tests): a reader answering from the node's accounts, a send that lands at once and is read back
 * as the adapter's decoders take it, and a token account's amount.
 */
import {
  type Keypair,
  type PublicKey,
  type TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import type { LocalChain } from "@fee-ledger/localnet";
import type { AccountSnapshot, ChainReader, ConfirmedTransaction } from "../../src/chain/ports";

export const SOL = 1_000_000_000n;

/** A reader answering from the node's accounts, as an RPC would at the tip. */
export function nodeReader(chain: LocalChain): ChainReader {
  const snapshot = (address: string): AccountSnapshot | null => {
    const a = chain.node.getAccount(address as never);
    return a ? { lamports: a.lamports, owner: a.owner.toBase58(), executable: a.executable, data: a.data } : null;
  };
  return {
    async getAccounts(addresses) {
      return new Map(addresses.map((a) => [a, snapshot(a)]));
    },
    async getBalances(addresses) {
      return new Map(addresses.map((a) => [a, snapshot(a)?.lamports ?? 0n]));
    },
    async getTransaction() {
      return null;
    },
    async getSignatureStatuses(signatures) {
      return new Map(signatures.map((s) => [s, null]));
    },
    async getBlockHeight() {
      return chain.node.getBlockHeight();
    },
    async getLatestBlockhash() {
      return chain.node.getLatestBlockhash();
    },
  } as ChainReader;
}

export function sendOn(
  chain: LocalChain,
  payer: Keypair,
  ixs: TransactionInstruction[],
  signers: Keypair[] = [],
): ConfirmedTransaction {
  const tx = new VersionedTransaction(
    new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: chain.node.getLatestBlockhash().blockhash,
      instructions: ixs,
    }).compileToV0Message(),
  );
  tx.sign([payer, ...signers]);
  const r = chain.node.execute(tx, { failOnChain: false });
  if (!r.landed) throw new Error(`not landed: ${JSON.stringify(r.err)}`);
  chain.node.advanceSlots(1);
  const rec = r.record;
  const keys = rec.accountKeys.map((k) => k.toBase58());
  const view = (ix: { programIdIndex: number; accounts: number[]; data: Uint8Array }) => ({
    programId: keys[ix.programIdIndex]!,
    accounts: ix.accounts.map((i) => keys[i]!),
    data: ix.data,
  });
  return {
    signature: rec.signature,
    slot: rec.slot,
    blockTime: new Date(rec.blockTimeSec * 1000),
    err: rec.err === null ? null : JSON.stringify(rec.err),
    feeLamports: rec.feeLamports,
    accountKeys: keys,
    preBalances: rec.preBalances,
    postBalances: rec.postBalances,
    instructions: rec.instructions.map(view),
    innerInstructions: rec.innerInstructions.flatMap((g) =>
      g.instructions.map((ix) => ({ ...view(ix), outerIndex: g.index })),
    ),
    logMessages: rec.logs,
    preTokenBalances: rec.preTokenBalances,
    postTokenBalances: rec.postTokenBalances,
  };
}

export const tokenAmountOn = (chain: LocalChain, account: PublicKey) => {
  const a = chain.node.getAccount(account);
  return a ? Buffer.from(a.data).readBigUInt64LE(64) : 0n;
};
