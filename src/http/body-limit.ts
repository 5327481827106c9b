/**
 * Request bodies are limited while they are read, not by their Content-Length alone: a chunked
 * body has none. Each route's own limit is enforced by handing the routes a copy of the request
 * whose body stream errors as soon as it passes the limit, so a 40 MB body is answered 413 after
 * 64 KB, not 40 MB. Every refusal is the app's, in the `{error}` envelope (SERVER_BODY_MAX_BYTES).
 */
import type { Config } from "../config";

/** Every JSON route: the largest legitimate body (a launch draft) is a few KB. */
const JSON_BODY_MAX_BYTES = 64 * 1024;
/** Multipart framing and the text fields of the upload, beyond the image and thumbnail bytes. */
const UPLOAD_OVERHEAD_BYTES = 64 * 1024;

/** The launch upload: an image and a thumbnail of at most MAX_IMAGE_BYTES each. */
function uploadBodyMaxBytes(config: Pick<Config, "maxImageBytes">): number {
  return 2 * config.maxImageBytes + UPLOAD_OVERHEAD_BYTES;
}

/**
 * Bun's own cap (`maxRequestBodySize`), set out of reach so every limit is the app's. Bun checks a
 * declared Content-Length against its cap before the app sees the request and answers a bare 413
 * with no `{error}` (a client still writing its body reads a reset); the front door refuses any
 * Content-Length over the route's limit itself, in the envelope, before a byte of the body is read,
 * and cuts a chunked body at the route's limit while it is read. A body no route reads is drained
 * by Bun whatever its cap (measured: a 300 MB unread chunked body was drained at 9 MB's cap too).
 */
export const SERVER_BODY_MAX_BYTES = Number.MAX_SAFE_INTEGER;

export function bodyLimitFor(method: string, path: string, config: Pick<Config, "maxImageBytes">): number {
  if (method === "POST" && /^\/api\/launch\/metadata\/?$/.test(path)) return uploadBodyMaxBytes(config);
  return JSON_BODY_MAX_BYTES;
}

const tooLarge = new WeakSet<Request>();

/** True when the request's body stream was cut at its limit: the answer is 413, whatever the parser said. */
export function bodyWasTooLarge(request: Request): boolean {
  return tooLarge.has(request);
}

/**
 * A copy of the request whose body stops at `maxBytes`: reading past it errors, marks the copy
 * too large and cancels the rest of the upload. Nothing is read until a route parses the body.
 */
export function withBodyLimit(request: Request, maxBytes: number): Request {
  const source = request.body;
  if (!source) return request;
  const reader = source.getReader();
  let seen = 0;
  let limited: Request | null = null;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      seen += value.byteLength;
      if (seen > maxBytes) {
        if (limited) tooLarge.add(limited);
        reader.cancel().catch(() => {});
        controller.error(new Error("request body over its limit"));
        return;
      }
      controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  limited = new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body: stream,
    signal: request.signal,
    duplex: "half",
  } as RequestInit);
  return limited;
}
