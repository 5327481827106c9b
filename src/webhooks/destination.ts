/**
 * Where a webhook may point. A delivery is a POST from inside our network, so a destination must
 * be a global unicast address: loopback, private, link-local (cloud metadata), CGNAT, IPv6 outside
 * 2000::/3 (IPv4-compatible `::7f00:1` included) and the special ranges are refused unless
 * WEBHOOKS_ALLOW_PRIVATE=1 (tests, local use). Names are resolved and every address checked, at
 * registration and again before each attempt (a name can change what it points at), and the
 * attempt connects to the address that was checked: a name that answers a public address to the
 * check and a private one to the connection (DNS rebinding) cannot steer the POST inside.
 */
import { lookup as dnsLookup } from "node:dns/promises";
import { checkServerIdentity } from "node:tls";
import ipaddr from "ipaddr.js";
import { AppError, type ErrorCode } from "../lib/errors";

const MAX_URL_LENGTH = 2048;

/** A destination refused; each sentence is fit for the caller and for the delivery's error column. */
export const WEBHOOK_DESTINATION_CODES = [
  "WEBHOOK_URL_REQUIRED",
  "WEBHOOK_URL_TOO_LONG",
  "WEBHOOK_URL_INVALID",
  "WEBHOOK_URL_SCHEME",
  "WEBHOOK_URL_CREDENTIALS",
  "WEBHOOK_URL_PRIVATE",
  "WEBHOOK_URL_UNRESOLVED",
] as const satisfies readonly ErrorCode[];

/** The URL, normalized, or an AppError of WEBHOOK_DESTINATION_CODES. */
export function parseDestination(raw: unknown): URL {
  if (typeof raw !== "string" || raw.length === 0) throw new AppError("WEBHOOK_URL_REQUIRED");
  if (raw.length > MAX_URL_LENGTH) throw new AppError("WEBHOOK_URL_TOO_LONG", { maximum: MAX_URL_LENGTH });
  let url: URL;
  try {
    url = new URL(raw);
  } catch (error) {
    throw new AppError("WEBHOOK_URL_INVALID", {}, { cause: error });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new AppError("WEBHOOK_URL_SCHEME");
  if (url.username || url.password) throw new AppError("WEBHOOK_URL_CREDENTIALS");
  url.hash = "";
  return url;
}

/** Resolves a host name to its addresses (node's `lookup`, or a test's stand-in). */
export type Resolve = (host: string) => Promise<{ address: string }[]>;

const systemResolve: Resolve = (host) => dnsLookup(host, { all: true, verbatim: true });

/** IPv6 global unicast (RFC 4291 2.4): everything else in IPv6 is not an address on the internet. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");

/**
 * True when the address is global unicast: IPv4 outside every special range, or IPv6 within
 * 2000::/3 and outside the special ranges inside it (documentation, 6to4, Teredo, NAT64, ...). An
 * IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  if (parsed.range() !== "unicast") return false;
  return parsed.kind() === "ipv4" || (parsed as ipaddr.IPv6).match(GLOBAL_UNICAST_V6);
}

/**
 * The address a delivery to `url` connects to: the host itself when it is an address, else the
 * first address its name resolves to, after every address was checked (unless allowed private).
 */
export async function resolveDestination(
  url: URL,
  allowPrivate: boolean,
  resolve: Resolve = systemResolve,
): Promise<string> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (ipaddr.isValid(host)) {
    if (!allowPrivate && !isPublicAddress(host)) throw new AppError("WEBHOOK_URL_PRIVATE");
    return host;
  }
  let addresses: { address: string }[];
  try {
    addresses = await resolve(host);
  } catch (error) {
    throw new AppError("WEBHOOK_URL_UNRESOLVED", {}, { cause: error });
  }
  if (addresses.length === 0) throw new AppError("WEBHOOK_URL_UNRESOLVED");
  if (!allowPrivate && addresses.some((a) => !isPublicAddress(a.address))) {
    throw new AppError("WEBHOOK_URL_PRIVATE");
  }
  return addresses[0]!.address;
}

/** Refuses a destination that is, or resolves to, a non-public address (unless allowed). */
export async function checkDestination(url: URL, allowPrivate: boolean, resolve?: Resolve): Promise<void> {
  if (allowPrivate) return;
  await resolveDestination(url, allowPrivate, resolve);
}

/**
 * The request that reaches `url` at `address` and nowhere else: the URL's host swapped for the
 * address, the Host header kept, and for https the name still sent (SNI) and the certificate still
 * checked against it, so pinning the address weakens nothing TLS promises.
 */
export function pinnedRequest(
  url: URL,
  address: string,
): {
  url: string;
  headers: Record<string, string>;
  tls?: { serverName: string; checkServerIdentity: typeof checkServerIdentity };
} {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (ipaddr.isValid(host)) return { url: url.href, headers: {} };
  const pinned = new URL(url.href);
  pinned.hostname = ipaddr.parse(address).kind() === "ipv6" ? `[${address}]` : address;
  const headers = { host: url.host };
  if (url.protocol !== "https:") return { url: pinned.href, headers };
  return {
    url: pinned.href,
    headers,
    tls: { serverName: host, checkServerIdentity: (_address, cert) => checkServerIdentity(host, cert) },
  };
}
