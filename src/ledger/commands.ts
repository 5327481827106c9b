/**
 * The money commands of the service, each one posting under a key derived from the business id it
 * moves money for, so a replay after a crash is a no-op. Callers run them inside `immediate()`
 * together with the row changes they belong to (a sweep turning `confirmed`, a payout `sent`...).
 */
import type { Db } from "../../db/client";
import { accounts, balanceOf, post, type AccountRef, type EntrySpec, type PostingResult } from "./ledger";
import { splitSweep } from "./split";
import { verifyRecipientCredits } from "./verify";
import { AppError } from "../lib/errors";
import { query } from "../../db/statement";

export interface SweepRecipient {
  /** the handle the token names (lowercase) */
  handle: string;
  bps: number;
  /** the user id the handle is pinned to, or null: then the credit accrues to the handle */
  idpUserId: string | null;
}

export interface SweepCredit {
  sweepId: number;
  tokenId: number;
  mint: string;
  totalLamports: bigint;
  platformBps: number;
  recipients: readonly SweepRecipient[];
  atMs: number;
}

export interface SweepCreditResult extends PostingResult {
  platformLamports: bigint;
  /** per recipient, in the order given */
  recipientLamports: bigint[];
}

/** Credits a confirmed sweep: the chain's money split to the platform and the recipients. */
export function creditSweep(db: Db, credit: SweepCredit): SweepCreditResult {
  const split = splitSweep(
    credit.totalLamports,
    credit.platformBps,
    credit.recipients.map((r, i) => ({ key: i, bps: r.bps })),
  );
  const recipientLamports = split.recipients.map((r) => r.lamports);
  if (credit.totalLamports === 0n) {
    // Nothing arrived: there is nothing to post, and the sweep row records the zero.
    return { applied: false, postingId: 0, platformLamports: 0n, recipientLamports };
  }
  const entries: EntrySpec[] = [
    { account: accounts.sweepSource(credit.mint), amount: -credit.totalLamports, tokenId: credit.tokenId },
  ];
  if (split.platformLamports > 0n) {
    entries.push({ account: accounts.platform(), amount: split.platformLamports, tokenId: credit.tokenId });
  }
  credit.recipients.forEach((recipient, i) => {
    const lamports = recipientLamports[i]!;
    if (lamports === 0n) return;
    const account = recipient.idpUserId ? accounts.user(recipient.idpUserId) : accounts.handle(recipient.handle);
    entries.push({ account, amount: lamports, tokenId: credit.tokenId, handle: recipient.handle });
  });
  const result = post(db, `sweep:${credit.sweepId}`, "sweep", credit.atMs, entries);
  if (result.applied) verifyRecipientCredits(db, credit.tokenId);
  return { ...result, platformLamports: split.platformLamports, recipientLamports };
}

/**
 * Moves everything a handle accrued before it was pinned to the user id it is pinned to, token by
 * token so per-token credits follow the money. A handle is pinned from unpinned once; later
 * re-pins (a handle that changed hands) move nothing, since credits after the first pin go to the
 * pinned user directly.
 */
export function pinHandleCredits(db: Db, handle: string, idpUserId: string, atMs: number): PostingResult {
  const rows = query<{ tokenId: bigint | null; amount: bigint }, [handle: string]>(
    db,
    `SELECT e.token_id AS tokenId, SUM(e.amount) AS amount
         FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
        WHERE a.kind = 'handle' AND a.ref = ?
        GROUP BY e.token_id HAVING SUM(e.amount) <> 0`,
  ).all(handle);
  if (rows.length === 0) return { applied: false, postingId: 0 };
  const entries: EntrySpec[] = [];
  for (const row of rows) {
    const tokenId = row.tokenId === null ? null : Number(row.tokenId);
    const amount = BigInt(row.amount);
    entries.push({ account: accounts.handle(handle), amount: -amount, tokenId, handle });
    entries.push({ account: accounts.user(idpUserId), amount, tokenId, handle });
  }
  return post(db, `pin:${handle}`, "pin", atMs, entries);
}

function twoLegs(from: AccountRef, to: AccountRef, lamports: bigint): EntrySpec[] {
  if (lamports <= 0n) throw new AppError("LEDGER_INVARIANT", "a movement must be positive");
  return [
    { account: from, amount: -lamports },
    { account: to, amount: lamports },
  ];
}

/** The claimed or autopaid amount leaves the balance the moment the payout is queued. */
export function reservePayout(db: Db, payoutId: number, idpUserId: string, lamports: bigint, atMs: number) {
  return post(
    db,
    `payout_reserve:${payoutId}`,
    "payout_reserve",
    atMs,
    twoLegs(accounts.user(idpUserId), accounts.payout(payoutId), lamports),
  );
}

export function confirmPayout(db: Db, payoutId: number, lamports: bigint, atMs: number) {
  return post(
    db,
    `payout_confirm:${payoutId}`,
    "payout_confirm",
    atMs,
    twoLegs(accounts.payout(payoutId), accounts.paidOut(), lamports),
  );
}

/** A payout that failed on chain: its amount is back in the balance. */
export function failPayout(db: Db, payoutId: number, idpUserId: string, lamports: bigint, atMs: number) {
  return post(
    db,
    `payout_fail:${payoutId}`,
    "payout_fail",
    atMs,
    twoLegs(accounts.payout(payoutId), accounts.user(idpUserId), lamports),
  );
}

/** A payout that provably expired: the new payout owes its amount. */
export function replacePayout(db: Db, oldPayoutId: number, newPayoutId: number, lamports: bigint, atMs: number) {
  return post(
    db,
    `payout_replace:${oldPayoutId}`,
    "payout_replace",
    atMs,
    twoLegs(accounts.payout(oldPayoutId), accounts.payout(newPayoutId), lamports),
  );
}

/** Credits routed to burn (or a platform buyback) wait for the burns job's buy. */
export function orderBurn(
  db: Db,
  order: {
    orderId: number;
    source: "recipient" | "platform";
    idpUserId: string | null;
    mint: string;
    lamports: bigint;
    atMs: number;
  },
) {
  const from = order.source === "platform" ? accounts.platform() : accounts.user(requireUser(order.idpUserId));
  const to = order.source === "platform" ? accounts.buybackPending(order.mint) : accounts.burnPending(order.mint);
  return post(db, `burn_order:${order.orderId}`, "burn_order", order.atMs, twoLegs(from, to, order.lamports));
}

/** A landed buy-and-burn: what it spent leaves the pending accounts for good. */
export function completeBurn(
  db: Db,
  burn: { buyId: number; mint: string; recipientLamports: bigint; platformLamports: bigint; atMs: number },
) {
  const entries: EntrySpec[] = [];
  if (burn.recipientLamports > 0n)
    entries.push({ account: accounts.burnPending(burn.mint), amount: -burn.recipientLamports });
  if (burn.platformLamports > 0n)
    entries.push({ account: accounts.buybackPending(burn.mint), amount: -burn.platformLamports });
  const total = burn.recipientLamports + burn.platformLamports;
  if (total <= 0n || burn.recipientLamports < 0n || burn.platformLamports < 0n) {
    throw new AppError("LEDGER_INVARIANT", "a burn must spend a positive amount");
  }
  entries.push({ account: accounts.burned(), amount: total });
  return post(db, `burn_done:${burn.buyId}`, "burn_done", burn.atMs, entries);
}

/**
 * What a landed buy did not spend goes back where it came from: each recipient order's part to
 * its account (its burned figure falls by as much), the buyback's part to the platform. One
 * posting per buy; every amount positive, and together exactly the buy's unspent budget.
 */
export function refundBurn(
  db: Db,
  refund: {
    buyId: number;
    mint: string;
    users: { idpUserId: string; lamports: bigint }[];
    platformLamports: bigint;
    atMs: number;
  },
) {
  const entries: EntrySpec[] = [];
  let recipientTotal = 0n;
  for (const u of refund.users) {
    if (u.lamports <= 0n) throw new AppError("LEDGER_INVARIANT", "a burn refund must be positive");
    entries.push({ account: accounts.user(u.idpUserId), amount: u.lamports });
    recipientTotal += u.lamports;
  }
  if (refund.platformLamports < 0n) throw new AppError("LEDGER_INVARIANT", "a burn refund must be positive");
  if (recipientTotal > 0n) entries.push({ account: accounts.burnPending(refund.mint), amount: -recipientTotal });
  if (refund.platformLamports > 0n) {
    entries.push({ account: accounts.platform(), amount: refund.platformLamports });
    entries.push({ account: accounts.buybackPending(refund.mint), amount: -refund.platformLamports });
  }
  if (entries.length === 0) throw new AppError("LEDGER_INVARIANT", "a burn refund must move something");
  return post(db, `burn_refund:${refund.buyId}`, "burn_refund", refund.atMs, entries);
}

function requireUser(idpUserId: string | null): string {
  if (!idpUserId) throw new AppError("LEDGER_INVARIANT", "a recipient burn order needs a user id");
  return idpUserId;
}

/**
 * Rent the treasury paid for accounts a buy created (its token account, pump's volume
 * accumulator): booked to the platform as rent held in those accounts. What the platform's
 * balance cannot cover, the operator's float fronts (it goes negative by as much) and has back
 * first when the rent returns.
 */
export function payRent(
  db: Db,
  rent: { key: string; accounts: readonly { address: string; lamports: bigint }[]; atMs: number },
): PostingResult | null {
  const entries: EntrySpec[] = [];
  let total = 0n;
  for (const a of rent.accounts) {
    if (a.lamports < 0n) throw new AppError("LEDGER_INVARIANT", "rent paid cannot be negative");
    if (a.lamports === 0n) continue;
    entries.push({ account: accounts.rent(a.address), amount: a.lamports });
    total += a.lamports;
  }
  if (total === 0n) return null;
  const fromPlatform = minBigint(total, balanceOf(db, accounts.platform()));
  if (fromPlatform > 0n) entries.push({ account: accounts.platform(), amount: -fromPlatform });
  if (total > fromPlatform) entries.push({ account: accounts.operatorFloat(), amount: -(total - fromPlatform) });
  return post(db, `rent_paid:${rent.key}`, "rent_paid", rent.atMs, entries);
}

/**
 * Rent back in the treasury from accounts it closed: at most what the books hold for each
 * account (rent paid before the books carried it stays unbooked, in the treasury's surplus),
 * repaying the float first, the rest to the platform.
 */
export function returnRent(
  db: Db,
  rent: { key: string; accounts: readonly { address: string; lamports: bigint }[]; atMs: number },
): PostingResult | null {
  const entries: EntrySpec[] = [];
  let total = 0n;
  for (const a of rent.accounts) {
    if (a.lamports < 0n) throw new AppError("LEDGER_INVARIANT", "rent returned cannot be negative");
    const booked = minBigint(a.lamports, balanceOf(db, accounts.rent(a.address)));
    if (booked <= 0n) continue;
    entries.push({ account: accounts.rent(a.address), amount: -booked });
    total += booked;
  }
  if (total === 0n) return null;
  const toFloat = minBigint(total, -balanceOf(db, accounts.operatorFloat()));
  if (toFloat > 0n) entries.push({ account: accounts.operatorFloat(), amount: toFloat });
  if (total > toFloat) entries.push({ account: accounts.platform(), amount: total - toFloat });
  return post(db, `rent_returned:${rent.key}`, "rent_returned", rent.atMs, entries);
}

function minBigint(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

/** A platform withdrawal queued: its amount leaves the platform's balance at once. */
export function reserveWithdrawal(db: Db, withdrawalId: number, lamports: bigint, atMs: number): PostingResult {
  return post(
    db,
    `withdrawal_reserve:${withdrawalId}`,
    "withdrawal_reserve",
    atMs,
    twoLegs(accounts.platform(), accounts.withdrawal(withdrawalId), lamports),
  );
}

/** The withdrawal landed: it left the treasury for good. */
export function confirmWithdrawal(db: Db, withdrawalId: number, lamports: bigint, atMs: number): PostingResult {
  return post(
    db,
    `withdrawal_confirm:${withdrawalId}`,
    "withdrawal_confirm",
    atMs,
    twoLegs(accounts.withdrawal(withdrawalId), accounts.withdrawn(), lamports),
  );
}

/** The withdrawal failed on chain (or was refused at send): its amount is the platform's again. */
export function failWithdrawal(db: Db, withdrawalId: number, lamports: bigint, atMs: number): PostingResult {
  return post(
    db,
    `withdrawal_fail:${withdrawalId}`,
    "withdrawal_fail",
    atMs,
    twoLegs(accounts.withdrawal(withdrawalId), accounts.platform(), lamports),
  );
}
