/**
 * A service wired to its own embedded local chain (free ports, fast slots), with helpers that
 * launch tokens on the chain's pump program and trade them with pump's SDK exactly as a user would, and record launches through
 * the same function the confirm route uses.
 */
import { Keypair } from "@solana/web3.js";
import { rmSync } from "node:fs";
import { setupChain, type ChainSetup } from "../../src/chain/setup";
import { testConfig } from "../../src/config";
import type { JobName } from "../../src/jobs/names";
import { registerJobs } from "../../src/register-jobs";
import { ledgerTotals } from "../../src/ledger/figures";
import { verifyLedger } from "../../src/ledger/verify";
import { buildService, type Service } from "../../src/service";
import { expect } from "bun:test";
import { launchOnPumpChain } from "../helpers/launch";

export interface MoneyHarness {
  service: Service;
  chain: ChainSetup;
  local: NonNullable<ChainSetup["local"]>;
  launch(
    recipients: { handle: string; bps: number }[],
    platformBps?: number,
  ): Promise<{ mint: string; tokenId: number; creator: string }>;
  /** a stranger's buy of `lamports` with pump's SDK (the curve, or the pool once migrated) */
  trade(mint: string, lamports: bigint): Promise<void>;
  run(job: JobName): Promise<void>;
  checkRelations(): void;
  close(): Promise<void>;
}

export async function moneyHarness(env: Record<string, string> = {}): Promise<MoneyHarness> {
  const config = testConfig({
    LOCAL_CHAIN_RPC_PORT: "0",
    LOCAL_CHAIN_GRPC_PORT: "0",
    LOCAL_CHAIN_SLOT_MS: "25",
    SWEEP_MIN_LAMPORTS: "1",
    ...env,
  });
  const chain = await setupChain(config);
  const service = buildService(config, { chain: chain.services });
  registerJobs(service.ctx);
  const local = chain.local!;
  const trader = Keypair.generate();
  local.node.fund(trader.publicKey, 10_000_000_000_000n);
  let nextIndex = 1;
  return {
    service,
    chain,
    local,
    async launch(recipients, platformBps = 1000) {
      const creatorIndex = nextIndex++;
      const creator = chain.services.creatorAddress(creatorIndex).toBase58();
      return launchOnPumpChain(
        service.ctx.db,
        { local, launchProgram: chain.services.launchProgram },
        { creatorIndex, creator, platformBps, recipients },
      );
    },
    async trade(mint, lamports) {
      const result = await local.pump!.buy({ mint, buyer: trader, solInLamports: lamports });
      expect(result.err).toBeNull();
    },
    async run(job) {
      // The run a claim starts may hold the lease: it is waited out, then this one runs.
      let result = await service.ctx.scheduler.runNow(job);
      for (let tries = 0; !result.ran && result.reason === "busy" && tries < 1_000; tries++) {
        await Bun.sleep(20);
        result = await service.ctx.scheduler.runNow(job);
      }
      expect(result).toMatchObject({ ran: true, ok: true });
    },
    checkRelations() {
      verifyLedger(service.ctx.db);
      const t = ledgerTotals(service.ctx.db);
      expect(t.owedLamports).toBeGreaterThanOrEqual(t.unclaimedLamports);
      // Rent held in accounts the treasury owns came from the platform or the float it fronted.
      expect(t.sweptLamports + t.floatFrontedLamports).toBe(
        t.owedLamports +
          t.paidLamports +
          t.burnedLamports +
          t.platformLamports +
          t.buybackPendingLamports +
          t.rentLamports +
          t.withdrawnLamports +
          t.withdrawalPendingLamports,
      );
    },
    async close() {
      await service.close();
      await chain.stop();
      rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}
