/**
 * The native runtime's view of LiteSVM: accounts read and written whole, and one instruction run
 * as a transaction of its own. Signatures were checked on the outer transaction, so LiteSVM's
 * check is off for these; the fee LiteSVM takes for them is credited to the payer first, so the
 * outer transaction's fee is the only one charged.
 */
import { type LiteSVM, FailedTransactionMetadata, type TransactionMetadata } from "litesvm";
import {
  type PublicKey,
  SystemProgram,
  type TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import { fromLitesvmError } from "../errors";
import type { NativeAccount, NativeHost, SvmInstructionResult } from "./runtime";

const LAMPORTS_PER_SIGNATURE = 5000n;
/** Any 32 bytes: LiteSVM's blockhash check is off on the node. */
const SUB_TRANSACTION_BLOCKHASH = "11111111111111111111111111111111";

export interface SvmHostNode {
  getAccount(address: PublicKey): NativeAccount | null;
  setAccount(address: PublicKey, account: NativeAccount): void;
  minimumBalanceForRentExemption(dataLen: number): bigint;
  clock(): { slot: bigint; unixTimestamp: bigint };
  programVersion(): "current" | "v3";
}

export function svmHost(svm: LiteSVM, node: SvmHostNode): NativeHost {
  return {
    getAccount: (address) => node.getAccount(address),
    setAccount(address, account) {
      node.setAccount(
        address,
        account ?? { lamports: 0n, owner: SystemProgram.programId, executable: false, data: new Uint8Array(0) },
      );
    },
    minimumBalanceForRentExemption: (dataLen) => node.minimumBalanceForRentExemption(dataLen),
    clock: () => node.clock(),
    programVersion: () => node.programVersion(),
    runInSvm(ix, payer) {
      return runAlone(svm, node, ix, payer);
    },
  };
}

function runAlone(svm: LiteSVM, node: SvmHostNode, ix: TransactionInstruction, payer: PublicKey): SvmInstructionResult {
  const message = new TransactionMessage({
    payerKey: payer,
    recentBlockhash: SUB_TRANSACTION_BLOCKHASH,
    instructions: [ix],
  }).compileToLegacyMessage();
  const tx = new VersionedTransaction(message);
  const feeLamports = LAMPORTS_PER_SIGNATURE * BigInt(message.header.numRequiredSignatures);
  const payerAccount = node.getAccount(payer);
  if (!payerAccount) return { err: null, txErr: "AccountNotFound", logs: [], inner: [], computeUnits: 0n };
  node.setAccount(payer, { ...payerAccount, lamports: payerAccount.lamports + feeLamports });
  svm.withSigverify(false);
  let r: ReturnType<LiteSVM["sendTransaction"]>;
  try {
    r = svm.sendTransaction(tx);
  } finally {
    svm.withSigverify(true);
  }
  const meta: TransactionMetadata = r instanceof FailedTransactionMetadata ? r.meta() : r;
  const keys = message.accountKeys;
  const inner = (meta.innerInstructions()[0] ?? []).map((ii) => {
    const c = ii.instruction();
    return {
      programId: keys[c.programIdIndex()]!,
      accounts: [...c.accounts()].map((k) => keys[k]!),
      data: Uint8Array.from(c.data()),
      stackHeight: ii.stackHeight(),
    };
  });
  const base = { logs: meta.logs(), inner, computeUnits: meta.computeUnitsConsumed() };
  if (!(r instanceof FailedTransactionMetadata)) return { ...base, err: null };
  // Whether LiteSVM kept the fee of a failed run or not, the caller restores every account.
  const err = fromLitesvmError(r.err());
  if (typeof err === "object" && err && "InstructionError" in err) {
    return { ...base, err: (err.InstructionError as [number, unknown])[1] };
  }
  return { ...base, err: null, txErr: err };
}
