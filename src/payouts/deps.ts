/**
 * What a payouts run is given: its own file so that the run (job.ts) and the withdrawals it sends
 * beside payouts (withdrawals.ts) both take it without importing each other.
 */
import type { Db } from "../../db/client";
import type { ChainServices } from "../chain/services";
import type { Config } from "../config";

export interface PayoutJobDeps {
  db: Db;
  chain: ChainServices;
  config: Config;
  now: () => number;
  /** most payouts sent by one run */
  maxPayoutsPerRun?: number;
  settleTimeoutMs?: number;
  settlePollMs?: number;
}
