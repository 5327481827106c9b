/**
 * The one way to write: a synchronous BEGIN IMMEDIATE transaction (DESIGN §2), so no RPC call can
 * sit between reading and writing money. Every feature that writes imports it from here.
 */
import { AppError } from "../src/lib/errors";
import type { Db } from "./client";

/**
 * Runs `work` in one BEGIN IMMEDIATE transaction. `work` must be synchronous: a promise would let
 * the transaction commit before the work is done, so it is refused (and rolled back).
 */
export function immediate<T>(db: Db, work: () => T): T {
  const client = db.$client;
  const run = client.transaction(() => {
    const result = work();
    if (result instanceof Promise) {
      throw new AppError("LEDGER_INVARIANT", "money writes must be synchronous: no await inside a transaction");
    }
    return result;
  });
  return run.immediate();
}
