/** SPEC's Stats as the public JSON; the TypeScript type is derived from it. */
import { t, type Static } from "elysia";
import { Int } from "../http/public-schemas";

const Lamports = t.String({ pattern: "^[0-9]+$", description: "lamports as a decimal string" });

export const StatsSchema = t.Object(
  {
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
  },
  { title: "Stats" },
);

export type Stats = Static<typeof StatsSchema>;
