/**
 * What the front door learned about a request (its id and client IP), for the handlers that record
 * it, e.g. the admin audit row. Keyed by the Request object: the one Elysia was handed and the
 * body-limited copy the routes see.
 */
export interface RequestMeta {
  id: string;
  /** the client IP the limits use (after TRUST_PROXY/TRUSTED_PROXIES) */
  ip: string;
  atMs: number;
}

const metas = new WeakMap<Request, RequestMeta>();

export function setRequestMeta(request: Request, meta: RequestMeta): void {
  metas.set(request, meta);
}

export function requestMeta(request: Request): RequestMeta | undefined {
  return metas.get(request);
}
