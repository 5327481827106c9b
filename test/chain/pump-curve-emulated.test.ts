/**
 * The service's own pump adapter (src/chain/pump/adapter.ts) against the local chain's emulated
 * bonding curve: its create verifies, its burn buy lands for the tokens it promised, its vault
 * reading sees the creator fees the trades left, and its sweep (collect_creator_fee, then the
 * creator → treasury transfer) lands, with decodeSweep crediting exactly what the treasury gained.
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

describe("the pump adapter against the emulated bonding curve", () => {
  test("create verifies, a burn buy lands, and the curve sweep moves the creator fees to the treasury", async () => {
    const launch = createPumpLaunchProgram(nodeReader(), { random: () => 0 });
    const deployer = Keypair.generate();
    const creator = Keypair.generate();
    const treasury = Keypair.generate();
    const buyer = Keypair.generate();
    for (const k of [deployer, treasury, buyer]) chain.node.fund(k.publicKey, 100n * SOL);
    const mint = Keypair.generate();
    const uri = "https://example.org/adapter.json";
    const [createIxs] = await launch.buildCreate({
      mint: mint.publicKey.toBase58(),
      deployer: deployer.publicKey.toBase58(),
      creator: creator.publicKey.toBase58(),
      name: "Adapter",
      symbol: "ADPT",
      uri,
      firstBuyLamports: SOL,
    });
    const created = send(deployer, createIxs!, [mint]);
    expect(created.err).toBeNull();
    const verified = launch.verifyCreate(created, {
      mint: mint.publicKey.toBase58(),
      creator: creator.publicKey.toBase58(),
      uri,
    });
    expect(verified.ok).toBe(true);

    const token = { mint: mint.publicKey.toBase58(), creator: creator.publicKey.toBase58() };
    const plan = await launch.buildBurnBuy(token, buyer.publicKey, 2n * SOL, 100);
    const bought = send(buyer, plan.instructions);
    expect(bought.err).toBeNull();
    const ata = getAssociatedTokenAddressSync(mint.publicKey, buyer.publicKey, true, TOKEN_2022_PROGRAM_ID);
    expect(tokenAmount(ata)).toBeGreaterThanOrEqual(plan.minTokenOut);
    expect(launch.decodeBoughtAmount(bought, token.mint, buyer.publicKey.toBase58())).toBe(tokenAmount(ata));

    const [reading] = await launch.readVaults([token]);
    const vault = launch.vaultAddresses(token).curveVault;
    const vaultLamports = chain.node.getBalance(vault);
    expect(reading!.curveLamports).toBe(vaultLamports - 890_880n);
    expect(reading!.curveLamports).toBeGreaterThan(0n);
    expect(reading!.bonded).toBe(false);

    const ixs = launch.sweepInstructions([{ token: token, reading: reading! }], treasury.publicKey);
    const treasuryBefore = chain.node.getBalance(treasury.publicKey);
    const swept = send(treasury, ixs, [creator]);
    expect(swept.err).toBeNull();
    const [effect] = launch.decodeSweep(swept, [token.creator]);
    expect(effect!.collectedLamports).toBe(reading!.curveLamports);
    const gained = chain.node.getBalance(treasury.publicKey) - treasuryBefore + swept.feeLamports!;
    expect(effect!.movedToTreasuryLamports).toBe(gained);
    expect(chain.node.getBalance(creator.publicKey)).toBe(CREATOR_RESERVE_LAMPORTS);
    expect(chain.node.getBalance(vault)).toBe(890_880n);
  });
});
