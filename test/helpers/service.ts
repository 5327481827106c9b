/**
 * HTTP test harness: a fresh service (own data dir, jobs off, no demo) and `call`, which drives it
 * through `app.handle(new Request(...))` exactly as DEVELOPERS.md asks.
 */
import { rmSync } from "node:fs";
import type { ChainServices } from "../../src/chain/services";
import type { ChainSetup } from "../../src/chain/setup";
import { testConfig, type Config } from "../../src/config";
import { buildService, type Service } from "../../src/service";
import type { Stats } from "../../src/stats/service";

/** `/api/stats` of a deployment with nothing in it yet, but its time. */
export const NOTHING_YET: Omit<Stats, "updatedAt"> = {
  tokens: 0,
  recipients: 0,
  claimedAccounts: 0,
  sweptLamports: "0",
  paidLamports: "0",
  burnedLamports: "0",
  owedLamports: "0",
  unclaimedLamports: "0",
  launches24h: 0,
};

/**
 * A JSON answer as a test reads it: the test picks the fields it checks and its assertions check
 * their values, so a static type per route would restate the schemas those assertions test.
 */
// biome-ignore lint/suspicious/noExplicitAny: test-side JSON of any route, checked by the assertions that read it
export type Json = any;

export interface TestService extends Service {
  call(path: string, init?: RequestInit & { ip?: string }): Promise<Response>;
  json<T = Json>(
    path: string,
    init?: RequestInit & { ip?: string },
  ): Promise<{ status: number; body: T; headers: Headers }>;
  cleanup(): Promise<void>;
}

function harness(service: Service, config: Config, stopMore: () => Promise<void> = async () => {}): TestService {
  const call = (path: string, init: RequestInit & { ip?: string } = {}) => {
    const headers = new Headers(init.headers);
    headers.set("x-forwarded-for", init.ip ?? "203.0.113.7");
    return service.app.handle(new Request(`http://localhost${path}`, { ...init, headers }));
  };
  return {
    ...service,
    call,
    async json(path, init) {
      const response = await call(path, init);
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
    },
    async cleanup() {
      await service.close();
      await stopMore();
      rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}

export function testService(
  env: Record<string, string> = {},
  options: { now?: () => number; chain?: ChainServices | null } = {},
): TestService {
  // Tests pick their client IP through x-forwarded-for, which only a trusted proxy may set.
  const config = testConfig({ TRUST_PROXY: "x-forwarded-for", ...env });
  return harness(buildService(config, options), config);
}

/** The same harness with the service's own embedded local chain (free ports, fast slots). */
export async function testServiceWithChain(
  env: Record<string, string> = {},
): Promise<TestService & { chain: ChainSetup }> {
  const { setupChain } = await import("../../src/chain/setup");
  const config = testConfig({
    TRUST_PROXY: "x-forwarded-for",
    LOCAL_CHAIN_RPC_PORT: "0",
    LOCAL_CHAIN_GRPC_PORT: "0",
    LOCAL_CHAIN_SLOT_MS: "50",
    ...env,
  });
  const chain = await setupChain(config);
  return { ...harness(buildService(config, { chain: chain.services }), config, () => chain.stop()), chain };
}
