/**
 * A full audit of the books, recomputed from the entries themselves. Run at start, after every
 * sweep run and in tests; a violation throws, and the service refuses to serve a wrong balance.
 */
import type { Db } from "../../db/client";
import {
  figuresAddUp,
  keptKindTotals,
  recipientCredits,
  recountedKindTotals,
  recountedLedgerTotals,
  STORED_FIGURES_COLUMNS,
  type StoredFigures,
} from "./figures";
import { query, statement } from "../../db/statement";
import { AppError } from "../lib/errors";

export interface VerifyOptions {
  /**
   * The accounts' stored figures and per-token credits: "recompute" them from the entries (~20 s
   * at 7M entries), or check only that each account's figures add up to its balance, which is
   * itself checked against the entries, and that its per-token credits add up to its credited
   * figure (a pass over the projections alone). Default "recompute".
   */
  accountFigures?: "recompute" | "identities";
  /**
   * Recompute every recipient's stored credits from the entries (the longest check: ~6 s at 7M
   * entries). On by default; the sweep run's audit turns it off, because each of its credits
   * already checked its token's rows in its own transaction (`verifyRecipientCredits`).
   */
  recipientCredits?: boolean;
}

export function verifyLedger(db: Db, options: VerifyOptions = {}): void {
  const unbalanced = query<{ posting_id: bigint }, []>(
    db,
    "SELECT posting_id FROM ledger_entries GROUP BY posting_id HAVING SUM(amount) <> 0 LIMIT 1",
  ).get();
  if (unbalanced) throw new AppError("LEDGER_INVARIANT", `posting ${unbalanced.posting_id} does not balance`);

  const empty = query<{ id: bigint }, []>(
    db,
    "SELECT p.id FROM ledger_postings p WHERE NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.posting_id = p.id) LIMIT 1",
  ).get();
  if (empty) throw new AppError("LEDGER_INVARIANT", `posting ${empty.id} has no entries`);

  const drifted = query<{ id: bigint }, []>(
    db,
    `SELECT a.id FROM ledger_accounts a
         LEFT JOIN (SELECT account_id, SUM(amount) AS s FROM ledger_entries GROUP BY account_id) e ON e.account_id = a.id
        WHERE a.balance <> COALESCE(e.s, 0) OR a.entry_sum <> COALESCE(e.s, 0) LIMIT 1`,
  ).get();
  if (drifted)
    throw new AppError("LEDGER_INVARIANT", `cached balance of account ${drifted.id} differs from its entries`);

  const negative = query<{ id: bigint }, []>(
    db,
    `SELECT id FROM ledger_accounts
        WHERE (kind NOT IN ('sweep_source', 'operator_float') AND balance < 0)
           OR (kind IN ('sweep_source', 'operator_float') AND balance > 0) LIMIT 1`,
  ).get();
  if (negative) throw new AppError("LEDGER_INVARIANT", `account ${negative.id} has a balance of the wrong sign`);

  recountedLedgerTotals(db);
  verifyKindTotals(db);

  // The rows the money belongs to agree with the books.
  const payoutMismatch = query<{ id: bigint }, []>(
    db,
    `SELECT p.id FROM payouts p LEFT JOIN ledger_accounts a ON a.kind = 'payout' AND a.ref = CAST(p.id AS TEXT)
        WHERE COALESCE(a.balance, 0) <> CASE WHEN p.status IN ('held', 'queued', 'sent') THEN p.lamports ELSE 0 END LIMIT 1`,
  ).get();
  if (payoutMismatch) throw new AppError("LEDGER_INVARIANT", `payout ${payoutMismatch.id} disagrees with the ledger`);

  const withdrawalMismatch = query<{ id: bigint }, []>(
    db,
    `SELECT w.id FROM withdrawals w LEFT JOIN ledger_accounts a ON a.kind = 'withdrawal' AND a.ref = CAST(w.id AS TEXT)
        WHERE COALESCE(a.balance, 0) <> CASE WHEN w.status IN ('queued', 'sent') THEN w.lamports ELSE 0 END LIMIT 1`,
  ).get();
  if (withdrawalMismatch)
    throw new AppError("LEDGER_INVARIANT", `withdrawal ${withdrawalMismatch.id} disagrees with the ledger`);

  const sweptMismatch = query<{ id: bigint }, []>(
    db,
    `SELECT t.id FROM tokens t
         LEFT JOIN ledger_accounts a ON a.kind = 'sweep_source' AND a.ref = t.mint
         LEFT JOIN (SELECT token_id, SUM(total_lamports) AS s FROM sweeps WHERE status = 'confirmed' GROUP BY token_id) sw ON sw.token_id = t.id
        WHERE t.swept_lamports <> -COALESCE(a.balance, 0) OR t.swept_lamports <> COALESCE(sw.s, 0) LIMIT 1`,
  ).get();
  if (sweptMismatch)
    throw new AppError("LEDGER_INVARIANT", `token ${sweptMismatch.id} swept total disagrees with the ledger`);

  verifyAccountFigures(db, options.accountFigures ?? "recompute");
  if (options.recipientCredits === false) return;
  // The recipients' credits the reads serve (a projection kept by a trigger) equal their entries.
  const creditDrift = query<{ tokenId: bigint }, []>(
    db,
    `SELECT COALESCE(x.token_id, r.token_id) AS tokenId
         FROM (SELECT e.token_id, e.handle, SUM(e.amount) AS s
                 FROM ledger_entries e JOIN ledger_postings p ON p.id = e.posting_id
                WHERE e.handle IS NOT NULL AND e.token_id IS NOT NULL AND p.kind = 'sweep'
                GROUP BY e.token_id, e.handle) x
         FULL OUTER JOIN ledger_recipient_credits r ON r.token_id = x.token_id AND r.handle = x.handle
        WHERE x.s IS NOT r.credited_lamports LIMIT 1`,
  ).get();
  if (creditDrift)
    throw new AppError("LEDGER_INVARIANT", `recipient credits of token ${creditDrift.tokenId} differ from its entries`);
}

function verifyAccountFigures(db: Db, mode: "recompute" | "identities"): void {
  // Iterated, not loaded: at 100k tokens there are ~200k accounts of people.
  const rows = query<StoredFigures & { id: bigint; kind: string; tokenCredited: bigint | null }, []>(
    db,
    `SELECT a.id, a.kind, ${STORED_FIGURES_COLUMNS},
              (SELECT SUM(t.credited_lamports) FROM ledger_account_token_credits t WHERE t.account_id = a.id) AS tokenCredited
         FROM ledger_accounts a JOIN ledger_account_figures f ON f.account_id = a.id`,
  ).iterate();
  for (const row of rows) {
    if (!figuresAddUp(row.kind, row) || BigInt(row.tokenCredited ?? 0n) !== BigInt(row.credited))
      throw new AppError("LEDGER_INVARIANT", `stored figures of account ${row.id} do not add up`);
  }
  const unlisted = query<{ id: bigint }, []>(
    db,
    `SELECT a.id FROM ledger_accounts a
        WHERE a.kind IN ('user', 'handle') AND EXISTS (SELECT 1 FROM ledger_entries e WHERE e.account_id = a.id)
          AND NOT EXISTS (SELECT 1 FROM ledger_account_figures f WHERE f.account_id = a.id) LIMIT 1`,
  ).get();
  if (unlisted) throw new AppError("LEDGER_INVARIANT", `account ${unlisted.id} has entries but no stored figures`);
  if (mode === "identities") return;

  const drifted = query<{ id: bigint }, []>(
    db,
    `SELECT COALESCE(x.account_id, f.account_id) AS id
         FROM (SELECT e.account_id,
                      COALESCE(SUM(CASE WHEN p.kind IN ('sweep', 'pin') AND e.amount > 0 THEN e.amount END), 0) AS credited,
                      COALESCE(SUM(CASE WHEN p.kind IN ('payout_reserve', 'payout_fail') THEN -e.amount END), 0) AS paid,
                      COALESCE(SUM(CASE WHEN p.kind IN ('burn_order', 'burn_refund') THEN -e.amount END), 0) AS burned,
                      COALESCE(SUM(CASE WHEN p.kind = 'pin' THEN -e.amount END), 0) AS pinMoved
                 FROM ledger_accounts a JOIN ledger_entries e ON e.account_id = a.id
                 JOIN ledger_postings p ON p.id = e.posting_id
                WHERE a.kind IN ('user', 'handle') GROUP BY e.account_id) x
         FULL OUTER JOIN ledger_account_figures f ON f.account_id = x.account_id
        WHERE x.credited IS NOT f.credited_lamports OR x.paid IS NOT f.paid_lamports
           OR x.burned IS NOT f.burned_lamports OR x.pinMoved IS NOT f.pin_moved_lamports LIMIT 1`,
  ).get();
  if (drifted)
    throw new AppError("LEDGER_INVARIANT", `stored figures of account ${drifted.id} differ from its entries`);
  const tokenDrift = query<{ id: bigint }, []>(
    db,
    `SELECT COALESCE(x.account_id, t.account_id) AS id
         FROM (SELECT e.account_id, e.token_id, SUM(e.amount) AS s
                 FROM ledger_accounts a JOIN ledger_entries e ON e.account_id = a.id
                 JOIN ledger_postings p ON p.id = e.posting_id
                WHERE a.kind IN ('user', 'handle') AND p.kind IN ('sweep', 'pin') AND e.amount > 0 AND e.token_id IS NOT NULL
                GROUP BY e.account_id, e.token_id) x
         FULL OUTER JOIN ledger_account_token_credits t ON t.account_id = x.account_id AND t.token_id = x.token_id
        WHERE x.s IS NOT t.credited_lamports LIMIT 1`,
  ).get();
  if (tokenDrift)
    throw new AppError("LEDGER_INVARIANT", `per-token credits of account ${tokenDrift.id} differ from its entries`);
}

const storedRecipientCredits = statement<{ handle: string; credited: bigint }, [tokenId: number]>(
  "SELECT handle, credited_lamports AS credited FROM ledger_recipient_credits WHERE token_id = ?",
);

/**
 * The same check for one token, cheap enough for every sweep credit: its recipients' stored credits
 * equal the sums of its sweep entries. Call inside the credit's transaction, so a drift rolls it back.
 */
export function verifyRecipientCredits(db: Db, tokenId: number): void {
  const fromEntries = recipientCredits(db, tokenId);
  const stored = storedRecipientCredits(db).all(tokenId);
  const agree =
    stored.length === fromEntries.size && stored.every((r) => fromEntries.get(r.handle) === BigInt(r.credited));
  if (!agree) throw new AppError("LEDGER_INVARIANT", `recipient credits of token ${tokenId} differ from its entries`);
}

/** The per-kind totals the ledger keeps with every entry (what the stats show) equal the accounts' sums. */
function verifyKindTotals(db: Db): void {
  const kept = keptKindTotals(db);
  const recounted = recountedKindTotals(db);
  for (const kind of new Set([...kept.keys(), ...recounted.keys()])) {
    if ((kept.get(kind) ?? 0n) !== (recounted.get(kind) ?? 0n)) {
      throw new AppError("LEDGER_INVARIANT", `the kept total of ${kind} accounts differs from their balances`);
    }
  }
}
