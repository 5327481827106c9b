/**
 * Benchmark of the money jobs on the embedded local chain, through its JSON-RPC, wired as the
 * service wires them (setupChain, buildService, registerJobs, the scheduler's lease):
 *
 *   bun run bench:jobs            10,000 tokens with fees, then 5,000 queued claims
 *   BENCH_TOKENS=2000 BENCH_PAYOUTS=1000 bun run bench:jobs      a smaller run
 *
 * Prints tokens swept per second, tokens per transaction, payouts confirmed per second and
 * transfers per transaction, and checks the targets: every token swept in one run inside the
 * job lease (five minutes), at least 10 transfers per payout transaction. Exits 1 on a miss.
 */
import { Keypair } from "@solana/web3.js";
import { rmSync } from "node:fs";
import { setupChain } from "../src/chain/setup";
import { testConfig } from "../src/config";
import { registerJobs } from "../src/register-jobs";
import { ledgerTotals, verifyLedger } from "../src/ledger";
import { setLogSilent } from "../src/lib/log";
import { queuePayout } from "../src/payouts";
import { buildService } from "../src/service";
import { launchTokensWithFees } from "./tokens-with-fees";

setLogSilent(true);
const TOKENS = Number(process.env.BENCH_TOKENS ?? 10_000);
const PAYOUTS = Number(process.env.BENCH_PAYOUTS ?? 5_000);
if (PAYOUTS > TOKENS) throw new Error("BENCH_PAYOUTS must not exceed BENCH_TOKENS (one claimer per token)");

const config = testConfig({
  LOCAL_CHAIN_RPC_PORT: "0",
  LOCAL_CHAIN_GRPC_PORT: "0",
  LOCAL_CHAIN_SLOT_MS: process.env.BENCH_SLOT_MS ?? "100",
  SWEEP_MIN_LAMPORTS: "5000000",
});
const chain = await setupChain(config);
const service = buildService(config, { chain: chain.services });
registerJobs(service.ctx);
const local = chain.local!;
const db = service.ctx.db;
const say = (line: string) => process.stdout.write(`${line}\n`);

try {
  // ---------------------------------------------------------------- tokens with fees
  // Setup is not what is measured: its writes skip the disk sync; the runs get FULL back.
  db.$client.exec("PRAGMA synchronous = OFF");
  let t0 = performance.now();
  launchTokensWithFees(db, { services: chain.services, local }, TOKENS, PAYOUTS);
  db.$client.exec("PRAGMA synchronous = FULL");
  say(`setup: ${TOKENS} tokens launched and traded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  // ---------------------------------------------------------------- sweep: one run
  t0 = performance.now();
  const sweepRun = await service.ctx.scheduler.runNow("sweep");
  const sweepSeconds = (performance.now() - t0) / 1000;
  if (!sweepRun.ran || !sweepRun.ok) throw new Error(`sweep run failed: ${JSON.stringify(sweepRun)}`);
  const swept = db.$client
    .query("SELECT COUNT(*) AS n, COUNT(DISTINCT signature) AS tx FROM sweeps WHERE status = 'confirmed'")
    .get() as { n: bigint; tx: bigint };
  const sweptTokens = Number(swept.n);
  const sweepTx = Number(swept.tx);
  verifyLedger(db);
  say(`sweep: ${sweptTokens}/${TOKENS} tokens swept in one run of ${sweepSeconds.toFixed(1)} s`);
  say(`  tokens swept per second: ${(sweptTokens / sweepSeconds).toFixed(1)}`);
  say(`  tokens per transaction:  ${(sweptTokens / sweepTx).toFixed(2)} (${sweepTx} transactions)`);
  say(`  swept: ${ledgerTotals(db).sweptLamports} lamports`);

  // ---------------------------------------------------------------- payouts
  for (let i = 1; i <= PAYOUTS; i++) {
    queuePayout(db, {
      idpUserId: `u-bench${i}`,
      lamports: null,
      wallet: Keypair.generate().publicKey.toBase58(),
      kind: "claim",
      minLamports: 1n,
      atMs: Date.now(),
    });
  }
  t0 = performance.now();
  const payoutRun = await service.ctx.scheduler.runNow("payouts");
  const payoutSeconds = (performance.now() - t0) / 1000;
  if (!payoutRun.ran || !payoutRun.ok) throw new Error(`payouts run failed: ${JSON.stringify(payoutRun)}`);
  const paid = db.$client
    .query("SELECT COUNT(*) AS n, COUNT(DISTINCT signature) AS tx FROM payouts WHERE status = 'confirmed'")
    .get() as { n: bigint; tx: bigint };
  const paidCount = Number(paid.n);
  const payoutTx = Number(paid.tx);
  verifyLedger(db);
  say(`payouts: ${paidCount}/${PAYOUTS} confirmed in one run of ${payoutSeconds.toFixed(1)} s`);
  say(`  payouts confirmed per second: ${(paidCount / payoutSeconds).toFixed(1)}`);
  say(`  transfers per transaction:    ${(paidCount / payoutTx).toFixed(2)} (${payoutTx} transactions)`);

  const misses: string[] = [];
  if (sweptTokens !== TOKENS) misses.push(`swept ${sweptTokens} of ${TOKENS} tokens in one run`);
  if (sweepSeconds * 1000 > config.jobLeaseMs)
    misses.push(`sweep run took ${sweepSeconds.toFixed(1)} s, over the ${config.jobLeaseMs / 1000} s lease`);
  if (paidCount !== PAYOUTS) misses.push(`confirmed ${paidCount} of ${PAYOUTS} payouts in one run`);
  if (paidCount / payoutTx < 10) misses.push("fewer than 10 transfers per payout transaction");
  say(misses.length === 0 ? "targets: met" : `targets: MISSED: ${misses.join("; ")}`);
  process.exitCode = misses.length === 0 ? 0 : 1;
} finally {
  await service.close();
  await chain.stop();
  rmSync(config.dataDir, { recursive: true, force: true });
}
