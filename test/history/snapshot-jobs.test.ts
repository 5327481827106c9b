/**
 * The job hooks on the embedded local chain: a sweep run records a solvency snapshot with the
 * treasury's balance read from the chain and what the books owe; later runs that change nothing
 * add no row within the hour; /api/proof/history serves it.
 */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { ledgerTotals } from "../../src/ledger/figures";
import { moneyHarness, type MoneyHarness } from "../jobs/harness";
import type { Json } from "../helpers/service";

setDefaultTimeout(60_000);
let h: MoneyHarness | null = null;
afterAll(async () => h?.close());

test("sweep and payout runs record the treasury against what is owed", async () => {
  h = await moneyHarness();
  const { service, chain } = h;
  const token = await h.launch([{ handle: "snap_alice", bps: 10_000 }]);
  await h.trade(token.mint, 2_000_000_000n);
  await h.run("sweep");
  const rows = () =>
    service.ctx.db.$client
      .query("SELECT trigger, treasury_lamports AS treasury, owed_lamports AS owed FROM solvency_snapshots ORDER BY id")
      .all() as { trigger: string; treasury: bigint; owed: bigint }[];
  const after = rows();
  expect(after.map((r) => r.trigger)).toEqual(["sweep"]);
  const treasury = chain.services.treasury.publicKey.toBase58();
  const onChain = (await chain.services.reader.getBalances([treasury])).get(treasury)!;
  expect(BigInt(after[0]!.treasury)).toBe(onChain);
  const owed = ledgerTotals(service.ctx.db).owedLamports;
  expect(owed).toBeGreaterThan(0n);
  expect(BigInt(after[0]!.owed)).toBe(owed);

  // Nothing moved: the payouts and burns runs add no repeat within the hour.
  await h.run("payouts");
  await h.run("burns");
  expect(rows()).toHaveLength(1);

  const { body } = await service.app
    .handle(new Request("http://localhost/api/proof/history"))
    .then(async (r) => ({ body: (await r.json()) as Json }));
  expect(body.points).toEqual([
    {
      at: expect.any(String),
      treasuryLamports: onChain.toString(),
      owedLamports: owed.toString(),
      surplusLamports: (onChain - owed).toString(),
      solvent: onChain >= owed,
    },
  ]);
});
