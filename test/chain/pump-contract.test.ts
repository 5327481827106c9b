/** The LaunchProgram contract against the pump adapter, over an emulation of the pump programs. */
import { Keypair, PublicKey } from "@solana/web3.js";
import { createPumpLaunchProgram } from "../../src/chain/pump";
import { type LaunchHarness, describeLaunchProgramContract } from "./launch-contract";
import { PumpSim } from "./support/pump-sim";

async function makePumpHarness(): Promise<LaunchHarness> {
  const sim = new PumpSim();
  const treasury = Keypair.generate();
  sim.fund(treasury.publicKey.toBase58(), 10_000_000_000n);
  const reader = sim.reader();
  return {
    launch: createPumpLaunchProgram(reader),
    reader,
    treasury,
    supportsPool: true,
    supportsBuys: true,
    curveBuys: false,
    async createToken(creator) {
      const mint = Keypair.generate().publicKey;
      sim.createToken(mint, creator.publicKey);
      return { mint: mint.toBase58(), creator: creator.publicKey.toBase58() };
    },
    async accrue(token, venue, lamports) {
      // fees accrue to whoever the curve names now (the sharing config once fee sharing started)
      sim.accrue(new PublicKey(token.mint), sim.currentCreator(new PublicKey(token.mint)), venue, lamports);
      return lamports;
    },
    async migrateToSharing(token, shareholders, options) {
      sim.migrateToSharing(
        new PublicKey(token.mint),
        shareholders.map((h) => ({ address: new PublicKey(h.address), shareBps: h.shareBps })),
        options?.active ?? true,
      );
    },
    async gift(address, lamports) {
      sim.fund(address, lamports);
    },
    async submit(instructions, signers) {
      return sim.execute(instructions, treasury, signers);
    },
    feeLamports: (tx) => sim.feeOf(tx.signature),
    async changeProgramLayout(token) {
      sim.switchCurveToV3(new PublicKey(token.mint), 4_000_000n);
    },
    async close() {},
  };
}

describeLaunchProgramContract("pump (emulated programs)", makePumpHarness);
