/**
 * The one error shape of SPEC: `{error: sentence}` with the status. Services throw HttpError with a
 * sentence fit for a user; anything else becomes a 500 whose details go only to the log.
 */
export class HttpError extends Error {
  override readonly name = "HttpError";
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new HttpError(400, message);
export const unauthorized = (message = "Sign in first.") => new HttpError(401, message);
export const forbidden = (message = "Requests from another site are refused.") => new HttpError(403, message);
export const notFound = (message = "Not found.") => new HttpError(404, message);
export const conflict = (message: string) => new HttpError(409, message);
export const gone = (message: string) => new HttpError(410, message);
export const badGateway = (message: string) => new HttpError(502, message);
export const unavailable = (message: string) => new HttpError(503, message);

export function errorResponse(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ error: message }), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
  });
}
