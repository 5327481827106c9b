/**
 * SPL Memo (v2) instructions, shared by both LaunchProgram adapters: the same program is deployed
 * on mainnet, devnet and in the local chain. A memo names its signer, so a memo from the treasury
 * can only have been written by whoever holds the treasury key.
 */
import { PublicKey, TransactionInstruction } from "@solana/web3.js";
import { AppError } from "../lib/errors";
import { type CommandKey, encodeCommandKey } from "./command-key";
import type { ConfirmedTransaction } from "./ports";

export const SPL_MEMO_PROGRAM_ID = new PublicKey("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr");
/** What fits comfortably in one transaction next to a signature and the keys. */
export const MEMO_MAX_BYTES = 500;

export function memoInstruction(
  text: string,
  signer: PublicKey,
  programId = SPL_MEMO_PROGRAM_ID,
): TransactionInstruction {
  const data = Buffer.from(text, "utf8");
  if (data.length === 0 || data.length > MEMO_MAX_BYTES)
    throw new AppError("MEMO_SIZE_INVALID", { maxBytes: MEMO_MAX_BYTES });
  return new TransactionInstruction({ programId, keys: [{ pubkey: signer, isSigner: true, isWritable: false }], data });
}

/**
 * The memo naming the money command a transaction is (src/chain/command-key.ts), signed by the
 * payer (the treasury), so only the holder of the treasury key can have written it. The sender
 * puts it last; whatever packs transactions measures it with this same function.
 */
export function commandKeyMemo(key: CommandKey, signer: PublicKey): TransactionInstruction {
  return memoInstruction(encodeCommandKey(key), signer);
}

/**
 * Compute units a memo of `bytes` with one signer costs, with room: SPL Memo v2 logs its text
 * formatted, at ~351 units a byte over ~14,900 (measured on the local chain, which runs the same
 * program: 17,749 units at 8 bytes, 190,491 at 500; docs/money-jobs.md, "Command keys on chain").
 */
export function memoComputeUnits(bytes: number): number {
  return 20_000 + 400 * bytes;
}

/** The memo texts of a transaction's top-level instructions, with the signers each one names. */
export function memoTexts(
  tx: ConfirmedTransaction,
  programId = SPL_MEMO_PROGRAM_ID,
): { text: string; signers: string[] }[] {
  const id = programId.toBase58();
  const decoder = new TextDecoder("utf-8", { fatal: false });
  return tx.instructions
    .filter((ix) => ix.programId === id)
    .map((ix) => ({ text: decoder.decode(ix.data), signers: ix.accounts }));
}
