/**
 * The one way the page talks to the API. It turns the `{error}` envelope into an ApiError a page
 * can show as is, and waits out 429s for the `retry-after` the server asked for (bounded, so a
 * page never hangs forever on a busy server).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const MAX_RATE_LIMIT_RETRIES = 3;
const MAX_RETRY_AFTER_SEC = 60;

export interface ApiOptions {
  method?: string;
  body?: unknown;
  form?: FormData;
  signal?: AbortSignal;
  /** called while waiting out a 429 so the page can say why it is slow */
  onWait?: (seconds: number) => void;
}

export interface ApiResponse<T> {
  status: number;
  body: T;
}

/** Waiting is injectable so unit tests need not sleep. */
export let sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      reject(signal.reason);
    });
  });
export function setSleep(fn: typeof sleep): void {
  sleep = fn;
}

export async function apiRaw<T>(path: string, options: ApiOptions = {}): Promise<ApiResponse<T>> {
  const init: RequestInit = {
    method: options.method ?? (options.body !== undefined || options.form ? "POST" : "GET"),
    credentials: "same-origin",
    // The public reads carry stale-while-revalidate for shared caches; without this the browser
    // would show a stale copy (e.g. a token without the sweep that just confirmed) after navigating.
    cache: "no-cache",
    signal: options.signal,
    headers: { accept: "application/json" },
  };
  if (options.form) init.body = options.form;
  else if (options.body !== undefined) {
    init.body = JSON.stringify(options.body);
    (init.headers as Record<string, string>)["content-type"] = "application/json";
  }
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(path, init);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw new ApiError(0, "The service could not be reached. Check your connection and try again.");
    }
    if (response.status === 429 && attempt < MAX_RATE_LIMIT_RETRIES) {
      const seconds = retryAfterSeconds(response.headers.get("retry-after"));
      options.onWait?.(seconds);
      await sleep(seconds * 1000, options.signal);
      continue;
    }
    const text = await response.text();
    let body: unknown = null;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        body = null;
      }
    }
    if (response.status >= 400) throw new ApiError(response.status, errorMessage(response.status, body));
    return { status: response.status, body: body as T };
  }
}

export async function api<T>(path: string, options: ApiOptions = {}): Promise<T> {
  return (await apiRaw<T>(path, options)).body;
}

export function retryAfterSeconds(header: string | null): number {
  const n = header === null ? NaN : Number(header);
  if (Number.isFinite(n) && n >= 0) return Math.min(Math.max(1, Math.ceil(n)), MAX_RETRY_AFTER_SEC);
  return 1;
}

/** The server's sentence when it sent one; otherwise a plain one for the status. */
function errorMessage(status: number, body: unknown): string {
  const sentence =
    body && typeof body === "object" && typeof (body as { error?: unknown }).error === "string"
      ? (body as { error: string }).error
      : null;
  if (sentence) return sentence;
  if (status === 404) return "Not found.";
  if (status === 429) return "Too many requests right now; wait a minute and try again.";
  if (status >= 500) return "The service is having trouble right now; try again shortly.";
  return `The request failed (status ${status}).`;
}

export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error && error.message) return error.message;
  return "Something went wrong.";
}

export function qs(params: Record<string, string | number | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined && v !== "") search.set(k, String(v));
  const text = search.toString();
  return text ? `?${text}` : "";
}
