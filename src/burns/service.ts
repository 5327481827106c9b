/**
 * Burn orders and buys. Orders wait `pending`; the burns job takes all pending orders of a mint
 * into one buy (`buying`), saved with its signature before sending; when the buy-and-burn lands,
 * one burn per source (recipient, platform) records its lamports and its pro-rata share of the
 * tokens, and the ledger moves the money from pending to burned. A failed buy returns its orders
 * to `pending`.
 */
import type { Db } from "../../db/client";
import { burnBuys, burnOrders } from "../../db/schema";
import { columnsOf, statement, type TableRow } from "../../db/statement";
import { completeBurn, payRent, refundBurn, returnRent } from "../ledger";
import { appendFeedEvent } from "../ledger";
import { recordSignedTransaction, type SignedTransaction } from "../landing";
import { immediate } from "../../db/transaction";
import { AppError } from "../lib/errors";
import type { BurnOrderItem, CommandKey } from "../chain/command-key";

export interface PendingBurnGroup {
  mint: string;
  orderIds: number[];
  recipientLamports: bigint;
  platformLamports: bigint;
  /** the orders, oldest first (absent where a caller built the group by hand: then it is bought whole) */
  orders?: { id: number; source: "recipient" | "platform"; lamports: bigint }[];
  /**
   * The last order is bought only in part: `lamports` of it now, the rest split off as a new
   * pending order of the same source and account (a buy kept under the price-impact bound).
   */
  cut?: { orderId: number; lamports: bigint };
}

/**
 * The part of a mint's pending orders a buy of `lamports` pays for: the oldest orders first, the
 * one that crosses `lamports` cut so the part adds up to it exactly. The whole group when it fits.
 */
export function partOfGroup(group: PendingBurnGroup, lamports: bigint): PendingBurnGroup {
  const total = group.recipientLamports + group.platformLamports;
  if (lamports >= total) return group;
  if (lamports <= 0n || !group.orders) throw new AppError("LEDGER_INVARIANT", "a burn buy's part must be positive");
  const part: PendingBurnGroup = { mint: group.mint, orderIds: [], recipientLamports: 0n, platformLamports: 0n };
  let left = lamports;
  for (const order of group.orders) {
    if (left === 0n) break;
    // biome-ignore lint/complexity/useMathMinMax: bigint lamports; Math.min takes numbers only
    const take = order.lamports <= left ? order.lamports : left;
    part.orderIds.push(order.id);
    if (order.source === "platform") part.platformLamports += take;
    else part.recipientLamports += take;
    if (take < order.lamports) part.cut = { orderId: order.id, lamports: take };
    left -= take;
  }
  return part;
}

const GROUPED_FIELDS = ["id", "mint", "source", "lamports"] as const;
const pendingOrdersOfMints = statement<
  Pick<TableRow<typeof burnOrders>, (typeof GROUPED_FIELDS)[number]>,
  [limit: number]
>(
  `SELECT ${columnsOf(burnOrders, { only: GROUPED_FIELDS })} FROM burn_orders
    WHERE status = 'pending' AND mint IN (SELECT DISTINCT mint FROM burn_orders WHERE status = 'pending' ORDER BY mint LIMIT ?)
    ORDER BY mint, id`,
);

/** Pending orders grouped by mint, at most `limit` groups. */
export function pendingBurnGroups(db: Db, limit: number): PendingBurnGroup[] {
  const rows = pendingOrdersOfMints(db).all(limit);
  const groups = new Map<string, PendingBurnGroup>();
  for (const row of rows) {
    let group = groups.get(row.mint);
    if (!group) {
      group = { mint: row.mint, orderIds: [], recipientLamports: 0n, platformLamports: 0n, orders: [] };
      groups.set(row.mint, group);
    }
    group.orderIds.push(Number(row.id));
    group.orders!.push({
      id: Number(row.id),
      source: row.source === "platform" ? "platform" : "recipient",
      lamports: BigInt(row.lamports),
    });
    if (row.source === "platform") group.platformLamports += BigInt(row.lamports);
    else group.recipientLamports += BigInt(row.lamports);
  }
  return [...groups.values()];
}

const nextBuyId = statement<{ next: bigint }, []>("SELECT COALESCE(MAX(id), 0) + 1 AS next FROM burn_buys");

/**
 * The id the next burn buy gets. The buy's transaction names it in its command key, so it is
 * chosen before the transaction is signed and inserted as is (startBurnBuy's `id`); only the burns
 * job inserts buys, under its lease, one at a time.
 */
export function nextBurnBuyId(db: Db): number {
  const row = nextBuyId(db).get();
  return Number(row!.next);
}

/** What a buy's command key names of each order it takes. */
const ORDER_ITEM_FIELDS = ["source", "idpUserId", "lamports"] as const;
type OrderItemRow = Pick<TableRow<typeof burnOrders>, (typeof ORDER_ITEM_FIELDS)[number]>;
const ORDER_ITEM_COLUMNS = columnsOf(burnOrders, { only: ORDER_ITEM_FIELDS });

const pendingOrderItem = statement<OrderItemRow, [orderId: number, mint: string]>(
  `SELECT ${ORDER_ITEM_COLUMNS} FROM burn_orders WHERE id = ? AND mint = ? AND status = 'pending'`,
);

/**
 * What a buy's transaction is: its id, its token and the orders it spends (the cut one for the
 * part it takes), read as they are now, as startBurnBuy will mark them `buying` (it checks they
 * still are).
 */
export function burnBuyCommandKey(
  db: Db,
  buy: { buyId: number; tokenId: number; group: PendingBurnGroup },
): CommandKey & { kind: "burn-buy" } {
  const orders: BurnOrderItem[] = buy.group.orderIds.map((orderId) => {
    const row = pendingOrderItem(db).get(orderId, buy.group.mint);
    if (!row) throw new AppError("LEDGER_INVARIANT", `burn order ${orderId} is not pending`);
    const platform = row.source === "platform";
    return {
      orderId,
      lamports: buy.group.cut?.orderId === orderId ? buy.group.cut.lamports : BigInt(row.lamports),
      source: platform ? "platform" : "recipient",
      idpUserId: platform ? null : row.idpUserId,
    };
  });
  return { kind: "burn-buy", buyId: buy.buyId, tokenId: buy.tokenId, orders };
}

const insertBuy = statement<
  { id: bigint },
  [id: number | null, mint: string, signature: string, lastValidBlockHeight: bigint, lamports: bigint, atMs: number]
>(
  `INSERT INTO burn_buys (id, mint, signature, last_valid_block_height, status, lamports, created_at_ms)
   VALUES (?, ?, ?, ?, 'sent', ?, ?) RETURNING id`,
);
const takeOrder = statement<OrderItemRow, [buyId: number, orderId: number, mint: string]>(
  `UPDATE burn_orders SET status = 'buying', buy_id = ? WHERE id = ? AND status = 'pending' AND mint = ? RETURNING ${ORDER_ITEM_COLUMNS}`,
);

export function startBurnBuy(
  db: Db,
  buy: {
    /** the id its transaction's command key names (nextBurnBuyId); absent: SQLite's next */
    id?: number;
    /** the orders its transaction's command key names: the rows marked `buying` must be exactly these */
    orders?: readonly BurnOrderItem[];
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
    const total = buy.group.recipientLamports + buy.group.platformLamports;
    const row = insertBuy(db).get(
      buy.id ?? null,
      buy.group.mint,
      buy.signature,
      buy.lastValidBlockHeight,
      total,
      buy.atMs,
    );
    const buyId = Number(row!.id);
    if (buy.group.cut) splitOrder(db, buy.group.mint, buy.group.cut);
    // The memo on chain and the rows saved here must name the same orders, amounts and accounts.
    if (buy.orders && buy.orders.map((o) => o.orderId).join() !== buy.group.orderIds.join())
      throw new AppError("LEDGER_INVARIANT", "the buy's command key names other orders than it takes");
    const named = new Map((buy.orders ?? []).map((o) => [o.orderId, o]));
    let sum = 0n;
    for (const orderId of buy.group.orderIds) {
      const order = takeOrder(db).get(buyId, orderId, buy.group.mint);
      if (!order) throw new AppError("LEDGER_INVARIANT", `burn order ${orderId} is not pending`);
      const expected = named.get(orderId);
      if (
        expected &&
        (expected.source !== order.source ||
          expected.idpUserId !== (order.source === "platform" ? null : order.idpUserId) ||
          expected.lamports !== BigInt(order.lamports))
      )
        throw new AppError("LEDGER_INVARIANT", `burn order ${orderId} changed while the buy was prepared`);
      sum += BigInt(order.lamports);
    }
    if (sum !== total) throw new AppError("LEDGER_INVARIANT", "burn orders changed while the buy was prepared");
    return buyId;
  });
}

const pendingOrderLamports = statement<{ lamports: bigint }, [orderId: number, mint: string]>(
  "SELECT lamports FROM burn_orders WHERE id = ? AND mint = ? AND status = 'pending'",
);
const setOrderLamports = statement<never, [lamports: bigint, orderId: number]>(
  "UPDATE burn_orders SET lamports = ? WHERE id = ?",
);
const insertOrderRest = statement<never, [rest: bigint, orderId: number]>(
  `INSERT INTO burn_orders (source, idp_user_id, mint, lamports, sweep_id, status, created_at_ms, split_from_id)
   SELECT source, idp_user_id, mint, ?1, sweep_id, 'pending', created_at_ms, id FROM burn_orders WHERE id = ?2`,
);

/**
 * Cuts a pending order in two: `lamports` stay in it (the buy about to be saved takes it), the rest
 * becomes a new pending order of the same source, account, sweep and time. The ledger does not
 * move: both parts are still in the mint's pending account.
 */
function splitOrder(db: Db, mint: string, cut: { orderId: number; lamports: bigint }): void {
  const order = pendingOrderLamports(db).get(cut.orderId, mint);
  if (!order || cut.lamports <= 0n || cut.lamports >= BigInt(order.lamports))
    throw new AppError("LEDGER_INVARIANT", `burn order ${cut.orderId} cannot be cut at ${cut.lamports}`);
  setOrderLamports(db).run(cut.lamports, cut.orderId);
  insertOrderRest(db).run(BigInt(order.lamports) - cut.lamports, cut.orderId);
}

const buyingSumsBySource = statement<{ source: string; lamports: bigint }, [buyId: number]>(
  "SELECT source, SUM(lamports) AS lamports FROM burn_orders WHERE buy_id = ? AND status = 'buying' GROUP BY source",
);

/** A buy's orders by source, checked to add up to the budget its row says it spends. */
function buyBudget(
  db: Db,
  buyId: number,
  buyLamports: bigint,
): { recipientBudget: bigint; platformBudget: bigint; total: bigint } {
  const sums = buyingSumsBySource(db).all(buyId);
  const recipientBudget = BigInt(sums.find((s) => s.source === "recipient")?.lamports ?? 0n);
  const platformBudget = BigInt(sums.find((s) => s.source === "platform")?.lamports ?? 0n);
  const total = recipientBudget + platformBudget;
  if (total <= 0n) throw new AppError("LEDGER_INVARIANT", `burn buy ${buyId} has no orders`);
  if (total !== buyLamports)
    throw new AppError("LEDGER_INVARIANT", `burn buy ${buyId}'s orders do not add up to its budget`);
  return { recipientBudget, platformBudget, total };
}

const buyToComplete = statement<
  { id: bigint; mint: string; signature: string; status: string; lamports: bigint; spent: bigint | null },
  [buyId: number]
>(
  `SELECT id, mint, COALESCE(burn_signature, signature) AS signature, status, lamports, spent_lamports AS spent
     FROM burn_buys WHERE id = ?`,
);
const confirmBuy = statement<never, [tokenAmount: bigint, atMs: number, buyId: number]>(
  "UPDATE burn_buys SET status = 'confirmed', token_amount = ?, landed_at_ms = ? WHERE id = ?",
);
const finishOrdersOfBuy = statement<never, [buyId: number]>("UPDATE burn_orders SET status = 'done' WHERE buy_id = ?");
const insertBurn = statement<
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
);

/** The buy-and-burn landed and burned `tokenAmount` base units. Idempotent. */
export function completeBurnBuy(
  db: Db,
  done: {
    buyId: number;
    tokenAmount: bigint;
    atMs: number;
    /** rent back in the treasury from accounts the burn closed (its token account) */
    rentReturned?: readonly { address: string; lamports: bigint }[];
  },
  assertHeld?: () => void,
): { applied: boolean } {
  if (done.tokenAmount < 0n) throw new AppError("LEDGER_INVARIANT", "a burned amount cannot be negative");
  return immediate(db, () => {
    assertHeld?.();
    const buy = buyToComplete(db).get(done.buyId);
    if (!buy) throw new AppError("LEDGER_INVARIANT", `no burn buy ${done.buyId}`);
    if (buy.status === "confirmed") return { applied: false };
    // `sent`: a buy and burn in one transaction; `burning`: the burn of tokens bought earlier.
    if (buy.status !== "sent" && buy.status !== "burning")
      throw new AppError("LEDGER_INVARIANT", `burn buy ${done.buyId} is ${buy.status}`);
    const { recipientBudget, platformBudget, total } = buyBudget(db, done.buyId, BigInt(buy.lamports));
    // Burned is what the buy spent (its budget for buys recorded before the spend was read),
    // split like the budget; the division's remainder is the platform's.
    const spent = buy.spent === null ? total : BigInt(buy.spent);
    if (spent <= 0n || spent > total)
      throw new AppError("LEDGER_INVARIANT", `burn buy ${done.buyId} spent ${spent} of ${total}`);
    const recipientLamports = (spent * recipientBudget) / total;
    const platformLamports = spent - recipientLamports;
    // Tokens split in proportion to lamports; the remainder of the division goes to the platform.
    const recipientTokens = (done.tokenAmount * recipientLamports) / spent;
    const platformTokens = done.tokenAmount - recipientTokens;
    completeBurn(db, { buyId: done.buyId, mint: buy.mint, recipientLamports, platformLamports, atMs: done.atMs });
    if (spent < total) {
      refundBurn(db, {
        buyId: done.buyId,
        mint: buy.mint,
        users: refundsByUser(db, done.buyId, recipientBudget - recipientLamports, recipientBudget),
        platformLamports: platformBudget - platformLamports,
        atMs: done.atMs,
      });
    }
    if (done.rentReturned?.length)
      returnRent(db, { key: `burn:${done.buyId}`, accounts: done.rentReturned, atMs: done.atMs });
    confirmBuy(db).run(done.tokenAmount, done.atMs, done.buyId);
    finishOrdersOfBuy(db).run(done.buyId);
    for (const [source, lamports, tokens] of [
      ["recipient", recipientLamports, recipientTokens],
      ["platform", platformLamports, platformTokens],
    ] as const) {
      if (lamports === 0n) continue;
      const burn = insertBurn(db).get(done.buyId, source, buy.mint, buy.signature, lamports, tokens, done.atMs);
      appendFeedEvent(db, "burn", Number(burn!.id), done.atMs);
    }
    return { applied: true };
  });
}

const REFUND_FIELDS = ["idpUserId", "lamports"] as const;
const recipientOrdersOfBuy = statement<
  Pick<TableRow<typeof burnOrders>, (typeof REFUND_FIELDS)[number]>,
  [buyId: number]
>(
  `SELECT ${columnsOf(burnOrders, { only: REFUND_FIELDS })} FROM burn_orders WHERE buy_id = ? AND source = 'recipient' ORDER BY id`,
);

/**
 * The recipients' unspent part back to the accounts whose orders the buy paid for, in proportion
 * to each order (one entry per account), to the lamport: the division's remainder goes a lamport
 * at a time to the orders in id order.
 */
function refundsByUser(
  db: Db,
  buyId: number,
  refundLamports: bigint,
  recipientBudget: bigint,
): { idpUserId: string; lamports: bigint }[] {
  if (refundLamports <= 0n) return [];
  const orders = recipientOrdersOfBuy(db).all(buyId);
  const shares = orders.map((o) => {
    if (!o.idpUserId) throw new AppError("LEDGER_INVARIANT", `a recipient burn order of buy ${buyId} has no account`);
    return { idpUserId: o.idpUserId, lamports: (refundLamports * BigInt(o.lamports)) / recipientBudget };
  });
  let left = refundLamports - shares.reduce((n, s) => n + s.lamports, 0n);
  // At most one lamport per order is left over (each share was rounded down).
  for (let i = 0; left > 0n && i < shares.length; i++, left--) shares[i]!.lamports += 1n;
  if (left !== 0n) throw new AppError("LEDGER_INVARIANT", `burn buy ${buyId}'s refund does not add up`);
  const byUser = new Map<string, bigint>();
  for (const s of shares) if (s.lamports > 0n) byUser.set(s.idpUserId, (byUser.get(s.idpUserId) ?? 0n) + s.lamports);
  return [...byUser].map(([idpUserId, lamports]) => ({ idpUserId, lamports }));
}

const buyStatus = statement<{ status: string }, [buyId: number]>("SELECT status FROM burn_buys WHERE id = ?");
const failBuy = statement<never, [error: string, buyId: number]>(
  "UPDATE burn_buys SET status = 'failed', error = ? WHERE id = ?",
);
const returnOrdersOfBuy = statement<never, [buyId: number]>(
  "UPDATE burn_orders SET status = 'pending', buy_id = NULL WHERE buy_id = ? AND status = 'buying'",
);

/** The buy failed or provably expired: its orders wait for the next run. */
export function failBurnBuy(db: Db, buyId: number, error: string, assertHeld?: () => void): { applied: boolean } {
  return immediate(db, () => {
    assertHeld?.();
    const buy = buyStatus(db).get(buyId);
    if (!buy) throw new AppError("LEDGER_INVARIANT", `no burn buy ${buyId}`);
    if (buy.status === "failed") return { applied: false };
    if (buy.status !== "sent")
      throw new AppError("LEDGER_INVARIANT", `burn buy ${buyId} is ${buy.status}; it cannot fail`);
    failBuy(db).run(error.slice(0, 300), buyId);
    returnOrdersOfBuy(db).run(buyId);
    return { applied: true };
  });
}

const buyBudgetLamports = statement<{ lamports: bigint }, [buyId: number]>(
  "SELECT lamports FROM burn_buys WHERE id = ?",
);
const markBought = statement<never, [tokenAmount: bigint, spent: bigint, rent: bigint, buyId: number]>(
  "UPDATE burn_buys SET status = 'bought', token_amount = ?, spent_lamports = ?, rent_lamports = ? WHERE id = ? AND status = 'sent'",
);

/**
 * The buy landed and delivered `tokenAmount`: the tokens are held until their burn lands. `spend`
 * is what the landed transaction shows left the treasury for the buy itself (see BuySpend); it is
 * what the burn books, and never more than the buy's budget.
 */
export function markBurnBought(
  db: Db,
  bought: { buyId: number; tokenAmount: bigint; spend: BuySpend; atMs: number },
  assertHeld?: () => void,
): void {
  const { buyId, tokenAmount, spend, atMs } = bought;
  if (tokenAmount < 0n) throw new AppError("LEDGER_INVARIANT", "a bought amount cannot be negative");
  immediate(db, () => {
    assertHeld?.();
    const buy = buyBudgetLamports(db).get(buyId);
    if (!buy) throw new AppError("LEDGER_INVARIANT", `no burn buy ${buyId}`);
    if (spend.spentLamports < 0n || spend.rentLamports < 0n || spend.spentLamports > BigInt(buy.lamports)) {
      throw new AppError(
        "LEDGER_INVARIANT",
        `burn buy ${buyId} spent ${spend.spentLamports} of a budget of ${buy.lamports} (rent ${spend.rentLamports})`,
      );
    }
    const updated = markBought(db).run(tokenAmount, spend.spentLamports, spend.rentLamports, buyId);
    // The rent the buy paid, in the same write: it is the platform's, held in the accounts created.
    if (updated.changes === 1) payRent(db, { key: `burn_buy:${buyId}`, accounts: spend.rentAccounts, atMs });
  });
}

/** What a landed buy took from the treasury, apart from its network and priority fee. */
export interface BuySpend {
  /** lamports that went into the curve or pool, fees of the trade included: what is burned */
  spentLamports: bigint;
  /** rent the treasury put into its accounts the buy created or topped up: not burned, booked to the platform as rent held */
  rentLamports: bigint;
  /** that rent per account, as much as the treasury put in (not what the account holds) */
  rentAccounts: { address: string; lamports: bigint }[];
  /**
   * lamports that came back to the treasury from its accounts the buy closed without the treasury
   * having funded them (a WSOL account a stranger created for it): surplus, neither spend nor rent
   */
  surplusLamports: bigint;
}

/**
 * What left the treasury for a buy, from the landed transaction's balances, measured per account:
 * the treasury's decrease less the transaction's fee and less what each of its own accounts the
 * buy touches (`rentAccounts`) gained or gave back. Anyone can send lamports to any address, so an
 * account may already hold some when the buy creates it (the ATA program and Anchor's init then
 * top it up to the rent only): the rent booked is the rise the treasury paid for, never the
 * balance. An account that gives lamports back in the buy (the WSOL account a pool buy closes,
 * which a stranger may have created and funded) returns them to the treasury: they are not spend.
 * Only the treasury signs and pays in its buy, so a rise of its own accounts is the treasury's.
 * buy_exact_sol_in / buy_exact_quote_in spend at most their budget: rounding can leave lamports
 * behind, and the buy completing a curve may spend less; the books follow what happened.
 */
export function buySpendOf(
  tx: { accountKeys: string[]; preBalances: bigint[]; postBalances: bigint[]; feeLamports?: bigint },
  treasury: string,
  rentAccounts: readonly string[],
): BuySpend | null {
  const at = tx.accountKeys.indexOf(treasury);
  if (at < 0 || tx.feeLamports === undefined) return null;
  const out = tx.preBalances[at]! - tx.postBalances[at]!;
  let rentLamports = 0n;
  let surplusLamports = 0n;
  const funded: { address: string; lamports: bigint }[] = [];
  for (const address of new Set(rentAccounts)) {
    const i = tx.accountKeys.indexOf(address);
    if (i < 0 || i === at) continue;
    const change = (tx.postBalances[i] ?? 0n) - (tx.preBalances[i] ?? 0n);
    if (change > 0n) {
      rentLamports += change;
      funded.push({ address, lamports: change });
    } else surplusLamports -= change;
  }
  return {
    spentLamports: out - tx.feeLamports - rentLamports + surplusLamports,
    rentLamports,
    rentAccounts: funded,
    surplusLamports,
  };
}

/**
 * Why a landed buy's measured spend cannot be booked, or null when it can: a buy spends more than
 * nothing and at most its budget. Outside that, the transaction did something the adapter does
 * not know (an account it did not expect, a program that changed): one mint's anomaly on chain,
 * not a contradiction inside the books.
 */
export function buySpendAnomaly(spend: BuySpend, budgetLamports: bigint): string | null {
  if (spend.spentLamports > 0n && spend.spentLamports <= budgetLamports) return null;
  return `the landed buy shows ${spend.spentLamports} lamports spent of a budget of ${budgetLamports} (rent ${spend.rentLamports}, back ${spend.surplusLamports})`;
}

/**
 * Lamports back in the treasury from the accounts of `rentAccounts` a landed transaction closed
 * (they held lamports before it and none after), per account. That can be more than the rent the
 * books hold for the account (a stranger's lamports sent to it before or after the buy created
 * it): `returnRent` takes back at most what was booked for each address, and the rest stays in
 * the treasury as surplus, owed to nobody.
 */
export function rentClosedIn(
  tx: { accountKeys: string[]; preBalances: bigint[]; postBalances: bigint[] },
  rentAccounts: readonly string[],
): { address: string; lamports: bigint }[] {
  const closed: { address: string; lamports: bigint }[] = [];
  for (const address of new Set(rentAccounts)) {
    const i = tx.accountKeys.indexOf(address);
    if (i >= 0 && tx.preBalances[i]! > 0n && tx.postBalances[i] === 0n)
      closed.push({ address, lamports: tx.preBalances[i]! });
  }
  return closed;
}

const markBurning = statement<never, [signature: string, lastValidBlockHeight: bigint, buyId: number]>(
  "UPDATE burn_buys SET status = 'burning', burn_signature = ?, burn_last_valid_block_height = ? WHERE id = ? AND status = 'bought'",
);

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
    const result = markBurning(db).run(signature, lastValidBlockHeight, buyId);
    if (result.changes !== 1) throw new AppError("LEDGER_INVARIANT", `burn buy ${buyId} is not waiting for its burn`);
  });
}

const unmarkBurning = statement<never, [error: string, buyId: number]>(
  "UPDATE burn_buys SET status = 'bought', burn_signature = NULL, burn_last_valid_block_height = NULL, error = ? WHERE id = ? AND status = 'burning'",
);

/** The burn failed or expired: the tokens are still held; the next run burns them again. */
export function retryBurn(db: Db, buyId: number, error: string, assertHeld?: () => void): void {
  immediate(db, () => {
    assertHeld?.();
    unmarkBurning(db).run(error.slice(0, 300), buyId);
  });
}

const recipientsOfBoughtBuys = statement<{ recipient: bigint; total: bigint; spent: bigint | null }, []>(
  `SELECT COALESCE(SUM(CASE WHEN o.source = 'recipient' THEN o.lamports END), 0) AS recipient,
          b.lamports AS total, b.spent_lamports AS spent
     FROM burn_buys b JOIN burn_orders o ON o.buy_id = b.id AND o.status = 'buying'
    WHERE b.status IN ('bought', 'burning') GROUP BY b.id`,
);

/**
 * Recipients' lamports already spent by buys that landed and whose burn has not yet: they left the
 * treasury, but the books move them from pending to burned only when the burn lands. The proof of
 * reserves must not count them as owed (they would show as a false shortfall meanwhile).
 */
export function spentOnPendingBurnsLamports(db: Db): bigint {
  // The recipients' part of what each buy spent (its budget before the spend was read), split as
  // its completion will split it; what it did not spend is still in the treasury, and owed.
  const rows = recipientsOfBoughtBuys(db).all();
  let sum = 0n;
  for (const r of rows) {
    const total = BigInt(r.total);
    const recipient = BigInt(r.recipient);
    sum += r.spent === null || total === 0n ? recipient : (BigInt(r.spent) * recipient) / total;
  }
  return sum;
}

const ATTEMPT_FIELDS = ["status", "error"] as const;
const latestBuysOfMint = statement<Pick<TableRow<typeof burnBuys>, (typeof ATTEMPT_FIELDS)[number]>, [mint: string]>(
  `SELECT ${columnsOf(burnBuys, { only: ATTEMPT_FIELDS })} FROM burn_buys WHERE mint = ? ORDER BY id DESC LIMIT 20`,
);

/**
 * The attempt number of a buy of this mint: how many of its latest buys in a row provably expired
 * (failed with `expiredError`); 0 for a first attempt.
 */
export function buyAttempt(db: Db, mint: string, expiredError: string): number {
  const rows = latestBuysOfMint(db).all(mint);
  let n = 0;
  for (const row of rows) {
    if (row.status !== "failed" || row.error !== expiredError) break;
    n++;
  }
  return n;
}
