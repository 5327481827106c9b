/**
 * The `sweep` job. Each run:
 *  1. resolves sweeps left `sent` (by an earlier run, or a crash): confirmed ones are credited,
 *     failed or provably expired ones are marked failed, pending ones wait;
 *  2. reads both vaults and the creator address of every token due a reading (its schedule:
 *     every run while active, less and less often while quiet) in pages, stores the readings;
 *  3. a chunk of tokens at a time, packs those at or above the sweep minimum (and with no sweep in
 *     flight) into as few transactions as fit, saves each sweep with its signature, then sends;
 *  4. waits a bounded time for what it sent, resolving as in 1;
 *  5. reconciles: treasury balance against what is owed, and a full audit of the books.
 * Every write checks the job's lease (fencing), and the run stops at a safe point when aborted.
 */
import type { Db } from "../../db/client";
import { prepareShareFor } from "../chain/landing";
import { packSweeps, type PackedSweep, type SweepItem } from "../chain/packing";
import type {
  ConfirmedTransaction,
  PreparedTransaction,
  PrepareShare,
  TokenRef,
  TransactionOutcome,
  VaultReading,
} from "../chain/ports";
import type { ChainServices } from "../chain/services";
import { owedForReserves } from "../proof";
import { tokens } from "../../db/schema";
import { columnsOf, statement, type TableRow } from "../../db/statement";
import { immediate } from "../../db/transaction";
import { verifyLedger } from "../ledger";
import { crashPoint } from "../jobs";
import type { JobContext } from "../jobs";
import { log } from "../lib/log";
import { scrubErrorText } from "../lib/scrub";
import { getPlatformTokenMint, setLastReconciliation } from "../settings";
import { heldBackMints, recordTokenFailure, recordTokenSuccess, stopToken, suspectMints } from "../jobs";
import { isChainUnavailable } from "../chain/errors";
import { dueTokensAfter, type ScheduleNote, storeVaultReadings, unsweptLamports } from "../tokens";
import { transferredTo, treasuryReceived } from "./transfers";
import { creditedInSignature } from "./credit-check";
import { SWEEP_EXPIRED_ERROR, confirmSweep, failSweep, recordSweepsSent, sweepAttempt } from "./service";
import { computeUnitFloorFor, journalOutcome, sentFromSlotOf } from "../landing";
import { checkReserves, raiseIncident, type ReservesPolicy } from "../custody";
import { isAppError } from "../lib/errors";
import { flushProviderUsage } from "../chain/provider-usage";

export interface SweepJobDeps {
  db: Db;
  chain: ChainServices;
  sweepMinLamports: bigint;
  platformBuybackBps: number;
  now: () => number;
  /** tokens read per batch of vault readings */
  readBatchSize?: number;
  /** tokens to sweep packed and sent together (default SWEEP_SEND_CHUNK_TOKENS) */
  sendChunkTokens?: number;
  /** how long a run waits for its own transactions to settle */
  settleTimeoutMs?: number;
  settlePollMs?: number;
  /** batches prepared and sent, and signatures asked about, at once */
  sendConcurrency?: number;
  /** sent sweeps looked at per resolution page (default RESOLVE_BATCH) */
  resolveBatchSize?: number;
  /** the reconciliation's breakers (src/custody); absent: a shortfall is only logged */
  reserves?: ReservesPolicy;
  /**
   * The longest a quiet token goes unread (SWEEP_QUIET_MAX_INTERVAL_MS): a run reads only the
   * tokens its reading schedule says are due. Absent: every token every run (the baseline).
   */
  quietMaxIntervalMs?: number;
  /**
   * True while an indexer streams this process's transactions and decides each once the stream
   * shows its slot finalized: the settle loop then only watches the database (the node is billed
   * for every question), and what the stream has not decided by the deadline is the next run's.
   */
  streamResolves?: () => boolean;
  /**
   * Whether this run may read and send: false while the books wait for their check against the
   * treasury's history (src/reconcile). Sweeps already sent are still resolved. Absent: always.
   */
  sendsAllowed?: () => Promise<boolean>;
}

export interface SweepRunReport {
  tokensRead: number;
  tokensSwept: number;
  transactionsSent: number;
  confirmed: number;
  failed: number;
  pending: number;
  sendErrors: number;
  /** swept tokens whose stored reading disagreed with the chain after the run and was re-read */
  reread: number;
  /** tokens not tried this run: set aside after repeated failures, or stopped */
  heldBack: number;
  /** true when the run sent nothing because the books wait for their check (`sendsAllowed`) */
  held: boolean;
}

/** Bound on sent sweeps looked at per resolution pass. */
const RESOLVE_BATCH = 2_000;

export async function runSweepJob(deps: SweepJobDeps, ctx: JobContext): Promise<SweepRunReport> {
  const report: SweepRunReport = {
    tokensRead: 0,
    tokensSwept: 0,
    transactionsSent: 0,
    confirmed: 0,
    failed: 0,
    pending: 0,
    sendErrors: 0,
    reread: 0,
    heldBack: 0,
    held: false,
  };
  await resolveSentSweeps(deps, ctx, report);
  if (ctx.signal.aborted) return report;
  // A database older than the chain would sweep on a history it has not read: its sweeps, known
  // to it, would bury the transactions it forgot (src/reconcile/check.ts).
  if (deps.sendsAllowed && !(await deps.sendsAllowed())) {
    report.held = true;
    return report;
  }

  // Ids only (a number each): the tokens read again after the run, the swept ones first.
  const swept: number[] = [];
  const wereInFlight: number[] = [];
  for await (const candidates of readTokenChunks(deps, ctx, report, wereInFlight)) {
    crashPoint("sweep:after-read");
    const batches = packCandidates(deps, ctx, candidates);
    const share = prepareShareFor(
      deps.chain.treasury.publicKey.toBase58(),
      batches.map((batch) => batch.instructions),
    );
    // Several batches in flight at once (each one still saved before it is sent): the run is bound
    // by round trips to the node, not by the node itself.
    await forEachLimit(batches, deps.sendConcurrency ?? 8, (batch) => sendBatch(deps, ctx, report, batch, share));
    for (const c of candidates) swept.push(c.tokenId);
  }

  await settle(deps, ctx, report);
  crashPoint("sweep:before-reconcile");
  if (!ctx.signal.aborted) {
    report.reread = await rereadSwept(deps, ctx, [...swept, ...wereInFlight]);
    await reconcile(deps, ctx);
  }
  // The run's provider requests join the bill (/metrics), whichever thread runs the job.
  flushProviderUsage(deps.db, deps.now(), { wait: true });
  return report;
}

/**
 * Tokens read and stored per page of the read pass. Each page ends in one synchronous write of its
 * readings, and the jobs' thread runs such stretches at full speed before it rests for the
 * requests (src/workers/pace.ts); shorter stretches keep the requests' worst case down. Measured at
 * 100k tokens with the jobs working, random token details: p99 27.5-30.1 ms with pages of 300,
 * 23.6-24.1 ms with pages of 100 (and ~20% more of them served).
 */
const SWEEP_READ_BATCH_TOKENS = 100;

/**
 * Tokens to sweep packed and sent together, before the run reads on. The run used to hold every
 * token to sweep until all were read: at 100,000 tokens, ~50,000 of them with their readings and
 * signers, the largest part of the jobs' thread's heap for the whole read. A chunk packs as
 * tightly as the whole did but for one partly filled transaction at its end.
 */
const SWEEP_SEND_CHUNK_TOKENS = 1_000;

const TOKEN_REF_FIELDS = ["id", "mint", "creator"] as const;
type TokenRefRow = Pick<TableRow<typeof tokens>, (typeof TOKEN_REF_FIELDS)[number]>;

interface TokenRow extends TokenRefRow {
  creatorIndex: bigint;
}

const tokensWithSweepInFlight = statement<{ id: bigint }, []>(
  "SELECT DISTINCT token_id AS id FROM sweeps WHERE status = 'sent'",
);

/**
 * Reads the vaults of every token due a reading, a page at a time, stores the readings and yields
 * the tokens to sweep now, a chunk at a time (the last one possibly empty); the tokens whose sweep
 * was in flight go to `wereInFlight` (their reading is taken after the run, due or not).
 */
async function* readTokenChunks(
  deps: SweepJobDeps,
  ctx: JobContext,
  report: SweepRunReport,
  wereInFlight: number[],
): AsyncGenerator<SweepItem[]> {
  const inFlight = new Set(
    tokensWithSweepInFlight(deps.db)
      .all()
      .map((r) => Number(r.id)),
  );
  const batchSize = deps.readBatchSize ?? SWEEP_READ_BATCH_TOKENS;
  const heldBack = heldBackMints(deps.db, "sweep", deps.now());
  const chunkTokens = deps.sendChunkTokens ?? SWEEP_SEND_CHUNK_TOKENS;
  let candidates: SweepItem[] = [];
  let afterId = 0;
  wereInFlight.push(...inFlight);
  const runAtMs = deps.now();
  const everyToken = deps.quietMaxIntervalMs === undefined;
  // Keyset pages over the tokens due, hidden ones included: hidden tokens are swept too.
  for (let page = 0; page < 1_000_000 && !ctx.signal.aborted; page++) {
    const rows: TokenRow[] = dueTokensAfter(deps.db, afterId, runAtMs, batchSize, everyToken);
    if (rows.length === 0) break;
    afterId = Number(rows[rows.length - 1]!.id);
    const refs: TokenRef[] = rows.map((r) => ({ mint: r.mint, creator: r.creator }));
    // Before the node answers: a quiet reading backs off from here, so a fee that arrives while
    // the answer travels is still read within the maximum.
    const readAtMs = deps.now();
    const readings = await deps.chain.launchProgram.readVaults(refs);
    const byMint = new Map(readings.map((r) => [r.mint, r]));
    // A token with a sweep in flight keeps its stored reading: when that sweep is credited, its
    // total is subtracted from it, which a reading taken after the landing would count twice.
    // It is read again after the run settles (rereadSwept).
    storeReadings(
      deps,
      ctx,
      rows
        .filter((r) => !inFlight.has(Number(r.id)))
        .map((r) => ({ tokenId: Number(r.id), reading: byMint.get(r.mint) ?? null })),
      readAtMs,
    );
    report.tokensRead += rows.length;
    for (const row of rows) {
      const reading = byMint.get(row.mint);
      if (!reading || inFlight.has(Number(row.id))) continue;
      // Accounts in a layout the adapter does not know: its figures are guesses (a v3 curve keeps
      // fees the vaults do not show), so the token stops here, whatever they say, until an operator looks.
      if (reading.programChanged) {
        if (!heldBack.has(row.mint))
          stopToken(
            deps.db,
            { mint: row.mint, job: "sweep", reason: reading.programChanged, atMs: deps.now() },
            ctx.assertHeld,
          );
        report.heldBack += 1;
        continue;
      }
      if (unswept(reading) < deps.sweepMinLamports || unswept(reading) === 0n) continue;
      if (heldBack.has(row.mint)) {
        report.heldBack += 1;
        continue;
      }
      candidates.push({
        tokenId: Number(row.id),
        token: { mint: row.mint, creator: row.creator },
        reading,
        creatorSigner: deps.chain.creatorKeypair(Number(row.creatorIndex)),
      });
    }
    if (candidates.length >= chunkTokens) {
      yield candidates;
      candidates = [];
    }
  }
  yield candidates;
}

/**
 * Packs the candidates into as few transactions as fit. A token that failed since it last worked
 * goes in a transaction of its own: one mint whose collect keeps failing must not take the tokens
 * packed with it down every run.
 */
function packCandidates(deps: SweepJobDeps, ctx: JobContext, candidates: readonly SweepItem[]): PackedSweep[] {
  const suspects = suspectMints(deps.db, "sweep");
  const packOptions = { launchProgram: deps.chain.launchProgram, treasury: deps.chain.treasury.publicKey };
  const together = packSweeps(
    candidates.filter((c) => !suspects.has(c.token.mint)),
    packOptions,
  );
  const alone = packSweeps(
    candidates.filter((c) => suspects.has(c.token.mint)),
    { ...packOptions, maxTokensPerTransaction: 1 },
  );
  for (const skipped of [...together.skipped, ...alone.skipped]) {
    if (skipped.reason === "too-large") {
      log.warn("token cannot fit a sweep transaction", { mint: skipped.item.token.mint });
      recordTokenFailure(
        deps.db,
        { mint: skipped.item.token.mint, job: "sweep", reason: "cannot fit a sweep transaction", atMs: deps.now() },
        ctx.assertHeld,
      );
    }
  }
  return [...together.batches, ...alone.batches];
}

/** Prepares one batch, saves its sweeps `sent` with the signature, then sends it. */
async function sendBatch(
  deps: SweepJobDeps,
  ctx: JobContext,
  report: SweepRunReport,
  batch: PackedSweep,
  share: PrepareShare,
): Promise<void> {
  if (ctx.signal.aborted) return;
  let prepared: PreparedTransaction;
  // Tokens whose last sweeps provably expired pay the next fee step.
  const attempt = sweepAttempt(
    deps.db,
    batch.items.map((item) => item.tokenId),
  );
  try {
    prepared = await deps.chain.sender.prepare(batch.instructions, deps.chain.treasury, batch.signers, {
      commandKey: batch.commandKey,
      job: "sweep",
      attempt,
      computeUnitFloor: computeUnitFloorFor(deps.db, "sweep", deps.now()),
      share,
    });
  } catch (error) {
    // Isolated per batch: the chain being unreachable is nobody's fault (the next run tries
    // again); anything else counts against the batch's tokens, which then go alone.
    report.sendErrors += 1;
    log.warn("sweep could not be prepared", { error: scrubErrorText(error) });
    if (!isChainUnavailable(error)) {
      for (const item of batch.items) {
        recordTokenFailure(
          deps.db,
          {
            mint: item.token.mint,
            job: "sweep",
            reason: `could not be prepared: ${scrubErrorText(error)}`,
            atMs: deps.now(),
          },
          ctx.assertHeld,
        );
      }
    }
    return;
  }
  // The signature is saved before the transaction leaves: a crash after this point is resolved
  // from the chain by the next run, never swept a second time while it might still land.
  recordSweepsSent(
    deps.db,
    batch.items.map((item) => ({
      tokenId: item.tokenId,
      signature: prepared.signature,
      lastValidBlockHeight: prepared.lastValidBlockHeight,
      atMs: deps.now(),
    })),
    ctx.assertHeld,
    { job: "sweep", prepared, attempt },
  );
  crashPoint("sweep:after-save");
  try {
    await deps.chain.sender.send(prepared);
    report.transactionsSent += 1;
    report.tokensSwept += batch.items.length;
    crashPoint("sweep:after-send");
  } catch (error) {
    // Unknown whether it left: the saved sweep is resolved by its outcome (landed or expired).
    report.sendErrors += 1;
    log.warn("sweep send failed; its outcome will be resolved", { error: scrubErrorText(error) });
  }
}

const unswept = unsweptLamports;

function storeReadings(
  deps: SweepJobDeps,
  ctx: JobContext,
  readings: { tokenId: number; reading: VaultReading | null }[],
  readAtMs: number,
): void {
  // A changed reading is activity either way (the indexer streams the most recently active tokens).
  const schedule: ScheduleNote =
    deps.quietMaxIntervalMs === undefined
      ? { kind: "activity" }
      : { kind: "sweep", readAtMs, quietMaxIntervalMs: deps.quietMaxIntervalMs };
  storeVaultReadings(deps.db, readings, deps.now(), ctx.assertHeld, schedule);
}

const sentSweepsAfter = statement<SentSweepRow, [afterId: number, limit: number]>(
  `SELECT s.id, s.signature, s.last_valid_block_height AS lvbh, t.creator, t.mint
     FROM sweeps s JOIN tokens t ON t.id = s.token_id
    WHERE s.status = 'sent' AND s.id > ? ORDER BY s.id LIMIT ?`,
);

/** Resolves every `sent` sweep whose outcome the chain can tell now; returns how many stay pending. */
export async function resolveSentSweeps(deps: SweepJobDeps, ctx: JobContext, report?: SweepRunReport): Promise<number> {
  let pending = 0;
  let afterId = 0;
  const buyback = { platformBuybackBps: deps.platformBuybackBps, platformTokenMint: getPlatformTokenMint(deps.db) };
  // Keyset pages over every sent sweep: a run that sent more than one page resolves them all
  // (a single page used to leave everything past RESOLVE_BATCH for the next run).
  const resolved = new Set<string>();
  for (let page = 0; page < 100_000 && !ctx.signal.aborted; page++) {
    const rows = sentSweepsAfter(deps.db).all(afterId, deps.resolveBatchSize ?? RESOLVE_BATCH);
    if (rows.length === 0) break;
    afterId = Number(rows[rows.length - 1]!.id);
    // A transaction's sweeps are resolved together, never split by a page's edge: its credit's
    // cross-check adds up the whole transaction, and a part of it would not add up (the part's
    // tokens were stopped as mismatched, their fees left uncredited until an operator looked).
    const signatures = [...new Set(rows.map((r) => r.signature))].filter((sig) => !resolved.has(sig));
    if (signatures.length === 0) continue;
    for (const sig of signatures) resolved.add(sig);
    pending += await resolvePage(deps, ctx, sentSweepsOf(deps.db, signatures), buyback, report);
  }
  if (report) report.pending = pending;
  return pending;
}

const sentSweepsWithSignature = statement<SentSweepRow, [signature: string]>(
  `SELECT s.id, s.signature, s.last_valid_block_height AS lvbh, t.creator, t.mint
     FROM sweeps s JOIN tokens t ON t.id = s.token_id
    WHERE s.status = 'sent' AND s.signature = ? ORDER BY s.id`,
);

/** Every `sent` sweep of these transactions, in id order. */
function sentSweepsOf(db: SweepJobDeps["db"], signatures: readonly string[]): SentSweepRow[] {
  const sentOf = sentSweepsWithSignature(db);
  return signatures.flatMap((signature) => sentOf.all(signature));
}

/**
 * Resolves the `sent` sweeps of one transaction exactly as a run does; the indexer calls it when
 * the stream shows that signature. Returns how many stay pending (0 when none is sent any more).
 */
export async function resolveSweepSignature(deps: SweepJobDeps, ctx: JobContext, signature: string): Promise<number> {
  const rows = sentSweepsOf(deps.db, [signature]);
  if (rows.length === 0) return 0;
  const buyback = { platformBuybackBps: deps.platformBuybackBps, platformTokenMint: getPlatformTokenMint(deps.db) };
  return resolvePage(deps, ctx, rows, buyback);
}

interface SentSweepRow {
  id: bigint;
  signature: string;
  lvbh: bigint;
  creator: string;
  mint: string;
}

type Buyback = { platformBuybackBps: number; platformTokenMint: string | null };
type ChainAnswer = { outcome: TransactionOutcome; tx: ConfirmedTransaction | null };

async function resolvePage(
  deps: SweepJobDeps,
  ctx: JobContext,
  rows: SentSweepRow[],
  buyback: Buyback,
  report?: SweepRunReport,
): Promise<number> {
  const bySignature = new Map<string, typeof rows>();
  for (const row of rows) {
    const list = bySignature.get(row.signature) ?? [];
    list.push(row);
    bySignature.set(row.signature, list);
  }
  // The chain is asked about several signatures at once; the books are written in order after.
  const groups = [...bySignature];
  const answers = new Map<string, ChainAnswer>();
  await forEachLimit(groups, deps.sendConcurrency ?? 8, async ([signature, sweeps]) => {
    if (ctx.signal.aborted) return;
    // The credit reads the transaction anyway, and it carries its block's time.
    const outcome = await deps.chain.sender.outcome(
      signature,
      BigInt(sweeps[0]!.lvbh),
      sentFromSlotOf(deps.db, signature),
      { blockTime: false },
    );
    journalOutcome(deps.db, signature, outcome);
    const tx = outcome.kind === "confirmed" ? await deps.chain.reader.getTransaction(signature) : null;
    answers.set(signature, { outcome, tx });
  });
  let pending = 0;
  for (const [signature, sweeps] of groups) {
    const answer = answers.get(signature);
    if (!answer) {
      pending += sweeps.length;
      continue;
    }
    const { outcome, tx } = answer;
    if (outcome.kind === "pending" || outcome.kind === "unknown") {
      pending += sweeps.length;
      continue;
    }
    if (outcome.kind === "failed" || outcome.kind === "expired") {
      failSweeps(deps, ctx, sweeps, outcome);
      if (report) report.failed += sweeps.length;
      continue;
    }
    if (!tx) {
      // Confirmed but not yet readable from this node: try again next pass.
      pending += sweeps.length;
      continue;
    }
    crashPoint("sweep:after-confirm");
    creditConfirmed(deps, ctx, sweeps, signature, tx, outcome.blockTime ?? tx.blockTime, buyback, report);
  }
  return pending;
}

function failSweeps(
  deps: SweepJobDeps,
  ctx: JobContext,
  sweeps: readonly SentSweepRow[],
  outcome: Extract<TransactionOutcome, { kind: "failed" | "expired" }>,
): void {
  const error = outcome.kind === "failed" ? scrubErrorText(outcome.error) : SWEEP_EXPIRED_ERROR;
  for (const sweep of sweeps) {
    failSweep(deps.db, Number(sweep.id), error, ctx.assertHeld);
    // A failure on chain counts against the token (an expiry is the chain's doing, not its).
    if (outcome.kind === "failed")
      recordTokenFailure(
        deps.db,
        { mint: sweep.mint, job: "sweep", reason: `failed on chain: ${error}`, atMs: deps.now() },
        ctx.assertHeld,
      );
  }
}

const sweepStillSent = statement<{ one: number }, [id: bigint]>(
  "SELECT 1 AS one FROM sweeps WHERE id = ? AND status = 'sent'",
);

/**
 * Credits the sweeps of one confirmed transaction with what the chain says moved, after checking
 * the decoder against the transaction's own transfers; a token whose credit disagrees is stopped.
 */
function creditConfirmed(
  deps: SweepJobDeps,
  ctx: JobContext,
  sweeps: readonly SentSweepRow[],
  signature: string,
  tx: ConfirmedTransaction,
  blockTime: Date | null,
  buyback: Buyback,
  report?: SweepRunReport,
): void {
  const effects = deps.chain.launchProgram.decodeSweep(
    tx,
    sweeps.map((s) => s.creator),
  );
  const movedByCreator = new Map(effects.map((e) => [e.creator, e.movedToTreasuryLamports]));
  const atMs = blockTime ? blockTime.getTime() : deps.now();
  const stillSent = sweepStillSent(deps.db);
  // One database transaction for the whole batch (each write nests as a savepoint): a batch is
  // checked and credited all at once, with one disk sync instead of one per token.
  immediate(deps.db, () => {
    // The indexer and the job's settle loop may both resolve this transaction: whichever asked the
    // chain second finds the other's credits here, checks the batch with them counted once, and
    // credits only what is still sent (rows read before the chain was asked are stale by now).
    const open = sweeps.filter((sweep) => stillSent.get(sweep.id) !== null);
    if (open.length === 0) return;
    const mismatched = creditMismatches(deps, open, signature, tx, movedByCreator);
    for (const sweep of open) {
      const reason = mismatched.get(sweep.creator);
      if (!reason) continue;
      log.error("sweep credit disagrees with the chain; token stopped", { mint: sweep.mint, reason });
      stopToken(deps.db, { mint: sweep.mint, job: "sweep", reason, atMs: deps.now() }, ctx.assertHeld);
    }
    for (const sweep of open) {
      // A stopped token's sweep stays sent (so the token is not swept again) until an operator looks.
      if (mismatched.has(sweep.creator)) continue;
      // Credit what actually left the creator address for the treasury: fees that arrived after
      // the reading stay there and are swept (and credited) next time, never twice.
      const totalLamports = movedByCreator.get(sweep.creator) ?? 0n;
      const { applied } = confirmSweep(
        deps.db,
        { sweepId: Number(sweep.id), totalLamports, atMs, buyback },
        ctx.assertHeld,
      );
      recordTokenSuccess(deps.db, sweep.mint, "sweep", ctx.assertHeld);
      if (applied) {
        if (report) report.confirmed += 1;
        crashPoint("sweep:mid-credit");
      }
    }
  });
}

/**
 * Cross-check against the chain's own figures in this very transaction: no token is credited
 * more than its creator->treasury transfer moved, and the batch's credits add up to exactly what
 * the treasury received net (fee and any rent it fronted included). A decoder that disagrees
 * (a bug, a program change) stops the token(s): never credited short, never credited extra.
 * Returns the reason per creator that disagrees.
 */
function creditMismatches(
  deps: SweepJobDeps,
  sweeps: readonly SentSweepRow[],
  signature: string,
  tx: ConfirmedTransaction,
  movedByCreator: ReadonlyMap<string, bigint>,
): Map<string, string> {
  const treasury = deps.chain.treasury.publicKey.toBase58();
  const mismatched = new Map<string, string>();
  // Sweeps of this transaction credited before one of them was stopped count towards its total.
  let creditedTotal = creditedInSignature(deps.db, signature);
  for (const sweep of sweeps) {
    const moved = movedByCreator.get(sweep.creator) ?? 0n;
    const transferred = transferredTo(tx, sweep.creator, treasury);
    creditedTotal += moved;
    if (moved > transferred)
      mismatched.set(sweep.creator, `credit mismatch: decoded ${moved} lamports, its transfer moved ${transferred}`);
  }
  const received = treasuryReceived(tx, treasury);
  if (mismatched.size === 0 && creditedTotal !== received) {
    for (const sweep of sweeps)
      mismatched.set(
        sweep.creator,
        `credit mismatch: batch decoded ${creditedTotal} lamports, the treasury received ${received}`,
      );
  }
  return mismatched;
}

const sentSweepCount = statement<{ n: bigint }, []>("SELECT COUNT(*) AS n FROM sweeps WHERE status = 'sent'");

/**
 * Waits for the run's own sweeps. Money moves only at finalized, about 32 slots after landing
 * (~13 s on mainnet), and every question to the node is billed, so the database is looked at often
 * (the indexer resolves a sweep once its stream shows the slot finalized) and the node seldom:
 * while every sent transaction is landing, one status request says so for all of them, with the
 * confirmations each has. Once two answers show the slots passing, the next question waits for the
 * earliest finalization they foretell; until then the wait doubles up to eight times the first.
 * While the indexer's stream decides them (`streamResolves`), the node is not asked at all.
 * What is still pending at the deadline is resolved by the indexer or the next run, as before.
 */
async function settle(deps: SweepJobDeps, ctx: JobContext, report: SweepRunReport): Promise<void> {
  const deadline = Date.now() + (deps.settleTimeoutMs ?? 60_000);
  const lookMs = deps.settlePollMs ?? 500;
  const pace = new FinalizationPace(lookMs);
  let askAtMs = Date.now() + lookMs;
  const sentCount = sentSweepCount(deps.db);
  for (let look = 0; look < SETTLE_LOOKS_MAX && !ctx.signal.aborted; look++) {
    if (Number(sentCount.get()!.n) === 0) break;
    if (Date.now() >= askAtMs && !deps.streamResolves?.()) {
      const landing = await stillLanding(deps);
      if (landing === null && (await resolveSentSweeps(deps, ctx, report)) === 0) break;
      askAtMs = Date.now() + pace.nextWaitMs(landing);
    }
    if (Date.now() >= deadline) break;
    // A question already due (the stream deciding instead) waits a look, never zero: no spin.
    const untilAskMs = askAtMs - Date.now();
    await Bun.sleep(Math.max(0, Math.min(lookMs, untilAskMs > 0 ? untilAskMs : lookMs, deadline - Date.now())));
  }
}

/** Bound on the settle loop's looks at the database (the deadline ends it long before). */
const SETTLE_LOOKS_MAX = 100_000;

/** Confirmations after which a landed transaction is finalized (Solana's 32-slot lockout). */
const FINALIZED_CONFIRMATIONS = 32;

/**
 * When to ask the node next: from the confirmations the transactions gained between the first
 * landing answer and this one, the time until the first of them can be finalized; a doubling wait
 * where that cannot be told (a reader that gives no confirmations, a clock that has not moved).
 */
export class FinalizationPace {
  private first: { atMs: number; confirmations: ReadonlyMap<string, number> } | null = null;
  private doublingMs: number;

  constructor(
    private readonly baseMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.doublingMs = baseMs;
  }

  /** `landing`: each landing transaction's confirmations, or null when an outcome was asked */
  nextWaitMs(landing: ReadonlyMap<string, number | null> | null): number {
    const doubling = this.doublingMs;
    this.doublingMs = Math.min(this.doublingMs * 2, this.baseMs * 8);
    const counted = new Map<string, number>();
    for (const [signature, confirmations] of landing ?? [])
      if (confirmations != null) counted.set(signature, confirmations);
    if (counted.size === 0) return doubling;
    const atMs = this.now();
    if (this.first === null) {
      this.first = { atMs, confirmations: counted };
      return doubling;
    }
    let slotsPerMs = 0;
    for (const [signature, confirmations] of counted) {
      const before = this.first.confirmations.get(signature);
      if (before !== undefined && atMs > this.first.atMs)
        slotsPerMs = Math.max(slotsPerMs, (confirmations - before) / (atMs - this.first.atMs));
    }
    if (slotsPerMs <= 0) return doubling;
    const slotsLeft = Math.min(...[...counted.values()].map((c) => Math.max(0, FINALIZED_CONFIRMATIONS - c)));
    return Math.min(this.baseMs * 32, Math.max(this.baseMs, Math.ceil(slotsLeft / slotsPerMs)));
  }
}

const sentSignatures = statement<{ s: string }, [limit: number]>(
  "SELECT DISTINCT signature AS s FROM sweeps WHERE status = 'sent' LIMIT ?",
);

/**
 * Each sent sweep transaction's confirmations when every one of them is seen landing but not
 * finalized yet, so no outcome can be decided now; null otherwise (a transaction not seen, perhaps
 * expired, failed or finalized, a node that cannot answer, more transactions than one request
 * covers), and the outcomes are asked. Only decides when to ask: the outcome itself still comes
 * from `outcome()`.
 */
async function stillLanding(deps: SweepJobDeps): Promise<Map<string, number | null> | null> {
  const signatures = sentSignatures(deps.db)
    .all(STATUS_CHECK_MAX + 1)
    .map((r) => r.s);
  if (signatures.length === 0 || signatures.length > STATUS_CHECK_MAX) return null;
  try {
    const statuses = await deps.chain.reader.getSignatureStatuses(signatures, false);
    const landing = new Map<string, number | null>();
    for (const signature of signatures) {
      const st = statuses.get(signature);
      if (
        st == null ||
        st.err !== null ||
        (st.confirmationStatus !== "processed" && st.confirmationStatus !== "confirmed")
      )
        return null;
      landing.set(signature, st.confirmations ?? null);
    }
    return landing;
  } catch {
    return null;
  }
}

/** Signatures one status request covers (the RPC's limit). */
const STATUS_CHECK_MAX = 256;

const tokenRefsOf = statement<TokenRefRow, [ids: string]>(
  `SELECT ${columnsOf(tokens, { only: TOKEN_REF_FIELDS })} FROM tokens
    WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`,
);
const storedVault = statement<{ v: bigint }, [tokenId: number]>("SELECT vault_lamports AS v FROM tokens WHERE id = ?");
const sweepInFlight = statement<{ 1: number }, [tokenId: number]>(
  "SELECT 1 FROM sweeps WHERE token_id = ? AND status = 'sent' LIMIT 1",
);
const storeVault = statement<never, [vaultLamports: bigint, atMs: number, tokenId: number]>(
  "UPDATE tokens SET vault_lamports = ?, vault_checked_at_ms = ? WHERE id = ?",
);

/**
 * Reconciliation of readings (issue: "a token whose vault reading disagrees with the chain is
 * re-read"): a swept token's stored reading is the pre-sweep reading minus what the sweep credited,
 * which disagrees with the chain as soon as fees arrived meanwhile (or the sweep failed); a token
 * that had a sweep in flight kept an older reading. Each of these with no sweep still in flight is
 * read again and, where the stored figure differs from the chain, the chain's figure is stored.
 * A token whose sweep is still in flight keeps its reading: its confirmation subtracts the
 * credited total from it.
 */
async function rereadSwept(deps: SweepJobDeps, ctx: JobContext, tokenIds: readonly number[]): Promise<number> {
  const batchSize = deps.readBatchSize ?? SWEEP_READ_BATCH_TOKENS;
  const refsOf = tokenRefsOf(deps.db);
  let changed = 0;
  for (let i = 0; i < tokenIds.length && !ctx.signal.aborted; i += batchSize) {
    const page = refsOf
      .all(JSON.stringify(tokenIds.slice(i, i + batchSize)))
      .map((r) => ({ tokenId: Number(r.id), token: { mint: r.mint, creator: r.creator } }));
    const readings = await deps.chain.launchProgram.readVaults(page.map((p) => p.token));
    const byMint = new Map(readings.map((r) => [r.mint, r]));
    const at = deps.now();
    changed += immediate(deps.db, () => {
      ctx.assertHeld();
      const stored = storedVault(deps.db);
      const inFlight = sweepInFlight(deps.db);
      const update = storeVault(deps.db);
      let n = 0;
      for (const item of page) {
        const reading = byMint.get(item.token.mint);
        if (!reading || inFlight.get(item.tokenId)) continue;
        const row = stored.get(item.tokenId);
        if (!row || BigInt(row.v) === unswept(reading)) continue;
        update.run(unswept(reading), at, item.tokenId);
        n++;
      }
      return n;
    });
  }
  return changed;
}

/**
 * The proof of reserves, checked every run: the treasury must hold at least what is owed. A
 * shortfall is logged loudly and kept for the proof route, and beyond the tolerance it halts money
 * (src/custody); the audit throws on broken books, and halts money too.
 */
async function reconcile(deps: SweepJobDeps, ctx: JobContext): Promise<void> {
  // Each credit of the run checked its own token's recipient credits when it was written.
  try {
    verifyLedger(deps.db, { recipientCredits: false, accountFigures: "identities" });
  } catch (error) {
    // Broken books halt every outflow until an operator has looked; the run still fails loudly.
    if (isAppError(error, "LEDGER_INVARIANT"))
      raiseIncident(deps.db, {
        kind: "audit",
        detail: `the books audit failed: ${scrubErrorText(error)}`,
        atMs: deps.now(),
      });
    throw error;
  }
  const treasury = deps.chain.treasury.publicKey.toBase58();
  const balances = await deps.chain.reader.getBalances([treasury]);
  const treasuryLamports = balances.get(treasury) ?? 0n;
  const owed = owedForReserves(deps.db);
  const surplus = treasuryLamports - owed;
  if (surplus < 0n) log.error("treasury holds less than is owed", { treasuryLamports, owedLamports: owed });
  immediate(deps.db, () => {
    ctx.assertHeld();
    setLastReconciliation(deps.db, { treasuryLamports, owedLamports: owed, checkedAtMs: deps.now() });
    if (deps.reserves)
      checkReserves(deps.db, { treasuryLamports, owedLamports: owed, atMs: deps.now() }, deps.reserves);
  });
}

/** Runs `work` over `items` with at most `limit` at once; the first error is rethrown after all settle. */
async function forEachLimit<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  const lane = async () => {
    while (next < items.length && !failure) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  if (failure) throw (failure as { error: unknown }).error;
}
