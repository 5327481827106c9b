/**
 * Where a webhook may point. A delivery is a POST from inside our network, so a destination on
 * loopback, private, link-local (cloud metadata) or other non-public ranges is refused unless
 * WEBHOOKS_ALLOW_PRIVATE=1 (tests, local use). Names are resolved and every address checked, at
 * registration and again before each attempt (a name can change what it points at).
 */
import { lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";

export const MAX_URL_LENGTH = 2048;

export class DestinationError extends Error {
  override readonly name = "DestinationError";
}

/** The URL, normalized, or a DestinationError with a sentence fit for the caller. */
export function parseDestination(raw: unknown): URL {
  if (typeof raw !== "string" || raw.length === 0) throw new DestinationError("url is required: an http or https URL.");
  if (raw.length > MAX_URL_LENGTH) throw new DestinationError(`url must be at most ${MAX_URL_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DestinationError("url is not a valid URL.");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new DestinationError("url must be http or https.");
  if (url.username || url.password) throw new DestinationError("url must not carry credentials.");
  url.hash = "";
  return url;
}

/** True when the address is on the public internet. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed.range() === "unicast";
}

/** Refuses a destination that is, or resolves to, a non-public address (unless allowed). */
export async function checkDestination(url: URL, allowPrivate: boolean): Promise<void> {
  if (allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (ipaddr.isValid(host)) {
    if (!isPublicAddress(host)) throw new DestinationError("url points at a private or loopback address.");
    return;
  }
  let addresses: { address: string }[];
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch {
    throw new DestinationError("url's host name could not be resolved.");
  }
  if (addresses.length === 0 || addresses.some((a) => !isPublicAddress(a.address))) {
    throw new DestinationError("url points at a private or loopback address.");
  }
}
