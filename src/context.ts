/**
 * What the routes, jobs and the indexer share: plain values, built once by main.ts (or a test).
 * Services take what they need from it; none of them sees an HTTP context.
 */
import type { Db } from "../db/client";
import type { ChainServices } from "./chain/services";
import type { Config } from "./config";
import type { RateLimiter } from "./http/rate-limit";
import type { ServiceMetrics } from "./lib/metrics";

export interface AppContext {
  config: Config;
  db: Db;
  limiter: RateLimiter;
  metrics: ServiceMetrics;
  /** more Prometheus text blocks, e.g. the indexer's lag, registered by the parts that own them */
  extraMetrics?: (() => string)[];
  /** null when no chain is configured (some tests): chain-dependent routes answer 503 */
  chain: ChainServices | null;
  now: () => number;
}
