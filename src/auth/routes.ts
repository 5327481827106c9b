/**
 * Sign-in routes: `GET /api/auth/idp/start`, `GET /api/auth/idp/callback`, `POST /api/auth/logout`
 * and, on a local chain with DEV_LOGIN, `POST /api/auth/dev-login`.
 */
import { generateCodeVerifier, generateState } from "arctic";
import { Elysia } from "elysia";
import {
  HandleHeldElsewhereError,
  HandleOwnerUnknownError,
  pinnedIdOf,
  signInWithProfile,
  type IdpProfile,
} from "../identity";
import type { AppContext } from "../context";
import { CACHE } from "../http/cache";
import { badGateway, badRequest, conflict, HttpError, notFound, unavailable } from "../http/errors";
import { handleKey } from "../http/public-schemas";
import { log } from "../lib/log";
import { appendSetCookie, cookiesSecure, readCookie, serializeCookie } from "./cookies";
import { jsonObject, privately } from "./guard";
import { createIdpClient, IdpGrantError, IdpUnavailableError, type IdpClient } from "./idp";
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

const HELD_ELSEWHERE =
  "This handle is still pinned to the account that held it before; sign in with the account that holds it now.";
const OWNER_UNKNOWN =
  "The identity provider could not be asked who holds this handle now; nothing was changed. Try again later.";

/** Sign-in bookkeeping plus the session; the changed-hands refusals become 409 and 503. */
async function completeSignIn(
  ctx: AppContext,
  request: Request,
  profile: IdpProfile,
  currentHandleOf: (idpUserId: string) => Promise<string | null>,
): Promise<{ token: string; expiresAtMs: number }> {
  const now = ctx.now();
  try {
    await signInWithProfile(ctx.db, profile, now, currentHandleOf);
  } catch (error) {
    if (error instanceof HandleHeldElsewhereError) throw conflict(HELD_ELSEWHERE);
    if (error instanceof HandleOwnerUnknownError) throw unavailable(OWNER_UNKNOWN);
    throw error;
  }
  deleteExpiredSessions(ctx.db, now);
  // A sign-in replaces whatever session this browser had, so an old token cannot outlive it.
  const previous = readCookie(request, sessionCookieName(ctx.config));
  if (previous) deleteSessionToken(ctx.db, previous);
  const { token, session } = createSession(ctx.db, profile.idpUserId, now);
  return { token, expiresAtMs: session.expiresAtMs };
}

function clearedOAuthCookie(ctx: AppContext): string {
  return serializeCookie(OAUTH_COOKIE, "", {
    secure: cookiesSecure(ctx.config),
    path: OAUTH_COOKIE_PATH,
    maxAgeSec: 0,
  });
}

export function authRoutes(ctx: AppContext, options: { idp?: IdpClient | null } = {}) {
  const idp = options.idp === undefined ? createIdpClient(ctx.config) : options.idp;
  const states = new OAuthStateStore();

  /** The callback proper; its refusals are re-thrown by the route with the round-trip cookie cleared. */
  async function callback(
    query: Record<string, string | undefined>,
    request: Request,
    set: { status?: unknown; headers: Record<string, unknown> },
  ): Promise<string> {
    if (!idp) throw unavailable("Sign-in with the identity provider is not set up on this deployment.");
    const checked = states.open(readCookie(request, OAUTH_COOKIE), query.state ?? null, ctx.now());
    if (!checked.ok) {
      throw badRequest(
        checked.reason === "expired"
          ? "The sign-in took too long; start again."
          : "The sign-in could not be verified; start again from this site.",
      );
    }
    const { codeVerifier, returnTo } = checked.trip;
    if (query.error !== undefined || !query.code) {
      // Consent refused at the provider: back to where the user was, still signed out.
      set.status = 302;
      set.headers["location"] = `${ctx.config.publicUrl}${returnTo}`;
      return "";
    }
    let accessToken: string;
    let profile: IdpProfile;
    try {
      accessToken = await idp.exchangeCode(query.code, codeVerifier);
      profile = await idp.me(accessToken);
    } catch (error) {
      if (error instanceof IdpGrantError) throw badRequest("The identity provider refused the sign-in; start again.");
      if (error instanceof IdpUnavailableError) {
        log.warn("identity provider failed during sign-in", { reason: error.message });
        throw badGateway("The identity provider did not answer properly; try again later.");
      }
      throw error;
    }
    const lookup = async (idpUserId: string) => {
      const found = await idp.userById(accessToken, idpUserId);
      return found.kind === "found" ? found.profile.displayHandle : null;
    };
    const { token, expiresAtMs } = await completeSignIn(ctx, request, profile, lookup);
    appendSetCookie(set.headers, sessionCookie(ctx.config, token, expiresAtMs, ctx.now()));
    set.status = 302;
    set.headers["location"] = `${ctx.config.publicUrl}${returnTo}`;
    return "";
  }

  return new Elysia({ name: "auth" })
    .get(
      "/api/auth/idp/start",
      ({ query, set }) => {
        set.headers["cache-control"] = CACHE.noStore;
        if (!idp) throw unavailable("Sign-in with the identity provider is not set up on this deployment.");
        const returnTo = safeReturnTo(query.returnTo, ctx.config.publicUrl);
        if (returnTo === null) throw badRequest("returnTo must be a path on this site.");
        const state = generateState();
        const codeVerifier = generateCodeVerifier();
        const sealed = states.seal({ state, codeVerifier, returnTo, issuedAtMs: ctx.now() });
        appendSetCookie(
          set.headers,
          serializeCookie(OAUTH_COOKIE, sealed, {
            secure: cookiesSecure(ctx.config),
            path: OAUTH_COOKIE_PATH,
            maxAgeSec: OAUTH_TTL_MS / 1000,
          }),
        );
        set.status = 302;
        set.headers["location"] = idp.authorizationUrl(state, codeVerifier).toString();
        return "";
      },
      { detail: { hide: true } },
    )
    .get(
      "/api/auth/idp/callback",
      async ({ query, request, set }) => {
        set.headers["cache-control"] = CACHE.noStore;
        // The round-trip cookie is single use whatever happens next, refusals included.
        const cleared = clearedOAuthCookie(ctx);
        appendSetCookie(set.headers, cleared);
        try {
          return await callback(query, request, set);
        } catch (error) {
          if (error instanceof HttpError) {
            throw new HttpError(error.status, error.message, { ...error.headers, "set-cookie": cleared });
          }
          throw error;
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
    .post(
      "/api/auth/dev-login",
      ({ request, body, set }) =>
        privately(async () => {
          if (!ctx.config.devLogin || ctx.config.chain !== "local") throw notFound("No such route.");
          set.headers["cache-control"] = CACHE.private;
          assertSameSite(request, ctx.config);
          const input = jsonObject(request, body);
          const handle = typeof input.handle === "string" ? handleKey(input.handle) : null;
          if (!handle) throw badRequest("The handle must be 1 to 15 letters, digits or underscores.");
          const display = (input.handle as string).replace(/^@/, "");
          // Dev login signs in as whoever the handle is pinned to, so a local account keeps its money.
          const idpUserId = pinnedIdOf(ctx.db, handle) ?? `dev-${handle}`;
          const profile: IdpProfile = { idpUserId, displayHandle: display, name: display, avatarUrl: "", followers: 0 };
          const { token, expiresAtMs } = await completeSignIn(ctx, request, profile, async () => null);
          appendSetCookie(set.headers, sessionCookie(ctx.config, token, expiresAtMs, ctx.now()));
          return { ok: true as const, idpUserId, handle };
        }),
      { parse: "text", detail: { hide: true } },
    );
}
