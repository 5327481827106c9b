/**
 * The program-change guard against pump's announced next version, emulated by the local chain
 * (the `programLayout: "v3"` fault rule, packages/localnet/src/native/pump/pump-v3*.ts): a coin
 * created and traded through the service's own pump adapter; then pump runs v3 and a trader uses
 * `buy_v3`, which keeps the creator fee on the bonding curve and grows it past every layout the
 * adapter knows. The adapter's reading names the change, and the real sweep job sets the token
 * aside (listed, unhealthy, the reason naming the change) and sweeps nothing on a guess.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PUMP_SDK } from "@pump-fun/pump-sdk";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  NATIVE_MINT,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  createAssociatedTokenAccountIdempotentInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import {
  Keypair,
  PublicKey,
  SystemProgram,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import { type LocalChain, startLocalChain } from "@fee-ledger/localnet";
import { closeDatabase, type Db, openDatabase } from "../../db/client";
import { deriveCreatorKeypair } from "../../src/chain/keys";
import { createPumpLaunchProgram } from "../../src/chain/pump";
import { PUMP_PROGRAM_ID, pumpPdas } from "../../src/chain/pump/layout";
import { createRpcChain } from "../../src/chain/rpc";
import type { ChainServices } from "../../src/chain/services";
import { loadConfig } from "../../src/config";
import { jobHealth, listSetAside, Scheduler } from "../../src/jobs";
import { ledgerTotals } from "../../src/ledger/figures";
import { recordConfirmedLaunch } from "../../src/tokens/launch-record";
import { registerMoneyJobs } from "../jobs/fixtures/bodies";

const SOL = 1_000_000_000n;
let chain: LocalChain;
let dir: string;
let db: Db;

beforeAll(async () => {
  chain = await startLocalChain({ rpcPort: 0, grpcPort: 0, slotMs: 0 });
  dir = mkdtempSync(join(tmpdir(), "cfl-pump-v3-"));
  db = openDatabase(join(dir, "service.db"));
});
afterAll(async () => {
  closeDatabase(db);
  await chain.stop();
  rmSync(dir, { recursive: true, force: true });
});

function send(payer: Keypair, ixs: TransactionInstruction[], signers: Keypair[] = []): void {
  const tx = new VersionedTransaction(
    new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: chain.node.getLatestBlockhash().blockhash,
      instructions: ixs,
    }).compileToV0Message(),
  );
  tx.sign([payer, ...signers]);
  const r = chain.node.execute(tx, { failOnChain: false });
  if (!r.landed || r.record.err !== null)
    throw new Error(
      `failed: ${JSON.stringify(r.landed ? r.record.err : r.err)}\n${r.landed ? r.record.logs.join("\n") : ""}`,
    );
  chain.node.advanceSlots(1);
}

/**
 * `buy_v3` for a SOL-paired coin, built from pump-public-docs' TRADE_V3.md (17 accounts; data:
 * discriminator, amount u64, max_sol_cost u64): pump-sdk 4.0.0, which would build it, is not on npm.
 */
function buyV3(mint: PublicKey, user: PublicKey, buyback: PublicKey, amount: bigint, maxSol: bigint) {
  const curve = pumpPdas.bondingCurve(mint);
  const meta = (pubkey: PublicKey, isWritable = false, isSigner = false) => ({ pubkey, isWritable, isSigner });
  const pda = (seeds: Uint8Array[]) => PublicKey.findProgramAddressSync(seeds, PUMP_PROGRAM_ID)[0];
  const data = Buffer.alloc(24);
  Buffer.from("07051dc4f5176550", "hex").copy(data, 0);
  data.writeBigUInt64LE(amount, 8);
  data.writeBigUInt64LE(maxSol, 16);
  return new TransactionInstruction({
    programId: PUMP_PROGRAM_ID,
    keys: [
      meta(pumpPdas.global()),
      meta(mint),
      meta(NATIVE_MINT),
      meta(TOKEN_2022_PROGRAM_ID),
      meta(TOKEN_PROGRAM_ID),
      meta(curve, true),
      meta(getAssociatedTokenAddressSync(mint, curve, true, TOKEN_2022_PROGRAM_ID), true),
      meta(getAssociatedTokenAddressSync(NATIVE_MINT, curve, true, TOKEN_PROGRAM_ID), true),
      meta(user, true, true),
      meta(getAssociatedTokenAddressSync(mint, user, true, TOKEN_2022_PROGRAM_ID), true),
      meta(getAssociatedTokenAddressSync(NATIVE_MINT, user, true, TOKEN_PROGRAM_ID), true),
      meta(pda([Buffer.from("user_volume_accumulator"), user.toBytes()]), true),
      meta(pumpPdas.pumpFeeConfig()),
      meta(buyback, true),
      meta(SystemProgram.programId),
      meta(pumpPdas.eventAuthority()),
      meta(PUMP_PROGRAM_ID),
    ],
    data,
  });
}

/** Global's first buyback fee recipient (pump-sdk `Global.buyback_fee_recipients`). */
function buybackRecipient(): PublicKey {
  const data = Buffer.from(chain.node.getAccount(pumpPdas.global())!.data);
  return PUMP_SDK.decodeGlobal({ lamports: 0, owner: PUMP_PROGRAM_ID, executable: false, rentEpoch: 0, data })
    .buybackFeeRecipients[0]!;
}

describe("the program-change guard against pump v3 (emulated)", () => {
  test("a curve v3 grew is read as a program change; the sweep job sets the token aside and sweeps nothing", async () => {
    const treasury = Keypair.generate();
    const master = crypto.getRandomValues(new Uint8Array(32));
    const rpc = createRpcChain({ rpcUrl: chain.rpcUrl, timeoutMs: 10_000, retries: 3, backoffBaseMs: 50 });
    const launch = createPumpLaunchProgram(rpc.reader, { random: () => 0 });
    const services: ChainServices = {
      reader: rpc.reader,
      sender: rpc.sender,
      launchProgram: launch,
      treasury,
      creatorKeypair: (index) => deriveCreatorKeypair(master, index),
      creatorAddress: (index) => deriveCreatorKeypair(master, index).publicKey,
    };
    const creator = deriveCreatorKeypair(master, 1).publicKey.toBase58();
    const deployer = Keypair.generate();
    const buyer = Keypair.generate();
    const trader = Keypair.generate();
    for (const k of [deployer, buyer, trader, treasury]) chain.node.fund(k.publicKey, 100n * SOL);

    // created and traded through the service's own adapter, recorded as the launch flow records it
    const mint = Keypair.generate();
    const uri = "https://example.org/v3.json";
    const token = { mint: mint.publicKey.toBase58(), creator };
    const [createIxs] = await launch.buildCreate({
      ...token,
      deployer: deployer.publicKey.toBase58(),
      name: "Version Three",
      symbol: "VTHREE",
      uri,
      firstBuyLamports: SOL,
    });
    send(deployer, createIxs!, [mint]);
    const vaults = launch.vaultAddresses(token);
    const { tokenId } = recordConfirmedLaunch(
      db,
      {
        mint: token.mint,
        name: "Version Three",
        symbol: "VTHREE",
        description: "",
        website: null,
        twitter: null,
        telegram: null,
        metadataUri: uri,
        imageUri: null,
        creatorIndex: 1,
        creator,
        creatorVault: vaults.curveVault,
        poolVault: vaults.poolVault,
        deployer: deployer.publicKey.toBase58(),
        launchSignature: "v3-launch",
        launchedAtMs: Date.now(),
        platformBps: 1000,
        recipients: [{ handle: "vera", bps: 10_000 }],
      },
      Date.now(),
    );
    const plan = await launch.buildBurnBuy(token, buyer.publicKey, 2n * SOL, 100);
    send(buyer, plan.instructions);
    const [before] = await launch.readVaults([token]);
    expect(before!.programChanged).toBeUndefined();
    expect(before!.curveLamports).toBeGreaterThan(0n);

    // pump runs v3; a trader's buy_v3 keeps its creator fee on the curve, which grows to 166 bytes
    chain.faults.apply({ kind: "programLayout", layout: "v3" });
    const curve = pumpPdas.bondingCurve(mint.publicKey);
    expect(chain.node.getAccount(curve)!.data.length).toBe(151);
    // TRADE_V3.md: the buyer's token account must exist; the trade does not create it
    const traderAta = getAssociatedTokenAddressSync(mint.publicKey, trader.publicKey, true, TOKEN_2022_PROGRAM_ID);
    const openAta = createAssociatedTokenAccountIdempotentInstruction(
      trader.publicKey,
      traderAta,
      trader.publicKey,
      mint.publicKey,
      TOKEN_2022_PROGRAM_ID,
    );
    send(trader, [openAta, buyV3(mint.publicKey, trader.publicKey, buybackRecipient(), 1_000_000_000n, SOL)]);
    const grown = Buffer.from(chain.node.getAccount(curve)!.data);
    expect(grown.length).toBe(166);
    expect(grown.readBigUInt64LE(125)).toBeGreaterThan(0n); // BondingCurve.creator_fee, waiting on the curve

    const [after] = await launch.readVaults([token]);
    const change = "program-changed: BondingCurve is 166 bytes, a length this adapter does not know";
    expect(after!.programChanged).toBe(change);

    // the real sweep job, as the service runs it: set aside, listed, unhealthy; nothing sent or credited
    const treasuryBefore = chain.node.getBalance(treasury.publicKey);
    const vaultBefore = chain.node.getBalance(vaults.curveVault);
    const config = loadConfig({ DATA_DIR: dir, JOBS: "0", DEMO: "0", SWEEP_MIN_LAMPORTS: "1" });
    const scheduler = new Scheduler(db, { leaseMs: config.jobLeaseMs });
    registerMoneyJobs(scheduler, { db, chain: services, config });
    expect(await scheduler.runNow("sweep")).toMatchObject({ ran: true, ok: true });
    await scheduler.stop();
    const [item] = listSetAside(db);
    expect(item).toMatchObject({ mint: token.mint, job: "sweep", retryAt: null, reason: change });
    expect(jobHealth(db, Date.now()).setAside).toEqual({ tokens: 1, stopped: 1 });
    const swept = db.$client.query("SELECT swept_lamports AS s FROM tokens WHERE id = ?").get(tokenId) as { s: bigint };
    expect(BigInt(swept.s)).toBe(0n);
    expect(ledgerTotals(db).sweptLamports).toBe(0n);
    expect(Number((db.$client.query("SELECT COUNT(*) AS n FROM sweeps").get() as { n: bigint | number }).n)).toBe(0);
    expect(chain.node.getBalance(treasury.publicKey)).toBe(treasuryBefore);
    expect(chain.node.getBalance(vaults.curveVault)).toBe(vaultBefore);
  }, 60_000);
});
