/**
 * pump's migrate and pump_amm's buy, sell and coin creator fee instructions, emulated: the SDKs'
 * own builders' transactions do what the SDKs' math says, to the lamport; mutated account lists
 * and discriminators are refused with the programs' codes and change nothing but the fee.
 */
import { describe, expect, test } from "bun:test";
import { BN, EventParser, type Program } from "@coral-xyz/anchor";
import {
  AccountLayout,
  getAssociatedTokenAddressSync,
  MintLayout,
  NATIVE_MINT,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
} from "@solana/spl-token";
import { Connection, Keypair, PublicKey, type TransactionInstruction } from "@solana/web3.js";
import {
  canonicalPumpPoolPda,
  feeSharingConfigPda,
  getPumpProgram,
  PUMP_SDK,
  pumpPoolAuthorityPda,
} from "@pump-fun/pump-sdk";
import {
  buyBaseInput,
  coinCreatorVaultAtaPda,
  coinCreatorVaultAuthorityPda,
  GLOBAL_CONFIG_PDA,
  getPumpAmmProgram,
  PUMP_AMM_FEE_CONFIG_PDA,
  PUMP_AMM_SDK,
  sellBaseInput,
  type SwapSolanaState,
} from "@pump-fun/pump-swap-sdk";
import type { LocalNode, TxRecord } from "../../src/node";
import { accountInfo, send } from "./helpers";
import {
  ammNode,
  POOL_MIGRATION_FEE,
  REAL_SOL_RESERVES,
  TOKENS_FOR_MIGRATION,
  WITHDRAW_AUTHORITY,
  writeCompleteCurve,
} from "./amm-setup";

const AMM = new PublicKey("pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA");
const PUMP = new PublicKey("6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P");
const PUMP_FEES = new PublicKey("pfeeUxB6jkeY1Hxd7CsFCAjcbHA9rWtchMGdZ6VojVZ");
const TX_FEE = 5_000n;

/** What a WSOL account holds beyond its rent (a base-token account's lamports are all rent). */
function wsolOrTokenAmount(node: LocalNode, key: PublicKey): bigint {
  const a = node.getAccount(key)!;
  const t = AccountLayout.decode(Buffer.from(a.data));
  return t.mint.equals(NATIVE_MINT) ? t.amount : 0n;
}

function tokenAmount(node: LocalNode, key: PublicKey): bigint {
  const a = node.getAccount(key);
  return a ? AccountLayout.decode(Buffer.from(a.data)).amount : 0n;
}

const OFFLINE = new Connection("http://127.0.0.1:1");

/** A program's events read from the transaction's `Program data:` logs, decoded by the SDK's Anchor program. */
function events(record: TxRecord, which: "pump" | "amm"): { name: string; data: Record<string, unknown> }[] {
  const program = (which === "pump" ? getPumpProgram(OFFLINE) : getPumpAmmProgram(OFFLINE)) as unknown as Program;
  const parser = new EventParser(program.programId, program.coder);
  return [...parser.parseLogs(record.logs)] as never;
}

async function migrated(node: LocalNode) {
  const curve = writeCompleteCurve(node);
  const user = Keypair.generate();
  node.fund(user.publicKey, 1_000_000_000n);
  const ix = await PUMP_SDK.migrateInstruction({
    withdrawAuthority: WITHDRAW_AUTHORITY,
    mint: curve.mint,
    user: user.publicKey,
    tokenProgram: TOKEN_2022_PROGRAM_ID,
  });
  return { curve, user, ix, pool: canonicalPumpPoolPda(curve.mint) };
}

function swapState(node: LocalNode, pool: PublicKey, user: PublicKey): SwapSolanaState {
  const poolAccountInfo = accountInfo(node, pool)!;
  const decoded = PUMP_AMM_SDK.decodePool(poolAccountInfo);
  const baseMintInfo = accountInfo(node, decoded.baseMint)!;
  const userBaseTokenAccount = getAssociatedTokenAddressSync(decoded.baseMint, user, true, baseMintInfo.owner);
  const userQuoteTokenAccount = getAssociatedTokenAddressSync(NATIVE_MINT, user, true, TOKEN_PROGRAM_ID);
  return {
    globalConfig: PUMP_AMM_SDK.decodeGlobalConfig(accountInfo(node, GLOBAL_CONFIG_PDA)!),
    feeConfig: PUMP_AMM_SDK.decodeFeeConfig(accountInfo(node, PUMP_AMM_FEE_CONFIG_PDA)!),
    poolKey: pool,
    poolAccountInfo,
    pool: decoded,
    poolBaseAmount: new BN(tokenAmount(node, decoded.poolBaseTokenAccount).toString()),
    poolQuoteAmount: new BN(tokenAmount(node, decoded.poolQuoteTokenAccount).toString()),
    baseTokenProgram: baseMintInfo.owner,
    quoteTokenProgram: TOKEN_PROGRAM_ID,
    baseMint: decoded.baseMint,
    baseMintAccount: MintLayout.decode(baseMintInfo.data.subarray(0, MintLayout.span)),
    user,
    userBaseTokenAccount,
    userQuoteTokenAccount,
    userBaseAccountInfo: accountInfo(node, userBaseTokenAccount),
    userQuoteAccountInfo: accountInfo(node, userQuoteTokenAccount),
  };
}

function quoteArgs(s: SwapSolanaState) {
  return {
    slippage: 1,
    baseReserve: s.poolBaseAmount,
    quoteReserve: s.poolQuoteAmount,
    virtualQuoteReserves: s.pool.virtualQuoteReserves,
    globalConfig: s.globalConfig,
    baseMintAccount: s.baseMintAccount,
    baseMint: s.baseMint,
    coinCreator: s.pool.coinCreator,
    creator: s.pool.creator,
    feeConfig: s.feeConfig,
    quoteMint: s.pool.quoteMint,
    isMayhemMode: s.pool.isMayhemMode,
    creatorFeeBps: s.pool.creatorFeeBps,
  };
}

/** Every account an instruction list names, with its lamports and data, to show a refusal changed nothing. */
function snapshot(node: LocalNode, ixs: readonly TransactionInstruction[]) {
  const keys = new Map<string, PublicKey>();
  for (const ix of ixs) for (const k of ix.keys) keys.set(k.pubkey.toBase58(), k.pubkey);
  return [...keys.values()].map((k) => {
    const a = node.getAccount(k);
    return [k.toBase58(), a ? a.lamports.toString() : null, a ? Buffer.from(a.data).toString("hex") : null];
  });
}

function expectRefused(
  node: LocalNode,
  payer: Keypair,
  ixs: TransactionInstruction[],
  index: number,
  code: number,
): void {
  const before = snapshot(node, ixs);
  const payerBefore = node.getBalance(payer.publicKey);
  const r = send(node, payer, ixs);
  expect(r.err).toEqual({ InstructionError: [index, { Custom: code }] });
  const after = snapshot(node, ixs).map((row) =>
    row[0] === payer.publicKey.toBase58() ? [row[0], (BigInt(row[1]!) + TX_FEE).toString(), row[2]] : row,
  );
  expect(after).toEqual(before);
  expect(node.getBalance(payer.publicKey)).toBe(payerBefore - TX_FEE);
}

describe("pump migrate", () => {
  test("moves a complete curve's SOL (as WSOL) and tokens into the canonical pool, coin creator = curve creator", async () => {
    const node = ammNode();
    const { curve, user, ix, pool } = await migrated(node);
    const curveLamports = node.getBalance(curve.bondingCurve);
    const withdrawBefore = node.getBalance(WITHDRAW_AUTHORITY);
    const r = send(node, user, [ix]);
    expect(r.err).toBeNull();
    const p = PUMP_AMM_SDK.decodePool(accountInfo(node, pool)!);
    expect(p.creator.equals(pumpPoolAuthorityPda(curve.mint))).toBe(true);
    expect(p.coinCreator.equals(curve.creator)).toBe(true);
    expect(p.quoteMint.equals(NATIVE_MINT)).toBe(true);
    expect(p.index).toBe(0);
    const solAmount = REAL_SOL_RESERVES - POOL_MIGRATION_FEE;
    expect(tokenAmount(node, p.poolQuoteTokenAccount)).toBe(solAmount);
    expect(tokenAmount(node, p.poolBaseTokenAccount)).toBe(TOKENS_FOR_MIGRATION);
    expect(tokenAmount(node, curve.curveTokenAccount)).toBe(0n);
    expect(node.getBalance(curve.bondingCurve)).toBe(curveLamports - REAL_SOL_RESERVES);
    const lp = BigInt(p.lpSupply.toString());
    expect(lp * lp <= TOKENS_FOR_MIGRATION * solAmount).toBe(true);
    expect((lp + 1n) * (lp + 1n) > TOKENS_FOR_MIGRATION * solAmount).toBe(true);
    // The fee paid the pool's accounts; the withdraw authority got the rest; the user paid only the fee.
    const rents = [300, 82, 165].map((n) => node.minimumBalanceForRentExemption(n));
    const ataRent2022 = node.getBalance(p.poolBaseTokenAccount);
    const lpAtaRent = node.getBalance(getAssociatedTokenAddressSync(p.lpMint, p.creator, true, TOKEN_2022_PROGRAM_ID));
    const used = rents[0]! + rents[1]! + rents[2]! + ataRent2022 + lpAtaRent;
    expect(node.getBalance(WITHDRAW_AUTHORITY) - withdrawBefore).toBe(POOL_MIGRATION_FEE - used);
    expect(node.getBalance(user.publicKey)).toBe(1_000_000_000n - TX_FEE);
    const c = PUMP_SDK.decodeBondingCurve(accountInfo(node, curve.bondingCurve)!);
    expect(c.complete).toBe(true);
    expect(c.virtualTokenReserves.isZero() && c.realQuoteReserves.isZero()).toBe(true);
    const pumpEvents = events(r, "pump");
    const done = pumpEvents.find((e) => e.name === "completePumpAmmMigrationEvent")!;
    expect((done.data.pool as PublicKey).equals(pool)).toBe(true);
    expect((done.data.solAmount as BN).toString()).toBe(solAmount.toString());
    expect((done.data.mintAmount as BN).toString()).toBe(TOKENS_FOR_MIGRATION.toString());
    expect((done.data.poolMigrationFee as BN).toString()).toBe(POOL_MIGRATION_FEE.toString());
    const created = events(r, "amm").find((e) => e.name === "createPoolEvent")!;
    expect((created.data.coinCreator as PublicKey).equals(curve.creator)).toBe(true);
    expect((created.data.quoteAmountIn as BN).toString()).toBe(solAmount.toString());
    // Idempotent: a second migrate of a migrated curve changes nothing.
    const again = send(node, user, [ix]);
    expect(again.err).toBeNull();
    expect(tokenAmount(node, p.poolQuoteTokenAccount)).toBe(solAmount);
  });

  test("an incomplete curve, a wrong pool PDA, a missing signer and a wrong discriminator are refused", async () => {
    const node = ammNode();
    const { curve, user, ix } = await migrated(node);
    const wrongPool = {
      ...ix,
      keys: ix.keys.map((k, i) => (i === 9 ? { ...k, pubkey: Keypair.generate().publicKey } : k)),
    };
    expectRefused(node, user, [wrongPool as TransactionInstruction], 0, 2006);
    const unsigned = { ...ix, keys: ix.keys.map((k, i) => (i === 5 ? { ...k, isSigner: false } : k)) };
    const feePayer = Keypair.generate();
    node.fund(feePayer.publicKey, 100_000_000n);
    expectRefused(node, feePayer, [unsigned as TransactionInstruction], 0, 3010);
    const badDisc = { ...ix, data: Buffer.from(ix.data).fill(7, 0, 8) };
    expectRefused(node, user, [badDisc as TransactionInstruction], 0, 101);
    const c = PUMP_SDK.decodeBondingCurve(accountInfo(node, curve.bondingCurve)!);
    const { pumpCodecs } = await import("../../src/native/anchor");
    const raw = node.getAccount(curve.bondingCurve)!;
    node.setAccount(curve.bondingCurve, {
      ...raw,
      data: pumpCodecs().pump.encodeAccount("BondingCurve", { ...c, complete: false }, raw.data.length),
    });
    expectRefused(node, user, [ix], 0, 6006);
  });
});

async function poolWithTrader(node: LocalNode) {
  const m = await migrated(node);
  expect(send(node, m.user, [m.ix]).err).toBeNull();
  const trader = Keypair.generate();
  node.fund(trader.publicKey, 50_000_000_000n);
  return { ...m, trader };
}

describe("pump_amm buy and sell", () => {
  test("buy: the SDK's builder buys the base it asked for, fees where the program sends them", async () => {
    const node = ammNode();
    const { pool, trader, curve } = await poolWithTrader(node);
    const s = swapState(node, pool, trader.publicKey);
    const base = new BN("1000000000000");
    const q = buyBaseInput({ ...quoteArgs(s), base });
    const ixs = await PUMP_AMM_SDK.buyBaseInput(s, base, 1);
    const vaultAta = coinCreatorVaultAtaPda(coinCreatorVaultAuthorityPda(curve.creator), NATIVE_MINT, TOKEN_PROGRAM_ID);
    const poolQuoteBefore = tokenAmount(node, s.pool.poolQuoteTokenAccount);
    const lamportsBefore = node.getBalance(trader.publicKey);
    const r = send(node, trader, ixs);
    expect(r.err).toBeNull();
    const ev = events(r, "amm").find((e) => e.name === "buyEvent")!.data;
    const lpFee = BigInt((ev.lpFee as BN).toString());
    const protocolFee = BigInt((ev.protocolFee as BN).toString());
    const creatorFee = BigInt((ev.coinCreatorFee as BN).toString());
    const quoteIn = BigInt(q.internalQuoteAmount.toString());
    expect(BigInt((ev.quoteAmountIn as BN).toString())).toBe(quoteIn);
    expect(quoteIn + lpFee + protocolFee + creatorFee).toBe(BigInt(q.uiQuote.toString()));
    expect(creatorFee > 0n).toBe(true);
    expect(tokenAmount(node, s.userBaseTokenAccount)).toBe(BigInt(base.toString()));
    expect(tokenAmount(node, s.pool.poolQuoteTokenAccount) - poolQuoteBefore).toBe(quoteIn + lpFee);
    expect(tokenAmount(node, vaultAta)).toBe(creatorFee);
    const protocolAta = ev.protocolFeeRecipientTokenAccount as PublicKey;
    expect(tokenAmount(node, protocolAta)).toBe(protocolFee);
    // The trader paid the quote, the fee and the rent of the accounts the buy opened for them.
    const uva = PublicKey.findProgramAddressSync(
      [Buffer.from("user_volume_accumulator"), trader.publicKey.toBuffer()],
      AMM,
    )[0];
    const rent = [s.userBaseTokenAccount, uva, protocolAta, vaultAta]
      .map((k) => node.getBalance(k) - (k.equals(uva) ? 0n : wsolOrTokenAmount(node, k)))
      .reduce((a, b) => a + b, 0n);
    expect(lamportsBefore - node.getBalance(trader.publicKey)).toBe(BigInt(q.uiQuote.toString()) + TX_FEE + rent);
  });

  test("sell: the SDK's builder gets the quote sellBaseInput says, fees out of the pool", async () => {
    const node = ammNode();
    const { pool, trader, curve } = await poolWithTrader(node);
    const s0 = swapState(node, pool, trader.publicKey);
    expect(send(node, trader, await PUMP_AMM_SDK.buyBaseInput(s0, new BN("2000000000000"), 1)).err).toBeNull();
    const s = swapState(node, pool, trader.publicKey);
    const base = new BN("1500000000000");
    const q = sellBaseInput({ ...quoteArgs(s), base });
    const vaultAta = coinCreatorVaultAtaPda(coinCreatorVaultAuthorityPda(curve.creator), NATIVE_MINT, TOKEN_PROGRAM_ID);
    const vaultBefore = tokenAmount(node, vaultAta);
    const lamportsBefore = node.getBalance(trader.publicKey);
    const sellIxs = await PUMP_AMM_SDK.sellBaseInput(s, base, 1);
    const sellIx = sellIxs.find((i) => i.programId.equals(AMM))!;
    const protocolAta = sellIx.keys[10]!.pubkey;
    const protocolAtaExisted = node.getAccount(protocolAta) !== null;
    const r = send(node, trader, sellIxs);
    expect(r.err).toBeNull();
    const ev = events(r, "amm").find((e) => e.name === "sellEvent")!.data;
    expect(BigInt((ev.userQuoteAmountOut as BN).toString())).toBe(BigInt(q.uiQuote.toString()));
    expect(BigInt((ev.quoteAmountOut as BN).toString())).toBe(BigInt(q.internalQuoteAmountOut.toString()));
    expect(tokenAmount(node, vaultAta) - vaultBefore).toBe(BigInt((ev.coinCreatorFee as BN).toString()));
    // The WSOL account the builder opens is closed again: the trader nets the quote less the tx fee
    // and the rent of the protocol fee recipient's WSOL account when the sell opened it.
    const openedRent = protocolAtaExisted ? 0n : node.getBalance(protocolAta) - tokenAmount(node, protocolAta);
    expect(node.getBalance(trader.publicKey) - lamportsBefore).toBe(BigInt(q.uiQuote.toString()) - TX_FEE - openedRent);
  });

  test("slippage, a foreign fee recipient, a missing pool-v2 account and a wrong discriminator are refused", async () => {
    const node = ammNode();
    const { pool, trader } = await poolWithTrader(node);
    const s = swapState(node, pool, trader.publicKey);
    const base = new BN("1000000000000");
    const q = buyBaseInput({ ...quoteArgs(s), base });
    const ixs = await PUMP_AMM_SDK.buyInstructions(s, base, q.uiQuote.subn(1));
    const at = ixs.findIndex((i) => i.programId.equals(AMM));
    expectRefused(node, trader, ixs, at, 6004);
    const good = await PUMP_AMM_SDK.buyInstructions(s, base, q.uiQuote);
    const buyIx = good[at]!;
    const stranger = Keypair.generate().publicKey;
    const foreign = {
      ...buyIx,
      keys: buyIx.keys.map((k, i) =>
        i === 9
          ? { ...k, pubkey: stranger }
          : i === 10
            ? { ...k, pubkey: getAssociatedTokenAddressSync(NATIVE_MINT, stranger, true) }
            : k,
      ),
    };
    expectRefused(node, trader, good.map((ix, i) => (i === at ? foreign : ix)) as TransactionInstruction[], at, 6013);
    const noV2 = { ...buyIx, keys: buyIx.keys.filter((_, i) => i !== 23) };
    expectRefused(node, trader, good.map((ix, i) => (i === at ? noV2 : ix)) as TransactionInstruction[], at, 6062);
    const badDisc = { ...buyIx, data: Buffer.from(buyIx.data).fill(9, 0, 8) };
    expectRefused(node, trader, good.map((ix, i) => (i === at ? badDisc : ix)) as TransactionInstruction[], at, 101);
    const readonlyPool = { ...buyIx, keys: buyIx.keys.map((k, i) => (i === 0 ? { ...k, isWritable: false } : k)) };
    expectRefused(
      node,
      trader,
      good.map((ix, i) => (i === at ? readonlyPool : ix)) as TransactionInstruction[],
      at,
      2000,
    );
  });
});

describe("pump_amm coin creator fees", () => {
  test("collect_coin_creator_fee pays the vault's WSOL to the creator's token account, permissionlessly", async () => {
    const node = ammNode();
    const { pool, trader, curve } = await poolWithTrader(node);
    expect(
      send(
        node,
        trader,
        await PUMP_AMM_SDK.buyBaseInput(swapState(node, pool, trader.publicKey), new BN("3000000000000"), 1),
      ).err,
    ).toBeNull();
    const authority = coinCreatorVaultAuthorityPda(curve.creator);
    const vaultAta = coinCreatorVaultAtaPda(authority, NATIVE_MINT, TOKEN_PROGRAM_ID);
    const accrued = tokenAmount(node, vaultAta);
    expect(accrued > 0n).toBe(true);
    const dest = getAssociatedTokenAddressSync(NATIVE_MINT, curve.creator, true, TOKEN_PROGRAM_ID);
    const payer = Keypair.generate();
    node.fund(payer.publicKey, 1_000_000_000n);
    const ixs = await PUMP_AMM_SDK.collectCoinCreatorFee(
      {
        coinCreator: curve.creator,
        quoteMint: NATIVE_MINT,
        quoteTokenProgram: TOKEN_PROGRAM_ID,
        coinCreatorVaultAuthority: authority,
        coinCreatorVaultAta: vaultAta,
        coinCreatorTokenAccount: dest,
        coinCreatorVaultAtaAccountInfo: accountInfo(node, vaultAta),
        coinCreatorTokenAccountInfo: accountInfo(node, dest),
      },
      payer.publicKey,
    );
    // A coin creator that is a fee-sharing config (owned by pump_fees) cannot collect: 6048.
    const creatorAccount = node.getAccount(curve.creator);
    node.setAccount(curve.creator, {
      lamports: 1_000_000_000n,
      owner: PUMP_FEES,
      executable: false,
      data: new Uint8Array(8),
    });
    expectRefused(node, payer, ixs, ixs.length - 1, 6048);
    if (creatorAccount) node.setAccount(curve.creator, creatorAccount);
    else
      node.setAccount(curve.creator, {
        lamports: 0n,
        owner: PublicKey.default,
        executable: false,
        data: new Uint8Array(0),
      });
    const r = send(node, payer, ixs);
    expect(r.err).toBeNull();
    expect(tokenAmount(node, dest)).toBe(accrued);
    expect(tokenAmount(node, vaultAta)).toBe(0n);
    const ev = events(r, "amm").find((e) => e.name === "collectCoinCreatorFeeEvent")!.data;
    expect(BigInt((ev.coinCreatorFee as BN).toString())).toBe(accrued);
    expect((ev.coinCreatorTokenAccount as PublicKey).equals(dest)).toBe(true);
  });

  test("transfer_creator_fees_to_pump unwraps the vault into pump's creator vault, and skips below the rent", async () => {
    const node = ammNode();
    const { pool, trader, curve } = await poolWithTrader(node);
    const authority = coinCreatorVaultAuthorityPda(curve.creator);
    const vaultAta = coinCreatorVaultAtaPda(authority, NATIVE_MINT, TOKEN_PROGRAM_ID);
    const pumpVault = PublicKey.findProgramAddressSync(
      [Buffer.from("creator-vault"), curve.creator.toBuffer()],
      PUMP,
    )[0];
    const { pumpCodecs } = await import("../../src/native/anchor");
    const disc = Buffer.from(pumpCodecs().pumpAmm.instructionDiscriminator("transfer_creator_fees_to_pump"));
    const ix = (): TransactionInstruction =>
      ({
        programId: AMM,
        data: disc,
        keys: [
          [NATIVE_MINT, false],
          [TOKEN_PROGRAM_ID, false],
          [PublicKey.default, false],
          [new PublicKey("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL"), false],
          [curve.creator, false],
          [authority, true],
          [vaultAta, true],
          [pumpVault, true],
          [PublicKey.findProgramAddressSync([Buffer.from("__event_authority")], AMM)[0], false],
          [AMM, false],
        ].map(([pubkey, isWritable]) => ({
          pubkey: pubkey as PublicKey,
          isWritable: isWritable as boolean,
          isSigner: false,
        })),
      }) as TransactionInstruction;
    // A small buy accrues less than a token account's rent: nothing moves.
    expect(
      send(
        node,
        trader,
        await PUMP_AMM_SDK.buyBaseInput(swapState(node, pool, trader.publicKey), new BN("10000000"), 1),
      ).err,
    ).toBeNull();
    const small = tokenAmount(node, vaultAta);
    expect(small > 0n && small < 2_039_280n).toBe(true);
    expect(send(node, trader, [ix()]).err).toBeNull();
    expect(tokenAmount(node, vaultAta)).toBe(small);
    expect(node.getBalance(pumpVault)).toBe(0n);
    expect(
      send(
        node,
        trader,
        await PUMP_AMM_SDK.buyBaseInput(swapState(node, pool, trader.publicKey), new BN("5000000000000"), 1),
      ).err,
    ).toBeNull();
    const accrued = tokenAmount(node, vaultAta);
    const vaultRent = node.getBalance(vaultAta) - accrued;
    expect(send(node, trader, [ix()]).err).toBeNull();
    expect(node.getBalance(pumpVault)).toBe(accrued);
    expect(tokenAmount(node, vaultAta)).toBe(0n);
    expect(node.getBalance(vaultAta)).toBe(vaultRent);
  });

  test("transfer_creator_fees_to_pump_v2: a shared coin's AMM fees from real buys reach pump's creator vault of the sharing config", async () => {
    const node = ammNode();
    const creator = Keypair.generate();
    node.fund(creator.publicKey, 1_000_000_000n);
    const curve = writeCompleteCurve(node, creator.publicKey);
    const user = Keypair.generate();
    node.fund(user.publicKey, 1_000_000_000n);
    const migrate = await PUMP_SDK.migrateInstruction({
      withdrawAuthority: WITHDRAW_AUTHORITY,
      mint: curve.mint,
      user: user.publicKey,
      tokenProgram: TOKEN_2022_PROGRAM_ID,
    });
    expect(send(node, user, [migrate]).err).toBeNull();
    const pool = canonicalPumpPoolPda(curve.mint);
    const optIn = await PUMP_SDK.createFeeSharingConfig({ creator: creator.publicKey, mint: curve.mint, pool });
    expect(send(node, creator, [optIn]).err).toBeNull();
    const sharingConfig = feeSharingConfigPda(curve.mint);
    expect(PUMP_AMM_SDK.decodePool(accountInfo(node, pool)!).coinCreator.equals(sharingConfig)).toBe(true);

    const trader = Keypair.generate();
    node.fund(trader.publicKey, 50_000_000_000n);
    const buy = await PUMP_AMM_SDK.buyBaseInput(swapState(node, pool, trader.publicKey), new BN("5000000000000"), 1);
    expect(send(node, trader, buy).err).toBeNull();
    const authority = coinCreatorVaultAuthorityPda(sharingConfig);
    const vaultAta = coinCreatorVaultAtaPda(authority, NATIVE_MINT, TOKEN_PROGRAM_ID);
    const accrued = tokenAmount(node, vaultAta);
    expect(accrued > 2_039_280n).toBe(true);
    const pumpVault = PublicKey.findProgramAddressSync(
      [Buffer.from("creator-vault"), sharingConfig.toBuffer()],
      PUMP,
    )[0];
    const pumpVaultBefore = node.getBalance(pumpVault);

    const ix = await PUMP_SDK.transferCreatorFeesToPumpV2({
      payer: trader.publicKey,
      mint: curve.mint,
      quoteMint: NATIVE_MINT,
      quoteTokenProgram: TOKEN_PROGRAM_ID,
    });
    const traderBefore = node.getBalance(trader.publicKey);
    expect(send(node, trader, [ix]).err).toBeNull();
    expect(node.getBalance(pumpVault)).toBe(pumpVaultBefore + accrued);
    expect(tokenAmount(node, vaultAta)).toBe(0n);
    expect(node.getBalance(trader.publicKey)).toBe(traderBefore - TX_FEE);
  });
});
