/**
 * The `localnet` command restarted on its `--state` folder, as a project restarts its validator:
 * the chain goes on where it stopped. Genesis funding happens once (the same treasury, the same
 * supply: a restart mints nothing) and getTransactionCount keeps counting.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Connection, Keypair, LAMPORTS_PER_SOL, PublicKey } from "@solana/web3.js";
import { type ChainProcess, startChainProcess, until } from "./agave-process";

const running: ChainProcess[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const p of running.splice(0)) await p.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function start(dir: string): Promise<ChainProcess> {
  const p = await startChainProcess(["--slot-ms", "0", "--state", dir]);
  running.push(p);
  return p;
}

async function stop(p: ChainProcess): Promise<void> {
  running.splice(running.indexOf(p), 1);
  await p.stop();
}

async function chainFacts(p: ChainProcess) {
  const connection = new Connection(p.rpcUrl, "confirmed");
  return {
    treasury: p.treasury,
    treasuryLamports: await connection.getBalance(new PublicKey(p.treasury)),
    supplyLamports: (await connection.getSupply()).value.total,
    transactionCount: await connection.getTransactionCount(),
  };
}

test("a restart with --state keeps the treasury, the supply and the transaction count", async () => {
  const dir = mkdtempSync(join(tmpdir(), "localnet-restart-"));
  dirs.push(dir);
  const first = await start(dir);
  const connection = new Connection(first.rpcUrl, "confirmed");
  const wallets = [Keypair.generate(), Keypair.generate(), Keypair.generate()];
  for (const w of wallets) {
    const signature = await connection.requestAirdrop(w.publicKey, LAMPORTS_PER_SOL);
    await first.advance(1);
    await until("the airdrop landed", async () => (await connection.getSignatureStatus(signature)).value !== null);
  }
  const before = await chainFacts(first);
  expect(before.transactionCount).toBeGreaterThanOrEqual(3);
  await stop(first);

  const second = await start(dir);
  expect(await chainFacts(second)).toEqual(before);
  await stop(second);

  // and once more: nothing accrues restart after restart
  const third = await start(dir);
  expect(await chainFacts(third)).toEqual(before);
});
