/**
 * Figures derived from ledger entries: an account's credited, paid, burned and balance, and the
 * service-wide figures of SPEC's Stats. Nothing here is stored; everything is a sum of entries
 * (or of cached balances, which `post` keeps equal to those sums).
 */
import type { Db } from "../../db/client";
import { AppError } from "../lib/errors";

export interface MoneyFigures {
  creditedLamports: bigint;
  paidLamports: bigint;
  burnedLamports: bigint;
  balanceLamports: bigint;
}

const ZERO: MoneyFigures = { creditedLamports: 0n, paidLamports: 0n, burnedLamports: 0n, balanceLamports: 0n };

/**
 * Figures of one ledger account (kind 'user' for a pinned id, 'handle' for an unpinned handle).
 * credited = sweep credits + credits moved in at pinning; paid = payouts reserved minus payouts
 * failed (queued, sent and confirmed count); burned = burn orders; balance = the account's sum.
 */
export function accountFigures(db: Db, kind: "user" | "handle", ref: string): MoneyFigures {
  const row = db.$client
    .query<{ balance: bigint; credited: bigint; paid: bigint; burned: bigint }, [kind: "user" | "handle", ref: string]>(
      `SELECT a.balance AS balance,
              COALESCE(SUM(CASE WHEN p.kind IN ('sweep', 'pin') AND e.amount > 0 THEN e.amount END), 0) AS credited,
              COALESCE(SUM(CASE WHEN p.kind IN ('payout_reserve', 'payout_fail') THEN -e.amount END), 0) AS paid,
              COALESCE(SUM(CASE WHEN p.kind = 'burn_order' THEN -e.amount END), 0) AS burned
         FROM ledger_accounts a
         JOIN ledger_entries e ON e.account_id = a.id
         JOIN ledger_postings p ON p.id = e.posting_id
        WHERE a.kind = ? AND a.ref = ?
        GROUP BY a.id`,
    )
    .get(kind, ref);
  if (!row) return { ...ZERO };
  const figures: MoneyFigures = {
    creditedLamports: BigInt(row.credited),
    paidLamports: BigInt(row.paid),
    burnedLamports: BigInt(row.burned),
    balanceLamports: BigInt(row.balance),
  };
  // A handle account that was pinned has moved its money out: its own credits stay as history.
  const pinnedOut = kind === "handle" ? handlePinnedOut(db, ref) : 0n;
  const expected = figures.creditedLamports - pinnedOut - figures.paidLamports - figures.burnedLamports;
  if (expected !== figures.balanceLamports) {
    throw new AppError("LEDGER_INVARIANT", `account figures of ${kind} do not add up`);
  }
  return figures;
}

function handlePinnedOut(db: Db, handle: string): bigint {
  const row = db.$client
    .query<{ moved: bigint }, [handle: string]>(
      `SELECT COALESCE(SUM(-e.amount), 0) AS moved
         FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
         JOIN ledger_postings p ON p.id = e.posting_id
        WHERE a.kind = 'handle' AND a.ref = ? AND p.kind = 'pin'`,
    )
    .get(handle)!;
  return BigInt(row.moved);
}

/** Per-token credits of one account, keyed by token id. */
export function creditsByToken(db: Db, kind: "user" | "handle", ref: string): Map<number, bigint> {
  const rows = db.$client
    .query<{ tokenId: bigint; credited: bigint }, [kind: "user" | "handle", ref: string]>(
      `SELECT e.token_id AS tokenId, SUM(e.amount) AS credited
         FROM ledger_entries e
         JOIN ledger_accounts a ON a.id = e.account_id
         JOIN ledger_postings p ON p.id = e.posting_id
        WHERE a.kind = ? AND a.ref = ? AND p.kind IN ('sweep', 'pin') AND e.amount > 0 AND e.token_id IS NOT NULL
        GROUP BY e.token_id`,
    )
    .all(kind, ref);
  return new Map(rows.map((r) => [Number(r.tokenId), BigInt(r.credited)]));
}

/** What each handle a token names was credited from it, all time (SPEC Recipient.creditedLamports). */
export function recipientCredits(db: Db, tokenId: number): Map<string, bigint> {
  const rows = db.$client
    .query<{ handle: string; credited: bigint }, [tokenId: number]>(
      `SELECT e.handle AS handle, SUM(e.amount) AS credited
         FROM ledger_entries e JOIN ledger_postings p ON p.id = e.posting_id
        WHERE e.token_id = ? AND p.kind = 'sweep' AND e.handle IS NOT NULL
        GROUP BY e.handle`,
    )
    .all(tokenId);
  return new Map(rows.map((r) => [r.handle, BigInt(r.credited)]));
}

export interface LedgerTotals {
  /** fees collected by confirmed sweeps, all tokens */
  sweptLamports: bigint;
  /** payouts confirmed on chain */
  paidLamports: bigint;
  /** spent on buys that were burned, recipients and platform */
  burnedLamports: bigint;
  /** credited to recipients and not yet confirmed paid or spent on a burn */
  owedLamports: bigint;
  /** balances nobody has claimed or routed */
  unclaimedLamports: bigint;
  /** the platform's own balance (its share and dust, minus buybacks ordered) */
  platformLamports: bigint;
  /** platform buybacks ordered and not yet bought */
  buybackPendingLamports: bigint;
}

export function ledgerTotals(db: Db): LedgerTotals {
  const rows = db.$client
    .query<{ kind: string; total: bigint }, []>("SELECT kind, SUM(balance) AS total FROM ledger_accounts GROUP BY kind")
    .all();
  const by = new Map(rows.map((r) => [r.kind, BigInt(r.total)]));
  const get = (kind: string) => by.get(kind) ?? 0n;
  const unclaimed = get("user") + get("handle");
  const totals: LedgerTotals = {
    sweptLamports: -get("sweep_source"),
    paidLamports: get("paid_out"),
    burnedLamports: get("burned"),
    unclaimedLamports: unclaimed,
    owedLamports: unclaimed + get("payout") + get("burn_pending"),
    platformLamports: get("platform"),
    buybackPendingLamports: get("buyback_pending"),
  };
  // Every lamport swept is somewhere: owed, paid, burned, or the platform's.
  const accounted =
    totals.owedLamports +
    totals.paidLamports +
    totals.burnedLamports +
    totals.platformLamports +
    totals.buybackPendingLamports;
  if (accounted !== totals.sweptLamports) {
    throw new AppError("LEDGER_INVARIANT", "ledger totals do not add up to what was swept");
  }
  return totals;
}
