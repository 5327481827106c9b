/**
 * The client IP for rate limits. The socket address is the truth; a proxy header is believed only
 * when TRUST_PROXY names it AND the socket is one of TRUSTED_PROXIES, and even then only a
 * well-formed IP is taken from it (the last hop the trusted proxy appended), so a client cannot
 * pick its own bucket. A request with no socket address was handed over in-process (a test, a
 * script) or over a unix socket only local processes can open; both count as the proxy.
 */
import { type BlockList, isIP } from "node:net";
import { log } from "../lib/log";

export interface ClientIpOptions {
  trustProxyHeader: string | null;
  /** CIDRs whose sockets may set the proxy header; null believes no socket */
  trustedProxies?: BlockList | null;
  /** told the peer's address when the proxy header came from a socket outside trustedProxies */
  onUntrustedPeer?: (peer: string) => void;
}

/**
 * One warning per service when TRUST_PROXY's header arrives from a peer outside TRUSTED_PROXIES:
 * the header is ignored, so behind a proxy on another host (TRUSTED_PROXIES defaults to loopback)
 * every client counts as the proxy and all of them share one rate limit. Once, not per request:
 * the misconfiguration is the deployment's, and a line per request would flood the log.
 */
export function untrustedPeerWarning(header: string): (peer: string) => void {
  let warned = false;
  return (peer) => {
    if (warned) return;
    warned = true;
    log.warn("a proxy header arrived from a peer outside TRUSTED_PROXIES and was ignored", {
      header,
      peer,
      hint: "add the proxy's address to TRUSTED_PROXIES, or every client behind it shares one rate limit",
    });
  };
}

function normalize(address: string): string {
  // An IPv4 client reaching a dual-stack socket shows as ::ffff:a.b.c.d; it is the IPv4 client.
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

function socketIsTrusted(socketAddress: string | null, list: BlockList | null | undefined): boolean {
  if (socketAddress === null) return true;
  if (!list) return false;
  const address = normalize(socketAddress);
  const family = isIP(address);
  if (family === 0) return false;
  return list.check(address, family === 6 ? "ipv6" : "ipv4");
}

export function clientIp(request: Request, socketAddress: string | null, options: ClientIpOptions): string {
  const trusted = options.trustProxyHeader !== null && socketIsTrusted(socketAddress, options.trustedProxies);
  if (options.trustProxyHeader && !trusted && socketAddress !== null && request.headers.has(options.trustProxyHeader))
    options.onUntrustedPeer?.(normalize(socketAddress));
  if (options.trustProxyHeader && trusted) {
    const raw = request.headers.get(options.trustProxyHeader);
    if (raw) {
      const parts = raw
        .split(",")
        .map((p) => p.trim())
        .filter(Boolean);
      const last = parts[parts.length - 1];
      if (last && last.length <= 45 && isIP(last)) return normalize(last);
    }
  }
  return socketAddress === null ? "unknown" : normalize(socketAddress);
}

/**
 * The key a client is limited under: an IPv4 address as is, an IPv6 address by its /64 (one
 * subscriber usually holds a whole /64, so per-address buckets would be free for the taking).
 */
export function limitKeyOf(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  const [head, tail] = ip.split("::") as [string, string | undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  // An embedded IPv4 tail (::a.b.c.d forms) takes two groups; only the first four groups matter anyway.
  const rightGroups = right.reduce((n, g) => n + (g.includes(".") ? 2 : 1), 0);
  const groups =
    tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - left.length - rightGroups)).fill("0"), ...right];
  const prefix = groups.slice(0, 4).map((g) => (parseInt(g, 16) || 0).toString(16));
  return `${prefix.join(":")}::/64`;
}
