/**
 * Who may reach the chain's HTTP and WebSocket servers from a browser. They listen on loopback,
 * but a web page can still reach loopback: a "simple" cross-origin POST (text/plain) runs without a
 * preflight (its answer unread, its effect done: an airdrop, a fault rule), and a DNS-rebinding page
 * reads answers under its own host name. So, for the JSON-RPC (fault rules included) and the PubSub
 * upgrade:
 *
 * - the `Host` header must name loopback (`localhost`, `*.localhost`, `127.0.0.0/8`, `[::1]`) or a
 *   host listed in `allowedHosts` (`"*"`: any), else 403;
 * - a request with an `Origin` (every browser request that could act) must come from a loopback
 *   origin or one listed in `allowedOrigins` (`"*"`: any), else 403; an allowed origin gets CORS
 *   headers naming it, preflights included. No credentials are involved.
 *
 * Requests without an Origin (web3.js, kit, curl, the service) only meet the Host check, which they
 * pass by using the URL the chain printed.
 */

export interface BrowserAccessOptions {
  /** host names answered besides loopback (a proxy's or a LAN name); "*" answers any */
  allowedHosts?: readonly string[];
  /** browser origins answered besides loopback ones, e.g. "https://app.example"; "*" answers any */
  allowedOrigins?: readonly string[];
}

export type GuardVerdict = { ok: true; cors: Record<string, string> } | { ok: false; status: 403; body: string };

const CORS_MAX_AGE_SECS = "600";

export class BrowserGuard {
  private readonly anyHost: boolean;
  private readonly hosts: Set<string>;
  private readonly anyOrigin: boolean;
  private readonly origins: Set<string>;

  constructor(opts: BrowserAccessOptions = {}) {
    const hosts = opts.allowedHosts ?? [];
    const origins = opts.allowedOrigins ?? [];
    this.anyHost = hosts.includes("*");
    this.hosts = new Set(hosts.map((h) => h.trim().toLowerCase()).filter((h) => h && h !== "*"));
    this.anyOrigin = origins.includes("*");
    this.origins = new Set(origins.filter((o) => o !== "*").map(normalizeOrigin));
  }

  /** The verdict on a request from its `Host` and `Origin` headers (null when absent). */
  check(host: string | null, origin: string | null): GuardVerdict {
    if (host !== null && !this.hostAllowed(host))
      return { ok: false, status: 403, body: "Forbidden: this host name is not served (see --allow-host)" };
    if (origin === null) return { ok: true, cors: {} };
    if (!this.originAllowed(origin))
      return { ok: false, status: 403, body: "Forbidden: this origin is not served (see --allow-origin)" };
    return { ok: true, cors: { "access-control-allow-origin": origin, vary: "Origin" } };
  }

  /**
   * An OPTIONS request: a CORS preflight from an allowed origin is answered 204 with what it asked
   * for (POST and its headers: web3.js sends `solana-client` besides content-type).
   */
  preflight(host: string | null, origin: string | null, requestedHeaders: string | null): GuardVerdict {
    const verdict = this.check(host, origin);
    if (!verdict.ok || origin === null) return verdict;
    return {
      ok: true,
      cors: {
        ...verdict.cors,
        "access-control-allow-methods": "POST, GET, OPTIONS",
        "access-control-allow-headers": requestedHeaders ?? "content-type",
        "access-control-max-age": CORS_MAX_AGE_SECS,
      },
    };
  }

  private hostAllowed(hostHeader: string): boolean {
    if (this.anyHost) return true;
    const name = hostName(hostHeader);
    return name !== null && (isLoopbackName(name) || this.hosts.has(name));
  }

  private originAllowed(origin: string): boolean {
    if (this.anyOrigin) return true;
    const normalized = normalizeOrigin(origin);
    if (this.origins.has(normalized)) return true;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return false;
    return isLoopbackName(url.hostname.toLowerCase());
  }
}

/** The name in a Host header, without its port; IPv6 keeps its brackets. */
function hostName(hostHeader: string): string | null {
  const host = hostHeader.trim().toLowerCase();
  if (host.startsWith("[")) {
    const end = host.indexOf("]");
    return end > 0 ? host.slice(0, end + 1) : null;
  }
  const colon = host.indexOf(":");
  return colon >= 0 ? host.slice(0, colon) : host;
}

/** Names no DNS answer can move: the loopback addresses and `localhost` (RFC 6761). */
function isLoopbackName(name: string): boolean {
  if (name === "localhost" || name.endsWith(".localhost")) return true;
  if (name === "[::1]" || name === "::1") return true;
  const octets = name.split(".");
  return octets.length === 4 && octets[0] === "127" && octets.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255);
}

/** An origin as a browser serializes it (scheme and host lowercased, default port dropped). */
function normalizeOrigin(origin: string): string {
  const trimmed = origin.trim();
  // URL.origin is "null" for other schemes (chrome-extension://…): those compare as written.
  if (!/^https?:\/\//i.test(trimmed)) return trimmed;
  try {
    return new URL(trimmed).origin;
  } catch {
    return trimmed.toLowerCase();
  }
}
