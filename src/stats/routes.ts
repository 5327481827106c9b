import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { CACHE } from "../http/cache";
import { StatsSchema } from "./schemas";
import { memoisedStats } from "./service";

export function statsRoutes(ctx: AppContext) {
  return new Elysia({ name: "stats" }).get(
    "/api/stats",
    ({ set }) => {
      set.headers["cache-control"] = CACHE.publicRead;
      return memoisedStats(ctx.db, ctx.now());
    },
    {
      response: { 200: StatsSchema },
      detail: { tags: ["public"], summary: "Service-wide figures" },
    },
  );
}
