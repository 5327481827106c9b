/**
 * Ledger invariants are assertions (TigerStyle): books that break one are neither served nor
 * moved, so a `LEDGER_INVARIANT` that reaches a boundary (the HTTP edge, a job's run) stops the
 * process instead of answering a 500 and going on; the restart passes the start-up audit
 * (src/service.ts) before it serves again. In the jobs' thread the exit ends that thread, and the
 * request thread follows it (src/workers/link.ts). Code that expects an invariant to fail (the
 * reconciliation writing a transaction down as unknown) catches it before any boundary sees it.
 */
import { type AppError, isAppError } from "./errors";
import { log } from "./log";

/** What a broken invariant does to the process once it reaches a boundary. */
export type InvariantStop = (error: AppError<"LEDGER_INVARIANT">, boundary: string) => void;

/** The exit status of a stop on a broken invariant: EX_SOFTWARE of sysexits.h. */
export const INVARIANT_EXIT_STATUS = 70;

const exitProcess: InvariantStop = () => process.exit(INVARIANT_EXIT_STATUS);

let stop: InvariantStop = exitProcess;

/**
 * Replaces the stop (a test records it: an exit would end the test runner with it) and returns
 * what puts the previous one back.
 */
export function onBrokenInvariant(hook: InvariantStop): () => void {
  const previous = stop;
  stop = hook;
  return () => {
    stop = previous;
  };
}

/** At a boundary: stops the process when `error` is a broken ledger invariant; anything else is the caller's to answer. */
export function stopOnBrokenInvariant(error: unknown, boundary: string): void {
  if (!isAppError(error, "LEDGER_INVARIANT")) return;
  log.error("ledger invariant broken: stopping the process", { boundary, error });
  stop(error, boundary);
}
