/**
 * Whether a listing of the treasury's history is whole. A node with a hole in its history above
 * its floor (agave's -32007 "missing due to ledger jump to recent snapshot", a provider's index
 * gap) lists the treasury's transactions without the ones in the hole, and says nothing: a
 * payout hidden so would be missing from a reconciliation and sent again. Every transaction that
 * moves the treasury's lamports shows in its balance, so the listing is whole when the balances
 * chain: each transaction starts from the balance the one before it left. Within one slot the
 * listing's order is not the block's on every node (older agave and some indexes sort a slot's
 * signatures by signature), so a slot's transactions are chained as a set: they must form one
 * path from the balance the slot was entered with, and the next slot starts where it ended.
 *
 * Reading every listed transaction costs one getTransaction each; a long listing is verified over
 * several runs, the slots verified so far kept in `settings` (PROGRESS_KEY).
 */
import type { Db } from "../../db/client";
import type { ChainReader } from "../chain/ports";
import { log } from "../lib/log";
import { query } from "../../db/statement";

/** Settings key of the verification's progress: the slot verified through and the balance it left. */
const PROGRESS_KEY = "history_continuity";
/** Transactions read in one run at most; past them the next run goes on from the progress kept. */
const READS_PER_RUN = 2_000;
/** Transactions read at once. */
const READS_AT_ONCE = 8;

export interface ListedEntry {
  signature: string;
  slot: bigint;
}

/** `end`: the balance the newest listed slot left (null: nothing was read, one transaction listed). */
export type Continuity = { whole: true; end: { slot: bigint; balance: bigint } | null } | { whole: false; why: string };

interface Progress {
  /** the listing's oldest signature when the progress was made (another listing starts over) */
  from: string;
  slot: bigint;
  balance: bigint;
}

interface Step {
  signature: string;
  pre: bigint;
  post: bigint;
}

function loadProgress(db: Db, from: string): Progress | null {
  const row = query<{ value: string }, [key: string]>(db, "SELECT value FROM settings WHERE key = ?").get(PROGRESS_KEY);
  if (!row) return null;
  const saved = JSON.parse(row.value) as { from: string; slot: string; balance: string };
  return saved.from === from ? { from, slot: BigInt(saved.slot), balance: BigInt(saved.balance) } : null;
}

function saveProgress(db: Db, progress: Progress | null): void {
  if (progress === null) {
    query<never, [key: string]>(db, "DELETE FROM settings WHERE key = ?").run(PROGRESS_KEY);
    return;
  }
  const value = JSON.stringify({
    from: progress.from,
    slot: progress.slot.toString(),
    balance: progress.balance.toString(),
  });
  query<never, [key: string, value: string]>(
    db,
    "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = ?2",
  ).run(PROGRESS_KEY, value);
}

/** The listing's slots, oldest first, each with its signatures. */
function bySlot(listed: readonly ListedEntry[]): { slot: bigint; signatures: string[] }[] {
  const slots: { slot: bigint; signatures: string[] }[] = [];
  for (const entry of [...listed].sort((a, b) => (a.slot < b.slot ? -1 : a.slot > b.slot ? 1 : 0))) {
    const last = slots[slots.length - 1];
    if (last && last.slot === entry.slot) last.signatures.push(entry.signature);
    else slots.push({ slot: entry.slot, signatures: [entry.signature] });
  }
  return slots;
}

/** One slot's transactions as the treasury's balance saw them; a string: why they could not be read. */
async function readSteps(
  reader: ChainReader,
  treasury: string,
  signatures: readonly string[],
): Promise<Step[] | string> {
  const steps: Step[] = [];
  for (let i = 0; i < signatures.length; i += READS_AT_ONCE) {
    const chunk = signatures.slice(i, i + READS_AT_ONCE);
    const txs = await Promise.all(chunk.map((signature) => reader.getTransaction(signature)));
    for (const [k, tx] of txs.entries()) {
      const at = tx?.accountKeys.indexOf(treasury) ?? -1;
      if (!tx || at < 0) return `transaction ${chunk[k]} is not readable yet`;
      steps.push({ signature: tx.signature, pre: tx.preBalances[at]!, post: tx.postBalances[at]! });
    }
  }
  return steps;
}

/** Orderings tried for one slot at most: a slot holds a few of the treasury's transactions. */
const ORDERINGS_TRIED_MAX = 10_000;

/**
 * The balance a slot's transactions leave, entered with `entry`: they must chain into one path
 * (each starts from the balance the one before it left). Any path through them all ends at the
 * same balance, so the first found is taken; a wrong turn (two starting from the same balance)
 * is undone. Null when there is none: something between them is not listed.
 */
export function chainSlot(entry: bigint, steps: readonly Step[]): bigint | null {
  let tried = 0;
  const used = new Array<boolean>(steps.length).fill(false);
  const walk = (balance: bigint, left: number): bigint | null => {
    if (left === 0) return balance;
    for (const [i, step] of steps.entries()) {
      if (used[i] || step.pre !== balance || ++tried > ORDERINGS_TRIED_MAX) continue;
      used[i] = true;
      const end = walk(step.post, left - 1);
      used[i] = false;
      if (end !== null) return end;
    }
    return null;
  };
  return walk(entry, steps.length);
}

/**
 * Verifies `listed` (the treasury's history from the books' newest landed transaction to the
 * newest listed, any order) chains from its oldest transaction's starting balance to its newest
 * slot's end. Reads at most `readsPerRun` transactions (a slot is read whole); an unfinished verification answers not
 * whole and goes on at the next run.
 */
export async function verifyContinuity(
  db: Db,
  reader: ChainReader,
  treasury: string,
  listed: readonly ListedEntry[],
  readsPerRun = READS_PER_RUN,
): Promise<Continuity> {
  const slots = bySlot(listed);
  if (slots.length === 0 || listed.length === 1) return { whole: true, end: null };
  const from = slots[0]!.signatures[0]!;
  const progress = loadProgress(db, from);
  let balance = progress?.balance ?? null;
  let reads = 0;
  for (const { slot, signatures } of slots) {
    if (progress && slot <= progress.slot) continue;
    if (reads + signatures.length > readsPerRun && reads > 0) {
      return {
        whole: false,
        why: `the history's balances are verified through slot ${slot - 1n}; the next run goes on`,
      };
    }
    const steps = await readSteps(reader, treasury, signatures);
    reads += signatures.length;
    if (typeof steps === "string") return { whole: false, why: steps };
    // The oldest slot is entered with a balance one of its transactions starts from and none leaves.
    balance ??= steps.find((s) => !steps.some((o) => o !== s && o.post === s.pre))?.pre ?? steps[0]!.pre;
    const left = chainSlot(balance, steps);
    if (left === null) {
      log.warn("the treasury's history as listed has a gap: its balances do not chain", { slot: slot.toString() });
      saveProgress(db, null);
      return {
        whole: false,
        why: `the treasury's history as listed skips a transaction at or before slot ${slot}: its balances do not chain`,
      };
    }
    balance = left;
    saveProgress(db, { from, slot, balance });
  }
  saveProgress(db, null);
  const newest = slots[slots.length - 1]!.slot;
  return { whole: true, end: balance === null ? null : { slot: newest, balance } };
}
