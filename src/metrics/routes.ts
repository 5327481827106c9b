/**
 * `GET /metrics` in Prometheus text format behind `Authorization: Bearer <METRICS_SECRET>`
 * (404 without it): requests and latencies by route, job runs and durations, ledger totals, the
 * treasury surplus of the last reconciliation, job staleness, program upgrades waiting for an operator,
 * and the process itself (memory, CPU, build, the data volume: ./process.ts).
 */
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { AppError } from "../lib/errors";
import { backupStatus, jobHealth, programWatchState } from "../jobs";
import { bearerMatches } from "../http/bearer";
import { ledgerTotals } from "../ledger";
import { counter, gauge } from "../lib/metrics";
import { landingTotals } from "../landing";
import { incidentCounts, moneyHalt } from "../custody";
import { providerTotals } from "../chain/provider-usage";
import { query } from "../../db/statement";
import { processMetrics } from "./process";

function renderMetrics(ctx: AppContext): string {
  const parts = [
    ctx.metrics.requests.render(),
    ctx.metrics.requestSeconds.render(),
    ctx.metrics.jobRuns.render(),
    ctx.metrics.jobSeconds.render(),
    ledgerMetrics(ctx),
    ...treasuryMetrics(ctx),
    ...custodyMetrics(ctx),
    programMetrics(ctx),
    ...landingMetrics(ctx),
    ...providerMetrics(ctx),
    ...backupMetrics(ctx),
    ...processMetrics(ctx.config.dataDir),
    gauge(
      "job_seconds_since_ok",
      "Seconds since each job last finished cleanly (-1: never)",
      jobHealth(ctx.db, ctx.now()).jobs.map((j) => ({ labels: { job: j.job }, value: j.secondsSinceOk ?? -1 })),
    ),
  ];
  for (const extra of ctx.extraMetrics ?? []) parts.push(extra());
  return `${parts.join("\n")}\n`;
}

function ledgerMetrics(ctx: AppContext): string {
  const totals = ledgerTotals(ctx.db);
  return gauge("ledger_lamports", "Ledger totals in lamports", [
    { labels: { figure: "swept" }, value: totals.sweptLamports },
    { labels: { figure: "paid" }, value: totals.paidLamports },
    { labels: { figure: "burned" }, value: totals.burnedLamports },
    { labels: { figure: "owed" }, value: totals.owedLamports },
    { labels: { figure: "unclaimed" }, value: totals.unclaimedLamports },
    { labels: { figure: "platform" }, value: totals.platformLamports },
    { labels: { figure: "rent_held" }, value: totals.rentLamports },
    { labels: { figure: "float_fronted" }, value: totals.floatFrontedLamports },
    { labels: { figure: "withdrawn" }, value: totals.withdrawnLamports },
  ]);
}

/** The surplus at the last check of the treasury against the books; nothing before the first. */
function treasuryMetrics(ctx: AppContext): string[] {
  const row = query<{ value: string }, []>(
    ctx.db,
    "SELECT value FROM settings WHERE key = 'last_reconciliation'",
  ).get();
  if (!row) return [];
  const last = JSON.parse(row.value) as { treasuryLamports: string; owedLamports: string; checkedAtMs: number };
  return [
    gauge("treasury_surplus_lamports", "Treasury balance minus what is owed, at the last reconciliation", [
      { value: BigInt(last.treasuryLamports) - BigInt(last.owedLamports) },
    ]),
    gauge("treasury_checked_timestamp_seconds", "When the treasury was last reconciled", [
      { value: Math.floor(last.checkedAtMs / 1000) },
    ]),
  ];
}

/** Every incident ever opened by kind, and whether money is halted now. */
function custodyMetrics(ctx: AppContext): string[] {
  const incidents = incidentCounts(ctx.db);
  return [
    counter(
      "custody_incidents_total",
      "Custody incidents opened (breakers that tripped, reserve warnings), by kind",
      incidents.map((i) => ({ labels: { kind: i.kind }, value: i.n })),
    ),
    gauge("custody_halted", "1 while a breaker has halted payouts, burn buys and withdrawals", [
      { value: moneyHalt(ctx.db) ? 1 : 0 },
    ]),
  ];
}

/**
 * Upgrades of the watched programs no operator acknowledged yet, per program (0 for each program
 * whose ProgramData the jobs run on unchanged); above 0, the jobs building its instructions stand still.
 */
function programMetrics(ctx: AppContext): string {
  const state = programWatchState(ctx.db);
  const pending = new Map(Object.values(state.known).map((p) => [p.name, 0]));
  for (const change of state.changes) pending.set(change.name, (pending.get(change.name) ?? 0) + 1);
  return gauge(
    "program_changes_pending",
    "Program upgrades seen and not acknowledged by an operator, per program (jobs building its instructions stand still)",
    [...pending].map(([program, value]) => ({ labels: { program }, value })),
  );
}

/** The signed-transaction journal's running totals per money job; nothing before the first signature. */
function landingMetrics(ctx: AppContext): string[] {
  const landing = landingTotals(ctx.db);
  if (landing.length === 0) return [];
  const per = (name: string, help: string, pick: (t: (typeof landing)[number]) => number | bigint) =>
    counter(
      name,
      help,
      landing.map((t) => ({ labels: { job: t.job }, value: pick(t) })),
    );
  return [
    per("chain_transactions_signed_total", "Transactions signed, per money job", (t) => t.prepared),
    per("chain_transaction_sends_total", "Sends of signed transactions, first sends and rebroadcasts", (t) => t.sends),
    per("chain_transaction_rebroadcasts_total", "Sends of the same signed bytes again", (t) => t.rebroadcasts),
    per("chain_transactions_landed_total", "Transactions seen landing (failed on chain included)", (t) => t.landed),
    per("chain_transactions_failed_total", "Transactions that landed with an error", (t) => t.failed),
    per(
      "chain_transactions_expired_total",
      "Transactions whose blockhash passed without them landing",
      (t) => t.lapsed,
    ),
    per(
      "chain_transactions_replaced_total",
      "Transactions signed to replace a provably expired one",
      (t) => t.replacements,
    ),
    per(
      "chain_priority_fee_lamports_total",
      "Priority fees paid by landed transactions (price x limit)",
      (t) => t.priorityFeeLamports,
    ),
  ];
}

/** The provider's bill: every JSON-RPC call of every thread (a batch counts each call in it). */
function providerMetrics(ctx: AppContext): string[] {
  const provider = providerTotals(ctx.db, ctx.now());
  return [
    counter(
      "chain_rpc_requests_total",
      "JSON-RPC requests made to the RPC provider, per method (each call of a batch counts)",
      provider.map((p) => ({ labels: { method: p.method }, value: p.requests })),
    ),
    counter(
      "chain_rpc_response_bytes_total",
      "Response bytes received from the RPC provider, per method",
      provider.map((p) => ({ labels: { method: p.method }, value: p.responseBytes })),
    ),
  ];
}

/**
 * The off-site backups (BACKUP_URL), nothing without them: alert on
 * `backup_missed_generations >= 2`, or on the last success's age.
 */
function backupMetrics(ctx: AppContext): string[] {
  const status = backupStatus(ctx.db, ctx.config.backup, ctx.now());
  if (status === null) return [];
  return [
    gauge("backup_last_success_timestamp_seconds", "When the last off-site backup was uploaded (0: never)", [
      { value: status.lastOkAt === null ? 0 : Math.floor(Date.parse(status.lastOkAt) / 1000) },
    ]),
    counter("backup_failures_total", "Off-site backup uploads that failed or were abandoned", [
      { value: status.failuresTotal },
    ]),
    gauge("backup_last_size_bytes", "Size of the last generation uploaded (0: none yet)", [
      { value: status.lastSizeBytes ?? 0 },
    ]),
    gauge(
      "backup_missed_generations",
      "Scheduled backup generations missed since the last success (2 or more: health is not ok)",
      [{ value: status.missedGenerations }],
    ),
  ];
}

export function metricsRoutes(ctx: AppContext) {
  return new Elysia({ name: "metrics" }).get(
    "/metrics",
    ({ request, set }) => {
      if (!bearerMatches(request.headers.get("authorization"), ctx.config.metricsSecret))
        throw new AppError("ROUTE_HIDDEN");
      set.headers["content-type"] = "text/plain; version=0.0.4; charset=utf-8";
      set.headers["cache-control"] = "no-store";
      return renderMetrics(ctx);
    },
    { detail: { hide: true } },
  );
}

/** The indexer's lag and connection as gauges, for the process that runs it. */
export function indexerMetrics(state: {
  connected: boolean;
  lagSlots: number | null;
  lastSlot: number | null;
  reconnects: number;
  accounts?: number;
  receivedBytes?: number;
}): string {
  return [
    gauge("indexer_connected", "1 when the indexer's stream (or poll) reaches the node", [
      { value: state.connected ? 1 : 0 },
    ]),
    gauge("indexer_lag_slots", "Slots between the newest seen and the last applied (-1: unknown)", [
      { value: state.lagSlots ?? -1 },
    ]),
    gauge("indexer_last_slot", "Last slot whose updates were applied (-1: none yet)", [
      { value: state.lastSlot ?? -1 },
    ]),
    gauge("indexer_reconnects", "Stream reconnects since start", [{ value: state.reconnects }]),
    gauge(
      "yellowstone_watched_accounts",
      "Accounts the indexer's Yellowstone stream watches (the provider's filters)",
      [{ value: state.accounts ?? 0 }],
    ),
    counter("yellowstone_received_bytes_total", "Bytes the indexer's Yellowstone stream received (protobuf payloads)", [
      { value: state.receivedBytes ?? 0 },
    ]),
  ].join("\n");
}
