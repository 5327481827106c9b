import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { CACHE } from "../http/cache";
import { jsonBody } from "../http/read-memo";
import { StatsSchema } from "./schemas";
import { memoisedStats, type Stats } from "./service";

export function statsRoutes(ctx: AppContext) {
  // The figures change at most once per STATS_MEMO_MS: their JSON is encoded once per figures.
  let rendered: { stats: Stats; body: Blob } | null = null;
  return new Elysia({ name: "stats" }).get(
    "/api/stats",
    ({ set }) => {
      set.headers["cache-control"] = CACHE.publicRead;
      const stats = memoisedStats(ctx.db, ctx.now());
      if (rendered?.stats !== stats) rendered = { stats, body: new Blob([JSON.stringify(stats)]) };
      return jsonBody(rendered.body, set);
    },
    {
      response: { 200: StatsSchema },
      detail: { tags: ["public"], summary: "Service-wide figures" },
    },
  );
}
