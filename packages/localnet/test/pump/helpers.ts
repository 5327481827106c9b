/**
 * A local node hosting pump's programs, for the emulation's tests: transactions built by the SDKs
 * are sent as a wallet sends them, and accounts are read back as the SDKs' online helpers read them.
 */
import {
  type AccountInfo,
  type Keypair,
  type PublicKey,
  type TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import { LocalNode, type TxRecord } from "../../src/node";
import { pumpPrograms } from "../../src/native/pump";
import { lamportsAsNumber } from "../../src/lamports";

export function pumpNode(): LocalNode {
  return new LocalNode({
    slotMs: 0,
    program: { creatorFeeBps: 100, bondThresholdLamports: 85_000_000_000n },
    nativePrograms: pumpPrograms(),
  });
}

/** Sends `instructions` signed by `payer` (first) and `signers`; the landed record (err may be set). */
export function send(
  node: LocalNode,
  payer: Keypair,
  instructions: readonly TransactionInstruction[],
  signers: readonly Keypair[] = [],
): TxRecord {
  const tx = new VersionedTransaction(
    new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: node.getLatestBlockhash().blockhash,
      instructions: [...instructions],
    }).compileToV0Message(),
  );
  tx.sign([payer, ...signers]);
  const r = node.execute(tx, { failOnChain: false });
  if (!r.landed) throw new Error(`not landed: ${JSON.stringify(r.err)}`);
  node.advanceSlots(1);
  return r.record;
}

/** An account as web3.js's getAccountInfo returns it (what the SDKs' decoders take); null if absent. */
export function accountInfo(node: LocalNode, address: PublicKey): AccountInfo<Buffer> | null {
  const a = node.getAccount(address);
  if (!a) return null;
  return {
    lamports: lamportsAsNumber(a.lamports),
    owner: a.owner,
    executable: a.executable,
    data: Buffer.from(a.data),
    rentEpoch: 0,
  };
}
