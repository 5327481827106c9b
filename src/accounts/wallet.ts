/**
 * Which addresses may receive a payout (SPEC POST /api/claim, `wallet`): a base58 ed25519 public
 * key that is unused or a plain system account on chain. Refused: addresses off the curve
 * (program-derived; nobody holds their key), token and program accounts, the treasury, and the
 * mints and fee addresses of tokens launched here (money sent there would be swept back or lost).
 * The chain read happens before any money moves; when it cannot be done the answer is 503.
 */
import { PublicKey } from "@solana/web3.js";
import { chainUnavailable, isChainUnavailable } from "../chain/errors";
import type { AppContext } from "../context";
import { statement } from "../../db/statement";
import { AppError } from "../lib/errors";
import { log } from "../lib/log";

const SYSTEM_PROGRAM = "11111111111111111111111111111111";
const CHAIN_TIMEOUT_MS = 8_000;

const notAnAddress = (cause?: unknown) => new AppError("WALLET_NOT_ADDRESS", {}, { cause });
const notAWallet = () => new AppError("WALLET_NOT_WALLET");
/** The chain could not be asked (503); the chain's own failure, for the log, is the cause. */
const cannotCheck = (cause?: unknown) => new AppError("WALLET_UNCHECKABLE", {}, { cause });

/** Shape checks that need no chain: base58, 32 bytes, canonical spelling, on the curve. */
export function parseWalletAddress(raw: unknown): PublicKey {
  if (typeof raw !== "string" || !/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(raw)) throw notAnAddress();
  let key: PublicKey;
  try {
    key = new PublicKey(raw);
  } catch (error) {
    throw notAnAddress(error);
  }
  // Leading zero bytes can be spelled more than one way; only the chain's own spelling is accepted.
  if (key.toBase58() !== raw) throw notAnAddress();
  if (!PublicKey.isOnCurve(key.toBytes())) throw notAWallet();
  return key;
}

const tokenAddress = statement<{ one: bigint }, [address: string]>(
  "SELECT 1 AS one FROM tokens WHERE mint = ?1 OR creator = ?1 OR creator_vault = ?1 LIMIT 1",
);
const reservedAddress = statement<{ one: bigint }, [address: string]>(
  "SELECT 1 AS one FROM launch_intents WHERE mint = ?1 OR creator = ?1 LIMIT 1",
);

function isServiceAddress(ctx: AppContext, address: string): boolean {
  if (ctx.chain && ctx.chain.treasury.publicKey.toBase58() === address) return true;
  if (tokenAddress(ctx.db).get(address)) return true;
  // A launch being prepared has its mint and creator reserved already.
  return reservedAddress(ctx.db).get(address) !== null;
}

async function readAccount(ctx: AppContext, address: string) {
  const chain = ctx.chain;
  if (!chain) throw cannotCheck();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const accounts = await Promise.race([
      chain.reader.getAccounts([address]),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(chainUnavailable("CHAIN_TIMEOUT", { method: "wallet check", timeoutMs: CHAIN_TIMEOUT_MS })),
          CHAIN_TIMEOUT_MS,
        );
      }),
    ]);
    if (!accounts.has(address))
      throw chainUnavailable("CHAIN_UNAVAILABLE", {
        method: "wallet check",
        detail: "the node left the wallet out of its answer",
      });
    return accounts.get(address) ?? null;
  } catch (error) {
    if (isChainUnavailable(error)) {
      log.warn("wallet check could not reach the chain", { error });
      throw cannotCheck(error);
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** Full check of a payout wallet; returns its canonical base58 form. Refuses with WALLET_NOT_ADDRESS, WALLET_NOT_WALLET or WALLET_UNCHECKABLE. */
export async function checkPayoutWallet(ctx: AppContext, raw: unknown): Promise<string> {
  const address = parseWalletAddress(raw).toBase58();
  if (!ctx.chain) throw cannotCheck();
  if (isServiceAddress(ctx, address)) throw notAWallet();
  const account = await readAccount(ctx, address);
  if (account === null) return address;
  const plain = account.owner === SYSTEM_PROGRAM && !account.executable && account.data.length === 0;
  if (!plain) throw notAWallet();
  return address;
}
