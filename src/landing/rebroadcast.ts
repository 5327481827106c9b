/**
 * The rebroadcaster: while a journalled transaction's outcome is unknown and its blockhash is still
 * valid, the same signed bytes go out again every `intervalMs` to every send endpoint (Solana's
 * "Retrying transactions": nodes drop transactions under congestion, and the sender, not the node,
 * should retry). It never signs anything: re-signing waits for a job to prove expiry. A restart
 * picks up where it was, from the saved bytes.
 *
 * One pass: the status cache of the live transactions (no history search; a rebroadcast only needs
 * to know whether a block holds it yet), the block height, then the sends. Bounded: at most
 * `maxPerPass` transactions a pass, oldest first, `sendConcurrency` sends at once.
 */
import type { Db } from "../../db/client";
import type { ChainReader, ChainSender } from "../chain/ports";
import { isChainUnavailable } from "../chain/errors";
import { log } from "../lib/log";
import { scrubErrorText } from "../lib/scrub";
import { liveTransactions, markLanded, markLapsed, markRebroadcast } from "./journal";

const REBROADCAST_MAX_PER_PASS = 256;

export interface RebroadcastDeps {
  db: Db;
  chain: { reader: ChainReader; sender: ChainSender };
  now: () => number;
}

export interface RebroadcastOptions {
  intervalMs: number;
  maxPerPass?: number;
  sendConcurrency?: number;
}

export interface RebroadcastReport {
  sent: number;
  landed: number;
  lapsed: number;
}

export async function rebroadcastPass(deps: RebroadcastDeps, options: RebroadcastOptions): Promise<RebroadcastReport> {
  const report: RebroadcastReport = { sent: 0, landed: 0, lapsed: 0 };
  const live = liveTransactions(
    deps.db,
    Math.min(options.maxPerPass ?? REBROADCAST_MAX_PER_PASS, REBROADCAST_MAX_PER_PASS),
  );
  if (live.length === 0) return report;
  let statuses: Awaited<ReturnType<ChainReader["getSignatureStatuses"]>>;
  let height: bigint;
  try {
    statuses = await deps.chain.reader.getSignatureStatuses(
      live.map((t) => t.signature),
      false,
    );
    height = await deps.chain.reader.getBlockHeight();
  } catch (error) {
    if (isChainUnavailable(error)) return report;
    throw error;
  }
  const due: typeof live = [];
  const nowMs = deps.now();
  for (const tx of live) {
    const status = statuses.get(tx.signature) ?? null;
    if (status && (status.confirmationStatus === "confirmed" || status.confirmationStatus === "finalized")) {
      markLanded(deps.db, tx.signature, status.slot, status.err);
      report.landed += 1;
      continue;
    }
    // In a block already (processed): sending again only earns "already processed".
    if (status) continue;
    if (height > BigInt(tx.lastValidBlockHeight)) {
      markLapsed(deps.db, tx.signature);
      report.lapsed += 1;
      continue;
    }
    if (tx.lastSentAtMs === null || nowMs - tx.lastSentAtMs >= options.intervalMs) due.push(tx);
  }
  const sent: string[] = [];
  const concurrency = Math.max(1, options.sendConcurrency ?? 8);
  for (let i = 0; i < due.length; i += concurrency) {
    await Promise.all(
      due.slice(i, i + concurrency).map(async (tx) => {
        try {
          await deps.chain.sender.send({ signature: tx.signature, wire: new Uint8Array(tx.wire) });
          sent.push(tx.signature);
        } catch (error) {
          log.debug("rebroadcast not accepted", { signature: tx.signature, error: scrubErrorText(error) });
        }
      }),
    );
  }
  markRebroadcast(deps.db, sent, deps.now());
  report.sent = sent.length;
  return report;
}

/**
 * Runs a pass every `intervalMs` until stopped; a pass still running when the next is due is not
 * overlapped. Errors are logged, never thrown: the jobs decide outcomes whatever happens here.
 */
export function startRebroadcaster(deps: RebroadcastDeps, options: RebroadcastOptions): () => void {
  let running = false;
  const timer = setInterval(async () => {
    if (running) return;
    running = true;
    try {
      await rebroadcastPass(deps, options);
    } catch (error) {
      log.warn("rebroadcast pass failed", { error: scrubErrorText(error) });
    } finally {
      running = false;
    }
  }, options.intervalMs);
  return () => clearInterval(timer);
}
