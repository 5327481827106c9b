/**
 * The identity provider (X) over OAuth 2.0 authorization code with PKCE S256, through arctic's
 * generic OAuth2Client: arctic's `Twitter` class hard-codes x.com's endpoints, and the endpoints
 * here are configuration so tests can point them at a local fake provider.
 *
 * Nothing from the provider (tokens, URLs, bodies) is put in an error: the sentence is the one the
 * user reads, and `context.reason` (for the log) says only which step failed.
 */
import { ArcticFetchError, CodeChallengeMethod, OAuth2Client, OAuth2RequestError } from "arctic";
import type { Config } from "../config";
import type { IdpProfile } from "../identity";
import { AppError, isAppError } from "../lib/errors";

/** Read the user profile and read posts (X needs tweet.read beside users.read for /users/me). */
const IDP_SCOPES = ["users.read", "tweet.read"];
const CALLBACK_PATH = "/api/auth/idp/callback";
const TIMEOUT_MS = 10_000;

/** The provider could not be reached or answered with something unusable: retry later (502). */
function idpUnavailable(reason: string, cause?: unknown): AppError<"IDP_UNAVAILABLE"> {
  return new AppError("IDP_UNAVAILABLE", { reason }, { cause });
}

/** The provider refused the code (reused, expired, or the verifier does not match the challenge). */
function idpGrantRefused(cause: unknown): AppError<"IDP_GRANT_REFUSED"> {
  return new AppError("IDP_GRANT_REFUSED", { reason: "the provider refused the authorization code" }, { cause });
}

/** Who holds an id now: its current profile, or `gone` when the account no longer exists. */
type IdpUserLookup = { kind: "found"; profile: IdpProfile } | { kind: "gone" };

export interface IdpClient {
  authorizationUrl(state: string, codeVerifier: string): URL;
  /** Exchanges the code for an access token (kept in memory for this sign-in only). */
  exchangeCode(code: string, codeVerifier: string): Promise<string>;
  me(accessToken: string): Promise<IdpProfile>;
  userById(accessToken: string, idpUserId: string): Promise<IdpUserLookup>;
}

export function idpConfigured(config: Config): boolean {
  return config.idp.clientId !== null;
}

const USERNAME = /^[A-Za-z0-9_]{1,15}$/;
const USER_FIELDS = "user.fields=profile_image_url,public_metrics";

interface XUser {
  id?: unknown;
  username?: unknown;
  name?: unknown;
  profile_image_url?: unknown;
  public_metrics?: { followers_count?: unknown };
}

/** The parts of an X API answer read here; anything may be missing or of another type. */
interface XAnswer {
  data?: XUser;
  errors?: unknown;
}

function asAnswer(body: unknown): XAnswer {
  return typeof body === "object" && body !== null ? body : {};
}

export function toProfile(user: XUser | undefined): IdpProfile {
  if (!user || typeof user.id !== "string" || !/^\d{1,25}$/.test(user.id)) {
    throw idpUnavailable("the provider's user has no usable id");
  }
  if (typeof user.username !== "string" || !USERNAME.test(user.username)) {
    throw idpUnavailable("the provider's user has no usable username");
  }
  const followers = user.public_metrics?.followers_count;
  return {
    idpUserId: user.id,
    displayHandle: user.username,
    name: typeof user.name === "string" && user.name.trim() !== "" ? user.name.slice(0, 100) : user.username,
    avatarUrl:
      typeof user.profile_image_url === "string" && /^https?:\/\//.test(user.profile_image_url)
        ? user.profile_image_url.slice(0, 500)
        : "",
    followers: typeof followers === "number" && Number.isSafeInteger(followers) && followers >= 0 ? followers : 0,
  };
}

async function withTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(idpUnavailable("the provider did not answer in time")), TIMEOUT_MS);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function createIdpClient(config: Config): IdpClient | null {
  const { clientId, clientSecret, authorizeUrl, tokenUrl, apiUrl } = config.idp;
  if (!clientId) return null;
  // A confidential client (secret set) authenticates with Basic auth; a public one sends client_id.
  const client = new OAuth2Client(clientId, clientSecret, `${config.publicUrl}${CALLBACK_PATH}`);

  async function getJson(accessToken: string, path: string): Promise<{ status: number; body: XAnswer }> {
    let response: Response;
    try {
      response = await fetch(`${apiUrl}${path}`, {
        headers: { authorization: `Bearer ${accessToken}`, accept: "application/json" },
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      throw idpUnavailable("the provider could not be reached", error);
    }
    let body: unknown = null;
    try {
      body = await response.json();
    } catch {
      body = null;
    }
    return { status: response.status, body: asAnswer(body) };
  }

  return {
    authorizationUrl(state, codeVerifier) {
      return client.createAuthorizationURLWithPKCE(
        authorizeUrl,
        state,
        CodeChallengeMethod.S256,
        codeVerifier,
        IDP_SCOPES,
      );
    },

    async exchangeCode(code, codeVerifier) {
      try {
        const tokens = await withTimeout(client.validateAuthorizationCode(tokenUrl, code, codeVerifier));
        return tokens.accessToken();
      } catch (error) {
        if (error instanceof OAuth2RequestError) throw idpGrantRefused(error);
        if (isAppError(error, "IDP_UNAVAILABLE")) throw error;
        if (error instanceof ArcticFetchError) throw idpUnavailable("the provider could not be reached", error);
        throw idpUnavailable("the provider's token answer was not usable", error);
      }
    },

    async me(accessToken) {
      const { status, body } = await getJson(accessToken, `/users/me?${USER_FIELDS}`);
      if (status !== 200) throw idpUnavailable(`the provider answered ${status} to the profile read`);
      return toProfile(body.data);
    },

    async userById(accessToken, idpUserId) {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(idpUserId)) return { kind: "gone" };
      const { status, body } = await getJson(accessToken, `/users/${encodeURIComponent(idpUserId)}?${USER_FIELDS}`);
      if (status === 404) return { kind: "gone" };
      if (status !== 200) throw idpUnavailable(`the provider answered ${status} to a user lookup`);
      if (body.data) return { kind: "found", profile: toProfile(body.data) };
      // X answers 200 with an `errors` list for deleted or suspended accounts.
      if (saysAccountGone(body.errors)) return { kind: "gone" };
      throw idpUnavailable("the provider's user lookup was not usable");
    },
  };
}

/** X's `errors` list naming a deleted or suspended account. */
function saysAccountGone(errors: unknown): boolean {
  if (!Array.isArray(errors)) return false;
  return errors.some((e: unknown) => {
    if (typeof e !== "object" || e === null) return false;
    const { type, title } = e as { type?: unknown; title?: unknown };
    return (
      (typeof type === "string" && type.endsWith("/resource-not-found")) ||
      title === "Not Found Error" ||
      title === "Forbidden"
    );
  });
}
