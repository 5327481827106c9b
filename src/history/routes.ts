/**
 * History routes: a token's fees per day, solvency over time, an account's pin and rename history
 * (public reads, in the OpenAPI document), and the signed-in account's CSV statement.
 */
import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { privately, requireSession } from "../auth";
import { CACHE } from "../http/cache";
import { AppError } from "../lib/errors";
import { HandleParams, integerQuery, MintParams } from "../http/params";
import { errors, handleKey, looksLikeAddress } from "../http/public-schemas";
import { jsonBody, readMemo } from "../http/read-memo";
import { exportCsvStream } from "./export";
import { handleHistory, proofHistory, tokenHistory } from "./queries";
import { HandleHistorySchema, ProofHistorySchema, TokenHistorySchema } from "./schemas";

const TOKEN_HISTORY_DAYS_DEFAULT = 90;
const PROOF_HISTORY_DAYS_DEFAULT = 30;
const HISTORY_DAYS_MAX = 365;

const historyDays = (fallback: number) =>
  integerQuery("days", { minimum: 1, maximum: HISTORY_DAYS_MAX, default: fallback }, "UTC days back");
const TOKEN_DAYS = historyDays(TOKEN_HISTORY_DAYS_DEFAULT);
const PROOF_DAYS = historyDays(PROOF_HISTORY_DAYS_DEFAULT);

/** A fresh object per route: the OpenAPI plugin may annotate what it is given. */
const publicDetail = (summary: string, description: string) => ({ tags: ["public"], summary, description });

export function historyRoutes(ctx: AppContext) {
  const memo = readMemo(ctx.db);
  // The window moves with the clock even when nothing is written: part of the memo key.
  const minute = () => Math.floor(ctx.now() / 60_000);
  return new Elysia({ name: "history" })
    .get(
      "/api/tokens/:mint/history",
      ({ params, query, set }) => {
        set.headers["cache-control"] = CACHE.publicRead;
        if (!looksLikeAddress(params.mint)) throw new AppError("MINT_INVALID");
        const days = TOKEN_DAYS.parse(query.days);
        const key = `token-history\u0000${params.mint}\u0000${days}\u0000${minute()}`;
        const hit = memo.get(key);
        if (hit) return jsonBody(hit.body, set);
        const version = memo.version();
        const points = tokenHistory(ctx.db, params.mint, days, ctx.now());
        if (!points) throw new AppError("MINT_NOT_LAUNCHED");
        const body = JSON.stringify({ points });
        return jsonBody(memo.set(key, version, body), set);
      },
      {
        params: MintParams,
        query: t.Object({ days: TOKEN_DAYS.schema }),
        response: { 200: TokenHistorySchema, ...errors(400, 404, 429) },
        detail: publicDetail("A token's swept fees per UTC day", "Hidden tokens answer too."),
      },
    )
    .get(
      "/api/proof/history",
      ({ query, set }) => {
        set.headers["cache-control"] = CACHE.proof;
        const days = PROOF_DAYS.parse(query.days);
        const key = `proof-history\u0000${days}\u0000${minute()}`;
        const hit = memo.get(key);
        if (hit) return jsonBody(hit.body, set);
        const version = memo.version();
        const body = JSON.stringify({ points: proofHistory(ctx.db, days, ctx.now()) });
        return jsonBody(memo.set(key, version, body), set);
      },
      {
        query: t.Object({ days: PROOF_DAYS.schema }),
        response: { 200: ProofHistorySchema, ...errors(400, 429) },
        detail: publicDetail(
          "Solvency over time",
          "Snapshots taken after every sweep and payout run and at least hourly; kept one year.",
        ),
      },
    )
    .get(
      "/api/idp/:handle/history",
      ({ params, set }) => {
        set.headers["cache-control"] = CACHE.publicRead;
        const handle = handleKey(params.handle);
        if (!handle) throw new AppError("HANDLE_INVALID");
        const entries = handleHistory(ctx.db, handle);
        if (!entries) throw new AppError("HANDLE_NOT_NAMED");
        return jsonBody(JSON.stringify({ entries }), set);
      },
      {
        params: HandleParams,
        response: { 200: HandleHistorySchema, ...errors(400, 404, 429) },
        detail: { tags: ["public"], summary: "An account's pin and rename history" },
      },
    )
    .get(
      "/api/me/export.csv",
      ({ request, set }) =>
        privately(() => {
          set.headers["cache-control"] = CACHE.private;
          const session = requireSession(ctx, request);
          const day = new Date(ctx.now()).toISOString().slice(0, 10);
          return new Response(exportCsvStream(ctx.db, session.idpUserId), {
            headers: {
              ...(set.headers as Record<string, string>),
              "content-type": "text/csv; charset=utf-8; header=present",
              "content-disposition": `attachment; filename="fee-ledger-${day}.csv"`,
              "cache-control": CACHE.private,
            },
          });
        }),
      { detail: { hide: true } },
    );
}
