/**
 * Typed chain failures and the scrubbing that keeps provider URLs and API keys out of them.
 *
 * - `ChainUnavailableError` (ports.ts) is the base of every transient failure: retry later.
 *   - `ChainTimeoutError`: the provider did not answer within `timeoutMs`.
 *   - `ChainRateLimitedError`: HTTP 429 after the bounded retries.
 *   - `ChainProviderError`: HTTP 5xx, a refused connection or a JSON-RPC error the node reports.
 *   - `ChainBadResponseError`: an answer that is not the JSON-RPC shape the method promises.
 * - `ChainRejectedError`: the node refused the request itself (bad params, a transaction it
 *   will never accept); retrying the same request cannot help. It is NOT a ChainUnavailableError.
 * - `createScrubber(url)` returns a function that removes the URL, its host, path segments and
 *   query values (where API keys live) from any text, so messages can be logged safely.
 */
import { ChainUnavailableError } from "./ports";

export { ChainUnavailableError };

export class ChainTimeoutError extends ChainUnavailableError {
  constructor(message: string) {
    super(message);
    // the base declares a literal name; subclasses still want theirs in logs
    Object.defineProperty(this, "name", { value: "ChainTimeoutError" });
  }
}

export class ChainRateLimitedError extends ChainUnavailableError {
  constructor(message: string) {
    super(message);
    // the base declares a literal name; subclasses still want theirs in logs
    Object.defineProperty(this, "name", { value: "ChainRateLimitedError" });
  }
}

export class ChainProviderError extends ChainUnavailableError {
  constructor(message: string) {
    super(message);
    // the base declares a literal name; subclasses still want theirs in logs
    Object.defineProperty(this, "name", { value: "ChainProviderError" });
  }
}

export class ChainBadResponseError extends ChainUnavailableError {
  constructor(message: string) {
    super(message);
    // the base declares a literal name; subclasses still want theirs in logs
    Object.defineProperty(this, "name", { value: "ChainBadResponseError" });
  }
}

export class ChainRejectedError extends Error {
  override readonly name = "ChainRejectedError";
  constructor(
    message: string,
    /** JSON-RPC error code when the node gave one */
    readonly code: number | null = null,
  ) {
    super(message);
  }
}

const REDACTED = "[redacted]";

/**
 * A scrubber for one provider URL. Fragments shorter than 4 characters are left alone because
 * replacing them would mangle ordinary words without hiding anything secret.
 */
export function createScrubber(providerUrl: string): (text: string) => string {
  const fragments = new Set<string>([providerUrl]);
  try {
    const url = new URL(providerUrl);
    fragments.add(url.origin);
    fragments.add(url.host);
    fragments.add(url.hostname);
    if (url.username) fragments.add(url.username);
    if (url.password) fragments.add(url.password);
    for (const segment of url.pathname.split("/")) fragments.add(decodeURIComponent(segment));
    for (const [name, value] of url.searchParams) {
      fragments.add(value);
      fragments.add(`${name}=${value}`);
    }
  } catch {
    // not a parseable URL: the whole string is still scrubbed
  }
  const ordered = [...fragments].filter((f) => f.length >= 4).sort((a, b) => b.length - a.length);
  return (text: string): string => {
    let out = text;
    for (const fragment of ordered) out = out.split(fragment).join(REDACTED);
    // any other URL a library may have echoed (redirects, websocket endpoints)
    return out.replace(/\b(?:https?|wss?):\/\/[^\s"'<>)]+/gi, REDACTED);
  };
}
