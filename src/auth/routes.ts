/**
 * Sign-in routes: `GET /api/auth/idp/start`, `GET /api/auth/idp/callback`, `POST /api/auth/logout`
 * and, on a local chain with DEV_LOGIN, `POST /api/auth/dev-login`.
 */
import { generateCodeVerifier, generateState } from "arctic";
import { Elysia } from "elysia";
import { pinnedIdOf, signInWithProfile, type IdpProfile } from "../identity";
import type { AppContext } from "../context";
import { CACHE } from "../http/cache";
import { withResponseHeaders } from "../http/errors";
import { handleKey } from "../http/public-schemas";
import { AppError, isAppError } from "../lib/errors";
import { log } from "../lib/log";
import { appendSetCookie, cookiesSecure, readCookie, serializeCookie } from "./cookies";
import { jsonObject, privately } from "./guard";
import { createIdpClient, type IdpClient } from "./idp";
import { OAUTH_COOKIE, OAUTH_COOKIE_PATH, OAUTH_TTL_MS, OAuthStateStore, safeReturnTo } from "./oauth-state";
import { assertSameSite } from "./origin";
import {
  clearedSessionCookie,
  createSession,
  deleteExpiredSessions,
  deleteSessionToken,
  sessionCookie,
  sessionCookieName,
} from "./sessions";

type ResponseSet = { status?: unknown; headers: Record<string, unknown> };

/** Sign-in bookkeeping plus the session; a handle that changed hands may refuse it (409 or 503). */
async function completeSignIn(
  ctx: AppContext,
  request: Request,
  profile: IdpProfile,
  currentHandleOf: (idpUserId: string) => Promise<string | null>,
): Promise<{ token: string; expiresAtMs: number }> {
  const now = ctx.now();
  await signInWithProfile(ctx.db, profile, now, currentHandleOf);
  deleteExpiredSessions(ctx.db, now);
  // A sign-in replaces whatever session this browser had, so an old token cannot outlive it.
  const previous = readCookie(request, sessionCookieName(ctx.config));
  if (previous) deleteSessionToken(ctx.db, previous);
  const { token, session } = createSession(ctx.db, profile.idpUserId, now);
  return { token, expiresAtMs: session.expiresAtMs };
}

function oauthCookie(ctx: AppContext, value: string, maxAgeSec: number): string {
  return serializeCookie(OAUTH_COOKIE, value, {
    secure: cookiesSecure(ctx.config),
    path: OAUTH_COOKIE_PATH,
    maxAgeSec,
  });
}

function redirect(set: ResponseSet, location: string): string {
  set.status = 302;
  set.headers.location = location;
  return "";
}

/** The provider's half of the callback: the code for a profile, and a lookup of who holds a handle now. */
async function providerProfile(
  idp: IdpClient,
  code: string,
  codeVerifier: string,
): Promise<{ profile: IdpProfile; currentHandleOf: (idpUserId: string) => Promise<string | null> }> {
  try {
    const accessToken = await idp.exchangeCode(code, codeVerifier);
    const profile = await idp.me(accessToken);
    const currentHandleOf = async (idpUserId: string) => {
      const found = await idp.userById(accessToken, idpUserId);
      return found.kind === "found" ? found.profile.displayHandle : null;
    };
    return { profile, currentHandleOf };
  } catch (error) {
    if (isAppError(error, "IDP_UNAVAILABLE")) {
      log.warn("identity provider failed during sign-in", { reason: error.context.reason });
    }
    throw error;
  }
}

/** What the two halves of the provider round trip share. */
interface SignInFlow {
  ctx: AppContext;
  idp: IdpClient | null;
  states: OAuthStateStore;
}

/** `GET /api/auth/idp/start`: the round-trip cookie, then off to the provider. */
function startSignIn(flow: SignInFlow, query: Record<string, string | undefined>, set: ResponseSet): string {
  const { ctx, idp, states } = flow;
  if (!idp) throw new AppError("IDP_NOT_SET_UP");
  const returnTo = safeReturnTo(query.returnTo, ctx.config.publicUrl);
  if (returnTo === null) throw new AppError("RETURN_TO_INVALID");
  const state = generateState();
  const codeVerifier = generateCodeVerifier();
  const sealed = states.seal({ state, codeVerifier, returnTo, issuedAtMs: ctx.now() });
  appendSetCookie(set.headers, oauthCookie(ctx, sealed, OAUTH_TTL_MS / 1000));
  return redirect(set, idp.authorizationUrl(state, codeVerifier).toString());
}

/** The callback proper; its refusals are re-thrown by the route with the round-trip cookie cleared. */
async function finishSignIn(
  flow: SignInFlow,
  query: Record<string, string | undefined>,
  request: Request,
  set: ResponseSet,
): Promise<string> {
  const { ctx, idp, states } = flow;
  if (!idp) throw new AppError("IDP_NOT_SET_UP");
  const checked = states.open(readCookie(request, OAUTH_COOKIE), query.state ?? null, ctx.now());
  if (!checked.ok) {
    throw checked.reason === "expired"
      ? new AppError("SIGN_IN_EXPIRED")
      : new AppError("SIGN_IN_UNVERIFIED", { reason: checked.reason });
  }
  const { codeVerifier, returnTo } = checked.trip;
  // Consent refused at the provider: back to where the user was, still signed out.
  if (query.error !== undefined || !query.code) return redirect(set, `${ctx.config.publicUrl}${returnTo}`);
  const { profile, currentHandleOf } = await providerProfile(idp, query.code, codeVerifier);
  const { token, expiresAtMs } = await completeSignIn(ctx, request, profile, currentHandleOf);
  appendSetCookie(set.headers, sessionCookie(ctx.config, token, expiresAtMs, ctx.now()));
  return redirect(set, `${ctx.config.publicUrl}${returnTo}`);
}

/** `POST /api/auth/dev-login`: on a local chain with DEV_LOGIN, a sign-in by handle alone. */
async function devLogin(ctx: AppContext, request: Request, body: unknown, set: ResponseSet) {
  if (!ctx.config.devLogin || ctx.config.chain !== "local") throw new AppError("DEV_LOGIN_OFF");
  set.headers["cache-control"] = CACHE.private;
  assertSameSite(request, ctx.config);
  const input = jsonObject(request, body);
  const handle = typeof input.handle === "string" ? handleKey(input.handle) : null;
  if (!handle || typeof input.handle !== "string") {
    throw new AppError("HANDLE_INVALID");
  }
  const display = input.handle.replace(/^@/, "");
  // Dev login signs in as whoever the handle is pinned to, so a local account keeps its money.
  const idpUserId = pinnedIdOf(ctx.db, handle) ?? `dev-${handle}`;
  const profile: IdpProfile = { idpUserId, displayHandle: display, name: display, avatarUrl: "", followers: 0 };
  const { token, expiresAtMs } = await completeSignIn(ctx, request, profile, async () => null);
  appendSetCookie(set.headers, sessionCookie(ctx.config, token, expiresAtMs, ctx.now()));
  return { ok: true as const, idpUserId, handle };
}

export function authRoutes(ctx: AppContext, options: { idp?: IdpClient | null } = {}) {
  const idp = options.idp === undefined ? createIdpClient(ctx.config) : options.idp;
  const flow: SignInFlow = { ctx, idp, states: new OAuthStateStore() };

  return new Elysia({ name: "auth" })
    .get(
      "/api/auth/idp/start",
      ({ query, set }) => {
        set.headers["cache-control"] = CACHE.noStore;
        return startSignIn(flow, query, set);
      },
      { detail: { hide: true } },
    )
    .get(
      "/api/auth/idp/callback",
      async ({ query, request, set }) => {
        set.headers["cache-control"] = CACHE.noStore;
        // The round-trip cookie is single use whatever happens next, refusals included.
        const cleared = oauthCookie(ctx, "", 0);
        appendSetCookie(set.headers, cleared);
        try {
          return await finishSignIn(flow, query, request, set);
        } catch (error) {
          throw withResponseHeaders(error, { "set-cookie": cleared });
        }
      },
      { detail: { hide: true } },
    )
    .post(
      "/api/auth/logout",
      ({ request, set }) =>
        privately(() => {
          set.headers["cache-control"] = CACHE.private;
          assertSameSite(request, ctx.config);
          const token = readCookie(request, sessionCookieName(ctx.config));
          if (token) deleteSessionToken(ctx.db, token);
          appendSetCookie(set.headers, clearedSessionCookie(ctx.config));
          return { ok: true as const };
        }),
      { detail: { hide: true } },
    )
    .post("/api/auth/dev-login", ({ request, body, set }) => privately(() => devLogin(ctx, request, body, set)), {
      parse: "text",
      detail: { hide: true },
    });
}
