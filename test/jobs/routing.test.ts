/**
 * Credits route by each account's routing at the sweep that credits them: hold and autopay to the
 * balance (autopay then paid by the payouts job), burn and declined to burn orders; an account
 * not signed in yet accrues on its handle. A routing change applies from the next sweep on.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Keypair, PublicKey } from "@solana/web3.js";
import { setRouting } from "../../src/identity/identity";
import { accountFigures } from "../../src/ledger/figures";
import { splitSweep } from "../../src/ledger/split";
import { moneyWorld, type World } from "./world";

let w: World | null = null;
afterEach(async () => {
  await w?.close();
  w = null;
});

describe("routing at each sweep", () => {
  test("hold, autopay, burn, declined and not signed in; a switch applies from the next sweep", async () => {
    w = await moneyWorld();
    const wallet = Keypair.generate().publicKey.toBase58();
    w.signIn("u-alice", "alice");
    w.signIn("u-bob", "bob", { routing: "autopay", wallet });
    w.signIn("u-carol", "carol", { routing: "burn", declined: true });
    const recipients = [
      { handle: "alice", bps: 4000 },
      { handle: "bob", bps: 3000 },
      { handle: "carol", bps: 2000 },
      { handle: "dave", bps: 1000 },
    ];
    const t = w.launch(recipients, 500);
    const credit = (total: bigint) =>
      new Map(
        splitSweep(
          total,
          500,
          recipients.map((r) => ({ key: r.handle, bps: r.bps })),
        ).recipients.map((r) => [r.key, r.lamports]),
      );

    w.trade(t.mint, 4_000_000_000n);
    const first = (await w.unswept([t])).get(t.mint)!;
    expect(await w.run("sweep")).toMatchObject({ ran: true, ok: true });
    const c1 = credit(first);
    expect(accountFigures(w.db, "user", "u-alice")).toMatchObject({
      creditedLamports: c1.get("alice"),
      balanceLamports: c1.get("alice"),
      burnedLamports: 0n,
    });
    expect(accountFigures(w.db, "user", "u-bob").balanceLamports).toBe(c1.get("bob")!);
    expect(accountFigures(w.db, "user", "u-carol")).toMatchObject({
      creditedLamports: c1.get("carol"),
      burnedLamports: c1.get("carol"),
      balanceLamports: 0n,
    });
    expect(accountFigures(w.db, "handle", "dave").balanceLamports).toBe(c1.get("dave")!);
    w.checkRelations();

    // Autopay pays bob's whole balance on the next payout run.
    expect(await w.run("payouts")).toMatchObject({ ran: true, ok: true });
    expect(w.local.node.getBalance(new PublicKey(wallet))).toBe(c1.get("bob")!);
    expect(w.db.$client.query("SELECT kind, status FROM payouts").all()).toEqual([
      { kind: "autopay", status: "confirmed" },
    ]);

    // Alice switches to burn: her next credits are burn orders; what she holds stays hers.
    setRouting(w.db, "u-alice", { routing: "burn", payoutWallet: null, declined: false });
    w.trade(t.mint, 2_000_000_000n);
    const second = (await w.unswept([t])).get(t.mint)!;
    expect(await w.run("sweep")).toMatchObject({ ran: true, ok: true });
    const c2 = credit(second);
    expect(accountFigures(w.db, "user", "u-alice")).toMatchObject({
      creditedLamports: c1.get("alice")! + c2.get("alice")!,
      burnedLamports: c2.get("alice"),
      balanceLamports: c1.get("alice"),
    });
    const orders = w.db.$client
      .query("SELECT idp_user_id AS id, SUM(lamports) AS s FROM burn_orders GROUP BY idp_user_id ORDER BY id")
      .all();
    expect(orders).toEqual([
      { id: "u-alice", s: c2.get("alice")! },
      { id: "u-carol", s: c1.get("carol")! + c2.get("carol")! },
    ]);
    expect(await w.run("burns")).toMatchObject({ ran: true, ok: true });
    expect(await w.run("payouts")).toMatchObject({ ran: true, ok: true });
    expect(w.local.node.getBalance(new PublicKey(wallet))).toBe(c1.get("bob")! + c2.get("bob")!);
    const totals = w.checkRelations();
    expect(totals.burnedLamports).toBe(c2.get("alice")! + c1.get("carol")! + c2.get("carol")!);
    expect(totals.paidLamports).toBe(c1.get("bob")! + c2.get("bob")!);
    expect(totals.unclaimedLamports).toBe(c1.get("alice")! + c1.get("dave")! + c2.get("dave")!);
  }, 30_000);
});
