/**
 * Chain failures as `AppError` codes (src/lib/errors.ts, `// chain`) and the scrubbing that keeps
 * provider URLs and API keys out of them.
 *
 * - Transient, retry later (`isChainUnavailable`):
 *   - `CHAIN_TIMEOUT`: the provider did not answer within `timeoutMs`.
 *   - `CHAIN_RATE_LIMITED`: HTTP 429 after the bounded retries.
 *   - `CHAIN_PROVIDER_FAILED`: HTTP 5xx, a refused connection or a JSON-RPC error the node reports.
 *   - `CHAIN_BAD_RESPONSE`: an answer that is not the JSON-RPC shape the method promises.
 *   - `CHAIN_UNAVAILABLE`: the chain could not be asked at all (a caller's own timeout, say).
 * - `CHAIN_REJECTED` (`isChainRejected`): the node refused the request itself (bad params, a
 *   transaction it will never accept); retrying the same request cannot help. Its JSON-RPC code,
 *   when the node gave one, is `context.rpcCode`.
 * - `createScrubber(url)` returns a function that removes the URL, its host, path segments and
 *   query values (where API keys live) from any text, so messages can be logged safely.
 */
import { AppError, type AppErrorArgs, type ContextOf, isAppError } from "../lib/errors";

const UNAVAILABLE_CODES = [
  "CHAIN_UNAVAILABLE",
  "CHAIN_TIMEOUT",
  "CHAIN_RATE_LIMITED",
  "CHAIN_PROVIDER_FAILED",
  "CHAIN_BAD_RESPONSE",
] as const;

export type ChainUnavailableCode = (typeof UNAVAILABLE_CODES)[number];

/** A transport or provider failure, already scrubbed of URLs and keys: retry later. */
export function isChainUnavailable(error: unknown): error is AppError<ChainUnavailableCode> {
  return isAppError(error, ...UNAVAILABLE_CODES);
}

/** The node refused the request itself; the same request will never succeed. */
export function isChainRejected(error: unknown): error is AppError<"CHAIN_REJECTED"> {
  return isAppError(error, "CHAIN_REJECTED");
}

/** A transient failure of one of the `isChainUnavailable` codes, with the context its template names. */
export function chainUnavailable<C extends ChainUnavailableCode>(
  code: C,
  context: ContextOf<C>,
  cause?: unknown,
): AppError<C> {
  return new AppError(code, ...([context, { cause }] as unknown as AppErrorArgs<C>));
}

/**
 * A request the node refused: `method` is what was asked, `detail` why (the node's own text,
 * scrubbed, where it gave one), `rpcCode` its JSON-RPC error code when it gave one.
 */
export function chainRejected(
  method: string,
  detail: string,
  rpcCode: number | null = null,
  cause?: unknown,
): AppError<"CHAIN_REJECTED"> {
  return new AppError("CHAIN_REJECTED", { method, detail, rpcCode }, { cause });
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
