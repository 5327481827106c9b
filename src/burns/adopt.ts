/**
 * Burn buys and burns the chain made after a backup, written back into the restored database by
 * the reconciliation (src/reconcile). Inside the caller's immediate write. The buy's memo names
 * the orders (or parts of orders) it spent; an order is found by the id it names, else by what it
 * is (the mint, the source, the user, enough lamports), else made again from the balance it came
 * from: routing set after the backup is gone, the money it sent to a burn is not.
 */
import type { Db } from "../../db/client";
import { burnBuys, burnOrders } from "../../db/schema";
import { columnsOf, statement, type TableRow } from "../../db/statement";
import type { BurnOrderItem } from "../chain/command-key";
import { orderBurn } from "../ledger";
import { AppError } from "../lib/errors";

const buySignature = statement<{ signature: string }, [id: number]>("SELECT signature FROM burn_buys WHERE id = ?");
const tokenMint = statement<{ mint: string }, [id: number]>("SELECT mint FROM tokens WHERE id = ?");
const takeOrder = statement<never, [buyId: number, orderId: number]>(
  "UPDATE burn_orders SET status = 'buying', buy_id = ? WHERE id = ?",
);
const insertSentBuy = statement<never, [id: number, mint: string, signature: string, lamports: bigint, atMs: number]>(
  `INSERT INTO burn_buys (id, mint, signature, last_valid_block_height, status, lamports, created_at_ms)
   VALUES (?, ?, ?, 0, 'sent', ?, ?)`,
);

/** The buy is written `sent` with its orders `buying`; the job's resolution books its spend. A string says why it cannot be. */
export function adoptBurnBuy(
  db: Db,
  buy: { buyId: number; tokenId: number; orders: readonly BurnOrderItem[]; signature: string; atMs: number },
): string | null {
  const existing = buySignature(db).get(buy.buyId);
  if (existing) {
    if (existing.signature === buy.signature) return null;
    throw new AppError("RECONCILE_BURN_BUY_DIFFERS", { buyId: buy.buyId });
  }
  const token = tokenMint(db).get(buy.tokenId);
  if (!token) return `it bought token ${buy.tokenId}, which the database does not hold`;
  let total = 0n;
  const taken: number[] = [];
  for (const item of buy.orders) {
    for (const orderId of ordersFor(db, token.mint, item, taken, buy.atMs)) {
      takeOrder(db).run(buy.buyId, orderId);
      taken.push(orderId);
    }
    total += item.lamports;
  }
  insertSentBuy(db).run(buy.buyId, token.mint, buy.signature, total, buy.atMs);
  return null;
}

const ORDER_FIELDS = ["id", "lamports"] as const;
const pendingOrdersOf = statement<
  Pick<TableRow<typeof burnOrders>, (typeof ORDER_FIELDS)[number]>,
  [mint: string, source: string, user: string | null]
>(
  `SELECT ${columnsOf(burnOrders, { only: ORDER_FIELDS })} FROM burn_orders WHERE status = 'pending' AND mint = ? AND source = ? AND idp_user_id IS ?
    ORDER BY id LIMIT 1000`,
);
const insertPendingOrder = statement<
  { id: bigint },
  [source: string, user: string | null, mint: string, lamports: bigint, atMs: number]
>(
  `INSERT INTO burn_orders (source, idp_user_id, mint, lamports, sweep_id, status, created_at_ms)
   VALUES (?, ?, ?, ?, NULL, 'pending', ?) RETURNING id`,
);

/**
 * Pending orders holding exactly the item's lamports together. Taken as the burns job takes orders,
 * oldest first among the mint's pending orders of the same source and user (the one the memo names
 * first when it is pending here: ids match when the books were rebuilt in the same order), the last
 * cut where the item ends; what the pending orders cannot cover is ordered again from the balance
 * it came from (routing set after the backup is gone, the money it sent to a burn is not).
 */
function ordersFor(db: Db, mint: string, item: BurnOrderItem, taken: readonly number[], atMs: number): number[] {
  const pending = pendingOrdersOf(db)
    .all(mint, item.source, item.idpUserId)
    .filter((o) => !taken.includes(Number(o.id)));
  const named = pending.findIndex((o) => Number(o.id) === item.orderId);
  if (named > 0) pending.unshift(...pending.splice(named, 1));
  const out: number[] = [];
  let left = item.lamports;
  for (const order of pending) {
    if (left === 0n) break;
    const held = BigInt(order.lamports);
    if (held > left) cutOrder(db, order.id, left, held);
    out.push(Number(order.id));
    left -= held > left ? left : held;
  }
  if (left > 0n) {
    const made = insertPendingOrder(db).get(item.source, item.idpUserId, mint, left, atMs);
    const orderId = Number(made!.id);
    // Throws LEDGER_INVARIANT when the balance cannot cover it: the reconciliation reports the buy.
    orderBurn(db, { orderId, source: item.source, idpUserId: item.idpUserId, mint, lamports: left, atMs });
    out.push(orderId);
  }
  return out;
}

const setOrderLamports = statement<never, [lamports: bigint, id: bigint]>(
  "UPDATE burn_orders SET lamports = ? WHERE id = ?",
);
const insertOrderRest = statement<never, [rest: bigint, id: bigint]>(
  `INSERT INTO burn_orders (source, idp_user_id, mint, lamports, sweep_id, status, created_at_ms, split_from_id)
   SELECT source, idp_user_id, mint, ?1, sweep_id, 'pending', created_at_ms, id FROM burn_orders WHERE id = ?2`,
);

/** Cuts a pending order: `lamports` stay in it, the rest becomes a new pending order like it. */
function cutOrder(db: Db, id: bigint, lamports: bigint, held: bigint): void {
  setOrderLamports(db).run(lamports, id);
  insertOrderRest(db).run(held - lamports, id);
}

const BURN_STATE_FIELDS = ["status", "burnSignature"] as const;
const buyBurnState = statement<Pick<TableRow<typeof burnBuys>, (typeof BURN_STATE_FIELDS)[number]>, [id: number]>(
  `SELECT ${columnsOf(burnBuys, { only: BURN_STATE_FIELDS })} FROM burn_buys WHERE id = ?`,
);
const markBurning = statement<never, [signature: string, id: number]>(
  "UPDATE burn_buys SET status = 'burning', burn_signature = ?, burn_last_valid_block_height = 0 WHERE id = ?",
);

/** The burn of a buy the database holds `bought` is written `burning`; the job's resolution completes it. */
export function adoptBurnSent(db: Db, burn: { buyId: number; signature: string }): string | null {
  const row = buyBurnState(db).get(burn.buyId);
  if (!row) return `it burned the tokens of buy ${burn.buyId}, which the database does not hold`;
  if (row.burnSignature === burn.signature) return null;
  // `burning` with another signature: that burn provably expired (or failed) and this retry landed.
  if (row.status !== "bought" && row.status !== "burning") {
    throw new AppError("RECONCILE_BURN_NOT_AWAITED", { buyId: burn.buyId, status: row.status });
  }
  markBurning(db).run(burn.signature, burn.buyId);
  return null;
}

const sentSignatures = statement<{ signature: string }, []>(
  "SELECT DISTINCT signature FROM burn_buys WHERE status = 'sent' LIMIT 1000",
);

/** Signatures of the buys still `sent` (the reconciliation settles them before what followed them). */
export function sentBuySignatures(db: Db): string[] {
  return sentSignatures(db)
    .all()
    .map((r) => r.signature);
}
