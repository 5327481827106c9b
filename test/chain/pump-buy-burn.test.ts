/**
 * Buys for burns (curve and pool) and burns: account lists and arguments against the shipped
 * IDLs, the slippage bound, and a real Token-2022 burn executed in LiteSVM.
 */
import { describe, expect, test } from "bun:test";
import { BN } from "@coral-xyz/anchor";
import { GLOBAL_SIZE, PUMP_SDK, getBuyTokenAmountFromSolAmount } from "@pump-fun/pump-sdk";
import { POOL_SIZE } from "@pump-fun/pump-swap-sdk";
import {
  ACCOUNT_SIZE,
  AccountLayout,
  MINT_SIZE,
  MintLayout,
  NATIVE_MINT,
  TOKEN_PROGRAM_ID,
  createAssociatedTokenAccountIdempotentInstruction,
  createInitializeMint2Instruction,
  createMintToInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import { Keypair, PublicKey, SystemProgram, Transaction, type TransactionInstruction } from "@solana/web3.js";
import { LiteSVM } from "litesvm";
import type { AccountSnapshot } from "../../src/chain/ports";
import { createPumpLaunchProgram } from "../../src/chain/pump";
import {
  PUMP_AMM_PROGRAM_ID,
  PUMP_FEE_PROGRAM_ID,
  PUMP_PROGRAM_ID,
  TOKEN_2022_PROGRAM_ID,
  pumpPdas,
} from "../../src/chain/pump/layout";
import {
  AMM_IDL,
  PUMP_IDL,
  ammProgram,
  bondingCurveBytes,
  confirmedTx,
  idlAccountDisc,
  idlInstruction,
  mapReader,
  matchesIdl,
  pumpProgram,
  viewOf,
} from "./support/fixtures";

const SYSTEM = SystemProgram.programId.toBase58();
const snap = (owner: PublicKey, data: Uint8Array, lamports = 1_000_000n): AccountSnapshot => ({
  lamports,
  owner: owner.toBase58(),
  executable: false,
  data,
});

function mintBytes(supply: bigint, decimals = 6): Uint8Array {
  const b = Buffer.alloc(MINT_SIZE);
  MintLayout.encode(
    {
      mintAuthorityOption: 0,
      mintAuthority: PublicKey.default,
      supply,
      decimals,
      isInitialized: true,
      freezeAuthorityOption: 0,
      freezeAuthority: PublicKey.default,
    },
    b,
  );
  return new Uint8Array(b);
}

function tokenAccountBytes(mint: PublicKey, owner: PublicKey, amount: bigint): Uint8Array {
  const b = Buffer.alloc(ACCOUNT_SIZE);
  AccountLayout.encode(
    {
      mint,
      owner,
      amount,
      delegateOption: 0,
      delegate: PublicKey.default,
      state: 1,
      isNativeOption: 0,
      isNative: 0n,
      delegatedAmount: 0n,
      closeAuthorityOption: 0,
      closeAuthority: PublicKey.default,
    },
    b,
  );
  return new Uint8Array(b);
}

const feeRecipient = Keypair.generate().publicKey;
const buybackRecipients = Array.from({ length: 8 }, () => Keypair.generate().publicKey);
/** Global.buyback_fee_recipients: 8 keys after is_cashback_enabled (IDL order; checked against the SDK's decoder below) */
const BUYBACK_RECIPIENTS_OFFSET = 741;
function globalBytes(options: { buyback?: boolean } = {}): Uint8Array {
  const g = Buffer.alloc(GLOBAL_SIZE);
  Buffer.from(idlAccountDisc(PUMP_IDL, "Global")).copy(g);
  g.writeUInt8(1, 8);
  feeRecipient.toBuffer().copy(g, 41);
  g.writeBigUInt64LE(1_073_000_000_000_000n, 73);
  g.writeBigUInt64LE(30_000_000_000n, 81);
  g.writeBigUInt64LE(793_100_000_000_000n, 89);
  g.writeBigUInt64LE(1_000_000_000_000_000n, 97);
  g.writeBigUInt64LE(95n, 105); // protocol fee bps
  g.writeBigUInt64LE(30n, 154); // creator fee bps
  for (let i = 0; i < 7; i++) feeRecipient.toBuffer().copy(g, 162 + 32 * i);
  if (options.buyback !== false)
    for (const [i, k] of buybackRecipients.entries()) k.toBuffer().copy(g, BUYBACK_RECIPIENTS_OFFSET + 32 * i);
  return new Uint8Array(g);
}

describe("buy for a burn on the bonding curve", () => {
  const mint = Keypair.generate().publicKey;
  const creator = Keypair.generate().publicKey;
  const buyer = Keypair.generate().publicKey;

  const setup = (tokenProgram: PublicKey) => {
    const accounts = new Map<string, AccountSnapshot>([
      [mint.toBase58(), snap(tokenProgram, mintBytes(1_000_000_000_000_000n))],
      [pumpPdas.bondingCurve(mint).toBase58(), snap(PUMP_PROGRAM_ID, bondingCurveBytes({ complete: false, creator }))],
      [pumpPdas.global().toBase58(), snap(PUMP_PROGRAM_ID, globalBytes())],
    ]);
    return createPumpLaunchProgram(mapReader(accounts), { random: () => 0 });
  };

  test("buy_exact_sol_in: IDL accounts + 2 remaining, spends exactly the budget, min out bounded by slippage", async () => {
    const launch = setup(TOKEN_2022_PROGRAM_ID);
    const lamports = 1_000_000_000n;
    const plan = await launch.buildBurnBuy(
      { mint: mint.toBase58(), creator: creator.toBase58() },
      buyer,
      lamports,
      300,
    );
    const global = PUMP_SDK.decodeGlobal({
      data: Buffer.from(globalBytes()),
      owner: PUMP_PROGRAM_ID,
      lamports: 0,
      executable: false,
    });
    const curve = PUMP_SDK.decodeBondingCurve({
      data: Buffer.from(bondingCurveBytes({ complete: false, creator })),
      owner: PUMP_PROGRAM_ID,
      lamports: 0,
      executable: false,
    });
    const quoted = BigInt(
      getBuyTokenAmountFromSolAmount({
        global,
        feeConfig: null,
        mintSupply: new BN("1000000000000000"),
        bondingCurve: curve,
        amount: new BN(lamports.toString()),
        quoteMint: NATIVE_MINT,
      }).toString(),
    );
    expect(quoted).toBeGreaterThan(0n);
    expect(plan.minTokenOut).toBe((quoted * 9_700n) / 10_000n);
    // The price impact: the quote against the SDK's quote of a probe of a thousandth, scaled up.
    const probeQuoted = BigInt(
      getBuyTokenAmountFromSolAmount({
        global,
        feeConfig: null,
        mintSupply: new BN("1000000000000000"),
        bondingCurve: curve,
        amount: new BN((lamports / 1_000n).toString()),
        quoteMint: NATIVE_MINT,
      }).toString(),
    );
    const atMarginal = probeQuoted * 1_000n;
    expect(plan.priceImpactBps).toBe(Number(((atMarginal - quoted) * 10_000n) / atMarginal));
    expect(plan.priceImpactBps).toBeGreaterThan(0);

    const [ata, buy] = plan.instructions as [TransactionInstruction, TransactionInstruction];
    expect(ata.keys[1]!.pubkey.equals(getAssociatedTokenAddressSync(mint, buyer, true, TOKEN_2022_PROGRAM_ID))).toBe(
      true,
    );
    matchesIdl(buy, idlInstruction(PUMP_IDL, "buy_exact_sol_in"), {
      global: pumpPdas.global(),
      fee_recipient: feeRecipient,
      mint,
      bonding_curve: pumpPdas.bondingCurve(mint),
      associated_bonding_curve: getAssociatedTokenAddressSync(
        mint,
        pumpPdas.bondingCurve(mint),
        true,
        TOKEN_2022_PROGRAM_ID,
      ),
      associated_user: getAssociatedTokenAddressSync(mint, buyer, true, TOKEN_2022_PROGRAM_ID),
      user: buyer,
      token_program: TOKEN_2022_PROGRAM_ID,
      creator_vault: pumpPdas.creatorVault(creator),
      event_authority: pumpPdas.eventAuthority(),
      fee_program: PUMP_FEE_PROGRAM_ID,
    });
    // PUMP.md §6: 16 IDL accounts + bonding-curve-v2 PDA (read-only) + buyback fee recipient (writable)
    expect(buy.keys.length).toBe(18);
    const v2 = PublicKey.findProgramAddressSync([Buffer.from("bonding-curve-v2"), mint.toBuffer()], PUMP_PROGRAM_ID)[0];
    expect([buy.keys[16]!.pubkey.toBase58(), buy.keys[16]!.isWritable]).toEqual([v2.toBase58(), false]);
    expect(buy.keys[17]!.isWritable).toBe(true);
    const encoded = pumpProgram.coder.instruction.encode("buyExactSolIn", {
      spendableSolIn: new BN(lamports.toString()),
      minTokensOut: new BN(plan.minTokenOut.toString()),
      trackVolume: { 0: false },
    });
    expect(Buffer.from(buy.data).toString("hex")).toBe(encoded.toString("hex"));
  });

  test("the buyback fee recipient comes from Global.buyback_fee_recipients, as the program checks it", async () => {
    const decoded = PUMP_SDK.decodeGlobal({
      data: Buffer.from(globalBytes()),
      owner: PUMP_PROGRAM_ID,
      lamports: 0,
      executable: false,
    });
    expect(decoded.buybackFeeRecipients.map((k) => k.toBase58())).toEqual(buybackRecipients.map((k) => k.toBase58()));
    const token = { mint: mint.toBase58(), creator: creator.toBase58() };
    for (const [r, index] of [
      [0, 0],
      [0.99, 7],
      [0.5, 4],
    ] as const) {
      const accounts = new Map<string, AccountSnapshot>([
        [mint.toBase58(), snap(TOKEN_2022_PROGRAM_ID, mintBytes(1_000_000_000_000_000n))],
        [
          pumpPdas.bondingCurve(mint).toBase58(),
          snap(PUMP_PROGRAM_ID, bondingCurveBytes({ complete: false, creator })),
        ],
        [pumpPdas.global().toBase58(), snap(PUMP_PROGRAM_ID, globalBytes())],
      ]);
      const plan = await createPumpLaunchProgram(mapReader(accounts), { random: () => r }).buildBurnBuy(
        token,
        buyer,
        10_000_000n,
        100,
      );
      const buy = plan.instructions.at(-1)!;
      expect([buy.keys[17]!.pubkey.toBase58(), buy.keys[17]!.isWritable]).toEqual([
        buybackRecipients[index]!.toBase58(),
        true,
      ]);
    }
    // a Global written before the field existed: the SDK's own choice, never the zero key
    const old = new Map<string, AccountSnapshot>([
      [mint.toBase58(), snap(TOKEN_2022_PROGRAM_ID, mintBytes(1_000_000_000_000_000n))],
      [pumpPdas.bondingCurve(mint).toBase58(), snap(PUMP_PROGRAM_ID, bondingCurveBytes({ complete: false, creator }))],
      [pumpPdas.global().toBase58(), snap(PUMP_PROGRAM_ID, globalBytes({ buyback: false }))],
    ]);
    const plan = await createPumpLaunchProgram(mapReader(old), { random: () => 0 }).buildBurnBuy(
      token,
      buyer,
      10_000_000n,
      100,
    );
    expect(plan.instructions.at(-1)!.keys[17]!.pubkey.equals(PublicKey.default)).toBe(false);
  });

  test("a legacy (SPL Token) coin buys through SPL Token", async () => {
    const plan = await setup(TOKEN_PROGRAM_ID).buildBurnBuy(
      { mint: mint.toBase58(), creator: creator.toBase58() },
      buyer,
      10_000_000n,
      100,
    );
    const buy = plan.instructions.at(-1)!;
    expect(buy.keys[8]!.pubkey.equals(TOKEN_PROGRAM_ID)).toBe(true);
  });

  test("refuses nonsense amounts and slippage", async () => {
    const launch = setup(TOKEN_PROGRAM_ID);
    const token = { mint: mint.toBase58(), creator: creator.toBase58() };
    await expect(launch.buildBurnBuy(token, buyer, 0n, 100)).rejects.toThrow();
    await expect(launch.buildBurnBuy(token, buyer, 1_000n, 10_000)).rejects.toThrow();
    await expect(launch.buildBurnBuy(token, buyer, 1_000n, 1.5)).rejects.toThrow();
  });
});

describe("buy for a burn on the PumpSwap pool (migrated)", () => {
  const mint = Keypair.generate().publicKey;
  const creator = Keypair.generate().publicKey;
  const buyer = Keypair.generate().publicKey;
  const poolBase = Keypair.generate().publicKey;
  const poolQuote = Keypair.generate().publicKey;
  const protocolRecipient = Keypair.generate().publicKey;

  test("AMM buy_exact_quote_in: IDL accounts, base out bounded by slippage, spends exactly the budget, WSOL wrapped and closed", async () => {
    const pool = await ammProgram.coder.accounts.encode("pool", {
      poolBump: 255,
      index: 0,
      creator: pumpPdas.poolAuthority(mint),
      baseMint: mint,
      quoteMint: NATIVE_MINT,
      lpMint: Keypair.generate().publicKey,
      poolBaseTokenAccount: poolBase,
      poolQuoteTokenAccount: poolQuote,
      lpSupply: new BN(1),
      coinCreator: creator,
      isMayhemMode: false,
      isCashbackCoin: false,
      virtualQuoteReserves: new BN(0),
      creatorFeeBps: new BN(0),
      canEditCreatorFee: false,
    });
    expect(pool.length).toBeLessThanOrEqual(POOL_SIZE);
    const globalConfig = await ammProgram.coder.accounts.encode("globalConfig", {
      admin: PublicKey.default,
      lpFeeBasisPoints: new BN(20),
      protocolFeeBasisPoints: new BN(5),
      disableFlags: 0,
      protocolFeeRecipients: new Array(8).fill(protocolRecipient),
      coinCreatorFeeBasisPoints: new BN(5),
      adminSetCoinCreatorAuthority: PublicKey.default,
      whitelistPda: PublicKey.default,
      reservedFeeRecipient: protocolRecipient,
      mayhemModeEnabled: false,
      reservedFeeRecipients: new Array(7).fill(protocolRecipient),
      isCashbackEnabled: false,
      buybackFeeRecipients: new Array(8).fill(protocolRecipient),
      buybackBasisPoints: new BN(0),
      boostAuthority: PublicKey.default,
      boostEnabled: false,
      creatorFeeConfigurable: false,
      maxConfigurableCreatorFeeBps: new BN(0),
    });
    const poolAddress = pumpPdas.canonicalPool(mint);
    const accounts = new Map<string, AccountSnapshot>([
      [mint.toBase58(), snap(TOKEN_2022_PROGRAM_ID, mintBytes(1_000_000_000_000_000n))],
      [
        pumpPdas.bondingCurve(mint).toBase58(),
        snap(PUMP_PROGRAM_ID, bondingCurveBytes({ complete: true, creator, realTokenReserves: 0n })),
      ],
      [pumpPdas.global().toBase58(), snap(PUMP_PROGRAM_ID, globalBytes())],
      [poolAddress.toBase58(), snap(PUMP_AMM_PROGRAM_ID, new Uint8Array(pool))],
      ["ADyA8hdefvWN2dbGGWFotbzWxrAvLW83WG6QCVXvJKqw", snap(PUMP_AMM_PROGRAM_ID, new Uint8Array(globalConfig))],
      [poolBase.toBase58(), snap(TOKEN_2022_PROGRAM_ID, tokenAccountBytes(mint, poolAddress, 200_000_000_000_000n))],
      [poolQuote.toBase58(), snap(TOKEN_PROGRAM_ID, tokenAccountBytes(NATIVE_MINT, poolAddress, 85_000_000_000n))],
      [NATIVE_MINT.toBase58(), snap(TOKEN_PROGRAM_ID, mintBytes(0n, 9))],
    ]);
    const launch = createPumpLaunchProgram(mapReader(accounts));
    const lamports = 500_000_000n;
    const plan = await launch.buildBurnBuy(
      { mint: mint.toBase58(), creator: creator.toBase58() },
      buyer,
      lamports,
      500,
    );
    // constant product, fees ignored: an upper bound on what the budget can buy
    const noFeeOut = (200_000_000_000_000n * lamports) / (85_000_000_000n + lamports);
    expect(plan.minTokenOut).toBeGreaterThan(0n);
    expect(plan.minTokenOut).toBeLessThan((noFeeOut * 9_500n) / 10_000n + 1n);
    expect(plan.minTokenOut).toBeGreaterThan((noFeeOut * 9_000n) / 10_000n);

    const buy = plan.instructions.find(
      (ix) =>
        ix.programId.equals(PUMP_AMM_PROGRAM_ID) &&
        Buffer.from(ix.data.subarray(0, 8)).toString("hex") === "c62e1552b4d9e870",
    )!;
    expect(buy).toBeDefined();
    // buy_exact_quote_in shares buy's account list (the SDK's own simulation test swaps only the data)
    matchesIdl(buy, idlInstruction(AMM_IDL, "buy_exact_quote_in"), {
      pool: poolAddress,
      user: buyer,
      base_mint: mint,
      quote_mint: NATIVE_MINT,
      user_base_token_account: getAssociatedTokenAddressSync(mint, buyer, true, TOKEN_2022_PROGRAM_ID),
      user_quote_token_account: getAssociatedTokenAddressSync(NATIVE_MINT, buyer, true, TOKEN_PROGRAM_ID),
      pool_base_token_account: poolBase,
      pool_quote_token_account: poolQuote,
      base_token_program: TOKEN_2022_PROGRAM_ID,
      quote_token_program: TOKEN_PROGRAM_ID,
      coin_creator_vault_ata: pumpPdas.ammCreatorVaultWsolAta(creator),
      coin_creator_vault_authority: pumpPdas.ammCreatorVaultAuthority(creator),
    });
    // byte for byte what the SDK's own program coder encodes: the budget is spent exactly, fees included
    const encoded = ammProgram.coder.instruction.encode("buyExactQuoteIn", {
      spendableQuoteIn: new BN(lamports.toString()),
      minBaseAmountOut: new BN(plan.minTokenOut.toString()),
      trackVolume: { 0: false },
    });
    expect(Buffer.from(buy.data).toString("hex")).toBe(encoded.toString("hex"));
    // no exact-out `buy` is left in the bundle: it would leave the slippage allowance unspent
    expect(
      plan.instructions.some(
        (ix) =>
          ix.programId.equals(PUMP_AMM_PROGRAM_ID) &&
          Buffer.from(ix.data.subarray(0, 8)).toString("hex") === "66063d1201daebea",
      ),
    ).toBe(false);
    // WSOL: wrapped before the buy (exactly the budget), closed after
    const wrap = plan.instructions.find((ix) => ix.programId.toBase58() === SYSTEM)!;
    expect(Buffer.from(wrap.data).readBigUInt64LE(4)).toBe(lamports);
    expect(plan.instructions.at(-1)!.programId.equals(TOKEN_PROGRAM_ID)).toBe(true);
  });
});

describe("burn", () => {
  test("burns on the mint's own program: Token-2022 for create_v2 coins, SPL Token for legacy", async () => {
    const owner = Keypair.generate().publicKey;
    for (const program of [TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID]) {
      const mint = Keypair.generate().publicKey;
      const launch = createPumpLaunchProgram(mapReader(new Map([[mint.toBase58(), snap(program, mintBytes(5n))]])));
      const [burn] = await launch.buildBurn(mint.toBase58(), owner, 1_234n);
      expect(burn!.programId.equals(program)).toBe(true);
      expect(burn!.keys[0]!.pubkey.equals(getAssociatedTokenAddressSync(mint, owner, true, program))).toBe(true);
      // BurnChecked = 15, amount u64, decimals u8
      expect(Buffer.from(burn!.data).toString("hex")).toBe("0f" + "d204000000000000" + "06");
    }
  });

  test("a Token-2022 burn built by the adapter executes and reduces supply (LiteSVM)", async () => {
    const svm = new LiteSVM();
    const payer = Keypair.generate();
    svm.airdrop(payer.publicKey, 10_000_000_000n);
    const mint = Keypair.generate();
    const ata = getAssociatedTokenAddressSync(mint.publicKey, payer.publicKey, false, TOKEN_2022_PROGRAM_ID);
    const send = (ixs: TransactionInstruction[], signers: Keypair[]) => {
      const tx = new Transaction().add(...ixs);
      tx.recentBlockhash = svm.latestBlockhash();
      tx.feePayer = payer.publicKey;
      tx.sign(...signers);
      const result = svm.sendTransaction(tx);
      expect("err" in result ? String(result.err()) : "ok").toBe("ok");
    };
    send(
      [
        SystemProgram.createAccount({
          fromPubkey: payer.publicKey,
          newAccountPubkey: mint.publicKey,
          lamports: Number(svm.minimumBalanceForRentExemption(BigInt(MINT_SIZE))),
          space: MINT_SIZE,
          programId: TOKEN_2022_PROGRAM_ID,
        }),
        createInitializeMint2Instruction(mint.publicKey, 6, payer.publicKey, null, TOKEN_2022_PROGRAM_ID),
        createAssociatedTokenAccountIdempotentInstruction(
          payer.publicKey,
          ata,
          payer.publicKey,
          mint.publicKey,
          TOKEN_2022_PROGRAM_ID,
        ),
        createMintToInstruction(mint.publicKey, ata, payer.publicKey, 1_000_000n, [], TOKEN_2022_PROGRAM_ID),
      ],
      [payer, mint],
    );
    const mintAccount = svm.getAccount(mint.publicKey)!;
    const launch = createPumpLaunchProgram(
      mapReader(new Map([[mint.publicKey.toBase58(), snap(mintAccount.owner, mintAccount.data)]])),
    );
    send(await launch.buildBurn(mint.publicKey.toBase58(), payer.publicKey, 400_000n), [payer]);
    const after = MintLayout.decode(svm.getAccount(mint.publicKey)!.data);
    expect(after.supply).toBe(600_000n);
    expect(AccountLayout.decode(svm.getAccount(ata)!.data).amount).toBe(600_000n);
  });
});

describe("create for the launch page (buildCreate)", () => {
  const mint = Keypair.generate().publicKey;
  const creator = Keypair.generate().publicKey;
  const deployer = Keypair.generate().publicKey;
  const params = {
    mint: mint.toBase58(),
    creator: creator.toBase58(),
    deployer: deployer.toBase58(),
    name: "Name",
    symbol: "SYM",
    uri: "https://example.test/m.json",
    firstBuyLamports: 0n,
  };
  const launch = createPumpLaunchProgram(
    mapReader(new Map([[pumpPdas.global().toBase58(), snap(PUMP_PROGRAM_ID, globalBytes())]])),
    { random: () => 0 },
  );

  test("create_v2 byte-identical to the SDK, and what verifyCreate accepts afterwards", async () => {
    const transactions = await launch.buildCreate(params);
    expect(transactions.length).toBe(1);
    const ixs = transactions[0]!;
    expect(ixs.length).toBe(1);
    const sdk = await PUMP_SDK.createV2Instruction({
      mint,
      name: "Name",
      symbol: "SYM",
      uri: params.uri,
      creator,
      user: deployer,
      mayhemMode: false,
    });
    expect(ixs[0]!.keys.map((k) => [k.pubkey.toBase58(), k.isSigner, k.isWritable])).toEqual(
      sdk.keys.map((k) => [k.pubkey.toBase58(), k.isSigner, k.isWritable]),
    );
    expect(Buffer.from(ixs[0]!.data).toString("hex")).toBe(Buffer.from(sdk.data).toString("hex"));
    matchesIdl(ixs[0]!, idlInstruction(PUMP_IDL, "create_v2"), {
      mint,
      user: deployer,
      token_program: TOKEN_2022_PROGRAM_ID,
    });
    // the creator is named, not a signer (PUMP.md §2)
    expect(ixs[0]!.keys.some((k) => k.isSigner && k.pubkey.equals(creator))).toBe(false);
    const verified = launch.verifyCreate(confirmedTx({ instructions: [viewOf(ixs[0]!)] }), {
      mint: params.mint,
      creator: params.creator,
      uri: params.uri,
    });
    expect(verified.ok && verified.create.deployer).toBe(deployer.toBase58());
  });

  test("with a first buy: the deployer's Token-2022 ATA, then buy_exact_sol_in paying fees to our creator's vault", async () => {
    const transactions = await launch.buildCreate({ ...params, firstBuyLamports: 250_000_000n });
    expect(transactions.length).toBe(1);
    const ixs = transactions[0]!;
    expect(ixs.length).toBe(3);
    const buy = ixs[2]!;
    matchesIdl(buy, idlInstruction(PUMP_IDL, "buy_exact_sol_in"), {
      mint,
      user: deployer,
      token_program: TOKEN_2022_PROGRAM_ID,
      creator_vault: pumpPdas.creatorVault(creator),
      associated_user: getAssociatedTokenAddressSync(mint, deployer, true, TOKEN_2022_PROGRAM_ID),
    });
    const args = (
      pumpProgram.coder.instruction as unknown as {
        decode(d: Buffer): { data: { spendableSolIn: BN; minTokensOut: BN } };
      }
    ).decode(Buffer.from(buy.data));
    expect(args.data.spendableSolIn.toString()).toBe("250000000");
    expect(BigInt(args.data.minTokensOut.toString())).toBeGreaterThan(0n);
  });

  test("refuses values the program would reject", async () => {
    await expect(launch.buildCreate({ ...params, symbol: "FOURTEENCHARSX" })).rejects.toThrow();
    await expect(launch.buildCreate({ ...params, uri: "x".repeat(201) })).rejects.toThrow();
  });
});
