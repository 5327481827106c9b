/**
 * The signed-in account routes: `GET /api/me` (and the pages of its tokens and payouts),
 * `POST /api/claim`, `POST /api/routing`. The account always comes from the session cookie; no
 * body field names a user id or a handle.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { appendSetCookie, readCookie } from "../auth";
import { jsonObject, privately, requireSession } from "../auth";
import { assertSameSite } from "../auth";
import { clearedSessionCookie, sessionCookieName, sessionFromRequest } from "../auth";
import { CACHE } from "../http/cache";
import { changeRouting, claim } from "./actions";
import { meOf, signedOut } from "./me";
import { pageLimit, parsePayoutCursor, parseTokenCursor } from "./pages";
import { accountTokensPage, payoutsPage } from "./record";

export interface AccountRouteHooks {
  /** after a claim is queued: the composition root starts the payouts run that sends it */
  claimQueued?: () => void;
}

export function accountRoutes(ctx: AppContext, hooks: AccountRouteHooks = {}) {
  /** A state-changing session route: same site, signed in, a JSON object body. */
  const signedInWrite = (request: Request, body: unknown) => {
    assertSameSite(request, ctx.config);
    const session = requireSession(ctx, request);
    return { idpUserId: session.idpUserId, input: jsonObject(request, body) };
  };
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
          const after = parseTokenCursor(query.cursor ?? "");
          const owner = { idpUserId: session.idpUserId, handle: "" };
          return accountTokensPage(ctx.db, owner, after, pageLimit(query.limit));
        }),
      { detail: { hide: true } },
    )
    .get(
      "/api/me/payouts",
      ({ request, query, set }) =>
        privately(() => {
          set.headers["cache-control"] = CACHE.private;
          const session = requireSession(ctx, request);
          const beforeId = parsePayoutCursor(query.cursor ?? "");
          return payoutsPage(ctx.db, session.idpUserId, beforeId, pageLimit(query.limit));
        }),
      { detail: { hide: true } },
    )
    .post(
      "/api/claim",
      ({ request, body, set }) =>
        privately(() => {
          set.headers["cache-control"] = CACHE.private;
          const { idpUserId, input } = signedInWrite(request, body);
          return claim(ctx, idpUserId, input).then((queued) => {
            hooks.claimQueued?.();
            return queued;
          });
        }),
      { parse: "text", detail: { hide: true } },
    )
    .post(
      "/api/routing",
      ({ request, body, set }) =>
        privately(() => {
          set.headers["cache-control"] = CACHE.private;
          const { idpUserId, input } = signedInWrite(request, body);
          return changeRouting(ctx, idpUserId, input);
        }),
      { parse: "text", detail: { hide: true } },
    );
}
