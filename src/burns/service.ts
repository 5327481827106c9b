/**
 * Burn orders and buys. Orders wait `pending`; the burns job takes all pending orders of a mint
 * into one buy (`buying`), saved with its signature before sending; when the buy-and-burn lands,
 * one burn per source (recipient, platform) records its lamports and its pro-rata share of the
 * tokens, and the ledger moves the money from pending to burned. A failed buy returns its orders
 * to `pending`.
 */
import type { Db } from "../../db/client";
import { completeBurn } from "../ledger";
import { appendFeedEvent } from "../ledger";
import { recordSignedTransaction, type SignedTransaction } from "../landing";
import { immediate } from "../../db/transaction";
import { AppError } from "../lib/errors";

export interface PendingBurnGroup {
  mint: string;
  orderIds: number[];
  recipientLamports: bigint;
  platformLamports: bigint;
}

/** Pending orders grouped by mint, at most `limit` groups. */
export function pendingBurnGroups(db: Db, limit: number): PendingBurnGroup[] {
  const rows = db.$client
    .query<{ id: bigint; mint: string; source: string; lamports: bigint }, [limit: number]>(
      `SELECT id, mint, source, lamports FROM burn_orders
        WHERE status = 'pending' AND mint IN (SELECT DISTINCT mint FROM burn_orders WHERE status = 'pending' ORDER BY mint LIMIT ?)
        ORDER BY mint, id`,
    )
    .all(limit);
  const groups = new Map<string, PendingBurnGroup>();
  for (const row of rows) {
    let group = groups.get(row.mint);
    if (!group) {
      group = { mint: row.mint, orderIds: [], recipientLamports: 0n, platformLamports: 0n };
      groups.set(row.mint, group);
    }
    group.orderIds.push(Number(row.id));
    if (row.source === "platform") group.platformLamports += BigInt(row.lamports);
    else group.recipientLamports += BigInt(row.lamports);
  }
  return [...groups.values()];
}

export function startBurnBuy(
  db: Db,
  buy: {
    group: PendingBurnGroup;
    signature: string;
    lastValidBlockHeight: bigint;
    atMs: number;
    /** the signed transaction, journalled in the same write (landing: rebroadcast, fee steps) */
    signed?: SignedTransaction;
  },
  assertHeld?: () => void,
): number {
  return immediate(db, () => {
    assertHeld?.();
    if (buy.signed) recordSignedTransaction(db, buy.signed, buy.atMs);
    const c = db.$client;
    const total = buy.group.recipientLamports + buy.group.platformLamports;
    const row = c
      .query<
        { id: bigint },
        [mint: string, signature: string, lastValidBlockHeight: bigint, lamports: bigint, atMs: number]
      >(
        `INSERT INTO burn_buys (mint, signature, last_valid_block_height, status, lamports, created_at_ms)
         VALUES (?, ?, ?, 'sent', ?, ?) RETURNING id`,
      )
      .get(buy.group.mint, buy.signature, buy.lastValidBlockHeight, total, buy.atMs);
    const buyId = Number(row!.id);
    let sum = 0n;
    for (const orderId of buy.group.orderIds) {
      const order = c
        .query<{ lamports: bigint }, [buyId: number, orderId: number, mint: string]>(
          "UPDATE burn_orders SET status = 'buying', buy_id = ? WHERE id = ? AND status = 'pending' AND mint = ? RETURNING lamports",
        )
        .get(buyId, orderId, buy.group.mint);
      if (!order) throw new AppError("LEDGER_INVARIANT", `burn order ${orderId} is not pending`);
      sum += BigInt(order.lamports);
    }
    if (sum !== total) throw new AppError("LEDGER_INVARIANT", "burn orders changed while the buy was prepared");
    return buyId;
  });
}

/** The buy-and-burn landed and burned `tokenAmount` base units. Idempotent. */
export function completeBurnBuy(
  db: Db,
  done: { buyId: number; tokenAmount: bigint; atMs: number },
  assertHeld?: () => void,
): { applied: boolean } {
  if (done.tokenAmount < 0n) throw new AppError("LEDGER_INVARIANT", "a burned amount cannot be negative");
  return immediate(db, () => {
    assertHeld?.();
    const c = db.$client;
    const buy = c
      .query<{ id: bigint; mint: string; signature: string; status: string }, [buyId: number]>(
        "SELECT id, mint, COALESCE(burn_signature, signature) AS signature, status FROM burn_buys WHERE id = ?",
      )
      .get(done.buyId);
    if (!buy) throw new AppError("LEDGER_INVARIANT", `no burn buy ${done.buyId}`);
    if (buy.status === "confirmed") return { applied: false };
    // `sent`: a buy and burn in one transaction; `burning`: the burn of tokens bought earlier.
    if (buy.status !== "sent" && buy.status !== "burning")
      throw new AppError("LEDGER_INVARIANT", `burn buy ${done.buyId} is ${buy.status}`);
    const sums = c
      .query<{ source: string; lamports: bigint }, [buyId: number]>(
        "SELECT source, SUM(lamports) AS lamports FROM burn_orders WHERE buy_id = ? AND status = 'buying' GROUP BY source",
      )
      .all(done.buyId);
    const recipientLamports = BigInt(sums.find((s) => s.source === "recipient")?.lamports ?? 0n);
    const platformLamports = BigInt(sums.find((s) => s.source === "platform")?.lamports ?? 0n);
    const total = recipientLamports + platformLamports;
    if (total <= 0n) throw new AppError("LEDGER_INVARIANT", `burn buy ${done.buyId} has no orders`);
    // Tokens split in proportion to lamports; the remainder of the division goes to the platform.
    const recipientTokens = (done.tokenAmount * recipientLamports) / total;
    const platformTokens = done.tokenAmount - recipientTokens;
    completeBurn(db, { buyId: done.buyId, mint: buy.mint, recipientLamports, platformLamports, atMs: done.atMs });
    c.query<never, [tokenAmount: bigint, atMs: number, buyId: number]>(
      "UPDATE burn_buys SET status = 'confirmed', token_amount = ?, landed_at_ms = ? WHERE id = ?",
    ).run(done.tokenAmount, done.atMs, done.buyId);
    c.query<never, [buyId: number]>("UPDATE burn_orders SET status = 'done' WHERE buy_id = ?").run(done.buyId);
    for (const [source, lamports, tokens] of [
      ["recipient", recipientLamports, recipientTokens],
      ["platform", platformLamports, platformTokens],
    ] as const) {
      if (lamports === 0n) continue;
      const burn = c
        .query<
          { id: bigint },
          [
            buyId: number,
            source: "recipient" | "platform",
            mint: string,
            signature: string,
            lamports: bigint,
            tokenAmount: bigint,
            atMs: number,
          ]
        >(
          `INSERT INTO burns (buy_id, source, mint, signature, lamports, token_amount, landed_at_ms)
           VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        )
        .get(done.buyId, source, buy.mint, buy.signature, lamports, tokens, done.atMs);
      appendFeedEvent(db, "burn", Number(burn!.id), done.atMs);
    }
    return { applied: true };
  });
}

/** The buy failed or provably expired: its orders wait for the next run. */
export function failBurnBuy(db: Db, buyId: number, error: string, assertHeld?: () => void): { applied: boolean } {
  return immediate(db, () => {
    assertHeld?.();
    const c = db.$client;
    const buy = c.query<{ status: string }, [buyId: number]>("SELECT status FROM burn_buys WHERE id = ?").get(buyId);
    if (!buy) throw new AppError("LEDGER_INVARIANT", `no burn buy ${buyId}`);
    if (buy.status === "failed") return { applied: false };
    if (buy.status !== "sent")
      throw new AppError("LEDGER_INVARIANT", `burn buy ${buyId} is ${buy.status}; it cannot fail`);
    c.query<never, [error: string, buyId: number]>(
      "UPDATE burn_buys SET status = 'failed', error = ? WHERE id = ?",
    ).run(error.slice(0, 300), buyId);
    c.query<never, [buyId: number]>(
      "UPDATE burn_orders SET status = 'pending', buy_id = NULL WHERE buy_id = ? AND status = 'buying'",
    ).run(buyId);
    return { applied: true };
  });
}

/** The buy landed and delivered `tokenAmount`: the tokens are held until their burn lands. */
export function markBurnBought(db: Db, buyId: number, tokenAmount: bigint, assertHeld?: () => void): void {
  if (tokenAmount < 0n) throw new AppError("LEDGER_INVARIANT", "a bought amount cannot be negative");
  immediate(db, () => {
    assertHeld?.();
    db.$client
      .query<never, [tokenAmount: bigint, buyId: number]>(
        "UPDATE burn_buys SET status = 'bought', token_amount = ? WHERE id = ? AND status = 'sent'",
      )
      .run(tokenAmount, buyId);
  });
}

/** Saved before the burn transaction is sent. */
export function markBurnSent(
  db: Db,
  buyId: number,
  signature: string,
  lastValidBlockHeight: bigint,
  assertHeld?: () => void,
  signed?: SignedTransaction & { atMs: number },
): void {
  immediate(db, () => {
    assertHeld?.();
    if (signed) recordSignedTransaction(db, signed, signed.atMs);
    const result = db.$client
      .query<never, [signature: string, lastValidBlockHeight: bigint, buyId: number]>(
        "UPDATE burn_buys SET status = 'burning', burn_signature = ?, burn_last_valid_block_height = ? WHERE id = ? AND status = 'bought'",
      )
      .run(signature, lastValidBlockHeight, buyId);
    if (result.changes !== 1) throw new AppError("LEDGER_INVARIANT", `burn buy ${buyId} is not waiting for its burn`);
  });
}

/** The burn failed or expired: the tokens are still held; the next run burns them again. */
export function retryBurn(db: Db, buyId: number, error: string, assertHeld?: () => void): void {
  immediate(db, () => {
    assertHeld?.();
    db.$client
      .query<never, [error: string, buyId: number]>(
        "UPDATE burn_buys SET status = 'bought', burn_signature = NULL, burn_last_valid_block_height = NULL, error = ? WHERE id = ? AND status = 'burning'",
      )
      .run(error.slice(0, 300), buyId);
  });
}

/**
 * Recipients' lamports already spent by buys that landed and whose burn has not yet: they left the
 * treasury, but the books move them from pending to burned only when the burn lands. The proof of
 * reserves must not count them as owed (they would show as a false shortfall meanwhile).
 */
export function spentOnPendingBurnsLamports(db: Db): bigint {
  const row = db.$client
    .query<{ s: bigint }, []>(
      `SELECT COALESCE(SUM(o.lamports), 0) AS s FROM burn_orders o JOIN burn_buys b ON b.id = o.buy_id
        WHERE b.status IN ('bought', 'burning') AND o.status = 'buying' AND o.source = 'recipient'`,
    )
    .get();
  return BigInt(row!.s);
}

/**
 * The attempt number of a buy of this mint: how many of its latest buys in a row provably expired
 * (failed with `expiredError`); 0 for a first attempt.
 */
export function buyAttempt(db: Db, mint: string, expiredError: string): number {
  const rows = db.$client
    .query<{ status: string; error: string | null }, [mint: string]>(
      "SELECT status, error FROM burn_buys WHERE mint = ? ORDER BY id DESC LIMIT 20",
    )
    .all(mint);
  let n = 0;
  for (const row of rows) {
    if (row.status !== "failed" || row.error !== expiredError) break;
    n++;
  }
  return n;
}
