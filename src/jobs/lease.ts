/**
 * Job leases in the database: one row a job, taken in a BEGIN IMMEDIATE transaction so two
 * processes on one database file never both win. Each acquisition bumps `generation`, a fencing
 * token: a holder whose lease expired and was taken over can no longer renew it, and its money
 * writes call `assertLeaseHeld` inside their own transaction, which refuses a stale generation.
 */
import type { Db } from "../../db/client";
import { immediate } from "../../db/transaction";
import { AppError } from "../lib/errors";
import { query } from "../../db/statement";

export interface Lease {
  job: string;
  holder: string;
  generation: number;
  expiresAtMs: number;
}

export function acquireLease(db: Db, job: string, holder: string, leaseMs: number, nowMs = Date.now()): Lease | null {
  return immediate(db, () => {
    query<never, [job: string]>(
      db,
      "INSERT OR IGNORE INTO job_leases (job, generation, expires_at_ms, runs) VALUES (?, 0, 0, 0)",
    ).run(job);
    const row = query<{ holder: string | null; generation: bigint; expiresAtMs: bigint }, [job: string]>(
      db,
      "SELECT holder, generation, expires_at_ms AS expiresAtMs FROM job_leases WHERE job = ?",
    ).get(job)!;
    if (row.holder !== null && Number(row.expiresAtMs) > nowMs) return null;
    const generation = Number(row.generation) + 1;
    const expiresAtMs = nowMs + leaseMs;
    query<never, [holder: string, generation: number, expiresAtMs: number, atMs: number, job: string]>(
      db,
      "UPDATE job_leases SET holder = ?, generation = ?, expires_at_ms = ?, runs = runs + 1, last_run_at_ms = ? WHERE job = ?",
    ).run(holder, generation, expiresAtMs, nowMs, job);
    return { job, holder, generation, expiresAtMs };
  });
}

/** Extends a held lease; false when it was lost (expired and taken, or released). */
export function renewLease(db: Db, lease: Lease, leaseMs: number, nowMs = Date.now()): boolean {
  return immediate(db, () => {
    const result = query<never, [expiresAtMs: number, job: string, holder: string, generation: number, nowMs: number]>(
      db,
      "UPDATE job_leases SET expires_at_ms = ? WHERE job = ? AND holder = ? AND generation = ? AND expires_at_ms > ?",
    ).run(nowMs + leaseMs, lease.job, lease.holder, lease.generation, nowMs);
    if (result.changes === 1) lease.expiresAtMs = nowMs + leaseMs;
    return result.changes === 1;
  });
}

export function releaseLease(
  db: Db,
  lease: Lease,
  outcome: { ok: boolean; error: string | null },
  nowMs = Date.now(),
): void {
  immediate(db, () => {
    const held = query<{ 1: bigint }, [job: string, holder: string, generation: number]>(
      db,
      "SELECT 1 FROM job_leases WHERE job = ? AND holder = ? AND generation = ?",
    ).get(lease.job, lease.holder, lease.generation);
    if (!held) return;
    if (outcome.ok) {
      query<never, [atMs: number, job: string]>(
        db,
        "UPDATE job_leases SET holder = NULL, expires_at_ms = 0, last_ok_at_ms = ?, last_error = NULL WHERE job = ?",
      ).run(nowMs, lease.job);
    } else {
      query<never, [error: string | null, job: string]>(
        db,
        "UPDATE job_leases SET holder = NULL, expires_at_ms = 0, last_error = ? WHERE job = ?",
      ).run(outcome.error, lease.job);
    }
  });
}

/**
 * Call inside the transaction of every write a job makes: it aborts that transaction when this
 * holder no longer owns the lease, so a paused or partitioned old run cannot write after a new
 * run has started.
 */
export function assertLeaseHeld(db: Db, lease: Lease, nowMs = Date.now()): void {
  const row = query<{ 1: bigint }, [job: string, holder: string, generation: number, nowMs: number]>(
    db,
    "SELECT 1 FROM job_leases WHERE job = ? AND holder = ? AND generation = ? AND expires_at_ms > ?",
  ).get(lease.job, lease.holder, lease.generation, nowMs);
  if (!row) throw new AppError("LEASE_LOST", { job: lease.job });
}
