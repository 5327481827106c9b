/**
 * The service's own pump adapter (src/chain/pump/adapter.ts) against a coin the local chain's
 * emulated pump migrated into its pump_amm pool: the reading sees the pool's creator fees and the
 * bonded flag, the sweep (collect_coin_creator_fee into the creator's WSOL account, closed, then the
 * creator → treasury transfer) lands with decodeSweep crediting exactly what the treasury gained,
 * and a burn buy on the pool lands for at least the tokens it promised.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TOKEN_2022_PROGRAM_ID, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { Keypair, type PublicKey, type TransactionInstruction } from "@solana/web3.js";
import { type LocalChain, startLocalChain } from "@fee-ledger/localnet";
import { CREATOR_RESERVE_LAMPORTS, createPumpLaunchProgram } from "../../src/chain/pump";
import { nodeReader as emulatedReader, SOL, sendOn, tokenAmountOn } from "./pump-emulated-support";

let chain: LocalChain;

beforeAll(async () => {
  chain = await startLocalChain({ rpcPort: 0, grpcPort: 0, slotMs: 0 });
});
afterAll(async () => {
  await chain.stop();
});

const nodeReader = () => emulatedReader(chain);
const send = (payer: Keypair, ixs: TransactionInstruction[], signers: Keypair[] = []) =>
  sendOn(chain, payer, ixs, signers);
const tokenAmount = (account: PublicKey) => tokenAmountOn(chain, account);

describe("the pump adapter against a migrated coin's emulated pool", () => {
  test("reading, sweep and burn buy on the pool", async () => {
    const launch = createPumpLaunchProgram(nodeReader(), { random: () => 0 });
    const deployer = Keypair.generate();
    const creator = Keypair.generate();
    const treasury = Keypair.generate();
    const buyer = Keypair.generate();
    for (const k of [deployer, treasury, buyer]) chain.node.fund(k.publicKey, 200n * SOL);
    const mint = Keypair.generate();
    const [createIxs] = await launch.buildCreate({
      mint: mint.publicKey.toBase58(),
      deployer: deployer.publicKey.toBase58(),
      creator: creator.publicKey.toBase58(),
      name: "Pooled",
      symbol: "POOL",
      uri: "https://example.org/pool.json",
      firstBuyLamports: 0n,
    });
    expect(send(deployer, createIxs!, [mint]).err).toBeNull();
    const token = { mint: mint.publicKey.toBase58(), creator: creator.publicKey.toBase58() };
    // Past what the curve takes: the helpers' buy completes it and migrate follows.
    const trader = Keypair.generate();
    chain.node.fund(trader.publicKey, 200n * SOL);
    expect((await chain.pump!.buy({ mint: token.mint, buyer: trader, solInLamports: 100n * SOL })).err).toBeNull();
    expect(chain.pump!.migrated(token.mint)).toBe(true);
    expect((await chain.pump!.buy({ mint: token.mint, buyer: trader, solInLamports: 5n * SOL })).err).toBeNull();

    const [reading] = await launch.readVaults([token]);
    expect(reading!.bonded).toBe(true);
    expect(reading!.poolLamports).toBeGreaterThan(0n);

    const ixs = launch.sweepInstructions([{ token, reading: reading! }], treasury.publicKey);
    const treasuryBefore = chain.node.getBalance(treasury.publicKey);
    const swept = send(treasury, ixs, [creator]);
    expect(swept.err).toBeNull();
    const [effect] = launch.decodeSweep(swept, [token.creator]);
    const gained = chain.node.getBalance(treasury.publicKey) - treasuryBefore + swept.feeLamports!;
    expect(effect!.movedToTreasuryLamports).toBe(gained);
    expect(effect!.collectedLamports).toBe(reading!.poolLamports + reading!.curveLamports);

    const plan = await launch.buildBurnBuy(token, buyer.publicKey, 2n * SOL, 100);
    const bought = send(buyer, plan.instructions);
    expect(bought.err).toBeNull();
    const ata = getAssociatedTokenAddressSync(mint.publicKey, buyer.publicKey, true, TOKEN_2022_PROGRAM_ID);
    expect(tokenAmount(ata)).toBeGreaterThanOrEqual(plan.minTokenOut);
    expect(launch.decodeBoughtAmount(bought, token.mint, buyer.publicKey.toBase58())).toBe(tokenAmount(ata));
  }, 60_000);
});

describe("a curve the service's own burn buy completes", () => {
  test("moves to its pool after, as pump's migration service does, and the next burn buy goes there", async () => {
    const launch = createPumpLaunchProgram(nodeReader(), { random: () => 0 });
    const deployer = Keypair.generate();
    const buyer = Keypair.generate();
    for (const k of [deployer, buyer]) chain.node.fund(k.publicKey, 200n * SOL);
    const mint = Keypair.generate();
    const creator = Keypair.generate().publicKey.toBase58();
    const [createIxs] = await launch.buildCreate({
      mint: mint.publicKey.toBase58(),
      deployer: deployer.publicKey.toBase58(),
      creator,
      name: "Completed",
      symbol: "DONE",
      uri: "https://example.org/done.json",
      firstBuyLamports: 0n,
    });
    expect(send(deployer, createIxs!, [mint]).err).toBeNull();
    const token = { mint: mint.publicKey.toBase58(), creator };
    // A burn buy larger than what the curve still takes: it completes the curve (and spends less).
    const plan = await launch.buildBurnBuy(token, buyer.publicKey, 100n * SOL, 100);
    expect(send(buyer, plan.instructions).err).toBeNull();
    await chain.pump!.settled(token.mint);
    expect(chain.pump!.migrated(token.mint)).toBe(true);
    const [reading] = await launch.readVaults([token]);
    expect(reading!.bonded).toBe(true);
    const next = await launch.buildBurnBuy(token, buyer.publicKey, SOL, 100);
    expect(send(buyer, next.instructions).err).toBeNull();
  }, 60_000);
});
