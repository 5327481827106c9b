/**
 * The signed-in account routes: `GET /api/me` (and the pages of its tokens and payouts), `POST /api/claim`, `POST /api/routing`. The account
 * always comes from the session cookie; no body field names a user id or a handle.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { appendSetCookie, readCookie } from "../auth";
import { jsonObject, privately, requireSession } from "../auth";
import { assertSameSite } from "../auth";
import { clearedSessionCookie, sessionCookieName, sessionFromRequest } from "../auth";
import { CACHE } from "../http/cache";
import { badRequest, conflict, unavailable } from "../http/errors";
import { accounts, balanceOf } from "../ledger";
import { queuePayout } from "../payouts";
import { getClaimsPaused, getMinClaimLamports } from "../settings";
import { setRouting, type Routing } from "../identity";
import { isAppError } from "../lib/errors";
import { meOf, signedOut } from "./me";
import { pageLimit, parsePayoutCursor, parseTokenCursor } from "./pages";
import { accountTokensPage, payoutsPage } from "./record";
import { checkPayoutWallet, parseWalletAddress } from "./wallet";

const I64_MAX = 9_223_372_036_854_775_807n;
const ROUTINGS: readonly Routing[] = ["hold", "autopay", "burn"];
const CLAIMS_PAUSED = "Claims are paused for now; your balance is untouched. Try again later.";
const IN_FLIGHT = "A payout is already queued or in flight; wait until it is sent and confirmed.";

class ClaimsPausedError extends Error {
  override readonly name = "ClaimsPausedError";
}

function parseLamports(raw: unknown): bigint | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== "string" || !/^\d{1,19}$/.test(raw)) {
    throw badRequest("The amount must be a whole number of lamports written as a decimal string.");
  }
  const value = BigInt(raw);
  if (value > I64_MAX) throw badRequest("The amount is above the balance.");
  if (value === 0n) throw badRequest("The amount must be more than zero.");
  return value;
}

function hasLivePayout(ctx: AppContext, idpUserId: string): boolean {
  return (
    ctx.db.$client
      .query("SELECT 1 FROM payouts WHERE idp_user_id = ? AND status IN ('queued', 'sent') LIMIT 1")
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

export function accountRoutes(ctx: AppContext) {
  return new Elysia({ name: "accounts" })
    .get(
      "/api/me",
      ({ request, set }) => {
        set.headers["cache-control"] = CACHE.private;
        const session = sessionFromRequest(ctx.db, ctx.config, request, ctx.now());
        if (!session) {
          // A cookie that no longer opens a session is dropped so the browser stops sending it.
          if (readCookie(request, sessionCookieName(ctx.config)) !== null) {
            appendSetCookie(set.headers, clearedSessionCookie(ctx.config));
          }
          return signedOut(ctx.config);
        }
        return meOf(ctx.db, ctx.config, session.idpUserId);
      },
      { detail: { hide: true } },
    )
    .get(
      "/api/me/tokens",
      ({ request, query, set }) =>
        privately(() => {
          set.headers["cache-control"] = CACHE.private;
          const session = requireSession(ctx, request);
          const q = query as Record<string, string | undefined>;
          const after = parseTokenCursor(q.cursor ?? "");
          return accountTokensPage(ctx.db, { idpUserId: session.idpUserId, handle: "" }, after, pageLimit(q.limit));
        }),
      { detail: { hide: true } },
    )
    .get(
      "/api/me/payouts",
      ({ request, query, set }) =>
        privately(() => {
          set.headers["cache-control"] = CACHE.private;
          const session = requireSession(ctx, request);
          const q = query as Record<string, string | undefined>;
          const beforeId = parsePayoutCursor(q.cursor ?? "");
          return payoutsPage(ctx.db, session.idpUserId, beforeId, pageLimit(q.limit));
        }),
      { detail: { hide: true } },
    )
    .post(
      "/api/claim",
      ({ request, body, set }) =>
        privately(async () => {
          set.headers["cache-control"] = CACHE.private;
          assertSameSite(request, ctx.config);
          const session = requireSession(ctx, request);
          const input = jsonObject(request, body);
          if (input.wallet === undefined || input.wallet === null) throw badRequest("Name the wallet to pay.");
          parseWalletAddress(input.wallet);
          const lamports = parseLamports(input.lamports);
          if (getClaimsPaused(ctx.db)) throw unavailable(CLAIMS_PAUSED);
          const min = getMinClaimLamports(ctx.db, ctx.config);
          const idpUserId = session.idpUserId;

          // Cheap refusals before the chain is asked; queuePayout decides again atomically.
          if (hasLivePayout(ctx, idpUserId)) throw conflict(IN_FLIGHT);
          const refusal = amountRefusal(balanceOf(ctx.db, accounts.user(idpUserId)), lamports, min);
          if (refusal) throw badRequest(refusal);

          const wallet = await checkPayoutWallet(ctx, input.wallet);
          try {
            const queued = queuePayout(
              ctx.db,
              { idpUserId, lamports, wallet, kind: "claim", minLamports: min, atMs: ctx.now() },
              // A pause that lands while the wallet was being checked still stops this claim.
              () => {
                if (getClaimsPaused(ctx.db)) throw new ClaimsPausedError();
              },
            );
            return { payoutId: queued.payoutId, lamports: queued.lamports.toString(), status: "queued" as const };
          } catch (error) {
            if (isAppError(error, "PAYOUT_IN_FLIGHT")) throw conflict(IN_FLIGHT);
            if (error instanceof ClaimsPausedError) throw unavailable(CLAIMS_PAUSED);
            if (isAppError(error, "INSUFFICIENT_BALANCE")) {
              const again = amountRefusal(balanceOf(ctx.db, accounts.user(idpUserId)), lamports, min);
              throw badRequest(again ?? "The amount is not available to claim.");
            }
            throw error;
          }
        }),
      { parse: "text", detail: { hide: true } },
    )
    .post(
      "/api/routing",
      ({ request, body, set }) =>
        privately(async () => {
          set.headers["cache-control"] = CACHE.private;
          assertSameSite(request, ctx.config);
          const session = requireSession(ctx, request);
          const input = jsonObject(request, body);
          const routing = input.routing;
          if (typeof routing !== "string" || !ROUTINGS.includes(routing as Routing)) {
            throw badRequest("The routing must be hold, autopay or burn.");
          }
          if (input.declined !== undefined && typeof input.declined !== "boolean") {
            throw badRequest("declined must be true or false.");
          }
          const declined = input.declined === true;
          if (declined && routing !== "burn") throw badRequest("Declining publicly needs the burn routing.");
          if (input.wallet !== undefined && input.wallet !== null) parseWalletAddress(input.wallet);

          const saved = ctx.db.$client
            .query("SELECT payout_wallet AS payoutWallet FROM identities WHERE idp_user_id = ?")
            .get(session.idpUserId) as { payoutWallet: string | null } | null;
          const wallet = input.wallet === undefined ? (saved?.payoutWallet ?? null) : (input.wallet as string | null);
          if (routing === "autopay" && wallet === null) throw badRequest("Autopay needs a wallet to pay.");
          if (getClaimsPaused(ctx.db))
            throw unavailable("Payouts are paused for now; routing cannot change. Try again later.");

          const payoutWallet = typeof input.wallet === "string" ? await checkPayoutWallet(ctx, input.wallet) : wallet;
          setRouting(ctx.db, session.idpUserId, { routing: routing as Routing, payoutWallet, declined });
          return { ok: true as const, routing, payoutWallet, declined };
        }),
      { parse: "text", detail: { hide: true } },
    );
}
