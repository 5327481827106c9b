/**
 * What a signed-in user does to their own account (SPEC `POST /api/claim`, `POST /api/routing`):
 * the checks in the order the user's mistakes are reported, then the write. Every refusal is an
 * AppError whose message is the sentence the user reads.
 */
import { claimsPausedCode } from "../custody";
import type { AppContext } from "../context";
import { statement } from "../../db/statement";
import { accounts, balanceOf } from "../ledger";
import { AppError, isAppError } from "../lib/errors";
import { queuePayout } from "../payouts";
import { getClaimsPaused, getMinClaimLamports } from "../settings";
import { payoutWalletOf, setRouting, type Routing } from "../identity";
import { checkPayoutWallet, parseWalletAddress } from "./wallet";

const I64_MAX = 9_223_372_036_854_775_807n;
const ROUTINGS: readonly Routing[] = ["hold", "autopay", "burn"];

function parseLamports(raw: unknown): bigint | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== "string" || !/^\d{1,19}$/.test(raw)) {
    throw new AppError("CLAIM_AMOUNT_NOT_DECIMAL");
  }
  const value = BigInt(raw);
  if (value > I64_MAX) throw new AppError("CLAIM_ABOVE_BALANCE");
  if (value === 0n) throw new AppError("CLAIM_AMOUNT_ZERO");
  return value;
}

const livePayout = statement<{ one: bigint }, [idpUserId: string]>(
  "SELECT 1 AS one FROM payouts WHERE idp_user_id = ? AND status IN ('held', 'queued', 'sent') LIMIT 1",
);

function hasLivePayout(ctx: AppContext, idpUserId: string): boolean {
  return livePayout(ctx.db).get(idpUserId) !== null;
}

/** The same refusals queuePayout makes, in the user's words. */
function amountRefusal(balance: bigint, lamports: bigint | null, min: bigint): AppError | null {
  if (balance <= 0n) return new AppError("CLAIM_NO_BALANCE");
  const amount = lamports ?? balance;
  if (amount > balance) return new AppError("CLAIM_ABOVE_BALANCE");
  if (amount < min) return new AppError("CLAIM_BELOW_MINIMUM", { minimumLamports: min });
  return null;
}

/** Claims are paused (by the operator, or by a halt of the service's own): the refusal that says why. */
function pausedRefusal(ctx: AppContext): AppError | null {
  const code = claimsPausedCode(ctx.db);
  return code === null ? null : new AppError(code);
}

/**
 * The payouts service's refusal codes. Until its branch lands it throws its own classes, told
 * apart here by name (no import, so the bridge compiles either way; see the merge note).
 */
function payoutRefusal(error: unknown): "PAYOUT_IN_FLIGHT" | "INSUFFICIENT_BALANCE" | null {
  if (isAppError(error, "PAYOUT_IN_FLIGHT", "INSUFFICIENT_BALANCE")) return error.code;
  if (!(error instanceof Error)) return null;
  if (error.name === "PayoutInFlightError") return "PAYOUT_IN_FLIGHT";
  if (error.name === "InsufficientBalanceError") return "INSUFFICIENT_BALANCE";
  return null;
}

export interface ClaimInput {
  wallet?: unknown;
  lamports?: unknown;
}

/** `POST /api/claim`: queues a payout of `lamports` (or the whole balance) to a checked wallet. */
export async function claim(ctx: AppContext, idpUserId: string, input: ClaimInput) {
  if (input.wallet === undefined || input.wallet === null) throw new AppError("CLAIM_WALLET_REQUIRED");
  parseWalletAddress(input.wallet);
  const lamports = parseLamports(input.lamports);
  const paused = pausedRefusal(ctx);
  if (paused) throw paused;
  const min = getMinClaimLamports(ctx.db, ctx.config);
  const refusalNow = () => amountRefusal(balanceOf(ctx.db, accounts.user(idpUserId)), lamports, min);

  // Cheap refusals before the chain is asked; queuePayout decides again atomically.
  if (hasLivePayout(ctx, idpUserId)) throw new AppError("PAYOUT_IN_FLIGHT");
  const refusal = refusalNow();
  if (refusal) throw refusal;

  const wallet = await checkPayoutWallet(ctx, input.wallet);
  try {
    const queued = queuePayout(
      ctx.db,
      {
        idpUserId,
        lamports,
        wallet,
        kind: "claim",
        minLamports: min,
        atMs: ctx.now(),
        reviewLamports: ctx.config.custody.payoutReviewLamports,
      },
      // A pause that lands while the wallet was being checked still stops this claim.
      () => {
        const pausedNow = pausedRefusal(ctx);
        if (pausedNow) throw pausedNow;
      },
    );
    return { payoutId: queued.payoutId, lamports: queued.lamports.toString(), status: queued.status };
  } catch (error) {
    // The service's own words are for the log; the user reads the sentence of the refusal.
    switch (payoutRefusal(error)) {
      case "PAYOUT_IN_FLIGHT":
        throw new AppError("PAYOUT_IN_FLIGHT", {}, { cause: error });
      case "INSUFFICIENT_BALANCE": {
        const refusal = refusalNow() ?? new AppError("CLAIM_NOT_AVAILABLE");
        throw new AppError(refusal.code, refusal.message, refusal.context, { cause: error });
      }
      default:
        throw error;
    }
  }
}

export interface RoutingInput {
  routing?: unknown;
  declined?: unknown;
  wallet?: unknown;
}

/** `POST /api/routing`: where the account's money goes (hold, autopay to a wallet, burn). */
export async function changeRouting(ctx: AppContext, idpUserId: string, input: RoutingInput) {
  const routing = ROUTINGS.find((r) => r === input.routing);
  if (routing === undefined) throw new AppError("ROUTING_INVALID");
  if (input.declined !== undefined && typeof input.declined !== "boolean") {
    throw new AppError("DECLINED_NOT_BOOLEAN");
  }
  const declined = input.declined === true;
  if (declined && routing !== "burn") throw new AppError("DECLINE_NEEDS_BURN");
  if (input.wallet !== undefined && input.wallet !== null) parseWalletAddress(input.wallet);
  // parseWalletAddress let only a string through.
  const given = input.wallet as string | null | undefined;

  const wallet = given === undefined ? payoutWalletOf(ctx.db, idpUserId) : given;
  if (routing === "autopay" && wallet === null) throw new AppError("AUTOPAY_NEEDS_WALLET");
  if (getClaimsPaused(ctx.db)) throw new AppError("ROUTING_PAUSED");

  const payoutWallet = typeof given === "string" ? await checkPayoutWallet(ctx, given) : wallet;
  setRouting(ctx.db, idpUserId, { routing, payoutWallet, declined });
  return { ok: true as const, routing, payoutWallet, declined };
}
