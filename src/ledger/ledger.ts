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
import type { Database, Statement } from "bun:sqlite";
import type { Db } from "../../db/client";
import { AppError } from "../lib/errors";

export const ACCOUNT_KINDS = [
  "sweep_source",
  "platform",
  "user",
  "handle",
  "payout",
  "burn_pending",
  "buyback_pending",
  "paid_out",
  "burned",
] as const;
export type AccountKind = (typeof ACCOUNT_KINDS)[number];

/** Only sweep sources (money that arrived from the chain) are negative; every other account is >= 0. */
const MAY_GO_NEGATIVE: ReadonlySet<AccountKind> = new Set(["sweep_source"]);

export const POSTING_KINDS = [
  "sweep",
  "pin",
  "payout_reserve",
  "payout_confirm",
  "payout_fail",
  "payout_replace",
  "burn_order",
  "burn_done",
] as const;
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

interface Statements {
  findPosting: Statement;
  insertPosting: Statement;
  findAccount: Statement;
  insertAccount: Statement;
  insertEntry: Statement;
  addBalance: Statement;
  readAccount: Statement;
  postingSum: Statement;
}

const statementCache = new WeakMap<Database, Statements>();

function statements(client: Database): Statements {
  let cached = statementCache.get(client);
  if (cached) return cached;
  cached = {
    findPosting: client.prepare("SELECT id FROM ledger_postings WHERE command_key = ?"),
    insertPosting: client.prepare(
      "INSERT INTO ledger_postings (command_key, kind, at_ms) VALUES (?, ?, ?) RETURNING id",
    ),
    findAccount: client.prepare("SELECT id FROM ledger_accounts WHERE kind = ? AND ref = ?"),
    insertAccount: client.prepare("INSERT INTO ledger_accounts (kind, ref, balance) VALUES (?, ?, 0) RETURNING id"),
    insertEntry: client.prepare(
      "INSERT INTO ledger_entries (posting_id, account_id, amount, token_id, handle) VALUES (?, ?, ?, ?, ?)",
    ),
    addBalance: client.prepare("UPDATE ledger_accounts SET balance = balance + ? WHERE id = ?"),
    readAccount: client.prepare("SELECT balance, kind, entry_sum AS entrySum FROM ledger_accounts WHERE id = ?"),
    postingSum: client.prepare(
      "SELECT COALESCE(SUM(amount), 0) AS total, COUNT(*) AS n FROM ledger_entries WHERE posting_id = ?",
    ),
  };
  statementCache.set(client, cached);
  return cached;
}

/**
 * Runs `work` in one BEGIN IMMEDIATE transaction. `work` must be synchronous: a promise would let
 * the transaction commit before the work is done, so it is refused (and rolled back).
 */
export function immediate<T>(db: Db, work: () => T): T {
  const client = db.$client;
  const run = client.transaction(() => {
    const result = work();
    if (result instanceof Promise) {
      throw new AppError("LEDGER_INVARIANT", "money writes must be synchronous: no await inside a transaction");
    }
    return result;
  });
  return run.immediate();
}

function accountId(s: Statements, account: AccountRef): number {
  const found = s.findAccount.get(account.kind, account.ref) as { id: bigint } | null;
  if (found) return Number(found.id);
  const inserted = s.insertAccount.get(account.kind, account.ref) as { id: bigint };
  return Number(inserted.id);
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
  const s = statements(client);
  const existing = s.findPosting.get(commandKey) as { id: bigint } | null;
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

  const postingId = Number((s.insertPosting.get(commandKey, kind, atMs) as { id: bigint }).id);
  const touched = new Map<number, bigint>();
  for (const entry of entries) {
    const id = accountId(s, entry.account);
    s.insertEntry.run(postingId, id, entry.amount, entry.tokenId ?? null, entry.handle ?? null);
    s.addBalance.run(entry.amount, id);
    touched.set(id, (touched.get(id) ?? 0n) + entry.amount);
  }

  const check = s.postingSum.get(postingId) as { total: bigint; n: bigint };
  if (BigInt(check.total) !== 0n || Number(check.n) !== entries.length) {
    throw new AppError("LEDGER_INVARIANT", `posting ${commandKey} was not stored whole`);
  }
  for (const id of touched.keys()) {
    const row = s.readAccount.get(id) as { balance: bigint; kind: AccountKind; entrySum: bigint };
    if (BigInt(row.balance) !== BigInt(row.entrySum)) {
      throw new AppError("LEDGER_INVARIANT", `cached balance of account ${id} differs from its entries`);
    }
    if (row.balance < 0n && !MAY_GO_NEGATIVE.has(row.kind)) {
      throw new AppError("LEDGER_INVARIANT", `account ${id} (${row.kind}) would go negative`);
    }
    if (row.balance > 0n && MAY_GO_NEGATIVE.has(row.kind)) {
      throw new AppError("LEDGER_INVARIANT", `source account ${id} would go positive`);
    }
  }
  return { applied: true, postingId };
}

export function balanceOf(db: Db, account: AccountRef): bigint {
  const row = db.$client
    .query("SELECT balance FROM ledger_accounts WHERE kind = ? AND ref = ?")
    .get(account.kind, account.ref) as { balance: bigint } | null;
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
};
