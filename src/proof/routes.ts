/**
 * Proof of reserves (`GET /api/proof`, fields of DESIGN §5): the treasury balance read from the
 * chain now, against what the books owe recipients. When the balance cannot be read the answer
 * is 503, never a stale or zero figure that would look like insolvency.
 */
import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { CACHE } from "../http/cache";
import { unavailable } from "../http/errors";
import { errors, IsoTimeSchema, LamportsSchema } from "../http/public-schemas";
import { owedForReserves } from "./reserves";
import { log } from "../lib/log";

export const TREASURY_READ_WAIT_MS = 3_000;

export const ProofSchema = t.Object(
  {
    treasury: t.String({ description: "treasury address" }),
    treasuryLamports: LamportsSchema,
    owedLamports: LamportsSchema,
    surplusLamports: t.String({ pattern: "^-?[0-9]+$", description: "treasury minus owed; negative when short" }),
    solvent: t.Boolean(),
    checkedAt: IsoTimeSchema,
  },
  { title: "Proof" },
);

export function proofRoutes(ctx: AppContext) {
  return new Elysia({ name: "proof" }).get(
    "/api/proof",
    async ({ set }) => {
      set.headers["cache-control"] = CACHE.proof;
      const chain = ctx.chain;
      if (!chain) throw unavailable("The treasury balance cannot be read right now; try again later.");
      const treasury = chain.treasury.publicKey.toBase58();
      let timer: ReturnType<typeof setTimeout> | undefined;
      let treasuryLamports: bigint | undefined;
      try {
        const balances = await Promise.race([
          chain.reader.getBalances([treasury]),
          new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), TREASURY_READ_WAIT_MS))),
        ]);
        treasuryLamports = balances?.get(treasury);
      } catch (error) {
        log.warn("treasury balance read failed", { error });
      } finally {
        clearTimeout(timer);
      }
      if (typeof treasuryLamports !== "bigint") {
        throw unavailable("The treasury balance cannot be read right now; try again later.");
      }
      const owed = owedForReserves(ctx.db);
      const surplus = treasuryLamports - owed;
      return {
        treasury,
        treasuryLamports: treasuryLamports.toString(),
        owedLamports: owed.toString(),
        surplusLamports: surplus.toString(),
        solvent: surplus >= 0n,
        checkedAt: new Date(ctx.now()).toISOString(),
      };
    },
    {
      response: { 200: ProofSchema, ...errors(429, 503) },
      detail: { tags: ["public"], summary: "Proof of reserves: treasury balance against what is owed" },
    },
  );
}
