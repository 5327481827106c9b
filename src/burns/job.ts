/**
 * The `burns` job: buys each mint's pending burn orders (recipients' and the platform buyback)
 * in one slippage-bounded buy, then burns exactly what the buy delivered, in two transactions:
 * the burn amount is only known once the buy has landed. Every transaction's signature is saved
 * before it is sent, so a crash at any step resumes from the chain: a buy is never bought twice,
 * and tokens bought are burned exactly once.
 *   pending orders -> buy `sent` -> `bought` (amount known) -> `burning` -> `confirmed` (burns recorded)
 *   a failed or expired buy returns its orders to pending; a failed or expired burn is retried.
 */
import { createCloseAccountInstruction } from "@solana/spl-token";
import type { PublicKey, TransactionInstruction } from "@solana/web3.js";
import { computeBudgetInstructions, MAX_COMPUTE_UNIT_LIMIT, withoutComputeBudget } from "../chain/landing";
import { commandKeyMemo } from "../chain/memo";
import { MAX_TRANSACTION_BYTES, measureTransaction } from "../chain/packing";
import type { Db } from "../../db/client";
import { burnBuys } from "../../db/schema";
import { columnsOf, statement, type TableRow } from "../../db/statement";
import type { ChainServices } from "../chain/services";
import { crashPoint } from "../jobs";
import type { JobContext } from "../jobs";
import { log } from "../lib/log";
import { scrubErrorText } from "../lib/scrub";
import { chainUnavailable, isChainUnavailable } from "../chain/errors";
import {
  heldBackMints,
  listSetAside,
  recordTokenFailure,
  recordTokenSuccess,
  setAsideStates,
  stopToken,
} from "../jobs";
import type { PreparedTransaction, TokenRef } from "../chain/ports";
import { computeUnitFloorFor, journalOutcome, sentFromSlotOf } from "../landing";
import { immediate } from "../../db/transaction";
import {
  burnBuyCommandKey,
  buyAttempt,
  buySpendAnomaly,
  buySpendOf,
  completeBurnBuy,
  failBurnBuy,
  markBurnBought,
  markBurnSent,
  nextBurnBuyId,
  partOfGroup,
  pendingBurnGroups,
  type PendingBurnGroup,
  rentClosedIn,
  retryBurn,
  startBurnBuy,
} from "./service";
import { isAppError } from "../lib/errors";
import { clearIncidents, listIncidents, moneyGate, moneyHalt, raiseIncident, type OutflowCaps } from "../custody";

export interface BurnJobDeps {
  db: Db;
  chain: ChainServices;
  now: () => number;
  slippageBps?: number;
  /** the most one buy may move the price it pays; a mint's orders worth more are bought in parts */
  maxPriceImpactBps?: number;
  /** outflow caps a buy must stay within (src/custody); absent: only an open halt stops buys */
  outflowCaps?: OutflowCaps;
  maxMintsPerRun?: number;
  settleTimeoutMs?: number;
  settlePollMs?: number;
}

export interface BurnRunReport {
  buysSent: number;
  bought: number;
  burnsSent: number;
  burned: number;
  failed: number;
  skipped: number;
  /** buys that took only a part of their mint's orders (the rest over the price-impact bound) */
  parts: number;
}

const BUY_FIELDS = [
  "id",
  "mint",
  "status",
  "signature",
  "lastValidBlockHeight",
  // the buy's budget: what its measured spend is checked against
  "lamports",
  "tokenAmount",
  "burnSignature",
  "burnLastValidBlockHeight",
  // set when an earlier burn of this buy failed or expired
  "error",
] as const;
type BuyRow = Pick<TableRow<typeof burnBuys>, (typeof BUY_FIELDS)[number]>;
const BUY_COLUMNS = columnsOf(burnBuys, { only: BUY_FIELDS });

const liveBuyRows = statement<BuyRow, []>(
  `SELECT ${BUY_COLUMNS} FROM burn_buys WHERE status IN ('sent', 'bought', 'burning') ORDER BY id LIMIT 1000`,
);
const liveBuysOfSignature = statement<BuyRow, [signature: string]>(
  `SELECT ${BUY_COLUMNS}
     FROM burn_buys WHERE (status = 'sent' AND signature = ?1) OR (status = 'burning' AND burn_signature = ?1)`,
);
const launchedToken = statement<TokenRef & { id: bigint }, [mint: string]>(
  "SELECT id, mint, creator FROM tokens WHERE mint = ?",
);

const EXPIRED = "expired without landing";

/**
 * What a burn that provably expired leaves in its buy's `error`: how many of the buy's burns in a
 * row expired, which is the attempt number of the burn sent next (each pays the next fee step).
 */
function expiredBurnError(inARow: number): string {
  return inARow <= 1 ? EXPIRED : `${EXPIRED} (${inARow} in a row)`;
}

/** How many of the buy's burns in a row provably expired, from its `error`; 0 after a failure or none. */
export function burnExpiriesInARow(error: string | null): number {
  if (error === EXPIRED) return 1;
  const inARow = error?.startsWith(`${EXPIRED} (`)
    ? /^\((\d{1,4}) in a row\)$/.exec(error.slice(EXPIRED.length + 1))
    : null;
  return inARow ? Number(inARow[1]) : 0;
}

/** The incident a mint set aside on an anomaly of one of its transactions raises (src/custody). */
const ANOMALY_INCIDENT = "token-anomaly";

/**
 * The worst price a burn buy accepts below its fresh quote. Anyone watching can sandwich a buy up
 * to this bound (one predictable buy per mint per run), so it is tight: a buy whose quote moved
 * further fails on chain, its orders wait for the next run, and it is never bought at a worse price.
 */
const DEFAULT_BURN_SLIPPAGE_BPS = 100;

/**
 * The most one burn buy may move the price it pays. A mint's orders worth more are bought in parts,
 * one part per run, so the buys do not themselves push the price up against the recipients (and
 * the market has a run's time to come back between them).
 */
const DEFAULT_BURN_MAX_PRICE_IMPACT_BPS = 200;

/** Quotes tried per mint and run while shrinking a buy to the impact bound; past it the mint waits. */
const IMPACT_QUOTES_MAX = 4;

function liveBuys(db: Db): BuyRow[] {
  return liveBuyRows(db).all();
}

/** Moves every live buy forward as far as the chain allows; returns how many are still waiting on the chain. */
async function advance(deps: BurnJobDeps, ctx: JobContext, report: BurnRunReport): Promise<number> {
  let waiting = 0;
  for (const buy of liveBuys(deps.db)) {
    if (ctx.signal.aborted) break;
    // A landed buy whose spend could not be booked waits, set aside, until an operator clears the mint.
    if (buy.status === "sent" && stoppedForBurns(deps.db, buy.mint)) continue;
    // Each buy on its own: an error settling or burning one mint does not stop the others.
    try {
      waiting += await advanceOne(deps, ctx, buy, report);
    } catch (error) {
      // Broken books and a lost lease are never one mint's problem: they end the run.
      if (isAppError(error, "LEDGER_INVARIANT", "LEASE_LOST")) throw error;
      waiting++;
      log.warn("burn could not be advanced; the next run tries again", {
        mint: buy.mint,
        error: scrubErrorText(error),
      });
      if (!isChainUnavailable(error) && !ctx.signal.aborted) {
        recordTokenFailure(
          deps.db,
          {
            mint: buy.mint,
            job: "burns",
            reason: `burn could not be built: ${scrubErrorText(error)}`,
            atMs: deps.now(),
          },
          ctx.assertHeld,
        );
      }
    }
  }
  return waiting;
}

async function advanceOne(deps: BurnJobDeps, ctx: JobContext, buy: BuyRow, report: BurnRunReport): Promise<number> {
  let waiting = 0;
  const treasury = deps.chain.treasury;
  const id = Number(buy.id);
  const settled = await settleLiveBuy(deps, ctx, buy, report);
  waiting += settled.waiting;
  if (settled.stop) return waiting;
  if (buy.status === "bought" && !ctx.signal.aborted) {
    const amount = BigInt(buy.tokenAmount ?? 0n);
    if (amount === 0n) {
      // The buy delivered nothing to burn; the spend itself is what is recorded.
      markBurnSent(deps.db, id, buy.signature, BigInt(buy.lastValidBlockHeight), ctx.assertHeld);
      completeBurnBuy(deps.db, { buyId: id, tokenAmount: 0n, atMs: deps.now() }, ctx.assertHeld);
      report.burned++;
      return waiting;
    }
    const instructions = await deps.chain.launchProgram.buildBurn(buy.mint, treasury.publicKey, amount);
    // The burn closes the treasury's token account when it empties it, so the rent its creation
    // in the buy took comes back (booked back to the platform when the burn lands). A retry after a burn that
    // failed on chain burns without closing: a close can never hold a burn back.
    if (buy.error === null || burnExpiriesInARow(buy.error) > 0)
      instructions.push(...(await closeIfEmptied(deps, instructions, amount)));
    // A burn sent again after its last ones provably expired pays the next fee step, one per expiry in a row.
    const attempt = burnExpiriesInARow(buy.error);
    const prepared = await deps.chain.sender.prepare(instructions, treasury, [], {
      commandKey: { kind: "burn", buyId: id },
      job: "burn",
      attempt,
      computeUnitFloor: computeUnitFloorFor(deps.db, "burn", deps.now()),
    });
    markBurnSent(deps.db, id, prepared.signature, prepared.lastValidBlockHeight, ctx.assertHeld, {
      job: "burn",
      prepared,
      attempt,
      atMs: deps.now(),
    });
    crashPoint("burns:burn-after-save");
    try {
      await deps.chain.sender.send(prepared);
      report.burnsSent++;
      crashPoint("burns:burn-after-send");
    } catch (error) {
      log.warn("burn send failed; its outcome will be resolved", { error: scrubErrorText(error) });
    }
    waiting++;
  }
  return waiting;
}

/**
 * Moves one live buy forward on what the chain already tells, sending nothing: a landed buy
 * becomes `bought`, a landed burn completes, a failed or expired one is handled as the job does.
 * `stop` means the caller has nothing more to do with this buy in this pass.
 */
async function settleLiveBuy(
  deps: BurnJobDeps,
  ctx: JobContext,
  buy: BuyRow,
  report: BurnRunReport,
): Promise<{ waiting: number; stop: boolean }> {
  let waiting = 0;
  if (buy.status === "sent") {
    const settled = await settleBuy(deps, ctx, buy, report);
    waiting += settled.waiting;
    if (settled.stop) return { waiting, stop: true };
  }
  if (buy.status === "burning") waiting += await settleBurn(deps, ctx, buy, report);
  return { waiting, stop: false };
}

/** A sent buy: landed becomes `bought` (in `buy` too), failed or expired returns its orders. */
async function settleBuy(
  deps: BurnJobDeps,
  ctx: JobContext,
  buy: BuyRow,
  report: BurnRunReport,
): Promise<{ waiting: number; stop: boolean }> {
  const id = Number(buy.id);
  const outcome = await deps.chain.sender.outcome(
    buy.signature,
    BigInt(buy.lastValidBlockHeight),
    sentFromSlotOf(deps.db, buy.signature),
  );
  journalOutcome(deps.db, buy.signature, outcome);
  if (outcome.kind === "pending" || outcome.kind === "unknown") return { waiting: 1, stop: false };
  if (outcome.kind === "confirmed") {
    const tx = await deps.chain.reader.getTransaction(buy.signature);
    if (!tx) return { waiting: 1, stop: true };
    crashPoint("burns:buy-after-confirm");
    const treasury = deps.chain.treasury.publicKey.toBase58();
    const amount = deps.chain.launchProgram.decodeBoughtAmount(tx, buy.mint, treasury);
    // What the buy spent is what is burned; the rest of its budget goes back to its orders.
    const spend = buySpendOf(tx, treasury, deps.chain.launchProgram.buyRentAccounts(buy.mint, treasury));
    if (!spend)
      throw chainUnavailable("CHAIN_BAD_RESPONSE", {
        method: "getTransaction",
        detail: "the buy's transaction does not show what it spent",
      });
    const anomaly = buySpendAnomaly(spend, BigInt(buy.lamports));
    if (anomaly) {
      setAsideOnAnomaly(deps, ctx, buy.mint, `burn buy ${id}: ${anomaly}`);
      return { waiting: 0, stop: true };
    }
    markBurnBought(deps.db, { buyId: id, tokenAmount: amount, spend, atMs: deps.now() }, ctx.assertHeld);
    recordTokenSuccess(deps.db, buy.mint, "burns", ctx.assertHeld);
    report.bought++;
    buy.status = "bought";
    buy.tokenAmount = amount;
    return { waiting: 0, stop: false };
  }
  failBurnBuy(deps.db, id, outcome.kind === "failed" ? scrubErrorText(outcome.error) : EXPIRED, ctx.assertHeld);
  if (outcome.kind === "failed")
    recordTokenFailure(
      deps.db,
      {
        mint: buy.mint,
        job: "burns",
        reason: `buy failed on chain: ${scrubErrorText(outcome.error)}`,
        atMs: deps.now(),
      },
      ctx.assertHeld,
    );
  report.failed++;
  return { waiting: 0, stop: true };
}

/** A burn in flight: landed completes the buy, failed or expired sends it back to `bought`. Returns 1 while waiting. */
async function settleBurn(deps: BurnJobDeps, ctx: JobContext, buy: BuyRow, report: BurnRunReport): Promise<number> {
  const id = Number(buy.id);
  const outcome = await deps.chain.sender.outcome(
    buy.burnSignature!,
    BigInt(buy.burnLastValidBlockHeight!),
    sentFromSlotOf(deps.db, buy.burnSignature!),
  );
  journalOutcome(deps.db, buy.burnSignature!, outcome);
  if (outcome.kind === "pending" || outcome.kind === "unknown") return 1;
  if (outcome.kind === "confirmed") {
    // The burn closes the token account it empties: its rent, booked when the buy created it, is back.
    const tx = await deps.chain.reader.getTransaction(buy.burnSignature!);
    if (!tx) return 1;
    const treasury = deps.chain.treasury.publicKey.toBase58();
    const rentReturned = rentClosedIn(tx, deps.chain.launchProgram.buyRentAccounts(buy.mint, treasury));
    crashPoint("burns:burn-after-confirm");
    completeBurnBuy(
      deps.db,
      {
        buyId: id,
        tokenAmount: BigInt(buy.tokenAmount ?? 0n),
        atMs: outcome.blockTime?.getTime() ?? deps.now(),
        rentReturned,
      },
      ctx.assertHeld,
    );
    report.burned++;
  } else {
    const error =
      outcome.kind === "failed" ? scrubErrorText(outcome.error) : expiredBurnError(burnExpiriesInARow(buy.error) + 1);
    retryBurn(deps.db, id, error, ctx.assertHeld);
    buy.status = "bought";
    buy.error = error;
  }
  return 0;
}

/**
 * Settles the live buy whose buy or burn transaction has this signature, as a run would, without
 * sending the follow-up burn (the job does that); the indexer calls it when the stream shows the
 * signature. Returns how many steps still wait on the chain.
 */
export async function resolveBurnSignature(deps: BurnJobDeps, ctx: JobContext, signature: string): Promise<number> {
  const rows = liveBuysOfSignature(deps.db).all(signature);
  const report: BurnRunReport = { buysSent: 0, bought: 0, burnsSent: 0, burned: 0, failed: 0, skipped: 0, parts: 0 };
  let waiting = 0;
  for (const buy of rows) {
    if (buy.status === "sent" && stoppedForBurns(deps.db, buy.mint)) continue;
    waiting += (await settleLiveBuy(deps, ctx, buy, report)).waiting;
  }
  return waiting;
}

/**
 * The close of the token account a burn reads from, when that account holds exactly the burned
 * amount (nothing else of the mint would be left in it). The burn instruction is the last one the
 * launch program built: its first account is the token account, its program the token program.
 */
async function closeIfEmptied(
  deps: BurnJobDeps,
  burn: readonly TransactionInstruction[],
  amount: bigint,
): Promise<TransactionInstruction[]> {
  const last = burn[burn.length - 1];
  const account = last?.keys[0]?.pubkey;
  if (!last || !account) return [];
  const snapshot = (await deps.chain.reader.getAccounts([account.toBase58()])).get(account.toBase58());
  if (!snapshot || snapshot.data.length < 72 || snapshot.owner !== last.programId.toBase58()) return [];
  const held = new DataView(snapshot.data.buffer, snapshot.data.byteOffset + 64, 8).getBigUint64(0, true);
  if (held !== amount) return [];
  const treasury = deps.chain.treasury.publicKey;
  return [createCloseAccountInstruction(account, treasury, treasury, [], last.programId)];
}

/** Whether the mint is stopped for burns (set aside with no retry time, until an operator clears it). */
function stoppedForBurns(db: Db, mint: string): boolean {
  return setAsideStates(db, mint, "burns").some((s) => s.stopped);
}

/**
 * One mint's transaction did something on chain the books cannot take as it is (a stranger's
 * lamports the measure does not explain, an account the adapter did not expect): the mint is
 * stopped for burns with the reason and an incident tells the operator, in one write; every other
 * mint goes on. Nothing is booked for it: its buy stays `sent`, its orders `buying`, and it is
 * settled again once the operator clears the mint (POST /api/admin/set-aside/:mint/clear).
 */
function setAsideOnAnomaly(deps: BurnJobDeps, ctx: JobContext, mint: string, reason: string): void {
  log.error("burn buy set aside: its transaction cannot be booked as it is", { mint, reason });
  const atMs = deps.now();
  immediate(deps.db, () => {
    ctx.assertHeld();
    raiseIncident(deps.db, { kind: ANOMALY_INCIDENT, detail: `burns of ${mint} set aside: ${reason}`, atMs });
    stopToken(deps.db, { mint, job: "burns", reason, atMs });
  });
}

/** The anomaly incident resolves itself once no mint is stopped for burns any more (the operator cleared them). */
function clearAnomalyIncidentIfCleared(deps: BurnJobDeps): void {
  const open = listIncidents(deps.db, 100).some((i) => i.kind === ANOMALY_INCIDENT && i.resolvedAtMs === null);
  if (!open) return;
  const stopped = listSetAside(deps.db).some((s) => s.job === "burns" && s.retryAt === null);
  if (!stopped) clearIncidents(deps.db, [ANOMALY_INCIDENT], deps.now());
}

export async function runBurnsJob(deps: BurnJobDeps, ctx: JobContext): Promise<BurnRunReport> {
  const report: BurnRunReport = { buysSent: 0, bought: 0, burnsSent: 0, burned: 0, failed: 0, skipped: 0, parts: 0 };
  clearAnomalyIncidentIfCleared(deps);
  await advance(deps, ctx, report);
  const busyMints = new Set(liveBuys(deps.db).map((b) => b.mint));
  const heldBack = heldBackMints(deps.db, "burns", deps.now());
  // Halted: buys in flight and burns of tokens already bought go on (above); no new buy leaves.
  const halted = moneyHalt(deps.db) !== null;
  for (const group of halted ? [] : pendingBurnGroups(deps.db, deps.maxMintsPerRun ?? 200)) {
    if (ctx.signal.aborted) break;
    if (busyMints.has(group.mint)) continue;
    if (heldBack.has(group.mint)) {
      report.skipped++;
      continue;
    }
    const token = launchedToken(deps.db).get(group.mint);
    if (!token) {
      // Only tokens launched here can be bought through the launch-program port.
      report.skipped++;
      continue;
    }
    await buyGroup(deps, ctx, report, group, { mint: token.mint, creator: token.creator }, Number(token.id));
  }
  const deadline = Date.now() + (deps.settleTimeoutMs ?? 60_000);
  while (!ctx.signal.aborted) {
    const waiting = await advance(deps, ctx, report);
    if (waiting === 0 || Date.now() >= deadline) break;
    await Bun.sleep(deps.settlePollMs ?? 500);
  }
  return report;
}

/**
 * How many of the key's orders, oldest first, a buy transaction can name: its instructions, the
 * compute budget and the command key's memo within 1,232 bytes (and the memo within its bound).
 * At least one: a buy of a single order that does not fit is refused by the sender.
 */
function ordersThatFit(
  instructions: readonly TransactionInstruction[],
  treasury: PublicKey,
  key: ReturnType<typeof burnBuyCommandKey>,
): number {
  const own = [
    ...computeBudgetInstructions(MAX_COMPUTE_UNIT_LIMIT, 0n),
    ...withoutComputeBudget(instructions).instructions,
  ];
  const fits = (n: number): boolean => {
    let memo: TransactionInstruction;
    try {
      memo = commandKeyMemo({ ...key, orders: key.orders.slice(0, n) }, treasury);
    } catch {
      return false;
    }
    return measureTransaction([...own, memo], treasury).sizeBytes <= MAX_TRANSACTION_BYTES;
  };
  let n = key.orders.length;
  while (n > 1 && !fits(n)) n--;
  return n;
}

interface PlannedBuy {
  prepared: PreparedTransaction;
  /** what the buy spends: the group's total, or a part of it */
  lamports: bigint;
  part: PendingBurnGroup;
  buyKey: ReturnType<typeof burnBuyCommandKey>;
}

/**
 * The buy's signed transaction, shrunk to a part that stays under the price-impact bound and to
 * the orders its command key can name; null when the mint waits for the next run (counted skipped).
 */
async function planBuy(
  deps: BurnJobDeps,
  report: BurnRunReport,
  group: PendingBurnGroup,
  token: TokenRef,
  ids: { tokenId: number; buyId: number; attempt: number },
): Promise<PlannedBuy | null> {
  const treasury = deps.chain.treasury;
  const maxImpactBps = deps.maxPriceImpactBps ?? DEFAULT_BURN_MAX_PRICE_IMPACT_BPS;
  const { tokenId, buyId, attempt } = ids;
  let lamports = group.recipientLamports + group.platformLamports;
  const build = (budget: bigint) =>
    deps.chain.launchProgram.buildBurnBuy(
      token,
      treasury.publicKey,
      budget,
      deps.slippageBps ?? DEFAULT_BURN_SLIPPAGE_BPS,
    );
  let plan = await build(lamports);
  // Too large for one buy: shrink it to a part that stays under the bound (aiming a tenth
  // below it, since the impact grows a little faster than the budget), re-quoted each time.
  for (let quotes = 1; plan.priceImpactBps > maxImpactBps; quotes++) {
    if (quotes >= IMPACT_QUOTES_MAX) {
      log.warn("burn buy stays above the price-impact bound; the mint waits for the next run", {
        mint: group.mint,
        priceImpactBps: plan.priceImpactBps,
      });
      report.skipped++;
      return null;
    }
    lamports = (lamports * BigInt(maxImpactBps) * 9n) / (BigInt(plan.priceImpactBps) * 10n);
    if (lamports <= 0n) {
      report.skipped++;
      return null;
    }
    plan = await build(lamports);
  }
  let part = partOfGroup(group, lamports);
  let buyKey = burnBuyCommandKey(deps.db, { buyId, tokenId, group: part });
  // Too many orders for one transaction with its command key: the oldest that fit are bought
  // now (re-quoted for their smaller budget), the rest by the next runs.
  const fitting = ordersThatFit(plan.instructions, treasury.publicKey, buyKey);
  if (fitting < buyKey.orders.length) {
    lamports = buyKey.orders.slice(0, fitting).reduce((n, o) => n + o.lamports, 0n);
    plan = await build(lamports);
    part = partOfGroup(group, lamports);
    buyKey = burnBuyCommandKey(deps.db, { buyId, tokenId, group: part });
  }
  const prepared = await deps.chain.sender.prepare(plan.instructions, treasury, [], {
    commandKey: buyKey,
    job: "burn-buy",
    attempt,
    computeUnitFloor: computeUnitFloorFor(deps.db, "burn-buy", deps.now()),
  });
  return { prepared, lamports, part, buyKey };
}

/** Builds one mint's buy of its pending orders, saves it `sent` with its signature, then sends it. */
async function buyGroup(
  deps: BurnJobDeps,
  ctx: JobContext,
  report: BurnRunReport,
  group: PendingBurnGroup,
  token: TokenRef,
  tokenId: number,
): Promise<void> {
  // The id the row will get, named by the transaction's command key: chosen before it is signed.
  const buyId = nextBurnBuyId(deps.db);
  // A buy of a mint whose last buys provably expired pays the next fee step.
  const attempt = buyAttempt(deps.db, group.mint, EXPIRED);
  let planned: PlannedBuy | null;
  try {
    planned = await planBuy(deps, report, group, token, { tokenId, buyId, attempt });
  } catch (error) {
    // One mint that cannot be bought (pool missing, buy too small...) is counted and skipped;
    // the other mints are bought. Repeated failures set it aside (see jobs/set-aside.ts).
    log.warn("burn buy could not be built", { mint: group.mint, error: scrubErrorText(error) });
    report.skipped++;
    if (!isChainUnavailable(error)) {
      recordTokenFailure(
        deps.db,
        {
          mint: group.mint,
          job: "burns",
          reason: `buy could not be built: ${scrubErrorText(error)}`,
          atMs: deps.now(),
        },
        ctx.assertHeld,
      );
    }
    return;
  }
  if (!planned) return;
  const { prepared, lamports, part, buyKey } = planned;
  // The breakers: an open halt, or this buy taking the outflow past a cap (which trips it).
  const rows = { burnOrders: buyKey.orders.map((o) => ({ id: o.orderId, lamports: o.lamports })) };
  if (deps.outflowCaps ? moneyGate(deps.db, deps.outflowCaps, deps.now(), lamports, rows) : moneyHalt(deps.db)) {
    report.skipped++;
    return;
  }
  if (lamports < group.recipientLamports + group.platformLamports) report.parts++;
  startBurnBuy(
    deps.db,
    {
      id: buyId,
      orders: buyKey.orders,
      group: part,
      signature: prepared.signature,
      lastValidBlockHeight: prepared.lastValidBlockHeight,
      atMs: deps.now(),
      signed: { job: "burn-buy", prepared, attempt },
    },
    ctx.assertHeld,
  );
  crashPoint("burns:buy-after-save");
  try {
    await deps.chain.sender.send(prepared);
    report.buysSent++;
    crashPoint("burns:buy-after-send");
  } catch (error) {
    log.warn("burn buy send failed; its outcome will be resolved", { error: scrubErrorText(error) });
  }
}
