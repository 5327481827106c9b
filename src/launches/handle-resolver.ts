/**
 * Handles named at launch, resolved to X user ids with an app-only token (IDP_APP_BEARER) through
 * X's users-by-username lookup, so each is pinned to the id that holds it at launch (DESIGN §3:
 * "or earlier, when the provider can be asked"). A rename, or the handle changing hands before its
 * owner signs in, then follows §3 from that id. Without the token nothing is looked up and handles
 * are pinned at first sign-in, as before.
 */
import type { Config } from "../config";
import type { IdpProfile } from "../identity";
import { toProfile } from "../auth";
import { AppError } from "../lib/errors";
import { log } from "../lib/log";

const TIMEOUT_MS = 10_000;
/** X's limit for one users-by-usernames request; a launch names at most MAX_RECIPIENTS anyway. */
const USERNAMES_PER_REQUEST = 100;

export function handlesPinnedAtLaunch(config: Config): boolean {
  return config.idp.appBearer !== null;
}

/**
 * The profile of each handle (keyed lowercase), or null when no app token is configured.
 * 400 naming the first handle X does not know; 503 when X cannot be asked (nothing is launched on
 * a guess: the page can try again).
 */
export async function resolveLaunchHandles(
  config: Config,
  handles: readonly string[],
): Promise<Map<string, IdpProfile> | null> {
  const bearer = config.idp.appBearer;
  if (bearer === null) return null;
  const out = new Map<string, IdpProfile>();
  for (let i = 0; i < handles.length; i += USERNAMES_PER_REQUEST) {
    const page = handles.slice(i, i + USERNAMES_PER_REQUEST);
    const body = await usersByUsernames(config.idp.apiUrl, bearer, page);
    const data: unknown[] = Array.isArray(body?.data) ? body.data : [];
    for (const user of data) {
      let profile: IdpProfile;
      try {
        profile = toProfile(user as never);
      } catch {
        throw new AppError("LAUNCH_HANDLES_UNREADABLE");
      }
      out.set(profile.displayHandle.toLowerCase(), profile);
    }
    const missing = page.find((h) => !out.has(h.toLowerCase()));
    if (missing !== undefined) {
      const errors: { value?: unknown; type?: unknown; title?: unknown }[] = Array.isArray(body?.errors)
        ? body.errors
        : [];
      const notFound = errors.some(
        (e) =>
          typeof e.value === "string" &&
          e.value.toLowerCase() === missing.toLowerCase() &&
          ((typeof e.type === "string" && e.type.endsWith("/resource-not-found")) ||
            e.title === "Not Found Error" ||
            e.title === "Forbidden"),
      );
      // Suspended accounts answer "Forbidden": nobody could ever sign in to claim for them either.
      if (notFound) throw new AppError("LAUNCH_HANDLE_UNKNOWN", { handle: missing });
      throw new AppError("LAUNCH_HANDLES_UNAVAILABLE");
    }
  }
  return out;
}

/** X's answer, as far as it is read: users found, and errors naming the handles it could not give. */
interface UsersAnswer {
  data?: unknown;
  errors?: unknown;
}

async function usersByUsernames(
  apiUrl: string,
  bearer: string,
  usernames: readonly string[],
): Promise<UsersAnswer | null> {
  const url = `${apiUrl}/users/by?usernames=${usernames.map(encodeURIComponent).join(",")}&user.fields=profile_image_url,public_metrics`;
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { authorization: `Bearer ${bearer}`, accept: "application/json" },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch {
    throw new AppError("LAUNCH_HANDLES_UNREACHABLE");
  }
  if (response.status !== 200) {
    // The status only: the URL and the token stay out of the log.
    log.warn("launch: users by username answered", { status: response.status });
    throw new AppError("LAUNCH_HANDLES_UNAVAILABLE");
  }
  try {
    const answer: unknown = await response.json();
    return typeof answer === "object" && answer !== null ? answer : null;
  } catch {
    throw new AppError("LAUNCH_HANDLES_UNAVAILABLE");
  }
}
