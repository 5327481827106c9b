/**
 * Where a webhook may point. A delivery is a POST from inside our network, so a destination on
 * loopback, private, link-local (cloud metadata) or other non-public ranges is refused unless
 * WEBHOOKS_ALLOW_PRIVATE=1 (tests, local use). Names are resolved and every address checked, at
 * registration and again before each attempt (a name can change what it points at).
 */
import { lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";
import { AppError } from "../lib/errors";

export const MAX_URL_LENGTH = 2048;

/** A destination refused; the sentence is fit for the caller and for the delivery's error column. */
const refused = (message: string, cause?: unknown) =>
  new AppError("WEBHOOK_DESTINATION_REFUSED", message, {}, { cause });

/** The URL, normalized, or a WEBHOOK_DESTINATION_REFUSED AppError with a sentence fit for the caller. */
export function parseDestination(raw: unknown): URL {
  if (typeof raw !== "string" || raw.length === 0) throw refused("url is required: an http or https URL.");
  if (raw.length > MAX_URL_LENGTH) throw refused(`url must be at most ${MAX_URL_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch (error) {
    throw refused("url is not a valid URL.", error);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw refused("url must be http or https.");
  if (url.username || url.password) throw refused("url must not carry credentials.");
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
    if (!isPublicAddress(host)) throw refused("url points at a private or loopback address.");
    return;
  }
  let addresses: { address: string }[];
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch (error) {
    throw refused("url's host name could not be resolved.", error);
  }
  if (addresses.length === 0 || addresses.some((a) => !isPublicAddress(a.address))) {
    throw refused("url points at a private or loopback address.");
  }
}
