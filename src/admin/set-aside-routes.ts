/**
 * `GET /api/admin/set-aside` (admin auth: the bearer or the /admin page's session): tokens the money jobs set aside after repeated failures
 * (retried at `retryAt`) or stopped on a credit mismatch (`retryAt` null, waiting for an operator).
 * The shape is the contract the operator page reads (OTHERS.md).
 *
 * `POST /api/admin/set-aside/:mint/clear` (admin auth): the way back for such a token. A stopped
 * token is re-checked first: its sweep's transaction is read again and the sweep job's credit
 * cross-check applied; while it still disagrees nothing is cleared (409). Clearing credits
 * nothing by itself; it is audited like every admin action.
 */
import { PublicKey } from "@solana/web3.js";
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { CACHE } from "../http/cache";
import { clearSetAside, listSetAside, type SetAsideJob, setAsideStates } from "../jobs";
import { AppError } from "../lib/errors";
import { log } from "../lib/log";
import { recheckSweepCredit, sentSweepSignatures } from "../sweeps";
import { adminAuthorized, adminOriginOf } from "./authorized";
import { audit } from "./service";

const MAX_REASON = 500;
const CLEAR_SET_ASIDE_ACTION = "clear_set_aside";

export function setAsideRoutes(ctx: AppContext) {
  return new Elysia({ name: "admin-set-aside" })
    .get(
      "/api/admin/set-aside",
      ({ request, set }) => {
        if (!adminAuthorized(ctx, request)) throw new AppError("ROUTE_HIDDEN");
        set.headers["cache-control"] = CACHE.noStore;
        return { items: listSetAside(ctx.db) };
      },
      { detail: { hide: true } },
    )
    .post(
      "/api/admin/set-aside/:mint/clear",
      async ({ request, body, params, set }) => {
        if (!adminAuthorized(ctx, request)) throw new AppError("ROUTE_HIDDEN");
        set.headers["cache-control"] = CACHE.noStore;
        const input = parseClear(params.mint, body);
        const cleared = await clearToken(ctx, request, input);
        return { ok: true, action: CLEAR_SET_ASIDE_ACTION, mint: input.mint, cleared };
      },
      { detail: { hide: true } },
    );
}

interface ClearInput {
  mint: string;
  job: SetAsideJob | null;
  reason: string | null;
}

function parseClear(mint: string, body: unknown): ClearInput {
  let valid = false;
  try {
    valid = new PublicKey(mint).toBase58() === mint;
  } catch {
    valid = false;
  }
  if (!valid) throw new AppError("MINT_NOT_BASE58");
  if (body === undefined || body === null || body === "") return { mint, job: null, reason: null };
  if (typeof body !== "object" || Array.isArray(body)) throw new AppError("BODY_NOT_OBJECT");
  const { job, reason } = body as Record<string, unknown>;
  if (job !== undefined && job !== null && job !== "sweep" && job !== "burns")
    throw new AppError("SET_ASIDE_JOB_INVALID");
  if (reason !== undefined && reason !== null && typeof reason !== "string") throw new AppError("REASON_NOT_STRING");
  if (typeof reason === "string" && reason.length > MAX_REASON)
    throw new AppError("REASON_TOO_LONG", { maximum: MAX_REASON });
  return { mint, job: job ?? null, reason: reason ?? null };
}

/** Re-checks, then clears in one audited transaction. Returns the jobs cleared. */
async function clearToken(ctx: AppContext, request: Request, input: ClearInput): Promise<SetAsideJob[]> {
  const seen = setAsideStates(ctx.db, input.mint, input.job);
  if (seen.length === 0) throw new AppError("SET_ASIDE_NOT_FOUND");
  if (seen.some((s) => s.stopped)) await recheckStopped(ctx, input.mint);
  const who = { ...adminOriginOf(ctx, request), reason: input.reason, nowMs: ctx.now() };
  if (!clearSetAside(ctx.db, input.mint, seen, () => audit(ctx.db, who, CLEAR_SET_ASIDE_ACTION, input.mint)))
    throw new AppError("SET_ASIDE_CHANGED");
  return seen.map((s) => s.job);
}

/** The stop holds while the sweep's credit still disagrees with the chain: then nothing is cleared. */
async function recheckStopped(ctx: AppContext, mint: string): Promise<void> {
  const chain = ctx.chain;
  if (!chain) throw new AppError("SET_ASIDE_NO_CHAIN");
  for (const signature of sentSweepSignatures(ctx.db, mint)) {
    let result: Awaited<ReturnType<typeof recheckSweepCredit>>;
    try {
      result = await recheckSweepCredit(ctx.db, chain, signature, mint);
    } catch (error) {
      log.warn("set-aside clear: re-check read failed", { mint, error });
      throw new AppError("SET_ASIDE_CHAIN_UNREACHABLE", {}, { cause: error });
    }
    if (result.kind === "unreadable") throw new AppError("SET_ASIDE_SWEEP_UNREADABLE");
    if (result.kind === "disagrees") throw new AppError("SET_ASIDE_SWEEP_DISAGREES", { reason: result.reason });
  }
}
