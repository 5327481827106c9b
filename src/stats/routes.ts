import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { CACHE } from "../http/cache";
import { Int } from "../http/public-schemas";
import { memoisedStats } from "./service";

const Lamports = t.String({ pattern: "^[0-9]+$", description: "lamports as a decimal string" });

export const StatsSchema = t.Object({
  tokens: Int(),
  recipients: Int(),
  claimedAccounts: Int(),
  sweptLamports: Lamports,
  paidLamports: Lamports,
  burnedLamports: Lamports,
  owedLamports: Lamports,
  unclaimedLamports: Lamports,
  launches24h: Int(),
  updatedAt: t.String({ format: "date-time" }),
});

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
