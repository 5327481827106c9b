/**
 * Crash points for the kill-and-restart tests of the money jobs (test/jobs/crash.test.ts).
 *
 * `crashPoint(name)` kills the process with SIGKILL, only when the environment variable CRASH_AT
 * names that point when the process starts: `CRASH_AT=<name>` kills at the first time the point
 * is reached, `CRASH_AT=<name>@<n>` at the n-th time (e.g. in the middle of a batch). With CRASH_AT
 * unset (production) the check is one comparison against a constant `null`: no cost, no effect.
 *
 * Every point sits at a step boundary where a crash leaves a state the next run must resolve from
 * the database and the chain alone. The names, by pipeline:
 *
 * sweep (src/sweeps/job.ts)
 *   sweep:after-read       a chunk's vault readings stored, nothing of it packed or saved yet
 *                          (fires after each chunk of tokens to sweep: `@2` is mid-run)
 *   sweep:after-save       a batch's sweeps saved `sent` with their signature, transaction not sent
 *   sweep:after-send       a batch's transaction sent, nothing recorded about it since the save
 *   sweep:after-confirm    a sent batch seen confirmed and read back, no credit written yet
 *   sweep:mid-credit       inside the credit transaction of a confirmed batch, after one token's
 *                          credit and before the others' (fires after each token: `@n` picks it);
 *                          the batch is credited in one database transaction, so the kill rolls
 *                          the whole batch back
 *   sweep:before-reconcile every sweep of the run settled, reconciliation not run
 *
 * payouts (src/payouts/job.ts)
 *   payouts:after-autopay  autopay payouts queued (amounts reserved), nothing sent
 *   payouts:after-save     a batch marked `sent` with signature and lastValidBlockHeight, not sent
 *   payouts:after-send     a batch's transaction sent, its outcome not looked at
 *                          (fires after each batch: `@2` is the middle of a run of batches)
 *   payouts:after-confirm  a sent batch seen confirmed on chain, not yet marked confirmed
 *   payouts:after-expiry   a sent batch proven expired, its payouts not yet replaced
 *
 * burns (src/burns/job.ts)
 *   burns:buy-after-save   a buy saved `sent` with its signature (orders taken), not sent
 *   burns:buy-after-send   a buy sent (fires after each mint's buy: `@2` is mid-run)
 *   burns:buy-after-confirm a buy seen confirmed and read back, bought amount not recorded
 *   burns:burn-after-save  the burn of a bought amount saved `burning`, not sent
 *   burns:burn-after-send  the burn sent, its outcome not looked at
 *   burns:burn-after-confirm the burn seen confirmed, burns and ledger not recorded
 *
 * withdrawals (src/payouts/withdrawals.ts, in the payouts run)
 *   withdrawals:after-save    a withdrawal marked `sent` with its signature, not sent
 *   withdrawals:after-send    its transaction sent, its outcome not looked at
 *   withdrawals:after-confirm seen confirmed on chain, not yet marked confirmed
 *
 * reconciliation with the chain (src/reconcile, first in the payouts run)
 *   reconcile:after-scan      the treasury's history read and the items saved, none applied
 *   reconcile:after-write     an item's rows written `sent`, its job's resolution not run
 *                             (fires per item: `@n` picks one)
 *   reconcile:after-resolve   an item's outcome booked by its job, the item not yet settled
 */
export const CRASH_POINTS = [
  "sweep:after-read",
  "sweep:after-save",
  "sweep:after-send",
  "sweep:after-confirm",
  "sweep:mid-credit",
  "sweep:before-reconcile",
  "payouts:after-autopay",
  "payouts:after-save",
  "payouts:after-send",
  "payouts:after-confirm",
  "payouts:after-expiry",
  "burns:buy-after-save",
  "burns:buy-after-send",
  "burns:buy-after-confirm",
  "burns:burn-after-save",
  "burns:burn-after-send",
  "burns:burn-after-confirm",
  "withdrawals:after-save",
  "withdrawals:after-send",
  "withdrawals:after-confirm",
  "reconcile:after-scan",
  "reconcile:after-write",
  "reconcile:after-resolve",
] as const;

/**
 * The restore command's own (scripts/restore.ts), outside the jobs and the simulation:
 *   restore:after-prepare   the backup copied beside the database and marked restored, the database untouched
 *   restore:after-keep      the current database kept aside as well, not yet replaced
 */
export const RESTORE_CRASH_POINTS = ["restore:after-prepare", "restore:after-keep"] as const;

export type CrashPointName = (typeof CRASH_POINTS)[number] | (typeof RESTORE_CRASH_POINTS)[number];

function parse(raw: string | undefined): { name: string; hit: number } | null {
  if (!raw) return null;
  const at = raw.lastIndexOf("@");
  if (at < 0) return { name: raw, hit: 1 };
  const hit = Number(raw.slice(at + 1));
  return { name: raw.slice(0, at), hit: Number.isSafeInteger(hit) && hit > 0 ? hit : 1 };
}

const target = parse(process.env.CRASH_AT);
let hits = 0;
/** In-process crashes (the seeded simulation, scripts/sim.ts): the hook may throw to end the run there. */
let hook: ((name: CrashPointName) => void) | null = null;

export function setCrashHook(fn: ((name: CrashPointName) => void) | null): void {
  hook = fn;
}

export function crashPoint(name: CrashPointName): void {
  if (hook !== null) hook(name);
  if (target === null || target.name !== name) return;
  hits += 1;
  if (hits < target.hit) return;
  // Nothing after this line runs: no finally blocks, no lease release, no flush. Exactly a crash.
  process.kill(process.pid, "SIGKILL");
}
