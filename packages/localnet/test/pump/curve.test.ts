/**
 * pump's bonding curve as the local chain emulates it, driven by pump-sdk 2.0.0's own builders:
 * create_v2, buy, buy_exact_sol_in, sell and collect_creator_fee do what the SDK's math says to
 * the lamport, emit the events its decoders read, complete the curve on the last token, and refuse
 * a wrong account list, signer or discriminator with the program's code, changing nothing but the fee.
 */
import { describe, expect, test } from "bun:test";
import {
  GLOBAL_PDA,
  GLOBAL_VOLUME_ACCUMULATOR_PDA,
  PUMP_FEE_CONFIG_PDA,
  PUMP_FEE_PROGRAM_ID,
  PUMP_PROGRAM_ID,
  PUMP_SDK,
  bondingCurvePda,
  creatorVaultPda,
  getBuySolAmountFromTokenAmount,
  getBuyTokenAmountFromSolAmount,
  getPumpProgram,
  getSellSolAmountFromTokenAmount,
  newBondingCurve,
  userVolumeAccumulatorPda,
} from "@pump-fun/pump-sdk";
import { TOKEN_2022_PROGRAM_ID } from "@solana/spl-token";
import { Connection, Keypair, type PublicKey, type TransactionInstruction } from "@solana/web3.js";
import type { LocalNode } from "../../src/node";
import {
  SOL,
  big,
  bn,
  createCoin,
  eventBody,
  pumpEvents,
  snapshot,
  state,
  tokenAmount,
  userAta,
  type Coin,
} from "./curve-support";
import { accountInfo, pumpNode, send } from "./helpers";

const PROGRAM = getPumpProgram(new Connection("http://127.0.0.1:1"));
const disc = (name: string) => PROGRAM.idl.events!.find((e) => e.name === name)!.discriminator;
const RENT_0 = 890_880n;

/** BN and keys as strings, so decoded accounts compare by value. */
const plain = (o: object) =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === "object" && v !== null ? v.toString() : v]));
const TX_FEE = 5_000n;

async function buyIxs(
  c: Coin,
  solBudget: bigint,
  slippage = 1,
): Promise<{ ixs: TransactionInstruction[]; tokens: bigint }> {
  const s = state(c.node, c.mint);
  const tokens = getBuyTokenAmountFromSolAmount({
    global: s.global,
    feeConfig: s.feeConfig,
    mintSupply: s.global.tokenTotalSupply,
    bondingCurve: s.curve,
    amount: bn(solBudget),
    quoteMint: s.curve.quoteMint,
  });
  const ixs = await PUMP_SDK.buyInstructions({
    global: s.global,
    bondingCurveAccountInfo: accountInfo(c.node, c.curve)!,
    bondingCurve: s.curve,
    associatedUserAccountInfo: accountInfo(c.node, userAta(c.mint, c.user.publicKey)),
    mint: c.mint,
    user: c.user.publicKey,
    amount: tokens,
    solAmount: bn(solBudget),
    slippage,
    tokenProgram: TOKEN_2022_PROGRAM_ID,
  });
  return { ixs, tokens: big(tokens) };
}

/** The SDK's buy price of `tokens` on the curve as it is now (fees included). */
function sdkBuyCost(c: Coin, tokens: bigint): bigint {
  const s = state(c.node, c.mint);
  return big(
    getBuySolAmountFromTokenAmount({
      global: s.global,
      feeConfig: s.feeConfig,
      mintSupply: s.global.tokenTotalSupply,
      bondingCurve: s.curve,
      amount: bn(tokens),
      quoteMint: s.curve.quoteMint,
    }),
  );
}

async function sellIxs(c: Coin, tokens: bigint, minSol: bigint): Promise<TransactionInstruction[]> {
  const s = state(c.node, c.mint);
  return PUMP_SDK.sellInstructions({
    global: s.global,
    bondingCurveAccountInfo: accountInfo(c.node, c.curve)!,
    bondingCurve: s.curve,
    mint: c.mint,
    user: c.user.publicKey,
    amount: bn(tokens),
    solAmount: bn(minSol),
    slippage: 0,
    tokenProgram: TOKEN_2022_PROGRAM_ID,
    mayhemMode: false,
  });
}

/** The pump instruction among `ixs` (the SDK may prepend an ATA create). */
const pumpIx = (ixs: TransactionInstruction[]) => ixs.find((ix) => ix.programId.equals(PUMP_PROGRAM_ID))!;

function exactSolInData(spendable: bigint, minTokens: bigint, trackVolume: boolean): Buffer {
  return PROGRAM.coder.instruction.encode("buyExactSolIn", {
    spendableSolIn: bn(spendable),
    minTokensOut: bn(minTokens),
    trackVolume: [trackVolume],
  });
}

/**
 * Sends `ixs` (paid by `payer`) and expects the pump instruction at `index` refused with `code`;
 * every account the instructions name is as it was but the payer, who paid the fee.
 */
function expectRefused(
  node: LocalNode,
  payer: Keypair,
  ixs: TransactionInstruction[],
  code: number,
  signers: Keypair[] = [],
): void {
  const index = ixs.findIndex((ix) => ix.programId.equals(PUMP_PROGRAM_ID));
  const before = snapshot(node, ixs);
  const payerBefore = node.getBalance(payer.publicKey);
  const r = send(node, payer, ixs, signers);
  expect(r.err).toEqual({ InstructionError: [index, { Custom: code }] });
  expect(node.getBalance(payer.publicKey)).toBe(payerBefore - TX_FEE * BigInt(1 + signers.length));
  const after = snapshot(node, ixs);
  for (const [key, value] of before) if (key !== payer.publicKey.toBase58()) expect(after.get(key)).toBe(value);
}

describe("pump bonding curve, emulated", () => {
  test("genesis holds Global, pump's FeeConfig and the volume accumulator as the SDK decodes them", () => {
    const node = pumpNode();
    const global = PUMP_SDK.decodeGlobal(accountInfo(node, GLOBAL_PDA)!);
    expect(node.getAccount(GLOBAL_PDA)!.owner.equals(PUMP_PROGRAM_ID)).toBe(true);
    expect(big(global.initialVirtualTokenReserves)).toBe(1_073_000_000_000_000n);
    expect(big(global.initialVirtualSolReserves)).toBe(30n * SOL);
    expect(big(global.initialRealTokenReserves)).toBe(793_100_000_000_000n);
    expect(big(global.tokenTotalSupply)).toBe(1_000_000_000_000_000n);
    expect(global.createV2Enabled).toBe(true);
    expect(global.mayhemModeEnabled).toBe(false);
    expect(global.feeRecipients.length).toBe(7);
    const feeConfig = PUMP_SDK.decodeFeeConfig(accountInfo(node, PUMP_FEE_CONFIG_PDA)!);
    expect(node.getAccount(PUMP_FEE_CONFIG_PDA)!.owner.equals(PUMP_FEE_PROGRAM_ID)).toBe(true);
    const first = feeConfig.feeTiers[0]!.fees;
    expect([big(first.lpFeeBps), big(first.protocolFeeBps), big(first.creatorFeeBps)]).toEqual([0n, 95n, 30n]);
    expect(feeConfig.feeTiers.length).toBe(25);
    const gva = PUMP_SDK.decodeGlobalVolumeAccumulator(accountInfo(node, GLOBAL_VOLUME_ACCUMULATOR_PDA)!);
    expect(big(gva.secondsInADay)).toBe(86_400n);
  });

  test("create_v2 makes the Token-2022 coin with its metadata, the curve holding the supply, and CreateEvent", async () => {
    const c = await createCoin();
    const { node, mint, creator, user, createRecord } = c;
    expect(createRecord.err).toBeNull();
    const mintAccount = node.getAccount(mint)!;
    expect(mintAccount.owner.equals(TOKEN_2022_PROGRAM_ID)).toBe(true);
    const mintData = Buffer.from(mintAccount.data);
    expect(mintData.readUInt32LE(0)).toBe(0); // mint authority revoked
    expect(mintData.readBigUInt64LE(36)).toBe(1_000_000_000_000_000n);
    expect(mintData[44]).toBe(6);
    for (const text of ["Local Coin", "LOCAL", "https://example.org/local.json"])
      expect(mintData.includes(Buffer.from(text))).toBe(true);
    const curveAta = userAta(mint, c.curve);
    expect(tokenAmount(node, curveAta)).toBe(1_000_000_000_000_000n);
    const { global, curve } = state(node, mint);
    expect(node.getAccount(c.curve)!.data.length).toBe(151);
    expect(plain(curve)).toEqual(plain({ ...newBondingCurve(global), creator }));
    // The user paid the mint, the curve and its token account, and the fee: nothing else.
    const rents = [mint, c.curve, curveAta].map((k) => node.getBalance(k)).reduce((a, b) => a + b, 0n);
    expect(node.getBalance(user.publicKey)).toBe(1_000n * SOL - rents - 2n * TX_FEE);
    const { inner, logged } = pumpEvents(createRecord);
    expect(inner).toEqual(logged);
    const event = PUMP_SDK.decodeCreateEventBc(eventBody(inner, disc("createEvent")));
    expect(event.mint.equals(mint)).toBe(true);
    expect(event.creator.equals(creator)).toBe(true);
    expect(event.user.equals(user.publicKey)).toBe(true);
    expect(event.bondingCurve.equals(bondingCurvePda(mint))).toBe(true);
    expect(event.tokenProgram.equals(TOKEN_2022_PROGRAM_ID)).toBe(true);
    expect(event.uri).toBe("https://example.org/local.json");
    expect(big(event.virtualTokenReserves)).toBe(1_073_000_000_000_000n);
  });

  test("buy from the SDK moves what its math says to the lamport and emits TradeEvent", async () => {
    const c = await createCoin();
    const { node, user, mint, creator } = c;
    const { ixs, tokens } = await buyIxs(c, SOL);
    const cost = sdkBuyCost(c, tokens);
    const before = state(node, mint).curve;
    const userBefore = node.getBalance(user.publicKey);
    const curveBefore = node.getBalance(c.curve);
    const buy = pumpIx(ixs);
    const feeRecipient = buy.keys[1]!.pubkey;
    const buyback = buy.keys[17]!.pubkey;
    const recipientBefore = node.getBalance(feeRecipient);
    const buybackBefore = node.getBalance(buyback);
    const r = send(node, user, ixs);
    expect(r.err).toBeNull();
    expect(tokenAmount(node, userAta(mint, user.publicKey))).toBe(tokens);
    const event = PUMP_SDK.decodeTradeEventBc(eventBody(pumpEvents(r).inner, disc("tradeEvent")));
    const solAmount = big(event.solAmount);
    expect(solAmount + big(event.fee) + big(event.creatorFee)).toBe(cost);
    expect(big(event.feeBasisPoints)).toBe(95n);
    expect(big(event.creatorFeeBasisPoints)).toBe(30n);
    expect(big(event.creatorFee)).toBe((solAmount * 30n + 9_999n) / 10_000n);
    expect(big(event.fee)).toBe((solAmount * 95n + 9_999n) / 10_000n);
    expect(big(event.buybackFee)).toBe(big(event.fee) / 2n);
    expect(node.getBalance(feeRecipient) - recipientBefore).toBe(big(event.fee) - big(event.buybackFee));
    expect(node.getBalance(buyback) - buybackBefore).toBe(big(event.buybackFee));
    // The vault is made rent-exempt by the buyer, so the whole creator fee stays collectable.
    expect(node.getBalance(creatorVaultPda(creator))).toBe(RENT_0 + big(event.creatorFee));
    expect(node.getBalance(c.curve) - curveBefore).toBe(solAmount);
    const uva = userVolumeAccumulatorPda(user.publicKey);
    const uvaRent = node.getBalance(uva);
    expect(node.getAccount(uva)!.data.length).toBe(137);
    const ataRent = node.getBalance(userAta(mint, user.publicKey));
    expect(userBefore - node.getBalance(user.publicKey)).toBe(cost + RENT_0 + uvaRent + ataRent + TX_FEE);
    const volume = PUMP_SDK.decodeUserVolumeAccumulator(accountInfo(node, uva)!);
    expect(big(volume.currentSolVolume)).toBe(solAmount);
    const after = state(node, mint).curve;
    expect(big(after.virtualTokenReserves)).toBe(big(before.virtualTokenReserves) - tokens);
    expect(big(after.virtualQuoteReserves)).toBe(big(before.virtualQuoteReserves) + solAmount);
    expect(big(after.realQuoteReserves)).toBe(solAmount);
    expect(event.isBuy).toBe(true);
    expect(event.ixName).toBe("buy");
    expect(event.user.equals(user.publicKey)).toBe(true);
    expect(event.creator.equals(creator)).toBe(true);
    expect(big(event.virtualTokenReserves)).toBe(big(after.virtualTokenReserves));
    expect(big(event.timestamp)).toBeGreaterThan(0n);
    expect(pumpEvents(r).logged).toEqual(pumpEvents(r).inner);
    expect(r.computeUnits).toBeGreaterThan(30_000n);
  });

  test("buy_exact_sol_in spends at most the budget for the IDL's quote; sell pays the SDK's quote", async () => {
    const c = await createCoin();
    const { node, user, mint } = c;
    const budget = 2n * SOL;
    const { ixs } = await buyIxs(c, budget);
    const s = state(node, mint);
    const rates = { p: 95n, c: 30n };
    let net = (budget * 10_000n) / (10_000n + rates.p + rates.c);
    const fees = (net * rates.p + 9_999n) / 10_000n + (net * rates.c + 9_999n) / 10_000n;
    if (net + fees > budget) net -= net + fees - budget;
    const expected = ((net - 1n) * big(s.curve.virtualTokenReserves)) / (big(s.curve.virtualQuoteReserves) + net - 1n);
    pumpIx(ixs).data = exactSolInData(budget, expected, false);
    const cost = sdkBuyCost(c, expected);
    const userBefore = node.getBalance(user.publicKey);
    const r = send(node, user, ixs);
    expect(r.err).toBeNull();
    expect(tokenAmount(node, userAta(mint, user.publicKey))).toBe(expected);
    expect(cost).toBeLessThanOrEqual(budget);
    const rents =
      node.getBalance(userVolumeAccumulatorPda(user.publicKey)) + node.getBalance(userAta(mint, user.publicKey));
    expect(userBefore - node.getBalance(user.publicKey)).toBe(cost + RENT_0 + rents + TX_FEE);
    const event = PUMP_SDK.decodeTradeEventBc(eventBody(pumpEvents(r).inner, disc("tradeEvent")));
    expect(event.ixName).toBe("buy_exact_sol_in");
    expect(event.trackVolume).toBe(false);

    // Sell half back at the SDK's quote, with no slippage allowed.
    const sold = expected / 2n;
    const after = state(node, mint);
    const quote = big(
      getSellSolAmountFromTokenAmount({
        global: after.global,
        feeConfig: after.feeConfig,
        mintSupply: after.global.tokenTotalSupply,
        bondingCurve: after.curve,
        amount: bn(sold),
      }),
    );
    const sellBefore = node.getBalance(user.publicKey);
    const vaultBefore = node.getBalance(creatorVaultPda(c.creator));
    const sale = send(node, user, await sellIxs(c, sold, quote));
    expect(sale.err).toBeNull();
    expect(node.getBalance(user.publicKey) - sellBefore).toBe(quote - TX_FEE);
    expect(tokenAmount(node, userAta(mint, user.publicKey))).toBe(expected - sold);
    const sellEvent = PUMP_SDK.decodeTradeEventBc(eventBody(pumpEvents(sale).inner, disc("tradeEvent")));
    expect(sellEvent.isBuy).toBe(false);
    expect(sellEvent.ixName).toBe("sell");
    expect(big(sellEvent.solAmount) - big(sellEvent.fee) - big(sellEvent.creatorFee)).toBe(quote);
    expect(node.getBalance(creatorVaultPda(c.creator)) - vaultBefore).toBe(big(sellEvent.creatorFee));
  });

  test("slippage is refused with the IDL's codes and changes nothing but the fee", async () => {
    const c = await createCoin();
    const { node, user, mint } = c;
    const { ixs, tokens } = await buyIxs(c, SOL, 0);
    // max_sol_cost one lamport short of the price: TooMuchSolRequired.
    const short = pumpIx(ixs);
    short.data = PROGRAM.coder.instruction.encode("buy", {
      amount: bn(tokens),
      maxSolCost: bn(sdkBuyCost(c, tokens) - 1n),
      trackVolume: [true],
    });
    expectRefused(node, user, ixs, 6002);
    pumpIx(ixs).data = exactSolInData(SOL, tokens * 2n, true);
    expectRefused(node, user, ixs, 6042);
    pumpIx(ixs).data = PROGRAM.coder.instruction.encode("buy", {
      amount: bn(tokens),
      maxSolCost: bn(sdkBuyCost(c, tokens)),
      trackVolume: [true],
    });
    expect(send(node, user, ixs).err).toBeNull();
    const s = state(node, mint);
    const quote = getSellSolAmountFromTokenAmount({
      global: s.global,
      feeConfig: s.feeConfig,
      mintSupply: s.global.tokenTotalSupply,
      bondingCurve: s.curve,
      amount: bn(tokens),
    });
    expectRefused(node, user, await sellIxs(c, tokens, big(quote) + 1n), 6003);
  });

  test("the buy that takes the last real token completes the curve; trades after it are refused (6005)", async () => {
    const c = await createCoin();
    const { node, user, mint } = c;
    const { ixs } = await buyIxs(c, 100n * SOL, 10);
    const real = big(state(node, mint).curve.realTokenReserves);
    const price = sdkBuyCost(c, real);
    pumpIx(ixs).data = PROGRAM.coder.instruction.encode("buy", {
      amount: bn(real + 1_000_000n),
      maxSolCost: bn(price),
      trackVolume: [false],
    });
    const r = send(node, user, ixs);
    expect(r.err).toBeNull();
    expect(tokenAmount(node, userAta(mint, user.publicKey))).toBe(real);
    const curve = state(node, mint).curve;
    expect(curve.complete).toBe(true);
    expect(big(curve.realTokenReserves)).toBe(0n);
    const { inner } = pumpEvents(r);
    const complete = PUMP_SDK.decodeCompleteEventBc(eventBody(inner, disc("completeEvent")));
    expect(complete.mint.equals(mint)).toBe(true);
    expect(complete.bondingCurve.equals(c.curve)).toBe(true);
    expect(complete.user.equals(user.publicKey)).toBe(true);
    pumpIx(ixs).data = exactSolInData(SOL, 1n, false);
    expectRefused(node, user, ixs, 6005);
    expectRefused(node, user, await sellIxs(c, 1_000_000n, 0n), 6005);
  });

  test("collect_creator_fee pays the vault above its rent to the creator, permissionless; a sharing config is refused (6049)", async () => {
    const c = await createCoin();
    const { node, user, creator } = c;
    expect(send(node, user, (await buyIxs(c, 3n * SOL)).ixs).err).toBeNull();
    const vault = creatorVaultPda(creator);
    const accrued = node.getBalance(vault) - RENT_0;
    expect(accrued).toBeGreaterThan(0n);
    const stranger = Keypair.generate();
    node.fund(stranger.publicKey, SOL);
    const collect = await PROGRAM.methods.collectCreatorFee().accountsPartial({ creator }).instruction();
    const r = send(node, stranger, [collect]);
    expect(r.err).toBeNull();
    expect(node.getBalance(creator)).toBe(accrued);
    expect(node.getBalance(vault)).toBe(RENT_0);
    const event = PUMP_SDK.decodeCollectCreatorFeeEventBc(
      eventBody(pumpEvents(r).inner, disc("collectCreatorFeeEvent")),
    );
    expect(event.creator.equals(creator)).toBe(true);
    expect(big(event.creatorFee)).toBe(accrued);
    expect(pumpEvents(r).logged).toEqual(pumpEvents(r).inner);

    const sharing = Keypair.generate().publicKey;
    node.setAccount(sharing, {
      lamports: 2_000_000n,
      owner: PUMP_FEE_PROGRAM_ID,
      executable: false,
      data: new Uint8Array(8),
    });
    node.fund(creatorVaultPda(sharing), 5_000_000n);
    const shared = await PROGRAM.methods.collectCreatorFee().accountsPartial({ creator: sharing }).instruction();
    expectRefused(node, stranger, [shared], 6049);
  });

  test("a wrong account list, a missing signer or an unknown discriminator is refused with the program's code", async () => {
    const c = await createCoin();
    const { node, user } = c;
    const other = await createCoin(node);
    const fresh = async () => (await buyIxs(c, SOL)).ixs;
    const mutate = async (f: (ix: TransactionInstruction) => void) => {
      const ixs = await fresh();
      f(pumpIx(ixs));
      return ixs;
    };
    const setKey = (i: number, pubkey: PublicKey) => (ix: TransactionInstruction) => {
      ix.keys[i] = { ...ix.keys[i]!, pubkey };
    };
    // Another mint's curve: seeds of bonding_curve (index 3) do not match the mint.
    expectRefused(node, user, await mutate(setKey(3, other.curve)), 2006);
    // Another creator's vault.
    expectRefused(node, user, await mutate(setKey(9, creatorVaultPda(other.creator))), 2006);
    // fee_recipient and buyback recipient swapped.
    expectRefused(
      node,
      user,
      await mutate((ix) => {
        const fee = ix.keys[1]!;
        ix.keys[1] = { ...ix.keys[17]!, isWritable: true };
        ix.keys[17] = fee;
      }),
      6000,
    );
    // A fee recipient that is not one of Global's.
    expectRefused(node, user, await mutate(setKey(1, Keypair.generate().publicKey)), 6000);
    // The IDL's writable bonding curve passed read-only.
    expectRefused(
      node,
      user,
      await mutate((ix) => {
        ix.keys[3] = { ...ix.keys[3]!, isWritable: false };
      }),
      2000,
    );
    // Remaining accounts: a wrong bonding-curve-v2, a buyback recipient not in Global, none at all.
    expectRefused(node, user, await mutate(setKey(16, other.curve)), 6074);
    expectRefused(node, user, await mutate(setKey(17, Keypair.generate().publicKey)), 6057);
    expectRefused(node, user, await mutate((ix) => void ix.keys.splice(16)), 6074);
    // Too few accounts.
    expectRefused(node, user, await mutate((ix) => void ix.keys.splice(10)), 3005);
    // The user does not sign (another wallet pays).
    const payer = Keypair.generate();
    node.fund(payer.publicKey, SOL);
    const unsigned = pumpIx(await fresh());
    unsigned.keys[6] = { ...unsigned.keys[6]!, isSigner: false };
    expectRefused(node, payer, [unsigned], 3010);
    // An unknown discriminator.
    expectRefused(
      node,
      user,
      await mutate((ix) => {
        ix.data[0] = ix.data[0]! ^ 0xff;
      }),
      101,
    );
    // collect_creator_fee with another creator's vault.
    const collect = await PROGRAM.methods.collectCreatorFee().accountsPartial({ creator: c.creator }).instruction();
    collect.keys[1] = { ...collect.keys[1]!, pubkey: creatorVaultPda(other.creator) };
    expectRefused(node, user, [collect], 2006);
    // And the untouched list is accepted.
    expect(send(node, user, await fresh()).err).toBeNull();
  });

  test("legacy create (Metaplex) is refused as not emulated, changing nothing but the fee", async () => {
    const node = pumpNode();
    const user = Keypair.generate();
    node.fund(user.publicKey, SOL);
    const mint = Keypair.generate();
    const ix = await PUMP_SDK.createInstruction({
      mint: mint.publicKey,
      name: "Old",
      symbol: "OLD",
      uri: "https://example.org/old.json",
      creator: user.publicKey,
      user: user.publicKey,
    });
    expectRefused(node, user, [ix], 101, [mint]);
    expect(send(node, user, [ix], [mint]).logs).toContain(`Program log: create is not emulated by the local chain`);
  });
});
