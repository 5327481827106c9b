/**
 * Figures derived from ledger entries: an account's credited, paid, burned and balance, and the
 * service-wide figures of SPEC's Stats. Each is a sum of entries, read from what the ledger keeps
 * with every entry: cached balances (`post` keeps them equal to the sums) and the projections its
 * insert triggers keep (migrations 0009, 0010 and 0025's totals per kind), which `verifyLedger`
 * recomputes from the entries.
 */
import type { Db } from "../../db/client";
import { AppError } from "../lib/errors";
import { query, statement } from "../../db/statement";

export interface MoneyFigures {
  creditedLamports: bigint;
  paidLamports: bigint;
  burnedLamports: bigint;
  balanceLamports: bigint;
}

const ZERO: MoneyFigures = { creditedLamports: 0n, paidLamports: 0n, burnedLamports: 0n, balanceLamports: 0n };

/**
 * Figures of one ledger account (kind 'user' for a pinned id, 'handle' for an unpinned handle),
 * from the projection the ledger keeps with every entry (`ledger_account_figures`).
 * credited = sweep credits + credits moved in at pinning; paid = payouts reserved minus payouts
 * failed (queued, sent and confirmed count); burned = burn orders; balance = the account's sum.
 */
export function accountFigures(db: Db, kind: "user" | "handle", ref: string): MoneyFigures {
  const row = storedFigures(db).get(kind, ref);
  if (!row) return { ...ZERO };
  const figures: MoneyFigures = {
    creditedLamports: BigInt(row.credited),
    paidLamports: BigInt(row.paid),
    burnedLamports: BigInt(row.burned),
    balanceLamports: BigInt(row.balance),
  };
  if (!figuresAddUp(kind, row)) throw new AppError("LEDGER_INVARIANT", `account figures of ${kind} do not add up`);
  return figures;
}

export interface StoredFigures {
  balance: bigint;
  credited: bigint;
  paid: bigint;
  burned: bigint;
  pinMoved: bigint;
}

/** An account's balance beside its stored figures, as `StoredFigures`; `a` is the account, `f` its figures. */
export const STORED_FIGURES_COLUMNS = `a.balance, f.credited_lamports AS credited, f.paid_lamports AS paid,
  f.burned_lamports AS burned, f.pin_moved_lamports AS pinMoved`;

const storedFigures = statement<StoredFigures, [kind: "user" | "handle", ref: string]>(
  `SELECT ${STORED_FIGURES_COLUMNS}
     FROM ledger_accounts a JOIN ledger_account_figures f ON f.account_id = a.id
    WHERE a.kind = ? AND a.ref = ?`,
);

/** The stored figures of one account by id (null before its first entry). */
export const storedFiguresOfAccount = statement<StoredFigures, [accountId: number]>(
  `SELECT ${STORED_FIGURES_COLUMNS}
     FROM ledger_accounts a JOIN ledger_account_figures f ON f.account_id = a.id WHERE a.id = ?`,
);

/** The third parameter: a JSON array of token ids to keep, or null for all of them. */
const storedTokenCredits = statement<
  { tokenId: bigint; credited: bigint },
  [kind: "user" | "handle", ref: string, tokenIds: string | null]
>(
  `SELECT c.token_id AS tokenId, c.credited_lamports AS credited
     FROM ledger_accounts a JOIN ledger_account_token_credits c ON c.account_id = a.id
    WHERE a.kind = ?1 AND a.ref = ?2 AND (?3 IS NULL OR c.token_id IN (SELECT value FROM json_each(?3)))`,
);

/**
 * The balance is what came in, less what left: for a handle that was pinned, its money moved out
 * to the user id; its own credits stay as history.
 */
export function figuresAddUp(kind: string, f: StoredFigures): boolean {
  const pinnedOut = kind === "handle" ? BigInt(f.pinMoved) : 0n;
  return BigInt(f.credited) - pinnedOut - BigInt(f.paid) - BigInt(f.burned) === BigInt(f.balance);
}

/** Per-token credits of one account, keyed by token id (sweep credits and pins in); only `tokenIds` when given. */
export function creditsByToken(
  db: Db,
  kind: "user" | "handle",
  ref: string,
  tokenIds: readonly number[] | null = null,
): Map<number, bigint> {
  const rows = storedTokenCredits(db).all(kind, ref, tokenIds === null ? null : JSON.stringify(tokenIds));
  return new Map(rows.map((r) => [Number(r.tokenId), BigInt(r.credited)]));
}

/** What each handle a token names was credited from it, all time (SPEC Recipient.creditedLamports). */
export function recipientCredits(db: Db, tokenId: number): Map<string, bigint> {
  const rows = query<{ handle: string; credited: bigint }, [tokenId: number]>(
    db,
    `SELECT e.handle AS handle, SUM(e.amount) AS credited
         FROM ledger_entries e JOIN ledger_postings p ON p.id = e.posting_id
        WHERE e.token_id = ? AND p.kind = 'sweep' AND e.handle IS NOT NULL
        GROUP BY e.handle`,
  ).all(tokenId);
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
  /** rent the treasury paid into accounts it owns (token accounts, volume accumulators) and has not had back */
  rentLamports: bigint;
  /** what the operator's own float in the treasury fronted (rent the platform's balance could not cover) */
  floatFrontedLamports: bigint;
  /** platform revenue withdrawn to PLATFORM_WALLET, confirmed on chain */
  withdrawnLamports: bigint;
  /** platform withdrawals queued or in flight */
  withdrawalPendingLamports: bigint;
}

/** Every account's balance summed per kind, as `ledger_kind_totals` keeps them: a walk of every account. */
export function recountedKindTotals(db: Db): Map<string, bigint> {
  const rows = query<{ kind: string; total: bigint }, []>(
    db,
    "SELECT kind, SUM(balance) AS total FROM ledger_accounts GROUP BY kind",
  ).all();
  return new Map(rows.map((r) => [r.kind, BigInt(r.total)]));
}

const keptTotals = statement<{ kind: string; total: bigint }, []>(
  "SELECT kind, balance_lamports AS total FROM ledger_kind_totals",
);

/** The per-kind sums the ledger keeps with every entry (migration 0025): a row per kind, not per account. */
export function keptKindTotals(db: Db): Map<string, bigint> {
  return new Map(
    keptTotals(db)
      .all()
      .map((r) => [r.kind, BigInt(r.total)]),
  );
}

/** The service-wide totals from the per-kind sums the ledger keeps (what `/api/stats` shows). */
export function ledgerTotals(db: Db): LedgerTotals {
  return totalsOf(keptKindTotals(db));
}

/** The same totals summed from every account: the audit's recount. */
export function recountedLedgerTotals(db: Db): LedgerTotals {
  return totalsOf(recountedKindTotals(db));
}

function totalsOf(by: ReadonlyMap<string, bigint>): LedgerTotals {
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
    rentLamports: get("rent"),
    floatFrontedLamports: -get("operator_float"),
    withdrawnLamports: get("withdrawn"),
    withdrawalPendingLamports: get("withdrawal"),
  };
  // Every lamport swept (and every one the float fronted) is somewhere: owed, paid, burned, the
  // platform's (withdrawn or not), or rent in an account the treasury owns.
  const accounted =
    totals.owedLamports +
    totals.paidLamports +
    totals.burnedLamports +
    totals.platformLamports +
    totals.buybackPendingLamports +
    totals.rentLamports +
    totals.withdrawnLamports +
    totals.withdrawalPendingLamports;
  if (accounted !== totals.sweptLamports + totals.floatFrontedLamports) {
    throw new AppError("LEDGER_INVARIANT", "ledger totals do not add up to what was swept");
  }
  return totals;
}
