/**
 * The operator's custody controls (src/custody): incidents and the halted state, resume with a
 * reason, held payouts approved or refused, and platform withdrawals to PLATFORM_WALLET. Same
 * credential as every admin route (the bearer or the /admin page's session), each action audited in
 * the write that makes it, with a required reason where money moves on the operator's word.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import {
  listIncidents,
  listWithdrawals,
  moneyHalt,
  requestWithdrawal,
  resumeMoney,
  waitingOutflow,
  withdrawableLamports,
  type Incident,
  type ReleasedRows,
  type Withdrawal,
} from "../custody";
import { approveHeldPayout, heldPayouts, refuseHeldPayout } from "../payouts";
import { latestReconciliation, type Reconciliation } from "../reconcile";
import { owedForReserves } from "../proof";
import { immediate } from "../../db/transaction";
import { CACHE } from "../http/cache";
import { AppError, isAppError } from "../lib/errors";
import { type AdminOrigin, adminGuard, adminOriginOf } from "./authorized";
import { audit } from "./service";

const MAX_REASON_CHARS = 500;

function objectBody(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null || body === "") return {};
  if (typeof body !== "object" || Array.isArray(body)) throw new AppError("BODY_NOT_OBJECT");
  return body as Record<string, unknown>;
}

function requiredReason(body: Record<string, unknown>): string {
  const reason = body.reason;
  if (typeof reason !== "string" || reason.trim() === "") throw new AppError("REASON_REQUIRED");
  if (reason.length > MAX_REASON_CHARS) throw new AppError("REASON_TOO_LONG", { maximum: MAX_REASON_CHARS });
  return reason.trim();
}

function optionalReason(body: Record<string, unknown>): string | null {
  if (body.reason === undefined || body.reason === null) return null;
  return requiredReason(body);
}

function payoutIdOf(raw: string): number {
  if (!/^[1-9]\d{0,15}$/.test(raw)) throw new AppError("PAYOUT_ID_INVALID");
  return Number(raw);
}

function reconciliationJson(r: Reconciliation) {
  return {
    status: r.status,
    reason: r.reason,
    scanned: r.scanned,
    total: r.total,
    applied: r.applied,
    unknown: r.unknown,
    startedAt: new Date(r.startedAtMs).toISOString(),
    finishedAt: r.finishedAtMs === null ? null : new Date(r.finishedAtMs).toISOString(),
  };
}

function incidentJson(i: Incident) {
  return {
    id: i.id,
    kind: i.kind,
    detail: i.detail,
    halts: i.halts,
    at: new Date(i.atMs).toISOString(),
    resolvedAt: i.resolvedAtMs === null ? null : new Date(i.resolvedAtMs).toISOString(),
    resolvedBy: i.resolvedBy,
    resolveReason: i.resolveReason,
  };
}

function withdrawalJson(w: Withdrawal) {
  return {
    id: w.id,
    lamports: w.lamports.toString(),
    wallet: w.wallet,
    reason: w.reason,
    actor: w.actor,
    status: w.status,
    signature: w.signature,
    error: w.error,
    createdAt: new Date(w.createdAtMs).toISOString(),
    confirmedAt: w.confirmedAtMs === null ? null : new Date(w.confirmedAtMs).toISOString(),
  };
}

async function treasuryLamports(ctx: AppContext): Promise<bigint> {
  const chain = ctx.chain;
  const unavailable = () => new AppError("TREASURY_UNREADABLE");
  if (!chain) throw unavailable();
  const address = chain.treasury.publicKey.toBase58();
  const balance = (await chain.reader.getBalances([address]).catch(() => null))?.get(address);
  if (typeof balance !== "bigint") throw unavailable();
  return balance;
}

/**
 * A held payout approved (a reason optional) or refused (a reason required: the amount goes back
 * to its user's balance), audited in the same write.
 */
function decideHeldPayout(
  ctx: AppContext,
  request: Request,
  body: unknown,
  rawId: string,
  action: "approve_payout" | "refuse_payout",
) {
  const id = payoutIdOf(rawId);
  const input = objectBody(body);
  const reason = action === "approve_payout" ? optionalReason(input) : requiredReason(input);
  const origin = adminOriginOf(ctx, request);
  const nowMs = ctx.now();
  immediate(ctx.db, () => {
    const decided =
      action === "approve_payout"
        ? approveHeldPayout(ctx.db, id, nowMs)
        : refuseHeldPayout(ctx.db, id, reason as string, nowMs);
    if (!decided) throw new AppError("PAYOUT_NOT_HELD");
    audit(ctx.db, { ...origin, reason, nowMs }, action, String(id));
  });
  return { ok: true, action, payoutId: id };
}

const ID_LISTS = ["payoutIds", "withdrawalIds", "burnOrderIds"] as const;
const MAX_LISTED_IDS = 100_000;

/** The rows a resume names, or null when it names none (a body with the reason alone). */
function listedIds(body: Record<string, unknown>): Record<(typeof ID_LISTS)[number], number[]> | null {
  if (ID_LISTS.every((key) => body[key] === undefined || body[key] === null)) return null;
  const lists = {} as Record<(typeof ID_LISTS)[number], number[]>;
  for (const key of ID_LISTS) {
    const raw = body[key] ?? [];
    const valid =
      Array.isArray(raw) && raw.length <= MAX_LISTED_IDS && raw.every((id) => Number.isSafeInteger(id) && id > 0);
    if (!valid) throw new AppError("RESUME_IDS_INVALID");
    lists[key] = [...new Set(raw as number[])].sort((a, b) => a - b);
  }
  return lists;
}

const countsOf = (p: number, w: number, b: number) => `${p} payout(s), ${w} withdrawal(s), ${b} burn order(s)`;

/** The audit's account of a resume: each released row by id and amount, so the row says what left on whose word. */
function releasedSubject(resolved: number, release: ReleasedRows, totalLamports: bigint): string {
  const list = (kind: string, rows: readonly { id: number; lamports: bigint }[]) =>
    `${kind} [${rows.map((r) => `#${r.id} ${r.lamports}`).join(", ")}]`;
  return `${resolved} incident(s); released ${list("payouts", release.payouts)}, ${list("withdrawals", release.withdrawals)}, ${list("burn orders", release.burnOrders)}; ${totalLamports} lamports`;
}

/**
 * The rows the resume releases: exactly what waits now, which must be what the operator was shown
 * when they name it (a row queued or sent since is a different decision: 409, nothing changes).
 */
function releaseOf(waiting: ReturnType<typeof waitingOutflow>, listed: ReturnType<typeof listedIds>): ReleasedRows {
  if (listed === null) return waiting;
  const same = (rows: readonly { id: number }[], ids: readonly number[]) =>
    rows.length === ids.length && rows.every((r, i) => r.id === ids[i]);
  const sorted = (rows: readonly { id: number }[]) => [...rows].sort((a, b) => a.id - b.id);
  if (
    !same(sorted(waiting.payouts), listed.payoutIds) ||
    !same(sorted(waiting.withdrawals), listed.withdrawalIds) ||
    !same(sorted(waiting.burnOrders), listed.burnOrderIds)
  ) {
    throw new AppError("RESUME_WAITING_CHANGED", {
      expected: countsOf(waiting.payouts.length, waiting.withdrawals.length, waiting.burnOrders.length),
      given: countsOf(listed.payoutIds.length, listed.withdrawalIds.length, listed.burnOrderIds.length),
    });
  }
  return waiting;
}

/**
 * `POST /api/admin/resume`: every open halting incident resolved with the operator's reason, and the
 * rows that were waiting to leave released beyond the caps once. The /admin page names the rows it
 * listed (`payoutIds`, `withdrawalIds`, `burnOrderIds`); a body with the reason alone releases what
 * waits at that moment. Refused (409) with nothing halted and while the reconciliation holds money.
 */
function resume(ctx: AppContext, request: Request, body: unknown) {
  const input = objectBody(body);
  const reason = requiredReason(input);
  const listed = listedIds(input);
  const origin = adminOriginOf(ctx, request);
  const nowMs = ctx.now();
  return immediate(ctx.db, () => {
    const release = releaseOf(waitingOutflow(ctx.db), listed);
    const done = resumeMoney(ctx.db, { actor: origin.actor, reason, atMs: nowMs, release });
    audit(
      ctx.db,
      { ...origin, reason, nowMs },
      "resume_money",
      releasedSubject(done.resolved, release, done.releasedLamports),
    );
    return {
      ok: true,
      action: "resume_money",
      resolved: done.resolved,
      released: {
        payoutIds: release.payouts.map((r) => r.id),
        withdrawalIds: release.withdrawals.map((r) => r.id),
        burnOrderIds: release.burnOrders.map((r) => r.id),
        totalLamports: done.releasedLamports.toString(),
      },
    };
  });
}

/** What waits to leave while money is halted, row by row: what a resume would release. */
function waitingJson(waiting: ReturnType<typeof waitingOutflow>) {
  const rows = (list: readonly { id: number; lamports: bigint }[]) =>
    list.map((r) => ({ id: r.id, lamports: r.lamports.toString() }));
  return {
    payouts: rows(waiting.payouts),
    withdrawals: rows(waiting.withdrawals),
    burnOrders: rows(waiting.burnOrders),
    totalLamports: waiting.totalLamports.toString(),
  };
}

/** `GET /api/admin/withdrawals`: what may be withdrawn now (null when the treasury cannot be read) and the last withdrawals. */
async function withdrawalsView(ctx: AppContext) {
  const treasury = await treasuryLamports(ctx).catch(() => null);
  return {
    configured: ctx.config.custody.platformWallet !== null,
    withdrawableLamports:
      treasury === null
        ? null
        : withdrawableLamports(ctx.db, {
            treasuryLamports: treasury,
            owedLamports: owedForReserves(ctx.db),
            reserveLamports: ctx.config.custody.treasuryReserveLamports,
          }).toString(),
    withdrawals: listWithdrawals(ctx.db, 100).map(withdrawalJson),
  };
}

/**
 * A refused withdrawal is audited too (`withdraw_refused`): who asked for how much, why it was
 * refused, and their reason, in its own write (the refused one wrote nothing).
 */
function auditRefusedWithdrawal(ctx: AppContext, origin: AdminOrigin, body: unknown, error: unknown): void {
  if (!isAppError(error)) return;
  const input =
    body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const asked = typeof input.lamports === "string" && /^\d{1,19}$/.test(input.lamports) ? input.lamports : "?";
  const reason =
    typeof input.reason === "string" && input.reason.trim() !== ""
      ? input.reason.trim().slice(0, MAX_REASON_CHARS)
      : null;
  // The sentence the operator was answered; an internal failure by its code only.
  const why = error.kind === "internal" ? error.code : error.message;
  const nowMs = ctx.now();
  immediate(ctx.db, () => {
    audit(ctx.db, { ...origin, reason, nowMs }, "withdraw_refused", `${asked} lamports: ${why}`);
  });
}

/** `POST /api/admin/withdrawals`: a platform withdrawal to PLATFORM_WALLET, audited in the write that queues it, or as refused. */
async function withdraw(ctx: AppContext, request: Request, body: unknown) {
  const origin = adminOriginOf(ctx, request);
  try {
    return await queueWithdrawal(ctx, origin, body);
  } catch (error) {
    auditRefusedWithdrawal(ctx, origin, body, error);
    throw error;
  }
}

async function queueWithdrawal(ctx: AppContext, origin: AdminOrigin, body: unknown) {
  const input = objectBody(body);
  const wallet = ctx.config.custody.platformWallet;
  if (wallet === null) throw new AppError("WITHDRAWALS_NOT_CONFIGURED");
  const raw = input.lamports;
  if (typeof raw !== "string" || !/^[1-9]\d{0,18}$/.test(raw)) throw new AppError("LAMPORTS_NOT_DECIMAL");
  const reason = requiredReason(input);
  const treasury = await treasuryLamports(ctx);
  const nowMs = ctx.now();
  const withdrawal = requestWithdrawal(
    ctx.db,
    {
      lamports: BigInt(raw),
      reason,
      actor: origin.actor,
      wallet,
      treasuryLamports: treasury,
      owedLamports: () => owedForReserves(ctx.db),
      reserveLamports: ctx.config.custody.treasuryReserveLamports,
      atMs: nowMs,
    },
    (id) => audit(ctx.db, { ...origin, reason, nowMs }, "withdraw", `${id}: ${raw} lamports`),
  );
  return { ok: true, action: "withdraw", withdrawal: withdrawalJson(withdrawal) };
}

export function custodyRoutes(ctx: AppContext) {
  const guard = adminGuard(ctx);
  const hidden = { detail: { hide: true } };
  return new Elysia({ name: "admin-custody" })
    .onAfterHandle(({ set }) => {
      set.headers["cache-control"] = CACHE.noStore;
    })
    .get(
      "/api/admin/incidents",
      ({ request }) => {
        guard(request);
        const halt = moneyHalt(ctx.db);
        const reconciliation = latestReconciliation(ctx.db);
        return {
          halted: halt ? incidentJson(halt) : null,
          // While halted: the rows a resume releases, which the page sends back by id.
          waiting: halt ? waitingJson(waitingOutflow(ctx.db)) : null,
          incidents: listIncidents(ctx.db, 100).map(incidentJson),
          reconciliation: reconciliation ? reconciliationJson(reconciliation) : null,
        };
      },
      hidden,
    )
    .post(
      "/api/admin/resume",
      ({ request, body }) => {
        guard(request);
        return resume(ctx, request, body);
      },
      hidden,
    )
    .get(
      "/api/admin/payouts/held",
      ({ request }) => {
        guard(request);
        return {
          payouts: heldPayouts(ctx.db).map((p) => ({
            ...p,
            lamports: p.lamports.toString(),
            createdAt: new Date(p.createdAtMs).toISOString(),
          })),
        };
      },
      hidden,
    )
    .post(
      "/api/admin/payouts/:id/approve",
      ({ request, body, params }) => {
        guard(request);
        return decideHeldPayout(ctx, request, body, params.id, "approve_payout");
      },
      hidden,
    )
    .post(
      "/api/admin/payouts/:id/refuse",
      ({ request, body, params }) => {
        guard(request);
        return decideHeldPayout(ctx, request, body, params.id, "refuse_payout");
      },
      hidden,
    )
    .get(
      "/api/admin/withdrawals",
      async ({ request }) => {
        guard(request);
        return withdrawalsView(ctx);
      },
      hidden,
    )
    .post(
      "/api/admin/withdrawals",
      async ({ request, body }) => {
        guard(request);
        return withdraw(ctx, request, body);
      },
      hidden,
    );
}
