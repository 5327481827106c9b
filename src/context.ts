/**
 * What the routes, jobs and the indexer share: plain values, built once by main.ts (or a test).
 * Services take what they need from it; none of them sees an HTTP context.
 */
import type { Db } from "../db/client";
import type { ChainServices } from "./chain/services";
import type { Config } from "./config";
import type { RateLimiter } from "./http/rate-limit";
import type { Scheduler } from "./jobs/scheduler";

export interface AppContext {
  config: Config;
  db: Db;
  scheduler: Scheduler;
  limiter: RateLimiter;
  /** null when no chain is configured (some tests): chain-dependent routes answer 503 */
  chain: ChainServices | null;
  now: () => number;
}
