/**
 * What a signed-in user does to their own account (SPEC `POST /api/claim`, `POST /api/routing`):
 * the checks in the order the user's mistakes are reported, then the write. Every refusal is an
 * AppError whose message is the sentence the user reads.
 */
import { claimsPausedReason } from "../custody";
import type { AppContext } from "../context";
import { accounts, balanceOf } from "../ledger";
import { AppError, isAppError } from "../lib/errors";
import { queuePayout } from "../payouts";
import { getClaimsPaused, getMinClaimLamports } from "../settings";
import { payoutWalletOf, setRouting, type Routing } from "../identity";
import { checkPayoutWallet, parseWalletAddress } from "./wallet";

const I64_MAX = 9_223_372_036_854_775_807n;
const ROUTINGS: readonly Routing[] = ["hold", "autopay", "burn"];
const IN_FLIGHT = "A payout is already queued or in flight; wait until it is sent and confirmed.";

const refuse = (message: string) => new AppError("INVALID_INPUT", message);

function parseLamports(raw: unknown): bigint | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== "string" || !/^\d{1,19}$/.test(raw)) {
    throw refuse("The amount must be a whole number of lamports written as a decimal string.");
  }
  const value = BigInt(raw);
  if (value > I64_MAX) throw refuse("The amount is above the balance.");
  if (value === 0n) throw refuse("The amount must be more than zero.");
  return value;
}

function hasLivePayout(ctx: AppContext, idpUserId: string): boolean {
  return (
    ctx.db.$client
      .query<{ one: bigint }, [string]>(
        "SELECT 1 AS one FROM payouts WHERE idp_user_id = ? AND status IN ('held', 'queued', 'sent') LIMIT 1",
      )
      .get(idpUserId) !== null
  );
}

/** The same refusals queuePayout makes, as sentences for the user. */
function amountRefusal(balance: bigint, lamports: bigint | null, min: bigint): string | null {
  if (balance <= 0n) return "There is no balance to claim.";
  const amount = lamports ?? balance;
  if (amount > balance) return "The amount is above the balance.";
  if (amount < min) return `The amount is below the minimum claim of ${min} lamports.`;
  return null;
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
  if (input.wallet === undefined || input.wallet === null) throw refuse("Name the wallet to pay.");
  parseWalletAddress(input.wallet);
  const lamports = parseLamports(input.lamports);
  const paused = claimsPausedReason(ctx.db);
  if (paused) throw new AppError("CLAIMS_PAUSED", paused);
  const min = getMinClaimLamports(ctx.db, ctx.config);
  const refusalNow = () => amountRefusal(balanceOf(ctx.db, accounts.user(idpUserId)), lamports, min);

  // Cheap refusals before the chain is asked; queuePayout decides again atomically.
  if (hasLivePayout(ctx, idpUserId)) throw new AppError("PAYOUT_IN_FLIGHT", IN_FLIGHT);
  const refusal = refusalNow();
  if (refusal) throw refuse(refusal);

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
        const pausedNow = claimsPausedReason(ctx.db);
        if (pausedNow) throw new AppError("CLAIMS_PAUSED", pausedNow);
      },
    );
    return { payoutId: queued.payoutId, lamports: queued.lamports.toString(), status: queued.status };
  } catch (error) {
    // The service's own words are for the log; the user reads the sentence of the refusal.
    switch (payoutRefusal(error)) {
      case "PAYOUT_IN_FLIGHT":
        throw new AppError("PAYOUT_IN_FLIGHT", IN_FLIGHT, {}, { cause: error });
      case "INSUFFICIENT_BALANCE":
        throw new AppError(
          "INSUFFICIENT_BALANCE",
          refusalNow() ?? "The amount is not available to claim.",
          {},
          { cause: error },
        );
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
  if (routing === undefined) throw refuse("The routing must be hold, autopay or burn.");
  if (input.declined !== undefined && typeof input.declined !== "boolean") {
    throw refuse("declined must be true or false.");
  }
  const declined = input.declined === true;
  if (declined && routing !== "burn") throw refuse("Declining publicly needs the burn routing.");
  if (input.wallet !== undefined && input.wallet !== null) parseWalletAddress(input.wallet);
  // parseWalletAddress let only a string through.
  const given = input.wallet as string | null | undefined;

  const wallet = given === undefined ? payoutWalletOf(ctx.db, idpUserId) : given;
  if (routing === "autopay" && wallet === null) throw refuse("Autopay needs a wallet to pay.");
  if (getClaimsPaused(ctx.db)) {
    throw new AppError("CLAIMS_PAUSED", "Payouts are paused for now; routing cannot change. Try again later.");
  }

  const payoutWallet = typeof given === "string" ? await checkPayoutWallet(ctx, given) : wallet;
  setRouting(ctx.db, idpUserId, { routing, payoutWallet, declined });
  return { ok: true as const, routing, payoutWallet, declined };
}
