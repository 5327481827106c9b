/**
 * Issue 43, finding 10: `/api/proof` read the treasury from the provider on every request. One
 * reading now answers for at most PROOF_MEMO_MS (under the route's s-maxage of 15 s) and only
 * while the books are unchanged; concurrent requests share one read; a failed read is not kept.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { PROOF_MEMO_MS } from "../../src/proof/routes";
import { fakeChain, launch, sweep, T0 } from "../helpers/read-world";
import { testService, type TestService } from "../helpers/service";

let svc: TestService | null = null;
afterEach(async () => {
  await svc?.cleanup();
  svc = null;
});

describe("GET /api/proof reads the treasury once per memo window", () => {
  test("repeated and concurrent requests share one provider read; books changing or time passing read again", async () => {
    let now = Date.now();
    let treasury = 50_000n;
    const chain = fakeChain({ treasuryLamports: async () => treasury });
    svc = testService({}, { chain, now: () => now });
    expect(PROOF_MEMO_MS).toBeLessThanOrEqual(15_000);
    const first = await svc.json("/api/proof");
    expect(first.status).toBe(200);
    expect(first.body.treasuryLamports).toBe("50000");
    await svc.json("/api/proof");
    const burst = await Promise.all(Array.from({ length: 5 }, () => svc!.json("/api/proof")));
    expect(burst.every((r) => r.status === 200 && r.body.checkedAt === first.body.checkedAt)).toBe(true);
    expect(chain.calls.getBalances).toBe(1);

    // The books change: treasury and owed are read again together, never a kept balance beside new books.
    treasury = 60_000n;
    const { tokenId } = launch(svc.ctx.db, { launchedAtMs: T0 });
    sweep(svc.ctx.db, tokenId, 10_000n, T0 + 1);
    const afterSweep = await svc.json("/api/proof");
    expect(afterSweep.body).toMatchObject({ treasuryLamports: "60000", owedLamports: "9000", solvent: true });
    expect(chain.calls.getBalances).toBe(2);

    // Nothing changes in the books, but the window passes: the treasury is read again.
    treasury = 70_000n;
    now += PROOF_MEMO_MS - 1;
    expect((await svc.json("/api/proof")).body.treasuryLamports).toBe("60000");
    now += 2;
    expect((await svc.json("/api/proof")).body.treasuryLamports).toBe("70000");
    expect(chain.calls.getBalances).toBe(3);
  });

  test("a failed read is not remembered: the next request asks again", async () => {
    let failing = true;
    const chain = fakeChain({
      treasuryLamports: async () => {
        if (failing) throw new Error("node unavailable");
        return 1_000n;
      },
    });
    svc = testService({}, { chain });
    expect((await svc.json("/api/proof")).status).toBe(503);
    failing = false;
    const ok = await svc.json("/api/proof");
    expect(ok.status).toBe(200);
    expect(ok.headers.get("cache-control")).toBe("public, max-age=0, s-maxage=15, stale-while-revalidate=45");
    expect(chain.calls.getBalances).toBe(2);
  });
});
