/**
 * The append-only double-entry ledger (DESIGN §2).
 *
 * A posting is a set of entries summing to zero, written under a unique command key: replaying a
 * command finds its key and changes nothing. Balances are sums of entries; each account carries a
 * cached balance written by this code and a second sum kept by an insert trigger, compared after
 * every posting (O(1)); `verifyLedger` recomputes every sum from the entries themselves.
 * Postings must run inside `immediate()`: one synchronous BEGIN IMMEDIATE transaction, so no RPC
 * call can sit between reading and writing money.
 */
import type { Db } from "../../db/client";
import { ledgerAccounts, ledgerPostings } from "../../db/schema";
import { statement } from "../../db/statement";
import { figuresAddUp, storedFiguresOfAccount } from "./figures";
import { AppError } from "../lib/errors";

/** The kinds the schema's CHECK allows (db/schema.ts, migration 0024): one list, read from there. */
const ACCOUNT_KINDS = ledgerAccounts.kind.enumValues;
type AccountKind = (typeof ACCOUNT_KINDS)[number];

/**
 * Only sources are negative: sweep sources (money that arrived from the chain) and the operator's
 * float (the treasury's own lamports beyond the sweeps, negative by what it fronted); every other
 * account is >= 0.
 */
const MAY_GO_NEGATIVE: ReadonlySet<AccountKind> = new Set(["sweep_source", "operator_float"]);

const POSTING_KINDS = ledgerPostings.kind.enumValues;
export type PostingKind = (typeof POSTING_KINDS)[number];

export interface AccountRef {
  kind: AccountKind;
  ref: string;
}

export interface EntrySpec {
  account: AccountRef;
  amount: bigint;
  tokenId?: number | null;
  handle?: string | null;
}

export interface PostingResult {
  /** false when the command key was already posted: a replay, nothing changed */
  applied: boolean;
  postingId: number;
}

/** SQLite INTEGER bounds: any amount outside them cannot be stored exactly. */
const I64_MAX = 9_223_372_036_854_775_807n;

// Every posting runs these; they keep their compiled form (db/statement.ts).
const findPosting = statement<{ id: bigint }, [commandKey: string]>(
  "SELECT id FROM ledger_postings WHERE command_key = ?",
);
const insertPosting = statement<{ id: bigint }, [commandKey: string, kind: PostingKind, atMs: number]>(
  "INSERT INTO ledger_postings (command_key, kind, at_ms) VALUES (?, ?, ?) RETURNING id",
);
const findAccount = statement<{ id: bigint }, [kind: AccountKind, ref: string]>(
  "SELECT id FROM ledger_accounts WHERE kind = ? AND ref = ?",
);
const insertAccount = statement<{ id: bigint }, [kind: AccountKind, ref: string]>(
  "INSERT INTO ledger_accounts (kind, ref, balance) VALUES (?, ?, 0) RETURNING id",
);
const insertEntry = statement<
  never,
  [postingId: number, accountId: number, amount: bigint, tokenId: number | null, handle: string | null]
>("INSERT INTO ledger_entries (posting_id, account_id, amount, token_id, handle) VALUES (?, ?, ?, ?, ?)");
const addBalance = statement<never, [amount: bigint, accountId: number]>(
  "UPDATE ledger_accounts SET balance = balance + ? WHERE id = ?",
);
const readAccount = statement<{ balance: bigint; kind: AccountKind; entrySum: bigint }, [accountId: number]>(
  "SELECT balance, kind, entry_sum AS entrySum FROM ledger_accounts WHERE id = ?",
);
const postingSum = statement<{ total: bigint; n: bigint }, [postingId: number]>(
  "SELECT COALESCE(SUM(amount), 0) AS total, COUNT(*) AS n FROM ledger_entries WHERE posting_id = ?",
);
const accountBalance = statement<{ balance: bigint }, [kind: AccountKind, ref: string]>(
  "SELECT balance FROM ledger_accounts WHERE kind = ? AND ref = ?",
);

function accountId(db: Db, account: AccountRef): number {
  const found = findAccount(db).get(account.kind, account.ref);
  if (found) return Number(found.id);
  return Number(insertAccount(db).get(account.kind, account.ref)!.id);
}

/**
 * Writes one posting. Call inside `immediate()`. Throws LedgerInvariantError (rolling the
 * transaction back) when any rule is broken.
 */
export function post(
  db: Db,
  commandKey: string,
  kind: PostingKind,
  atMs: number,
  entries: readonly EntrySpec[],
): PostingResult {
  const client = db.$client;
  if (!client.inTransaction) {
    throw new AppError("LEDGER_INVARIANT", "a posting must run inside an immediate transaction");
  }
  const existing = findPosting(db).get(commandKey);
  if (existing) return { applied: false, postingId: Number(existing.id) };

  if (entries.length < 2) throw new AppError("LEDGER_INVARIANT", `posting ${kind} needs at least two entries`);
  let sum = 0n;
  for (const entry of entries) {
    if (typeof entry.amount !== "bigint") throw new AppError("LEDGER_INVARIANT", "entry amount must be a bigint");
    if (entry.amount === 0n) throw new AppError("LEDGER_INVARIANT", "entry amount must not be zero");
    if (entry.amount > I64_MAX || entry.amount < -I64_MAX) {
      throw new AppError("LEDGER_INVARIANT", "entry amount out of range");
    }
    sum += entry.amount;
  }
  if (sum !== 0n) throw new AppError("LEDGER_INVARIANT", `posting ${kind} does not balance (${sum})`);

  const postingId = Number(insertPosting(db).get(commandKey, kind, atMs)!.id);
  const touched = new Map<number, bigint>();
  for (const entry of entries) {
    const id = accountId(db, entry.account);
    insertEntry(db).run(postingId, id, entry.amount, entry.tokenId ?? null, entry.handle ?? null);
    addBalance(db).run(entry.amount, id);
    touched.set(id, (touched.get(id) ?? 0n) + entry.amount);
  }

  const check = postingSum(db).get(postingId)!;
  if (BigInt(check.total) !== 0n || Number(check.n) !== entries.length) {
    throw new AppError("LEDGER_INVARIANT", `posting ${commandKey} was not stored whole`);
  }
  for (const id of touched.keys()) {
    const row = readAccount(db).get(id)!;
    if (BigInt(row.balance) !== BigInt(row.entrySum)) {
      throw new AppError("LEDGER_INVARIANT", `cached balance of account ${id} differs from its entries`);
    }
    if (row.balance < 0n && !MAY_GO_NEGATIVE.has(row.kind)) {
      throw new AppError("LEDGER_INVARIANT", `account ${id} (${row.kind}) would go negative`);
    }
    if (row.balance > 0n && MAY_GO_NEGATIVE.has(row.kind)) {
      throw new AppError("LEDGER_INVARIANT", `source account ${id} would go positive`);
    }
    if (row.kind === "user" || row.kind === "handle") {
      // The figures the account record shows (kept by a trigger) still add up to the balance.
      const figures = storedFiguresOfAccount(db).get(id);
      if (!figures || !figuresAddUp(row.kind, figures)) {
        throw new AppError("LEDGER_INVARIANT", `stored figures of account ${id} do not add up`);
      }
    }
  }
  return { applied: true, postingId };
}

export function balanceOf(db: Db, account: AccountRef): bigint {
  const row = accountBalance(db).get(account.kind, account.ref);
  return row ? BigInt(row.balance) : 0n;
}

export const accounts = {
  sweepSource: (mint: string): AccountRef => ({ kind: "sweep_source", ref: mint }),
  platform: (): AccountRef => ({ kind: "platform", ref: "platform" }),
  user: (idpUserId: string): AccountRef => ({ kind: "user", ref: idpUserId }),
  handle: (handle: string): AccountRef => ({ kind: "handle", ref: handle }),
  payout: (payoutId: number): AccountRef => ({ kind: "payout", ref: String(payoutId) }),
  burnPending: (mint: string): AccountRef => ({ kind: "burn_pending", ref: mint }),
  buybackPending: (mint: string): AccountRef => ({ kind: "buyback_pending", ref: mint }),
  paidOut: (): AccountRef => ({ kind: "paid_out", ref: "paid_out" }),
  burned: (): AccountRef => ({ kind: "burned", ref: "burned" }),
  /** rent the treasury paid into an account it owns (a token account, a volume accumulator), per address */
  rent: (address: string): AccountRef => ({ kind: "rent", ref: address }),
  operatorFloat: (): AccountRef => ({ kind: "operator_float", ref: "operator_float" }),
  /** a platform withdrawal queued or in flight (exactly its amount while `queued`/`sent`) */
  withdrawal: (withdrawalId: number): AccountRef => ({ kind: "withdrawal", ref: String(withdrawalId) }),
  withdrawn: (): AccountRef => ({ kind: "withdrawn", ref: "withdrawn" }),
};
