/**
 * The unsigned create transaction(s) handed to the launch page's wallet. The deployer pays and
 * signs, together with the mint keypair the page generated; the service signs nothing here.
 * What the transactions hold is the launch program's business (`LaunchProgram.buildCreate`).
 */
import { PublicKey, TransactionMessage, VersionedTransaction } from "@solana/web3.js";
import { isChainUnavailable } from "../chain/errors";
import type { CreateParams } from "../chain/ports";
import type { ChainServices } from "../chain/services";
import { AppError } from "../lib/errors";
import { log } from "../lib/log";

export type { CreateParams } from "../chain/ports";

export interface UnsignedLaunch {
  /** base64 wire transactions with empty signatures, to be signed and sent in this order; [0] creates */
  transactions: string[];
  lastValidBlockHeight: bigint;
}

export async function buildUnsignedLaunch(chain: ChainServices, p: CreateParams): Promise<UnsignedLaunch> {
  const groups = await instructionGroups(chain, p);
  let blockhash: string;
  let lastValidBlockHeight: bigint;
  try {
    ({ blockhash, lastValidBlockHeight } = await chain.reader.getLatestBlockhash());
  } catch (error) {
    log.warn("launch: blockhash read failed", { error });
    throw new AppError("LAUNCH_PREPARE_UNREACHABLE", {}, { cause: error });
  }
  const payerKey = new PublicKey(p.deployer);
  const transactions = groups.map((instructions) => {
    const message = new TransactionMessage({ payerKey, recentBlockhash: blockhash, instructions }).compileToV0Message();
    return Buffer.from(new VersionedTransaction(message).serialize()).toString("base64");
  });
  return { transactions, lastValidBlockHeight };
}

async function instructionGroups(chain: ChainServices, p: CreateParams) {
  try {
    return await chain.launchProgram.buildCreate(p);
  } catch (error) {
    // The pump builder reads the program's global state: a provider failure is an upstream one.
    log.warn("launch: create builder failed", { error });
    if (isChainUnavailable(error)) throw new AppError("LAUNCH_PREPARE_UNREACHABLE", {}, { cause: error });
    throw new AppError("LAUNCH_PREPARE_FAILED", {}, { cause: error });
  }
}
