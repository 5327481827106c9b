/**
 * A mint stopped because its program changed under it (issue 61, item 7) is held back from every
 * job, not only the sweep that found it: the burns job buys none of it until an operator clears
 * the stop, and then buys as before.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { clearSetAside, listSetAside, setAsideStates } from "../../src/jobs";
import { moneyWorld, type World } from "./world";

const SOL = 1_000_000_000n;

let w: World | null = null;
afterEach(async () => {
  await w?.close();
  w = null;
});

const buysOf = (world: World, mint: string) =>
  Number(
    (world.db.$client.query("SELECT COUNT(*) AS n FROM burn_buys WHERE mint = ?").get(mint) as { n: bigint | number })
      .n,
  );
const pendingOrders = (world: World) =>
  Number(
    (world.db.$client.query("SELECT COUNT(*) AS n FROM burn_orders WHERE status = 'pending'").get() as { n: bigint }).n,
  );

describe("a program-changed mint in the burns job", () => {
  test("the sweep stops it; the burns job buys none of it until the stop is cleared", async () => {
    w = await moneyWorld();
    w.signIn("u-carol", "carol", { routing: "burn" });
    const t = w.launch([{ handle: "carol", bps: 10_000 }]);
    w.trade(t.mint, 3n * SOL);
    expect(await w.run("sweep")).toMatchObject({ ran: true, ok: true });
    expect(pendingOrders(w)).toBeGreaterThan(0);

    // The next reading shows an account layout the adapter does not know: the sweep stops the mint.
    w.local.faults.apply({ kind: "programLayout", layout: "v3" });
    expect(await w.run("sweep")).toMatchObject({ ran: true, ok: true });
    const [item] = listSetAside(w.db);
    expect(item).toMatchObject({ mint: t.mint, job: "sweep", retryAt: null });
    expect(item!.reason).toMatch(/^program-changed: /);
    // Reads look ordinary again; the stop stands until an operator looks.
    w.local.faults.apply({ kind: "clear" });

    expect(await w.run("burns")).toMatchObject({ ran: true, ok: true });
    expect(buysOf(w, t.mint)).toBe(0);
    expect(pendingOrders(w)).toBeGreaterThan(0);

    const seen = setAsideStates(w.db, t.mint, null);
    expect(clearSetAside(w.db, t.mint, seen, () => {})).toBe(true);
    expect(await w.run("burns")).toMatchObject({ ran: true, ok: true });
    expect(buysOf(w, t.mint)).toBeGreaterThan(0);
    w.checkRelations();
  }, 60_000);
});
