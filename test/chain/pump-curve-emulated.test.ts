/**
 * The service's own pump adapter (src/chain/pump/adapter.ts) against the local chain's emulated
 * bonding curve: its create verifies, its burn buy lands for the tokens it promised, its vault
 * reading sees the creator fees the trades left, and its sweep (collect_creator_fee, then the
 * creator → treasury transfer) lands, with decodeSweep crediting exactly what the treasury gained.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TOKEN_2022_PROGRAM_ID, getAssociatedTokenAddressSync } from "@solana/spl-token";
import {
  Keypair,
  type PublicKey,
  type TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import { type LocalChain, startLocalChain } from "@fee-ledger/localnet";
import { CREATOR_RESERVE_LAMPORTS, createPumpLaunchProgram } from "../../src/chain/pump";
import type { AccountSnapshot, ChainReader, ConfirmedTransaction } from "../../src/chain/ports";

const SOL = 1_000_000_000n;
let chain: LocalChain;

beforeAll(async () => {
  chain = await startLocalChain({ rpcPort: 0, grpcPort: 0, slotMs: 0 });
});
afterAll(async () => {
  await chain.stop();
});

/** A reader answering from the node's accounts, as an RPC would at the tip. */
function nodeReader(): ChainReader {
  const snapshot = (address: string): AccountSnapshot | null => {
    const a = chain.node.getAccount(address as never);
    return a ? { lamports: a.lamports, owner: a.owner.toBase58(), executable: a.executable, data: a.data } : null;
  };
  return {
    async getAccounts(addresses) {
      return new Map(addresses.map((a) => [a, snapshot(a)]));
    },
    async getBalances(addresses) {
      return new Map(addresses.map((a) => [a, snapshot(a)?.lamports ?? 0n]));
    },
    async getTransaction() {
      return null;
    },
    async getSignatureStatuses(signatures) {
      return new Map(signatures.map((s) => [s, null]));
    },
    async getBlockHeight() {
      return chain.node.getBlockHeight();
    },
    async getLatestBlockhash() {
      return chain.node.getLatestBlockhash();
    },
  } as ChainReader;
}

function send(payer: Keypair, ixs: TransactionInstruction[], signers: Keypair[] = []): ConfirmedTransaction {
  const tx = new VersionedTransaction(
    new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: chain.node.getLatestBlockhash().blockhash,
      instructions: ixs,
    }).compileToV0Message(),
  );
  tx.sign([payer, ...signers]);
  const r = chain.node.execute(tx, { failOnChain: false });
  if (!r.landed) throw new Error(`not landed: ${JSON.stringify(r.err)}`);
  chain.node.advanceSlots(1);
  const rec = r.record;
  const keys = rec.accountKeys.map((k) => k.toBase58());
  const view = (ix: { programIdIndex: number; accounts: number[]; data: Uint8Array }) => ({
    programId: keys[ix.programIdIndex]!,
    accounts: ix.accounts.map((i) => keys[i]!),
    data: ix.data,
  });
  return {
    signature: rec.signature,
    slot: rec.slot,
    blockTime: new Date(rec.blockTimeSec * 1000),
    err: rec.err === null ? null : JSON.stringify(rec.err),
    feeLamports: rec.feeLamports,
    accountKeys: keys,
    preBalances: rec.preBalances,
    postBalances: rec.postBalances,
    instructions: rec.instructions.map(view),
    innerInstructions: rec.innerInstructions.flatMap((g) =>
      g.instructions.map((ix) => ({ ...view(ix), outerIndex: g.index })),
    ),
    logMessages: rec.logs,
    preTokenBalances: rec.preTokenBalances,
    postTokenBalances: rec.postTokenBalances,
  };
}

const tokenAmount = (account: PublicKey) => {
  const a = chain.node.getAccount(account);
  return a ? Buffer.from(a.data).readBigUInt64LE(64) : 0n;
};

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
