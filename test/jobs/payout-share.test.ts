/**
 * A payouts run's batches share one latest blockhash and one fee-market ask (issue 42: a provider
 * bills each ask), and every payout is still paid once, to the lamport.
 */
import { afterEach, expect, test } from "bun:test";
import { Keypair, PublicKey } from "@solana/web3.js";
import { accountFigures } from "../../src/ledger/figures";
import { moneyWorld, type World } from "./world";

let w: World | null = null;
afterEach(async () => {
  await w?.close();
  w = null;
});

test("a payouts run sending several transactions asks the blockhash and the fee market once", async () => {
  w = await moneyWorld();
  const wallets = new Map<string, string>();
  const launched = [];
  for (let t = 0; t < 3; t++) {
    const recipients = [];
    for (let r = 0; r < 9; r++) {
      const handle = `payee${t}x${r}`;
      const wallet = Keypair.generate().publicKey.toBase58();
      wallets.set(`u-${handle}`, wallet);
      w.signIn(`u-${handle}`, handle, { routing: "autopay", wallet });
      recipients.push({ handle, bps: r === 0 ? 2000 : 1000 });
    }
    launched.push(w.launch(recipients, 500));
  }
  for (const t of launched) w.trade(t.mint, 4_000_000_000n);
  expect(await w.run("sweep")).toMatchObject({ ran: true, ok: true });
  const owed = new Map([...wallets.keys()].map((id) => [id, accountFigures(w!.db, "user", id).balanceLamports]));
  for (const lamports of owed.values()) expect(lamports).toBeGreaterThan(0n);

  const served = (method: string) => w!.local.served.requests.get(method) ?? 0;
  const before = { blockhash: served("getLatestBlockhash"), market: served("getRecentPrioritizationFees") };
  expect(await w.run("payouts")).toMatchObject({ ran: true, ok: true });

  const sent = w.db.$client
    .query<{ n: bigint }, []>("SELECT COUNT(DISTINCT signature) AS n FROM payouts WHERE status = 'confirmed'")
    .get()!;
  // 27 payouts, twelve to a transaction: three transactions on one ask of each.
  expect(Number(sent.n)).toBe(3);
  expect(served("getLatestBlockhash") - before.blockhash).toBe(1);
  expect(served("getRecentPrioritizationFees") - before.market).toBe(1);
  for (const [id, wallet] of wallets) {
    expect(w.local.node.getBalance(new PublicKey(wallet))).toBe(owed.get(id)!);
    expect(accountFigures(w.db, "user", id).balanceLamports).toBe(0n);
  }
  w.checkRelations();
}, 60_000);
