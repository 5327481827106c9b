/**
 * Every transaction the service signs says what it is: its last instruction is a Memo signed by
 * the treasury carrying the command key (src/chain/command-key.ts), so the treasury's history on
 * chain is a journal a restored database can be reconciled with. Each job runs on the local chain;
 * its landed transactions are read back with web3.js (not the service's reader) and each memo must
 * decode to exactly the rows the job saved for that signature.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Connection, Keypair, PublicKey, TransactionInstruction } from "@solana/web3.js";
import bs58 from "bs58";
import { type CommandKey, decodeCommandKey } from "../../src/chain/command-key";
import { isChainRejected } from "../../src/chain/errors";
import { SPL_MEMO_PROGRAM_ID } from "../../src/chain/memo";
import { createRpcChain } from "../../src/chain/rpc";
import { requestWithdrawal } from "../../src/custody/withdrawals";
import { anchorSnapshots } from "../../src/liabilities/anchor";
import { takeSnapshot } from "../../src/liabilities/snapshots";
import { markPayoutsSent, queuePayout, replaceExpiredPayouts } from "../../src/payouts/service";
import { owedForReserves } from "../../src/proof";
import { PLATFORM_TOKEN_MINT_KEY } from "../../src/settings";
import { moneyWorld, type World } from "../jobs/world";
import { context, type FakeRpc, startFakeRpc } from "./support/fake-rpc";

const MEMO = SPL_MEMO_PROGRAM_ID.toBase58();
const SYSTEM = "11111111111111111111111111111111";

let w: World | null = null;
let fake: FakeRpc | null = null;
afterEach(async () => {
  await w?.close();
  w = null;
  await fake?.stop();
  fake = null;
});

interface Landed {
  key: CommandKey;
  /** the transaction's instructions in order, as the chain recorded them */
  instructions: { program: string; accounts: string[]; data: Buffer }[];
  memos: string[];
}

/** The landed transaction read back from the node, its command key checked to be last and signed by the treasury. */
async function landed(world: World, signature: string): Promise<Landed> {
  const connection = new Connection(world.local.rpcUrl, "confirmed");
  const tx = await connection.getTransaction(signature, {
    commitment: "confirmed",
    maxSupportedTransactionVersion: 0,
  });
  expect(tx?.meta?.err).toBeNull();
  const message = tx!.transaction.message;
  const keys = message.staticAccountKeys.map((k) => k.toBase58());
  const instructions = message.compiledInstructions.map((ix) => ({
    program: keys[ix.programIdIndex]!,
    accounts: ix.accountKeyIndexes.map((i) => keys[i]!),
    data: Buffer.from(ix.data),
  }));
  const treasury = world.treasury.publicKey.toBase58();
  const lastIndex = message.compiledInstructions.length - 1;
  const last = message.compiledInstructions[lastIndex]!;
  expect(keys[last.programIdIndex]).toBe(MEMO);
  // It names the treasury alone, as a signer of the transaction, and the memo program checked it.
  expect(last.accountKeyIndexes.map((i) => keys[i])).toEqual([treasury]);
  expect(message.isAccountSigner(last.accountKeyIndexes[0]!)).toBe(true);
  expect(tx!.meta!.logMessages).toContain(`Program log: Signed by ${treasury}`);
  const memos = instructions.filter((ix) => ix.program === MEMO).map((ix) => ix.data.toString("utf8"));
  // One command key a transaction: the launch program's own event memos are not command keys.
  expect(memos.filter((m) => m.startsWith("fl1:"))).toHaveLength(1);
  const key = decodeCommandKey(instructions[lastIndex]!.data.toString("utf8"));
  expect(key).not.toBeNull();
  return { key: key!, instructions, memos };
}

/** A system transfer's destination and lamports. */
function transferOf(ix: Landed["instructions"][number]): { to: string; lamports: bigint } {
  expect(ix.program).toBe(SYSTEM);
  expect(ix.data.readUInt32LE(0)).toBe(2);
  return { to: ix.accounts[1]!, lamports: ix.data.readBigUInt64LE(4) };
}

const X_ALICE = "1234567890123456789";
const X_BOB = "1876543210987654321";
const X_BURN = "1111111111111111111";

describe("every transaction the service signs names its command in a treasury-signed memo", () => {
  test("sweeps, payouts (a claim, an autopay, a replacement), a withdrawal, burn buys and burns: each memo is exactly the rows saved", async () => {
    w = await moneyWorld();
    const world = w;
    const db = world.db;
    const aliceWallet = Keypair.generate().publicKey.toBase58();
    world.signIn(X_ALICE, "xalice", { routing: "autopay", wallet: aliceWallet });
    world.signIn(X_BOB, "xbob");
    world.signIn(X_BURN, "xburn", { routing: "burn" });
    const a = world.launch(
      [
        { handle: "xalice", bps: 5000 },
        { handle: "xbob", bps: 5000 },
      ],
      1000,
    );
    const b = world.launch([{ handle: "xburn", bps: 10_000 }], 1000);
    const platform = world.launch(
      [
        { handle: "xburn", bps: 5000 },
        { handle: "xbob", bps: 5000 },
      ],
      1000,
    );
    db.$client
      .query("INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = ?2")
      .run(PLATFORM_TOKEN_MINT_KEY, platform.mint);
    world.trade(a.mint, 40_000_000_000n);
    world.trade(b.mint, 40_000_000_000n);
    world.trade(platform.mint, 5_000_000_000n);
    expect(await world.run("sweep", { PLATFORM_BUYBACK_BPS: "5000" })).toMatchObject({ ran: true, ok: true });

    // Sweeps: the token ids of the rows saved with that signature, in the order the transaction sweeps them.
    const sweeps = db.$client
      .query("SELECT signature, token_id AS tokenId FROM sweeps WHERE status = 'confirmed'")
      .all() as { signature: string; tokenId: bigint }[];
    expect(sweeps.length).toBe(3);
    for (const signature of new Set(sweeps.map((s) => s.signature))) {
      const tx = await landed(world, signature);
      expect(tx.key.kind).toBe("sweeps");
      const ids = (tx.key as Extract<CommandKey, { kind: "sweeps" }>).tokenIds;
      const rows = sweeps.filter((s) => s.signature === signature).map((s) => Number(s.tokenId));
      expect([...ids].sort()).toEqual([...rows].sort());
      expect(ids.length).toBe(rows.length);
      const creators = ids.map(
        (id) => (db.$client.query("SELECT creator FROM tokens WHERE id = ?").get(id) as { creator: string }).creator,
      );
      const firstUse = creators.map((c) => tx.instructions.findIndex((ix) => ix.accounts.includes(c)));
      expect(firstUse.every((at, i) => at >= 0 && (i === 0 || at > firstUse[i - 1]!))).toBe(true);
    }

    // Payouts: Bob's claim whose transaction provably expired is replaced; Alice's autopay joins it.
    const bobWallet = Keypair.generate().publicKey.toBase58();
    const claim = queuePayout(db, {
      idpUserId: X_BOB,
      lamports: null,
      wallet: bobWallet,
      kind: "claim",
      minLamports: 1n,
      atMs: Date.now(),
    });
    const neverSent = bs58.encode(crypto.getRandomValues(new Uint8Array(64)));
    markPayoutsSent(db, {
      payoutIds: [claim.payoutId],
      signature: neverSent,
      lastValidBlockHeight: 0n,
      atMs: Date.now(),
    });
    const [replacement] = replaceExpiredPayouts(db, neverSent, Date.now());
    // A withdrawal to the platform's wallet goes out in the same run.
    const platformWallet = Keypair.generate().publicKey.toBase58();
    const withdrawal = requestWithdrawal(
      db,
      {
        lamports: 1_000_000n,
        reason: "command key test",
        actor: "test",
        wallet: platformWallet,
        treasuryLamports: world.treasuryLamports(),
        owedLamports: () => owedForReserves(db),
        reserveLamports: 0n,
        atMs: Date.now(),
      },
      () => {},
    );
    expect(await world.run("payouts")).toMatchObject({ ran: true, ok: true });
    const payouts = db.$client
      .query(
        `SELECT id, signature, kind, idp_user_id AS user, replaces_id AS replaces, wallet, lamports
           FROM payouts WHERE status = 'confirmed'`,
      )
      .all() as {
      id: bigint;
      signature: string;
      kind: string;
      user: string;
      replaces: bigint | null;
      wallet: string;
      lamports: bigint;
    }[];
    expect(payouts.map((p) => p.user).sort()).toEqual([X_ALICE, X_BOB].sort());
    expect(payouts.find((p) => p.user === X_ALICE)!.kind).toBe("autopay");
    expect(Number(payouts.find((p) => p.user === X_BOB)!.id)).toBe(replacement!);
    for (const signature of new Set(payouts.map((p) => p.signature))) {
      const tx = await landed(world, signature);
      expect(tx.key.kind).toBe("payouts");
      const items = (tx.key as Extract<CommandKey, { kind: "payouts" }>).items;
      const rows = payouts.filter((p) => p.signature === signature);
      expect(items.length).toBe(rows.length);
      const transfers = tx.instructions.filter((ix) => ix.program === SYSTEM).map(transferOf);
      expect(transfers.length).toBe(items.length);
      const firstOfChain = (id: number): number => {
        const up = payouts.find((p) => Number(p.id) === id);
        return up && up.replaces !== null ? firstOfChain(Number(up.replaces)) : id;
      };
      items.forEach((item, i) => {
        const row = rows.find((r) => Number(r.id) === item.payoutId)!;
        expect(item).toEqual({
          payoutId: Number(row.id),
          kind: row.kind as "claim" | "autopay",
          idpUserId: row.user,
          // The chain's first payout, however many replacements since.
          firstPayoutId: row.replaces === null ? null : firstOfChain(Number(row.replaces)),
        });
        // Item i is the i-th transfer: its wallet and amount are the row's.
        expect(transfers[i]).toEqual({ to: row.wallet, lamports: BigInt(row.lamports) });
      });
    }
    expect(payouts.find((p) => p.user === X_BOB)!.replaces).toBe(BigInt(claim.payoutId));

    const sentWithdrawal = db.$client
      .query("SELECT id, status, signature FROM withdrawals WHERE id = ?")
      .get(withdrawal.id) as { id: bigint; status: string; signature: string };
    expect(sentWithdrawal.status).toBe("confirmed");
    expect((await landed(world, sentWithdrawal.signature)).key).toEqual({
      kind: "withdrawal",
      withdrawalId: Number(sentWithdrawal.id),
    });

    // Burn buys, in parts (a tight price-impact bound cuts orders), and their burns.
    const ordersBefore = (db.$client.query("SELECT COUNT(*) AS n FROM burn_orders").get() as { n: bigint }).n;
    for (let run = 0; run < 30; run++) {
      const open = db.$client.query("SELECT COUNT(*) AS n FROM burn_orders WHERE status <> 'done'").get() as {
        n: bigint;
      };
      if (open.n === 0n) break;
      expect(await world.run("burns", { BURN_MAX_PRICE_IMPACT_BPS: "5" })).toMatchObject({ ran: true, ok: true });
    }
    const ordersAfter = (db.$client.query("SELECT COUNT(*) AS n FROM burn_orders").get() as { n: bigint }).n;
    expect(ordersAfter).toBeGreaterThan(ordersBefore); // some order was cut for a part
    const buys = db.$client
      .query(
        "SELECT b.id, b.signature, b.burn_signature AS burnSignature, b.status, t.id AS tokenId FROM burn_buys b JOIN tokens t ON t.mint = b.mint ORDER BY b.id",
      )
      .all() as { id: bigint; signature: string; burnSignature: string; status: string; tokenId: bigint }[];
    expect(buys.length).toBeGreaterThan(3);
    const sources = new Set<string>();
    for (const buy of buys) {
      expect(buy.status).toBe("confirmed");
      const orders = db.$client
        .query("SELECT id, lamports, source, idp_user_id AS user FROM burn_orders WHERE buy_id = ? ORDER BY id")
        .all(buy.id) as { id: bigint; lamports: bigint; source: "recipient" | "platform"; user: string | null }[];
      for (const o of orders) sources.add(o.source);
      expect((await landed(world, buy.signature)).key).toEqual({
        kind: "burn-buy",
        buyId: Number(buy.id),
        tokenId: Number(buy.tokenId),
        orders: orders.map((o) => ({
          orderId: Number(o.id),
          lamports: BigInt(o.lamports),
          source: o.source,
          idpUserId: o.source === "platform" ? null : o.user,
        })),
      });
      expect((await landed(world, buy.burnSignature)).key).toEqual({ kind: "burn", buyId: Number(buy.id) });
    }
    expect([...sources].sort()).toEqual(["platform", "recipient"]);
    world.checkRelations();
  }, 180_000);

  test("payouts to accounts with long ids go in smaller batches, each within the size limit, every payout named", async () => {
    w = await moneyWorld();
    const world = w;
    const db = world.db;
    // Ids that are not X's numbers are written out, their separators escaped: a dozen no longer fit.
    const users = Array.from({ length: 13 }, (_, i) => `dev:user.${i},${"x".repeat(40)}`);
    for (const [i, id] of users.entries()) world.signIn(id, `long${i}`);
    const t = world.launch(
      users.map((_, i) => ({ handle: `long${i}`, bps: i === 0 ? 10_000 - 12 * 769 : 769 })),
      1000,
    );
    world.trade(t.mint, 20_000_000_000n);
    expect(await world.run("sweep")).toMatchObject({ ran: true, ok: true });
    for (const id of users) {
      queuePayout(db, {
        idpUserId: id,
        lamports: null,
        wallet: Keypair.generate().publicKey.toBase58(),
        kind: "claim",
        minLamports: 1n,
        atMs: Date.now(),
      });
    }
    expect(await world.run("payouts")).toMatchObject({ ran: true, ok: true });
    const rows = db.$client
      .query("SELECT id, signature, idp_user_id AS user, status FROM payouts ORDER BY id")
      .all() as { id: bigint; signature: string; user: string; status: string }[];
    expect(rows.map((r) => r.status)).toEqual(users.map(() => "confirmed"));
    const signatures = [...new Set(rows.map((r) => r.signature))];
    const sizes: number[] = [];
    for (const signature of signatures) {
      const tx = await landed(world, signature);
      const items = (tx.key as Extract<CommandKey, { kind: "payouts" }>).items;
      const named = rows.filter((r) => r.signature === signature);
      expect(items.map((it) => [it.payoutId, it.idpUserId])).toEqual(named.map((r) => [Number(r.id), r.user]));
      sizes.push(items.length);
    }
    expect(Math.max(...sizes)).toBeLessThan(12);
    expect(sizes.reduce((n, s) => n + s, 0)).toBe(users.length);
  }, 120_000);

  test("a mint with more burn orders than one buy can name is bought in parts, each naming exactly the orders it spent", async () => {
    w = await moneyWorld();
    const world = w;
    const db = world.db;
    const users = Array.from({ length: 24 }, (_, i) => (1_700_000_000_000_000_000n + BigInt(i) * 7_919n).toString());
    for (const [i, id] of users.entries()) world.signIn(id, `burner${i}`, { routing: "burn" });
    const t = world.launch(
      users.map((_, i) => ({ handle: `burner${i}`, bps: i === 0 ? 10_000 - 23 * 416 : 416 })),
      1000,
    );
    world.trade(t.mint, 20_000_000_000n);
    expect(await world.run("sweep")).toMatchObject({ ran: true, ok: true });
    const ordered = db.$client.query("SELECT COUNT(*) AS n, SUM(lamports) AS s FROM burn_orders").get() as {
      n: bigint;
      s: bigint;
    };
    expect(Number(ordered.n)).toBe(users.length);
    for (let run = 0; run < 10; run++) {
      const open = db.$client.query("SELECT COUNT(*) AS n FROM burn_orders WHERE status <> 'done'").get() as {
        n: bigint;
      };
      if (open.n === 0n) break;
      expect(await world.run("burns")).toMatchObject({ ran: true, ok: true });
    }
    const buys = db.$client.query("SELECT id, signature, status FROM burn_buys ORDER BY id").all() as {
      id: bigint;
      signature: string;
      status: string;
    }[];
    // 24 orders do not fit one transaction's command key: two buys at least, all landed, every order done once.
    expect(buys.length).toBeGreaterThan(1);
    let named = 0;
    for (const buy of buys) {
      expect(buy.status).toBe("confirmed");
      const orders = db.$client
        .query("SELECT id, lamports, idp_user_id AS user FROM burn_orders WHERE buy_id = ? ORDER BY id")
        .all(buy.id) as { id: bigint; lamports: bigint; user: string }[];
      const key = (await landed(world, buy.signature)).key as Extract<CommandKey, { kind: "burn-buy" }>;
      expect(key.buyId).toBe(Number(buy.id));
      expect(key.orders).toEqual(
        orders.map((o) => ({
          orderId: Number(o.id),
          lamports: BigInt(o.lamports),
          source: "recipient" as const,
          idpUserId: o.user,
        })),
      );
      named += key.orders.length;
    }
    const after = db.$client
      .query("SELECT COUNT(*) AS n, SUM(lamports) AS s, SUM(status <> 'done') AS open FROM burn_orders")
      .get() as { n: bigint; s: bigint; open: bigint };
    expect(BigInt(after.open)).toBe(0n);
    expect(BigInt(after.s)).toBe(BigInt(ordered.s));
    expect(named).toBe(Number(after.n));
    world.checkRelations();
  }, 120_000);

  test("a liability anchor keeps its own memo first and names its snapshot in the command key last", async () => {
    w = await moneyWorld();
    const world = w;
    world.signIn(X_ALICE, "xalice");
    const t = world.launch([{ handle: "xalice", bps: 10_000 }], 1000);
    world.trade(t.mint, 2_000_000_000n);
    expect(await world.run("sweep")).toMatchObject({ ran: true, ok: true });
    takeSnapshot(world.db, Date.now());
    expect(await anchorSnapshots(world.db, world.chain, { nowMs: Date.now })).toBe(1);
    const snapshot = world.db.$client
      .query("SELECT id, memo, anchor_signature AS signature FROM liability_snapshots ORDER BY id DESC LIMIT 1")
      .get() as { id: bigint; memo: string; signature: string };
    const tx = await landed(world, snapshot.signature);
    expect(tx.memos).toEqual([snapshot.memo, `fl1:a:${Number(snapshot.id).toString(36)}`]);
    expect(tx.key).toEqual({ kind: "anchor", anchorId: Number(snapshot.id) });
  }, 60_000);
});

describe("prepare", () => {
  test("a transaction that fits only without its command key is refused before anything is simulated or sent", async () => {
    fake = startFakeRpc();
    fake.handle("getLatestBlockhash", () =>
      context({ blockhash: Keypair.generate().publicKey.toBase58(), lastValidBlockHeight: 10 }),
    );
    const { sender } = createRpcChain({ rpcUrl: fake.url, timeoutMs: 2_000, retries: 0 });
    const payer = Keypair.generate();
    const program = new PublicKey(new Uint8Array(32).fill(5));
    const blob = (bytes: number) =>
      new TransactionInstruction({
        programId: program,
        keys: [{ pubkey: payer.publicKey, isSigner: true, isWritable: true }],
        data: Buffer.alloc(bytes, 1),
      });
    const fits = await sender.prepare([blob(900)], payer, [], { commandKey: { kind: "anchor", anchorId: 1 } });
    const room = 1232 - fits.wire.length;
    // 20 bytes over with the key's memo ("fl1:a:1": 43 bytes with the memo program's id), 23 under without it.
    const error = await sender
      .prepare([blob(900 + room + 20)], payer, [], { commandKey: { kind: "anchor", anchorId: 1 } })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(isChainRejected(error)).toBe(true);
    expect((error as Error).message).toMatch(/over 1232/);
    const methods = fake.requests.map((r) => r.method);
    // The first prepare simulated once; the refused one asked only for a blockhash.
    expect(methods.filter((m) => m === "simulateTransaction")).toHaveLength(1);
    expect(methods.filter((m) => m === "sendTransaction")).toHaveLength(0);
  });
});
