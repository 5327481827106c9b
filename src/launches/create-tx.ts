/**
 * The unsigned create transaction(s) handed to the launch page's wallet. The deployer pays and
 * signs, together with the mint keypair the page generated; the service signs nothing here.
 *
 * An adapter that implements `LaunchProgram.buildCreate` is used as is. The local adapter does not
 * (yet), so for it the instructions are composed here from the local program's documented ops
 * (src/chain/localnet/program.ts `buildCreateOp` / `buildBuyOp`), which is the exact scheme the
 * local node validates. The local program refuses a buy of a mint created in the same transaction,
 * so there a first buy is a second transaction, priced on the fresh curve with a slippage margin.
 */
import { PublicKey, type TransactionInstruction, TransactionMessage, VersionedTransaction } from "@solana/web3.js";
import { ChainUnavailableError } from "../chain/ports";
import type { ChainServices } from "../chain/services";
import { LocalLaunchProgram } from "../chain/localnet/adapter";
import {
  buildBuyOp,
  buildCreateOp,
  feeFor,
  quoteBuy,
  RESERVED_TOKENS,
  CURVE_SALE_TOKENS,
  type LocalProgramKeys,
} from "../chain/localnet/program";
import { badGateway, unavailable } from "../http/errors";
import { log } from "../lib/log";

export interface CreateParams {
  mint: string;
  creator: string;
  deployer: string;
  name: string;
  symbol: string;
  uri: string;
  /** SOL paid into the curve by the first buy; the creator fee comes on top */
  firstBuyLamports: bigint;
}

export interface UnsignedLaunch {
  /** base64 wire transactions with empty signatures, to be signed and sent in this order; [0] creates */
  transactions: string[];
  lastValidBlockHeight: bigint;
}

/** Tokens the first buy asks for, below the fresh-curve quote: a buy landing first must not fail ours. */
export const FIRST_BUY_SLIPPAGE_BPS = 500;

export async function buildUnsignedLaunch(chain: ChainServices, p: CreateParams): Promise<UnsignedLaunch> {
  const groups = await instructionGroups(chain, p);
  let blockhash: string;
  let lastValidBlockHeight: bigint;
  try {
    ({ blockhash, lastValidBlockHeight } = await chain.reader.getLatestBlockhash());
  } catch (error) {
    log.warn("launch: blockhash read failed", { error });
    throw badGateway("The chain could not be reached to prepare the transaction; try again.");
  }
  const payerKey = new PublicKey(p.deployer);
  const transactions = groups.map((instructions) => {
    const message = new TransactionMessage({ payerKey, recentBlockhash: blockhash, instructions }).compileToV0Message();
    return Buffer.from(new VersionedTransaction(message).serialize()).toString("base64");
  });
  return { transactions, lastValidBlockHeight };
}

async function instructionGroups(chain: ChainServices, p: CreateParams): Promise<TransactionInstruction[][]> {
  const program = chain.launchProgram;
  if (program.buildCreate) {
    try {
      return [await program.buildCreate(p)];
    } catch (error) {
      // The pump builder reads the program's global state: a provider failure is an upstream one.
      log.warn("launch: create builder failed", { error });
      if (error instanceof ChainUnavailableError)
        throw badGateway("The chain could not be reached to prepare the transaction; try again.");
      throw unavailable("The create transaction could not be prepared; try again later.");
    }
  }
  const keys = localProgramKeys(program);
  if (!keys) throw unavailable("Launches are not available on this chain yet.");
  const mint = new PublicKey(p.mint);
  const creator = new PublicKey(p.creator);
  const deployer = new PublicKey(p.deployer);
  const create = buildCreateOp(keys, { payer: deployer, mint, creator, name: p.name, symbol: p.symbol, uri: p.uri });
  if (p.firstBuyLamports <= 0n) return [create];
  const fresh = { realSolLamports: 0n, curveTokens: CURVE_SALE_TOKENS + RESERVED_TOKENS, bonded: false };
  const quoted = quoteBuy(fresh, p.firstBuyLamports);
  const tokensOut = (quoted * BigInt(10_000 - FIRST_BUY_SLIPPAGE_BPS)) / 10_000n;
  if (tokensOut <= 0n) return [create];
  const feeLamports = feeFor(p.firstBuyLamports, await program.creatorFeeBps());
  const buy = buildBuyOp(keys, {
    buyer: deployer,
    mint,
    creator,
    vault: "curve",
    solInLamports: p.firstBuyLamports,
    tokensOut,
    feeLamports,
  });
  return [create, buy];
}

/**
 * The local adapter keeps its program keys private; they are public derivations (addresses), and
 * composing ops from them is what the adapter's own builders do. Remove once the adapter has
 * `buildCreate`.
 */
function localProgramKeys(program: ChainServices["launchProgram"]): LocalProgramKeys | null {
  if (!(program instanceof LocalLaunchProgram)) return null;
  return (program as unknown as { keys: LocalProgramKeys }).keys ?? null;
}
