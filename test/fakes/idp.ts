/**
 * A local stand-in for the identity provider (X), over loopback, speaking the same OAuth 2.0 and
 * users endpoints the service uses: `GET /i/oauth2/authorize` (consent is granted at once for the
 * user the test chose and redirects to the callback), `POST /2/oauth2/token` (checks the client,
 * the redirect URI, single use of the code and that the PKCE verifier hashes to the challenge),
 * `GET /2/users/me` and `GET /2/users/:id` with a bearer token, and users by username
 * (`GET /2/users/by?usernames=` and `GET /2/users/by/username/:username`) with the app-only bearer.
 */
import { createHash, randomBytes } from "node:crypto";

export interface FakeUser {
  id: string;
  username: string;
  name: string;
  profile_image_url: string;
  followers: number;
}

interface IssuedCode {
  userId: string;
  challenge: string;
  method: string;
  redirectUri: string;
  clientId: string;
  scope: string;
  used: boolean;
}

interface TokenRequestRecord {
  code: string;
  verifier: string | null;
  /** base64url(sha256(verifier)) */
  verifierHash: string | null;
  challenge: string | null;
  accepted: boolean;
}

export interface FakeIdp {
  url: string;
  clientId: string;
  clientSecret: string;
  /** env for testService pointing the service at this provider */
  env: Record<string, string>;
  /** env adding the app-only bearer: launches resolve handles through users by username */
  appEnv: Record<string, string>;
  /** usernames asked for through users by username, in order */
  usernameLookups: string[];
  /** users-by-username answers 503 while set */
  failUsernameLookups: boolean;
  users: Map<string, FakeUser>;
  /** who consents at the next authorize call */
  signInAs(userId: string): void;
  /** user ids whose lookup by id answers 503 */
  failLookups: Set<string>;
  failToken: boolean;
  tokenRequests: TokenRequestRecord[];
  authorizeRequests: URLSearchParams[];
  lookups: string[];
  rename(userId: string, username: string): void;
  remove(userId: string): void;
  stop(): Promise<void>;
}

const b64url = (buf: Buffer) => buf.toString("base64url");

export function startFakeIdp(): FakeIdp {
  const clientId = "fake-client";
  const clientSecret = `fake-secret-${randomBytes(8).toString("hex")}`;
  const users = new Map<string, FakeUser>();
  const codes = new Map<string, IssuedCode>();
  const tokens = new Map<string, string>();
  const tokenRequests: TokenRequestRecord[] = [];
  const authorizeRequests: URLSearchParams[] = [];
  const lookups: string[] = [];
  const failLookups = new Set<string>();
  let current: string | null = null;
  const state = { failToken: false, failUsernameLookups: false };
  const appBearer = `fake-app-bearer-${randomBytes(8).toString("hex")}`;
  const usernameLookups: string[] = [];

  const userJson = (u: FakeUser) => ({
    id: u.id,
    username: u.username,
    name: u.name,
    profile_image_url: u.profile_image_url,
    public_metrics: { followers_count: u.followers, following_count: 1, tweet_count: 2, listed_count: 0 },
  });

  const bearerUser = (req: Request): string | null => {
    const m = /^Bearer (.+)$/.exec(req.headers.get("authorization") ?? "");
    return m ? (tokens.get(m[1]!) ?? null) : null;
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      if (req.method === "GET" && url.pathname === "/i/oauth2/authorize") {
        const q = url.searchParams;
        authorizeRequests.push(q);
        if (q.get("response_type") !== "code" || q.get("client_id") !== clientId || !q.get("redirect_uri")) {
          return new Response("bad authorize request", { status: 400 });
        }
        if (q.get("code_challenge_method") !== "S256" || !q.get("code_challenge")) {
          return new Response("PKCE S256 required", { status: 400 });
        }
        const redirect = new URL(q.get("redirect_uri")!);
        redirect.searchParams.set("state", q.get("state") ?? "");
        if (current === null) {
          redirect.searchParams.set("error", "access_denied");
          return Response.redirect(redirect.toString(), 302);
        }
        const code = b64url(randomBytes(24));
        codes.set(code, {
          userId: current,
          challenge: q.get("code_challenge")!,
          method: q.get("code_challenge_method")!,
          redirectUri: q.get("redirect_uri")!,
          clientId: q.get("client_id")!,
          scope: q.get("scope") ?? "",
          used: false,
        });
        redirect.searchParams.set("code", code);
        return Response.redirect(redirect.toString(), 302);
      }
      if (req.method === "POST" && url.pathname === "/2/oauth2/token") {
        if (state.failToken) return new Response("upstream down", { status: 503 });
        const form = new URLSearchParams(await req.text());
        const basic = (req.headers.get("authorization") ?? "").replace(/^Basic /, "");
        const [id, secret] = Buffer.from(basic, "base64").toString().split(":");
        if (id !== clientId || secret !== clientSecret) {
          return Response.json(
            { error: "unauthorized_client", error_description: "Missing valid authorization header" },
            { status: 401 },
          );
        }
        const code = form.get("code") ?? "";
        const verifier = form.get("code_verifier");
        const issued = codes.get(code);
        const verifierHash = verifier ? b64url(createHash("sha256").update(verifier).digest()) : null;
        const record: TokenRequestRecord = {
          code,
          verifier,
          verifierHash,
          challenge: issued?.challenge ?? null,
          accepted: false,
        };
        tokenRequests.push(record);
        const invalid = () =>
          Response.json(
            { error: "invalid_request", error_description: "Value passed for the authorization code was invalid." },
            { status: 400 },
          );
        if (form.get("grant_type") !== "authorization_code" || !issued || issued.used) return invalid();
        issued.used = true;
        if (form.get("redirect_uri") !== issued.redirectUri || verifierHash !== issued.challenge) return invalid();
        const accessToken = b64url(randomBytes(24));
        tokens.set(accessToken, issued.userId);
        record.accepted = true;
        return Response.json({
          token_type: "bearer",
          expires_in: 7200,
          access_token: accessToken,
          scope: issued.scope,
        });
      }
      if (
        req.method === "GET" &&
        (url.pathname === "/2/users/by" || url.pathname.startsWith("/2/users/by/username/"))
      ) {
        // users by username (app-only bearer): the launch resolves named handles to ids
        if (req.headers.get("authorization") !== `Bearer ${appBearer}`)
          return Response.json({ title: "Unauthorized", status: 401 }, { status: 401 });
        if (state.failUsernameLookups) return Response.json({ title: "Service Unavailable" }, { status: 503 });
        const many = url.pathname === "/2/users/by";
        const names = many
          ? (url.searchParams.get("usernames") ?? "").split(",").filter(Boolean)
          : [decodeURIComponent(url.pathname.slice("/2/users/by/username/".length))];
        usernameLookups.push(...names);
        if (names.length === 0 || names.length > 100)
          return Response.json({ title: "Invalid Request" }, { status: 400 });
        const found = names.map(
          (n) => [...users.values()].find((u) => u.username.toLowerCase() === n.toLowerCase()) ?? null,
        );
        const data = found.filter((u): u is FakeUser => u !== null).map(userJson);
        const errors = names
          .filter((_, i) => found[i] === null)
          .map((n) => ({
            value: n,
            detail: `Could not find user with usernames: [${n}].`,
            title: "Not Found Error",
            resource_type: "user",
            parameter: "usernames",
            resource_id: n,
            type: "https://api.twitter.com/2/problems/resource-not-found",
          }));
        if (!many) return Response.json(data[0] ? { data: data[0] } : { errors });
        return Response.json({ ...(data.length ? { data } : {}), ...(errors.length ? { errors } : {}) });
      }
      if (req.method === "GET" && url.pathname.startsWith("/2/users/")) {
        const caller = bearerUser(req);
        if (!caller) return Response.json({ title: "Unauthorized", status: 401 }, { status: 401 });
        const which = url.pathname.slice("/2/users/".length);
        const id = which === "me" ? caller : which;
        if (which !== "me") {
          lookups.push(id);
          if (failLookups.has(id)) return Response.json({ title: "Service Unavailable" }, { status: 503 });
        }
        const user = users.get(id);
        if (!user) {
          return Response.json({
            errors: [
              {
                value: id,
                detail: `Could not find user with id: [${id}].`,
                title: "Not Found Error",
                resource_type: "user",
                parameter: "id",
                resource_id: id,
                type: "https://api.twitter.com/2/problems/resource-not-found",
              },
            ],
          });
        }
        return Response.json({ data: userJson(user) });
      }
      return new Response("not found", { status: 404 });
    },
  });

  const url = `http://127.0.0.1:${server.port}`;
  return {
    url,
    clientId,
    clientSecret,
    env: {
      IDP_CLIENT_ID: clientId,
      IDP_CLIENT_SECRET: clientSecret,
      IDP_AUTHORIZE_URL: `${url}/i/oauth2/authorize`,
      IDP_TOKEN_URL: `${url}/2/oauth2/token`,
      IDP_API_URL: `${url}/2`,
    },
    appEnv: { IDP_API_URL: `${url}/2`, IDP_APP_BEARER: appBearer },
    usernameLookups,
    get failUsernameLookups() {
      return state.failUsernameLookups;
    },
    set failUsernameLookups(v: boolean) {
      state.failUsernameLookups = v;
    },
    users,
    signInAs(userId) {
      current = userId;
    },
    failLookups,
    get failToken() {
      return state.failToken;
    },
    set failToken(v: boolean) {
      state.failToken = v;
    },
    tokenRequests,
    authorizeRequests,
    lookups,
    rename(userId, username) {
      const u = users.get(userId);
      if (!u) throw new Error(`no fake user ${userId}`);
      u.username = username;
    },
    remove(userId) {
      users.delete(userId);
    },
    async stop() {
      server.stop(true);
    },
  };
}

export function fakeUser(id: string, username: string, followers = 42): FakeUser {
  return { id, username, name: `${username} (name)`, profile_image_url: `https://pbs.example/${id}.jpg`, followers };
}
