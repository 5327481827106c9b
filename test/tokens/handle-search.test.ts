/**
 * Issue 65 item 6: Explore's search found a recipient only by the exact handle (`carol` and
 * `@carol` found nothing for `carol_demo`). The start of a handle, with or without `@` and in any
 * case, finds every token naming a handle that starts with it, as a name's substring does; and the
 * lookup stays a range on the handle index (no scan of the recipients, however many tokens).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { HANDLE_PREFIX_IDS_SQL, HANDLE_PREFIX_TERM } from "../../src/tokens/queries";
import { launch, setVault, T0 } from "../helpers/read-world";
import { testService, type TestService } from "../helpers/service";

let svc: TestService;
afterEach(async () => svc && (await svc.cleanup()));

const found = async (q: string, sort = "new"): Promise<string[]> => {
  const { status, body } = await svc.json(`/api/tokens?sort=${sort}&q=${encodeURIComponent(q)}`);
  expect(status).toBe(200);
  return (body.tokens as { mint: string }[]).map((t) => t.mint);
};

describe("handle search by its start", () => {
  test("carol and @carol find carol_demo's tokens; the exact handle still finds its own", async () => {
    svc = testService();
    const db = svc.ctx.db;
    const carolDemo = launch(db, {
      name: "Demo Coin",
      symbol: "DEMO",
      recipients: [{ handle: "carol_demo", bps: 10_000 }],
      launchedAtMs: T0,
    });
    const shared = launch(db, {
      name: "Shared",
      symbol: "SHRD",
      recipients: [
        { handle: "Caroline", bps: 5000 },
        { handle: "carol_demo", bps: 5000 },
      ],
      launchedAtMs: T0 + 1,
    });
    const alice = launch(db, {
      name: "Wonder",
      symbol: "WNDR",
      recipients: [{ handle: "alice_demo", bps: 10_000 }],
      launchedAtMs: T0 + 2,
    });
    // The same order in every sort: newer, more fees.
    setVault(db, shared.mint, 500n, T0);
    setVault(db, carolDemo.mint, 100n, T0);
    // Neither a name nor a handle starting with "carol": "xcarol" holds it further in.
    launch(db, {
      name: "Other",
      symbol: "OTHR",
      recipients: [{ handle: "xcarol", bps: 10_000 }],
      launchedAtMs: T0 + 3,
    });

    for (const q of ["carol", "@carol", "@Carol", "CAROL", "car", "@ca"])
      expect({ q, found: await found(q) }).toEqual({ q, found: [shared.mint, carolDemo.mint] });
    // A token naming two matching handles is listed once, in every order.
    for (const sort of ["fees", "mcap"]) expect(await found("@carol", sort)).toEqual([shared.mint, carolDemo.mint]);
    expect(await found("carol_")).toEqual([shared.mint, carolDemo.mint]);
    expect(await found("@carol_demo")).toEqual([shared.mint, carolDemo.mint]);
    expect(await found("carolin")).toEqual([shared.mint]);
    expect(await found("@alice")).toEqual([alice.mint]);
    expect(await found("@a")).toEqual([alice.mint]);
    expect(await found("@carol_demo_")).toEqual([]);
    expect(await found("@zed")).toEqual([]);
  });

  test("a handle start matching more tokens than one page pages without a skip or a repeat", async () => {
    svc = testService({ RATE_LIMIT: "off" });
    const db = svc.ctx.db;
    const named: string[] = [];
    db.$client.transaction(() => {
      for (let i = 0; i < 30; i++)
        named.push(
          launch(db, {
            name: `Coin ${i}`,
            recipients: [{ handle: `carol_${i}`, bps: 10_000 }],
            launchedAtMs: T0 + i,
          }).mint,
        );
      for (let i = 0; i < 10; i++) launch(db, { name: `Else ${i}`, launchedAtMs: T0 + 100 + i });
    })();
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const path: string = `/api/tokens?q=%40carol&limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const { status, body } = await svc.json(path);
      expect(status).toBe(200);
      seen.push(...(body.tokens as { mint: string }[]).map((t) => t.mint));
      cursor = body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...named].reverse());
  });

  test("the handle start is a range on the handle index, never a scan of the recipients", () => {
    svc = testService();
    const plan = (sql: string) =>
      (
        svc.ctx.db.$client.query(`EXPLAIN QUERY PLAN ${sql}`).all({ qHandle: "carol", qHandleEnd: "carol{" }) as {
          detail: string;
        }[]
      ).map((r) => r.detail);
    const ids = plan(HANDLE_PREFIX_IDS_SQL);
    // Covering since migration 0025 (the index carries the token and the share).
    expect(ids).toContain(
      "SEARCH token_recipients USING COVERING INDEX token_recipients_handle (handle>? AND handle<?)",
    );
    expect(ids.filter((d) => d.startsWith("SCAN"))).toEqual([]);
    // As the walk of a sort index filters by it (many matches): the recipients are read by range once.
    for (const order of ["t.launched_at_ms DESC, t.mint DESC", "t.fees_lamports DESC, t.mint DESC"]) {
      const walk = plan(
        `SELECT t.id FROM tokens t WHERE t.hidden = 0 AND (${HANDLE_PREFIX_TERM}) ORDER BY ${order} LIMIT 25`,
      );
      expect(walk).toContain("SEARCH r USING COVERING INDEX token_recipients_handle (handle>? AND handle<?)");
      expect(walk.filter((d) => /^SCAN (r|token_recipients)\b/.test(d))).toEqual([]);
    }
  });
});
