/**
 * The LaunchProgram contract against the local adapter, over the embedded local chain and this
 * service's own rpc.ts reader/sender (JSON-RPC on loopback): the same assertions as for pump.
 */
import { Keypair, LAMPORTS_PER_SOL, VersionedTransaction } from "@solana/web3.js";
import { startLocalChain } from "@fee-ledger/localnet";
import { createRpcChain } from "../../src/chain/rpc";
import { type LaunchHarness, describeLaunchProgramContract } from "./launch-contract";
import { localLaunchProgram } from "../../src/chain/setup";

const LAMPORTS_PER_SIGNATURE = 5_000n;

async function makeLocalHarness(): Promise<LaunchHarness> {
  const chain = await startLocalChain({
    rpcPort: 0,
    grpcPort: 0,
    slotMs: 0,
    bondThresholdLamports: 2n * BigInt(LAMPORTS_PER_SOL),
  });
  const { reader, sender } = createRpcChain({
    rpcUrl: chain.rpcUrl,
    timeoutMs: 5_000,
    retries: 0,
    allowNodeCosigners: true,
  });
  const launch = localLaunchProgram(chain, reader);
  const trader = Keypair.generate();
  chain.node.fund(trader.publicKey, 1_000n * BigInt(LAMPORTS_PER_SOL));
  const fees = new Map<string, bigint>();
  const unswept = async (token: { mint: string; creator: string }) => {
    const [r] = await launch.readVaults([token]);
    return r!.curveLamports + r!.poolLamports + (r!.feeSharing?.distributableLamports ?? 0n);
  };
  return {
    launch,
    reader,
    treasury: chain.treasury,
    supportsPool: true,
    supportsBuys: true,
    supportsFirstBuy: true,
    async createToken(creator) {
      const r = chain.launch.createToken({
        name: "Contract",
        symbol: "CTR",
        uri: "https://example.test/c.json",
        creator: creator.publicKey,
      });
      if (r.err) throw new Error("local create failed");
      return { mint: r.mint, creator: creator.publicKey.toBase58() };
    },
    async accrue(token, venue, approxLamports) {
      const before = await unswept(token);
      const bps = BigInt(chain.programConfig.creatorFeeBps);
      const solIn = (approxLamports * 10_000n) / bps;
      if (venue === "pool" && !chain.launch.curveState(token.mint)!.bonded) {
        // buy through the (lowered) bond threshold so the curve completes and fees move to the pool
        chain.launch.buy({ mint: token.mint, buyer: trader, solInLamports: 3n * BigInt(LAMPORTS_PER_SOL) });
      }
      const r = chain.launch.buy({ mint: token.mint, buyer: trader, solInLamports: solIn });
      if (r.err) throw new Error("local buy failed");
      chain.node.advanceSlots(1);
      return (await unswept(token)) - before;
    },
    async migrateToSharing(token, shareholders, options) {
      chain.node.shareCreatorFees(token.mint, shareholders, options);
      chain.node.advanceSlots(1);
    },
    async gift(address, lamports) {
      chain.node.fund(new (await import("@solana/web3.js")).PublicKey(address), lamports);
    },
    async submit(instructions, signers) {
      // The service's sender names a command on everything it signs; what it is does not matter here.
      const prepared = await sender.prepare(instructions, chain.treasury, signers, {
        commandKey: { kind: "anchor", anchorId: 0 },
      });
      fees.set(
        prepared.signature,
        LAMPORTS_PER_SIGNATURE * BigInt(VersionedTransaction.deserialize(prepared.wire).signatures.length),
      );
      await sender.send(prepared);
      // bounded: a transaction lands within a few slots or the test fails
      for (let i = 0; i < 50; i++) {
        // outcomes are terminal at finalized: 33 slots past the landing
        chain.node.advanceSlots(i === 0 ? 34 : 1);
        const outcome = await sender.outcome(prepared.signature, prepared.lastValidBlockHeight);
        if (outcome.kind === "confirmed" || outcome.kind === "failed") {
          const tx = await reader.getTransaction(prepared.signature);
          if (tx) return tx;
        }
      }
      throw new Error("transaction did not land");
    },
    feeLamports: (tx) => fees.get(tx.signature) ?? 0n,
    async changeProgramLayout() {
      chain.faults.apply({ kind: "programLayout", layout: "v3" });
    },
    close: () => chain.stop(),
  };
}

describeLaunchProgramContract("local (embedded chain over JSON-RPC)", makeLocalHarness);
