/**
 * Proof of reserves (`GET /api/proof`, fields of DESIGN §5): the treasury balance read from the
 * chain, against what the books owe recipients. When the balance cannot be read the answer is
 * 503, never a stale or zero figure that would look like insolvency.
 *
 * The answer is memoised (the read memo, src/http/read-memo.ts) for at most PROOF_MEMO_MS and only
 * while the books are unchanged, so a burst of requests costs one provider read instead of one
 * each; concurrent requests that find no answer share one read. Treasury and owed figures are
 * always from one reading, never a remembered balance beside fresh books. PROOF_MEMO_MS is under
 * the route's s-maxage (15 s, SPEC's Limits): no answer is older than a shared cache may serve.
 */
import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { CACHE } from "../http/cache";
import { AppError } from "../lib/errors";
import { errors, IsoTimeSchema, LamportsSchema } from "../http/public-schemas";
import { jsonBody, readMemo } from "../http/read-memo";
import { owedForReserves } from "./reserves";
import { log } from "../lib/log";

/** How long one reading of the treasury answers `/api/proof` (while the books do not change). */
export const PROOF_MEMO_MS = 5_000;
const PROOF_MEMO_KEY = "proof";

const TREASURY_READ_WAIT_MS = 3_000;

const ProofSchema = t.Object(
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
  const memo = readMemo(ctx.db);
  let reading: Promise<Blob> | null = null;

  /** Reads the treasury, then the books at one version, and remembers the answer. */
  async function readProof(): Promise<Blob> {
    const chain = ctx.chain;
    if (!chain) throw new AppError("TREASURY_UNREADABLE");
    const treasury = chain.treasury.publicKey.toBase58();
    const readAtMs = ctx.now();
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
      throw new AppError("TREASURY_UNREADABLE");
    }
    const balance = treasuryLamports;
    // The stamp and the books in one read transaction: the body stored under the version is what
    // the books held at that version.
    const { version, owed } = ctx.db.$client
      .transaction(() => ({ version: memo.version(), owed: owedForReserves(ctx.db) }))
      .deferred();
    const surplus = balance - owed;
    const body = {
      treasury,
      treasuryLamports: balance.toString(),
      owedLamports: owed.toString(),
      surplusLamports: surplus.toString(),
      solvent: surplus >= 0n,
      checkedAt: new Date(ctx.now()).toISOString(),
    };
    return memo.set(PROOF_MEMO_KEY, version, JSON.stringify(body), readAtMs);
  }

  return new Elysia({ name: "proof" }).get(
    "/api/proof",
    async ({ set }) => {
      set.headers["cache-control"] = CACHE.proof;
      const hit = memo.get(PROOF_MEMO_KEY);
      if (hit && ctx.now() - hit.note < PROOF_MEMO_MS) return jsonBody(hit.body, set);
      if (!reading) reading = readProof().finally(() => (reading = null));
      return jsonBody(await reading, set);
    },
    {
      response: { 200: ProofSchema, ...errors(429, 503) },
      detail: { tags: ["public"], summary: "Proof of reserves: treasury balance against what is owed" },
    },
  );
}
