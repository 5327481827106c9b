import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { type Connection, Keypair, LAMPORTS_PER_SOL, PublicKey, SystemProgram } from "@solana/web3.js";
import { getAssociatedTokenAddressSync, getMint } from "@solana/spl-token";
import type { LocalChain } from "@fee-ledger/localnet";
import type { LaunchProgram, TokenRef } from "../../../src/chain/ports";
import {
  buildBuyOp,
  buildCollectOp,
  buildCreateOp,
  buildDistributeOp,
  LaunchError,
  SYSTEM_ACCOUNT_RENT_LAMPORTS,
  spendWithin,
} from "@fee-ledger/localnet/program";
import { ConnectionReader, sendAndConfirm, signedTx, startTestChain, waitFor } from "./helpers";
import { localLaunchProgram } from "../../../src/chain/setup";

const SOL = BigInt(LAMPORTS_PER_SOL);
let chain: LocalChain;
let connection: Connection;
let reader: ConnectionReader;
let program: LaunchProgram;

beforeEach(async () => {
  ({ chain, connection } = await startTestChain({ creatorFeeBps: 30, bondThresholdLamports: 2n * SOL }));
  reader = new ConnectionReader(connection);
  program = localLaunchProgram(chain, reader);
});
afterEach(async () => {
  await chain.stop();
});

async function wallet(lamports = 100n * SOL): Promise<Keypair> {
  const kp = Keypair.generate();
  await connection.requestAirdrop(kp.publicKey, Number(lamports));
  return kp;
}

/** Creates a token over RPC the way a launch page would: the deployer and mint sign, the node co-signs. */
async function createToken(
  creator: PublicKey,
  uri = "https://example.test/meta.json",
): Promise<{ token: TokenRef; signature: string; deployer: Keypair }> {
  const deployer = await wallet();
  const mint = Keypair.generate();
  const ix = buildCreateOp(chain.programKeys, {
    payer: deployer.publicKey,
    mint: mint.publicKey,
    creator,
    name: "Local Coin",
    symbol: "LOCO",
    uri,
  });
  const signature = await sendAndConfirm(chain, connection, ix, deployer, [mint]);
  return { token: { mint: mint.publicKey.toBase58(), creator: creator.toBase58() }, signature, deployer };
}

async function buy(token: TokenRef, buyer: Keypair, lamports: bigint): Promise<{ signature: string; bought: bigint }> {
  const plan = await program.buildBurnBuy(token, buyer.publicKey, lamports, 100);
  const signature = await sendAndConfirm(chain, connection, plan.instructions, buyer);
  const tx = await reader.getTransaction(signature);
  expect(tx?.err).toBeNull();
  return { signature, bought: program.decodeBoughtAmount(tx!, token.mint, buyer.publicKey.toBase58()) };
}

async function statusErr(signature: string): Promise<unknown> {
  return (await connection.getSignatureStatuses([signature], { searchTransactionHistory: true })).value[0]?.err ?? null;
}

describe("local launch program", () => {
  test("create: a token with name, symbol, uri and creator, verifiable from its transaction", async () => {
    const creator = Keypair.generate().publicKey;
    const { token, signature, deployer } = await createToken(creator);
    const tx = await reader.getTransaction(signature);
    const verified = program.verifyCreate(tx!, {
      mint: token.mint,
      creator: token.creator,
      uri: "https://example.test/meta.json",
    });
    expect(verified).toMatchObject({
      ok: true,
      create: {
        mint: token.mint,
        creator: token.creator,
        name: "Local Coin",
        symbol: "LOCO",
        deployer: deployer.publicKey.toBase58(),
      },
    });
    expect(
      program.verifyCreate(tx!, {
        mint: token.mint,
        creator: Keypair.generate().publicKey.toBase58(),
        uri: "https://example.test/meta.json",
      }).ok,
    ).toBe(false);
    expect(program.verifyCreate(tx!, { mint: token.mint, creator: token.creator, uri: "https://other" }).ok).toBe(
      false,
    );

    const mint = await getMint(connection, new PublicKey(token.mint));
    expect(mint.decimals).toBe(6);
    expect(mint.supply).toBe(1_000_000_000_000_000n);
    const [reading] = await program.readVaults([token]);
    expect(reading).toEqual({
      mint: token.mint,
      curveLamports: 0n,
      poolLamports: 0n,
      creatorLamports: 0n,
      bonded: false,
      feeSharing: null,
    });

    // the same mint cannot be created twice
    const again = buildCreateOp(chain.programKeys, {
      payer: deployer.publicKey,
      mint: new PublicKey(token.mint),
      creator,
      name: "X",
      symbol: "X",
      uri: "u",
    });
    const { tx: dup } = await signedTx(connection, again, deployer);
    await expect(connection.sendRawTransaction(dup.serialize())).rejects.toThrow();
  }, 60_000);

  test("trades accrue the creator fee in the curve vault before bonding and in the pool vault after", async () => {
    const creator = Keypair.generate().publicKey;
    const { token } = await createToken(creator);
    const trader = await wallet();

    await buy(token, trader, 1n * SOL);
    let [r] = await program.readVaults([token]);
    // As pump's buy_exact_sol_in: the largest input whose rounded-up fee fits in the budget.
    const firstFee = spendWithin(1n * SOL, 30).feeLamports;
    expect(firstFee).toBe((((1n * SOL * 10_000n) / 10_030n) * 30n + 9_999n) / 10_000n);
    expect(r).toMatchObject({ curveLamports: firstFee, poolLamports: 0n, bonded: false });

    // this buy takes the curve past the 2 SOL threshold: its fee is still the curve's, then it bonds
    await buy(token, trader, 1_500_000_000n);
    [r] = await program.readVaults([token]);
    const secondFee = spendWithin(1_500_000_000n, 30).feeLamports;
    expect(r).toMatchObject({ curveLamports: firstFee + secondFee, poolLamports: 0n, bonded: true });

    // a buy built for the curve before bonding now fails on chain and moves nothing
    const stale = buildBuyOp(chain.programKeys, {
      buyer: trader.publicKey,
      mint: new PublicKey(token.mint),
      creator,
      vault: "curve",
      solInLamports: 100_000_000n,
      tokensOut: 1n,
      feeLamports: 300_000n,
    });
    const staleSig = await sendAndConfirm(chain, connection, stale, trader);
    expect(await statusErr(staleSig)).toEqual({ InstructionError: [4, { Custom: LaunchError.WrongFeeVault }] });

    await buy(token, trader, 1n * SOL);
    const sold = chain.launch.sell({ mint: token.mint, seller: trader, tokensIn: 1_000_000_000n });
    expect(sold.err).toBeNull();
    expect(sold.vault).toBe("pool");
    chain.node.advanceSlots(1);
    [r] = await program.readVaults([token]);
    expect(r).toMatchObject({
      curveLamports: firstFee + secondFee,
      poolLamports: firstFee + sold.feeLamports,
      bonded: true,
    });
  }, 60_000);

  test("a reading given the token's recorded vaults reads those addresses instead of deriving them", async () => {
    const creator = Keypair.generate().publicKey;
    const { token } = await createToken(creator);
    await buy(token, await wallet(), 1n * SOL);
    const derived = program.vaultAddresses(token);
    const [fromDerived] = await program.readVaults([token]);
    const [fromRecorded] = await program.readVaults([{ ...token, vaults: derived }]);
    expect(fromRecorded).toEqual(fromDerived!);
    expect(fromRecorded!.curveLamports).toBeGreaterThan(0n);
    // Recorded addresses are read as given: a funded wallet named as the pool vault counts.
    const other = await wallet(5n * SOL);
    const [elsewhere] = await program.readVaults([
      { ...token, vaults: { curveVault: derived.curveVault, poolVault: other.publicKey.toBase58() } },
    ]);
    expect(elsewhere!.poolLamports).toBe(5n * SOL - SYSTEM_ACCOUNT_RENT_LAMPORTS);
    expect(elsewhere!.curveLamports).toBe(fromDerived!.curveLamports);
  }, 60_000);

  test("fee sharing: the config becomes the creator, collecting as it fails (6049), only a distribute matching the config pays out", async () => {
    const creator = Keypair.generate().publicKey;
    const { token } = await createToken(creator);
    const trader = await wallet();
    const other = await wallet(SOL);
    chain.node.shareCreatorFees(token.mint, [
      { address: creator.toBase58(), shareBps: 5_000 },
      { address: other.publicKey.toBase58(), shareBps: 5_000 },
    ]);
    await buy(token, trader, 1n * SOL); // pays the config's vault now
    const config = chain.programKeys.sharingConfig(token.mint).publicKey;
    const [reading] = await program.readVaults([token]);
    expect(reading!.curveLamports).toBe(0n);
    expect(reading!.feeSharing).toMatchObject({
      currentCreator: config.toBase58(),
      isSharingConfig: true,
      serviceShareBps: 5_000,
      blockedReason: null,
    });
    const fees = reading!.feeSharing!.distributableLamports;
    expect(fees).toBeGreaterThan(0n);

    const stranger = await wallet(SOL);
    const asConfig = buildCollectOp(chain.programKeys, { creator: config, vault: "curve", amountLamports: fees });
    expect(await statusErr(await sendAndConfirm(chain, connection, asConfig, stranger))).toEqual({
      InstructionError: [1, { Custom: LaunchError.CreatorMigratedToSharingConfig }],
    });
    // shareholders other than the config's: refused
    const forged = buildDistributeOp(chain.programKeys, {
      mint: new PublicKey(token.mint),
      vault: "curve",
      distributedLamports: fees,
      shareholders: [{ address: stranger.publicKey.toBase58(), shareBps: 10_000 }],
    });
    expect(await statusErr(await sendAndConfirm(chain, connection, forged, stranger))).toEqual({
      InstructionError: [1, { Custom: LaunchError.ShareholdersAndRemainingAccountsMismatch }],
    });
    // the real one, sent by anyone, pays each shareholder its part
    const real = buildDistributeOp(chain.programKeys, {
      mint: new PublicKey(token.mint),
      vault: "curve",
      distributedLamports: fees,
      shareholders: reading!.feeSharing!.shareholders,
    });
    const sig = await sendAndConfirm(chain, connection, real, stranger);
    expect(await statusErr(sig)).toBeNull();
    expect(BigInt(await connection.getBalance(creator))).toBe((fees * 5_000n) / 10_000n);
    const tx = await reader.getTransaction(sig);
    expect(program.decodeSweep(tx!, [token.creator])).toEqual([
      { creator: token.creator, collectedLamports: (fees * 5_000n) / 10_000n, movedToTreasuryLamports: 0n },
    ]);
  }, 60_000);

  test("a collect anyone sends moves exactly the vault's fees to the creator, and its event decodes to that amount", async () => {
    const creator = Keypair.generate().publicKey;
    const { token } = await createToken(creator);
    const trader = await wallet();
    await buy(token, trader, 1n * SOL);
    const [before] = await program.readVaults([token]);
    expect(before!.curveLamports).toBeGreaterThan(0n);

    const stranger = await wallet(SOL);
    const collect = buildCollectOp(chain.programKeys, {
      creator,
      vault: "curve",
      amountLamports: before!.curveLamports,
    });
    const sig = await sendAndConfirm(chain, connection, collect, stranger);
    const tx = await reader.getTransaction(sig);
    expect(tx?.err).toBeNull();
    expect(await connection.getBalance(creator)).toBe(Number(before!.curveLamports));
    const [after] = await program.readVaults([token]);
    expect(after).toMatchObject({ curveLamports: 0n, creatorLamports: before!.curveLamports });
    expect(program.decodeSweep(tx!, [token.creator])).toEqual([
      { creator: token.creator, collectedLamports: before!.curveLamports, movedToTreasuryLamports: 0n },
    ]);

    // asking for more than the vault holds fails on chain and moves nothing
    await buy(token, trader, 100_000_000n);
    const [now] = await program.readVaults([token]);
    const greedy = buildCollectOp(chain.programKeys, {
      creator,
      vault: "curve",
      amountLamports: now!.curveLamports + 1n,
    });
    const greedySig = await sendAndConfirm(chain, connection, greedy, stranger);
    expect(await statusErr(greedySig)).toEqual({ InstructionError: [1, { Custom: LaunchError.CollectExceedsVault }] });
    expect((await program.readVaults([token]))[0]!.curveLamports).toBe(now!.curveLamports);

    // a vault key cannot be used outside a collect: the transfer to a thief fails
    const theft = [
      SystemProgram.transfer({
        fromPubkey: new PublicKey(program.vaultAddresses(token).curveVault),
        toPubkey: stranger.publicKey,
        lamports: 1,
      }),
    ];
    const theftSig = await sendAndConfirm(chain, connection, theft, stranger);
    expect(await statusErr(theftSig)).toEqual({ InstructionError: [0, { Custom: LaunchError.UnauthorizedSigner }] });
  }, 60_000);

  test("a sweep collects both vaults and moves the creator's balance to the treasury, decoded per creator", async () => {
    const creatorKey = Keypair.generate();
    const creator = creatorKey.publicKey;
    const { token } = await createToken(creator);
    const trader = await wallet();
    await buy(token, trader, 1n * SOL);
    await buy(token, trader, 1_500_000_000n); // bonds
    await buy(token, trader, 1n * SOL); // pool fee
    // someone already collected part of it into the creator address (here: a plain gift)
    await sendAndConfirm(
      chain,
      connection,
      [SystemProgram.transfer({ fromPubkey: trader.publicKey, toPubkey: creator, lamports: 2_000_000n })],
      trader,
    );

    const [reading] = await program.readVaults([token]);
    expect(reading!.curveLamports).toBeGreaterThan(0n);
    expect(reading!.poolLamports).toBeGreaterThan(0n);
    expect(reading!.creatorLamports).toBe(2_000_000n);

    const treasuryBefore = BigInt(await connection.getBalance(chain.treasury.publicKey));
    const ixs = program.sweepInstructions([{ token, reading: reading! }], chain.treasury.publicKey);
    const sig = await sendAndConfirm(chain, connection, ixs, chain.treasury, [creatorKey]);
    const tx = await reader.getTransaction(sig);
    expect(tx?.err).toBeNull();
    const [effect] = program.decodeSweep(tx!, [token.creator]);
    expect(effect).toEqual({
      creator: token.creator,
      collectedLamports: reading!.curveLamports + reading!.poolLamports,
      movedToTreasuryLamports: reading!.curveLamports + reading!.poolLamports + 2_000_000n,
    });
    const fee = BigInt((await connection.getTransaction(sig, { maxSupportedTransactionVersion: 0 }))!.meta!.fee);
    expect(BigInt(await connection.getBalance(chain.treasury.publicKey))).toBe(
      treasuryBefore + effect!.movedToTreasuryLamports - fee,
    );
    expect(await program.readVaults([token])).toEqual([
      { mint: token.mint, curveLamports: 0n, poolLamports: 0n, creatorLamports: 0n, bonded: true, feeSharing: null },
    ]);
  }, 60_000);

  test("a buy then an SPL burn burns exactly what was bought", async () => {
    const { token } = await createToken(Keypair.generate().publicKey);
    const buyer = await wallet();
    const supplyBefore = (await getMint(connection, new PublicKey(token.mint))).supply;
    const plan = await program.buildBurnBuy(token, buyer.publicKey, 500_000_000n, 100);
    const { bought } = await buy(token, buyer, 500_000_000n);
    expect(bought).toBe(plan.minTokenOut);
    const ata = getAssociatedTokenAddressSync(new PublicKey(token.mint), buyer.publicKey);
    expect((await connection.getTokenAccountBalance(ata)).value.amount).toBe(bought.toString());

    await sendAndConfirm(chain, connection, await program.buildBurn(token.mint, buyer.publicKey, bought), buyer);
    expect((await connection.getTokenAccountBalance(ata)).value.amount).toBe("0");
    expect((await getMint(connection, new PublicKey(token.mint))).supply).toBe(supplyBefore - bought);
    expect(await program.creatorFeeBps()).toBe(30);
  }, 60_000);

  test("the simulator runs on its own at the configured rate until stopped", async () => {
    chain.launch.createToken({ name: "A", symbol: "A", uri: "u", creator: Keypair.generate().publicKey });
    chain.simulator.start({ tradesPerSecond: 50, seed: 7 });
    expect(chain.simulator.running).toBe(true);
    await waitFor("five simulated trades", () => chain.simulator.stats.trades >= 5, 30_000);
    chain.simulator.stop();
    const after = chain.simulator.stats.trades;
    await new Promise((r) => setTimeout(r, 100));
    expect(chain.simulator.stats.trades).toBe(after);
    expect(chain.simulator.stats.failed).toBe(0);
  }, 60_000);

  test("the simulator trades local tokens so fees accrue", async () => {
    const a = chain.launch.createToken({ name: "A", symbol: "A", uri: "u", creator: Keypair.generate().publicKey });
    const b = chain.launch.createToken({ name: "B", symbol: "B", uri: "u", creator: Keypair.generate().publicKey });
    expect(a.err).toBeNull();
    expect(b.err).toBeNull();
    chain.simulator.start({ tradesPerSecond: 1, seed: 42 });
    chain.simulator.stop(); // stepped by hand below: no timing in the test
    for (let i = 0; i < 40; i++) chain.simulator.tradeOnce();
    expect(chain.simulator.stats.trades).toBe(40);
    expect(chain.simulator.stats.failed).toBe(0);
    const readings = await program.readVaults([
      { mint: a.mint, creator: chain.node.creatorOf(a.mint)! },
      { mint: b.mint, creator: chain.node.creatorOf(b.mint)! },
    ]);
    const total = readings.reduce((s, r) => s + r.curveLamports + r.poolLamports, 0n);
    expect(total).toBe(chain.simulator.stats.feesLamports);
    expect(total).toBeGreaterThan(0n);
  }, 60_000);

  test("a token launched while the simulator runs is left alone at first, so its launcher's first buy keeps its price", async () => {
    const old = chain.launch.createToken({ name: "O", symbol: "O", uri: "u", creator: Keypair.generate().publicKey });
    chain.simulator.start({ tradesPerSecond: 200, seed: 9 });
    const fresh = chain.launch.createToken({ name: "F", symbol: "F", uri: "u", creator: Keypair.generate().publicKey });
    const before = chain.simulator.stats.trades;
    await waitFor("twenty simulated trades", () => chain.simulator.stats.trades >= before + 20, 30_000);
    chain.simulator.stop();
    const [oldVault, freshVault] = await program.readVaults([
      { mint: old.mint, creator: chain.node.creatorOf(old.mint)! },
      { mint: fresh.mint, creator: chain.node.creatorOf(fresh.mint)! },
    ]);
    expect(oldVault!.curveLamports).toBeGreaterThan(0n);
    expect(freshVault!.curveLamports + freshVault!.poolLamports).toBe(0n);
  }, 60_000);
});
