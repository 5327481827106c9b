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
import { badRequest, unavailable } from "../http/errors";
import { log } from "../lib/log";

const SYSTEM_PROGRAM = "11111111111111111111111111111111";
const CHAIN_TIMEOUT_MS = 8_000;

export const NOT_AN_ADDRESS = "The wallet is not a valid address.";
export const NOT_A_WALLET = "That address is not a wallet; use the address of a wallet you hold.";
export const CHAIN_UNAVAILABLE = "The wallet could not be checked on chain just now; try again shortly.";

/** Shape checks that need no chain: base58, 32 bytes, canonical spelling, on the curve. */
export function parseWalletAddress(raw: unknown): PublicKey {
  if (typeof raw !== "string" || !/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(raw)) throw badRequest(NOT_AN_ADDRESS);
  let key: PublicKey;
  try {
    key = new PublicKey(raw);
  } catch {
    throw badRequest(NOT_AN_ADDRESS);
  }
  // Leading zero bytes can be spelled more than one way; only the chain's own spelling is accepted.
  if (key.toBase58() !== raw) throw badRequest(NOT_AN_ADDRESS);
  if (!PublicKey.isOnCurve(key.toBytes())) throw badRequest(NOT_A_WALLET);
  return key;
}

function isServiceAddress(ctx: AppContext, address: string): boolean {
  if (ctx.chain && ctx.chain.treasury.publicKey.toBase58() === address) return true;
  const c = ctx.db.$client;
  const token = c
    .query("SELECT 1 FROM tokens WHERE mint = ?1 OR creator = ?1 OR creator_vault = ?1 LIMIT 1")
    .get(address);
  if (token) return true;
  // A launch being prepared has its mint and creator reserved already.
  return c.query("SELECT 1 FROM launch_intents WHERE mint = ?1 OR creator = ?1 LIMIT 1").get(address) !== null;
}

async function readAccount(ctx: AppContext, address: string) {
  const chain = ctx.chain;
  if (!chain) throw unavailable(CHAIN_UNAVAILABLE);
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const accounts = await Promise.race([
      chain.reader.getAccounts([address]),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(chainUnavailable("CHAIN_TIMEOUT", "wallet check timed out")), CHAIN_TIMEOUT_MS);
      }),
    ]);
    if (!accounts.has(address))
      throw chainUnavailable("CHAIN_UNAVAILABLE", "the node left the wallet out of its answer");
    return accounts.get(address) ?? null;
  } catch (error) {
    if (isChainUnavailable(error)) {
      log.warn("wallet check could not reach the chain", { error });
      throw unavailable(CHAIN_UNAVAILABLE);
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** Full check of a payout wallet; returns its canonical base58 form. Throws HttpError 400 or 503. */
export async function checkPayoutWallet(ctx: AppContext, raw: unknown): Promise<string> {
  const address = parseWalletAddress(raw).toBase58();
  if (!ctx.chain) throw unavailable(CHAIN_UNAVAILABLE);
  if (isServiceAddress(ctx, address)) throw badRequest(NOT_A_WALLET);
  const account = await readAccount(ctx, address);
  if (account === null) return address;
  const plain = account.owner === SYSTEM_PROGRAM && !account.executable && account.data.length === 0;
  if (!plain) throw badRequest(NOT_A_WALLET);
  return address;
}
