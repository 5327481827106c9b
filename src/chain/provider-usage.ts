/**
 * The RPC provider's bill, kept in `provider_usage` per clock hour and JSON-RPC method (issue 42).
 * Every thread counts its own requests in memory (src/chain/rpc.ts) and adds them here: the jobs'
 * thread after each sweep run and on the indexer's lease tick, the request thread whenever
 * `/metrics` or health is read. So `/metrics` shows what every thread and process asked.
 */
import type { Db } from "../../db/client";
import { statement } from "../../db/statement";
import { immediate } from "../../db/transaction";
import { writeWithoutWaiting } from "../../db/write-without-waiting";
import { returnProviderUsage, takeProviderUsage } from "./rpc";
import { log } from "../lib/log";

const HOUR_MS = 3_600_000;
/** Hours kept one by one; older ones are folded into the row of hour 0 (the totals stay). */
const KEEP_HOURS = 24 * 7;

const addUsage = statement<never, [hourAtMs: number, method: string, requests: number, bytes: number]>(
  `INSERT INTO provider_usage (hour_at_ms, method, requests, response_bytes) VALUES (?, ?, ?, ?)
   ON CONFLICT (hour_at_ms, method) DO UPDATE SET requests = requests + excluded.requests,
     response_bytes = response_bytes + excluded.response_bytes`,
);
const countOldHours = statement<{ n: bigint }, [beforeMs: number]>(
  "SELECT COUNT(*) AS n FROM provider_usage WHERE hour_at_ms > 0 AND hour_at_ms < ?",
);
const foldIntoHourZero = statement<never, [beforeMs: number]>(
  `INSERT INTO provider_usage (hour_at_ms, method, requests, response_bytes)
     SELECT 0, method, SUM(requests), SUM(response_bytes) FROM provider_usage
      WHERE hour_at_ms > 0 AND hour_at_ms < ?1 GROUP BY method
   ON CONFLICT (hour_at_ms, method) DO UPDATE SET requests = requests + excluded.requests,
     response_bytes = response_bytes + excluded.response_bytes`,
);
const deleteOldHours = statement<never, [beforeMs: number]>(
  "DELETE FROM provider_usage WHERE hour_at_ms > 0 AND hour_at_ms < ?",
);
const totalsByMethod = statement<{ method: string; requests: bigint; bytes: bigint }, []>(
  "SELECT method, SUM(requests) AS requests, SUM(response_bytes) AS bytes FROM provider_usage GROUP BY method ORDER BY method",
);
const hourSum = statement<{ requests: bigint | null; bytes: bigint | null }, [hourAtMs: number]>(
  "SELECT SUM(requests) AS requests, SUM(response_bytes) AS bytes FROM provider_usage WHERE hour_at_ms = ?",
);

/**
 * Adds this thread's counts since the last flush. Never waits for another writer: when the write
 * lock is held the counts are kept for the next flush. `wait` for callers that may block (jobs).
 */
export function flushProviderUsage(db: Db, nowMs: number, options: { wait?: boolean } = {}): void {
  const taken = takeProviderUsage();
  if (taken.requests.size === 0 && taken.responseBytes.size === 0) return;
  const hourAtMs = Math.floor(nowMs / HOUR_MS) * HOUR_MS;
  const write = () =>
    immediate(db, () => {
      const add = addUsage(db);
      const methods = new Set([...taken.requests.keys(), ...taken.responseBytes.keys()]);
      for (const m of methods) add.run(hourAtMs, m, taken.requests.get(m) ?? 0, taken.responseBytes.get(m) ?? 0);
      foldOldHours(db, hourAtMs - KEEP_HOURS * HOUR_MS);
      return true;
    });
  // Counting must never fail what it counts: counts not stored go back for the next flush.
  let written: boolean | null = null;
  try {
    written = options.wait ? write() : writeWithoutWaiting(db, write);
  } catch (error) {
    log.warn("provider usage not stored; kept for the next flush", { error });
  }
  if (!written) returnProviderUsage(taken);
}

function foldOldHours(db: Db, beforeMs: number): void {
  const old = countOldHours(db).get(beforeMs);
  if (!old || Number(old.n) === 0) return;
  foldIntoHourZero(db).run(beforeMs);
  deleteOldHours(db).run(beforeMs);
}

export interface ProviderTotals {
  method: string;
  requests: number;
  responseBytes: number;
}

/** Every request and response byte ever counted, per method (after this thread's counts are added). */
export function providerTotals(db: Db, nowMs: number): ProviderTotals[] {
  flushProviderUsage(db, nowMs);
  return totalsByMethod(db)
    .all()
    .map((r) => ({ method: r.method, requests: Number(r.requests), responseBytes: Number(r.bytes) }));
}

export interface ProviderHour {
  /** requests in the previous full clock hour */
  requestsPerHour: number;
  /** response bytes in the previous full clock hour */
  responseBytesPerHour: number;
  /** requests so far in the current clock hour */
  requestsThisHour: number;
}

/** Requests per hour for health (after this thread's counts are added). */
export function providerHour(db: Db, nowMs: number): ProviderHour {
  flushProviderUsage(db, nowMs);
  const hourAtMs = Math.floor(nowMs / HOUR_MS) * HOUR_MS;
  const sum = hourSum(db);
  const last = sum.get(hourAtMs - HOUR_MS);
  const current = sum.get(hourAtMs);
  return {
    requestsPerHour: Number(last?.requests ?? 0),
    responseBytesPerHour: Number(last?.bytes ?? 0),
    requestsThisHour: Number(current?.requests ?? 0),
  };
}
