/**
 * `GET /api/admin/set-aside` (admin auth): tokens the money jobs set aside after repeated failures
 * (retried at `retryAt`) or stopped on a credit mismatch (`retryAt` null, waiting for an operator).
 * The shape is the contract the operator page reads (OTHERS.md).
 */
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { CACHE } from "../http/cache";
import { notFound } from "../http/errors";
import { bearerMatches } from "../http/bearer";
import { listSetAside } from "../jobs";

export function setAsideRoutes(ctx: AppContext) {
  return new Elysia({ name: "admin-set-aside" }).get(
    "/api/admin/set-aside",
    ({ request, set }) => {
      if (!bearerMatches(request.headers.get("authorization"), ctx.config.adminSecret)) throw notFound();
      set.headers["cache-control"] = CACHE.noStore;
      return { items: listSetAside(ctx.db) };
    },
    { detail: { hide: true } },
  );
}
