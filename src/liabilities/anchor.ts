/**
 * Anchors each snapshot's root on chain: one Memo transaction from the treasury whose memo is
 * `liabilities:<root hex>:<totalLamports>:<at ISO>`. Like every other transaction of the service,
 * it is prepared and its signature saved before it is sent, so a crash or a retry resends the same
 * bytes instead of anchoring twice; a transaction that provably never lands is prepared afresh.
 */
import type { Db } from "../../db/client";
import type { ChainServices } from "../chain/services";
import { immediate } from "../../db/transaction";
import { journalOutcome, recordSignedTransaction, sentFromSlotOf } from "../landing";
import { log } from "../lib/log";
import { query } from "../../db/statement";

/** Snapshots an anchoring pass looks at: the newest unanchored first. */
const ANCHOR_BATCH = 3;
const ANCHOR_WAIT_MS = 15_000;
const POLL_MS = 300;

interface Unanchored {
  id: number;
  memo: string;
  signature: string | null;
  lastValidBlockHeight: bigint | null;
  wire: Uint8Array | null;
}

export interface AnchorOptions {
  nowMs: () => number;
  /** how long to wait for a sent memo to confirm before leaving it to the next pass */
  waitMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /**
   * The run's own signal: a shutdown stops the wait at once. The memo's signature is saved before
   * it is sent, so the next pass follows the same transaction (and the process exits well inside a
   * container's stop timeout instead of waiting ~13 s for finalization).
   */
  signal?: AbortSignal;
}

/** Sends or confirms the memo of the newest unanchored snapshots. Returns how many got anchored. */
export async function anchorSnapshots(db: Db, chain: ChainServices, options: AnchorOptions): Promise<number> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const rows = query<
    {
      id: bigint;
      memo: string;
      signature: string | null;
      lastValidBlockHeight: bigint | null;
      wire: Uint8Array | null;
    },
    [limit: number]
  >(
    db,
    `SELECT id, memo, anchor_signature AS signature, anchor_last_valid_block_height AS lastValidBlockHeight, anchor_wire AS wire
         FROM liability_snapshots WHERE anchored_at_ms IS NULL ORDER BY id DESC LIMIT ?`,
  ).all(ANCHOR_BATCH);
  let anchored = 0;
  for (const raw of rows) {
    if (options.signal?.aborted) break;
    const row: Unanchored = { ...raw, id: Number(raw.id) };
    if (await anchorOne(db, chain, row, options, sleep)) anchored++;
  }
  return anchored;
}

async function anchorOne(
  db: Db,
  chain: ChainServices,
  row: Unanchored,
  options: AnchorOptions,
  sleep: (ms: number) => Promise<void>,
): Promise<boolean> {
  let { signature, lastValidBlockHeight, wire } = row;
  if (signature === null || lastValidBlockHeight === null || wire === null) {
    const instruction = chain.launchProgram.buildMemo(row.memo, chain.treasury.publicKey);
    // The anchor's own memo stays first (readers find `liabilities:` there); the sender adds the
    // command key naming this snapshot as a second memo.
    const prepared = await chain.sender.prepare([instruction], chain.treasury, [], {
      commandKey: { kind: "anchor", anchorId: row.id },
      job: "anchor",
    });
    const saved = immediate(db, () => {
      const updated = query<
        never,
        [signature: string, lastValidBlockHeight: bigint, wire: Uint8Array, snapshotId: number]
      >(
        db,
        `UPDATE liability_snapshots SET anchor_signature = ?, anchor_last_valid_block_height = ?, anchor_wire = ?
            WHERE id = ? AND anchor_signature IS NULL`,
      ).run(prepared.signature, prepared.lastValidBlockHeight, prepared.wire, row.id);
      if (updated.changes === 1) recordSignedTransaction(db, { job: "anchor", prepared, attempt: 0 }, options.nowMs());
      return updated.changes === 1;
    });
    // Another process prepared it first: its transaction is the one to follow, next pass.
    if (!saved) return false;
    ({ signature, lastValidBlockHeight, wire } = prepared);
  }
  await chain.sender.send({ signature, wire });
  const deadline = Date.now() + (options.waitMs ?? ANCHOR_WAIT_MS);
  for (;;) {
    const outcome = await chain.sender.outcome(signature, BigInt(lastValidBlockHeight), sentFromSlotOf(db, signature));
    journalOutcome(db, signature, outcome);
    if (outcome.kind === "confirmed") {
      query<never, [atMs: number, snapshotId: number, signature: string]>(
        db,
        "UPDATE liability_snapshots SET anchored_at_ms = ? WHERE id = ? AND anchor_signature = ?",
      ).run(options.nowMs(), row.id, signature);
      return true;
    }
    if (outcome.kind === "failed" || outcome.kind === "expired") {
      log.warn("liability anchor did not land; preparing it again next pass", {
        snapshotId: row.id,
        outcome: outcome.kind,
      });
      query<never, [snapshotId: number, signature: string]>(
        db,
        `UPDATE liability_snapshots SET anchor_signature = NULL, anchor_last_valid_block_height = NULL, anchor_wire = NULL
          WHERE id = ? AND anchor_signature = ?`,
      ).run(row.id, signature);
      return false;
    }
    if (Date.now() >= deadline || options.signal?.aborted) return false;
    await sleep(POLL_MS);
  }
}

/** The anchor memo of a confirmed transaction signed by the treasury, or null. */
export async function readAnchorMemo(chain: ChainServices, signature: string): Promise<string | null> {
  const tx = await chain.reader.getTransaction(signature);
  if (!tx || tx.err !== null) return null;
  const treasury = chain.treasury.publicKey.toBase58();
  const memo = chain.launchProgram
    .decodeMemos(tx)
    .find((m) => m.text.startsWith("liabilities:") && m.signers.includes(treasury));
  return memo?.text ?? null;
}
