/**
 * Whether an Origin header names this site. On the embedded local chain, a site whose PUBLIC_URL
 * is a loopback address is also itself under the other loopback spellings of the same scheme and
 * port: newcomers open `http://127.0.0.1:3000` as often as `http://localhost:3000`, and both reach
 * the same process on this machine only (no other site can be served from them). On a real chain
 * only PUBLIC_URL's own origin is, as before.
 */
import type { Config } from "../config";

const LOOPBACK_NAMES = new Set(["localhost", "[::1]"]);

function isLoopback(hostname: string): boolean {
  return LOOPBACK_NAMES.has(hostname) || /^127(?:\.\d{1,3}){3}$/.test(hostname);
}

export function isOwnOrigin(origin: string, config: Pick<Config, "publicUrl" | "chain">): boolean {
  let given: URL;
  let own: URL;
  try {
    given = new URL(origin);
    own = new URL(config.publicUrl);
  } catch {
    return false;
  }
  if (given.origin === own.origin) return true;
  return (
    config.chain === "local" &&
    given.protocol === own.protocol &&
    given.port === own.port &&
    isLoopback(own.hostname) &&
    isLoopback(given.hostname)
  );
}
