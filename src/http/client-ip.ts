/**
 * The client IP for rate limits. The socket address is the truth; a proxy header is believed only
 * when TRUST_PROXY names it, and even then only a well-formed IP is taken from it (the last hop the
 * trusted proxy appended), so a client cannot pick its own bucket.
 */
import { isIP } from "node:net";

export interface ClientIpOptions {
  trustProxyHeader: string | null;
}

export function clientIp(
  request: Request,
  socketAddress: string | null,
  options: ClientIpOptions,
): string {
  if (options.trustProxyHeader) {
    const raw = request.headers.get(options.trustProxyHeader);
    if (raw) {
      const parts = raw.split(",").map((p) => p.trim()).filter(Boolean);
      const last = parts[parts.length - 1];
      if (last && last.length <= 45 && isIP(last)) return last;
    }
  }
  return socketAddress ?? "unknown";
}
