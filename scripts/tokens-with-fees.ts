/**
 * Tokens with fees for the money-job benchmarks (bench:jobs, bench:landing): `count` tokens
 * launched on the embedded local chain, each naming one recipient `bench<i>`, traded once for
 * ~6,000,000 lamports of creator fees (above the default sweep minimum), and the first
 * `signedIn` recipients signed in (`u-bench<i>`), so they can claim.
 */
import { Keypair } from "@solana/web3.js";
import type { Db } from "../db/client";
import type { ChainServices } from "../src/chain/services";
import type { LocalChain } from "@fee-ledger/localnet";
import { recordSignIn } from "../src/identity";
import { recordConfirmedLaunch } from "../src/tokens";

export function launchTokensWithFees(
  db: Db,
  chain: { services: ChainServices; local: LocalChain },
  count: number,
  signedIn: number,
): void {
  const { services, local } = chain;
  const trader = Keypair.generate();
  local.node.fund(trader.publicKey, 1_000_000_000_000_000n);
  for (let i = 1; i <= count; i++) {
    const creator = services.creatorAddress(i).toBase58();
    const created = local.launch.createToken({
      name: `Bench ${i}`,
      symbol: `B${i}`,
      uri: `local://bench/${i}`,
      creator,
    });
    if (created.err) throw new Error(`create ${i} failed`);
    const vaults = services.launchProgram.vaultAddresses({ mint: created.mint, creator });
    recordConfirmedLaunch(
      db,
      {
        mint: created.mint,
        name: `Bench ${i}`,
        symbol: `B${i}`,
        description: "",
        website: null,
        twitter: null,
        telegram: null,
        metadataUri: `local://bench/${i}`,
        imageUri: null,
        creatorIndex: i,
        creator,
        creatorVault: vaults.curveVault,
        deployer: local.launch.deployer.publicKey.toBase58(),
        launchSignature: created.signature,
        launchedAtMs: Date.now(),
        platformBps: 1000,
        recipients: [{ handle: `bench${i}`, bps: 10_000 }],
      },
      Date.now(),
    );
    // 0.3 % of 2 SOL: 6,000,000 lamports of fees, above the 5,000,000 sweep minimum.
    const trade = local.launch.buy({ mint: created.mint, buyer: trader, solInLamports: 2_000_000_000n + BigInt(i) });
    if ((trade as { err: unknown }).err) throw new Error(`trade ${i} failed`);
    if (i <= signedIn)
      recordSignIn(
        db,
        { idpUserId: `u-bench${i}`, displayHandle: `bench${i}`, name: `bench${i}`, avatarUrl: "", followers: 0 },
        Date.now(),
      );
  }
}
