/**
 * Golden tests: every instruction the pump adapter builds matches the discriminators and account
 * orders of the IDLs shipped in @pump-fun/pump-sdk / @pump-fun/pump-swap-sdk and of PUMP.md, and
 * the decoders read IDL-encoded fixtures correctly.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { BN } from "@coral-xyz/anchor";
import { PUMP_SDK } from "@pump-fun/pump-sdk";
import { PUMP_AMM_SDK } from "@pump-fun/pump-swap-sdk";
import { NATIVE_MINT, TOKEN_PROGRAM_ID } from "@solana/spl-token";
import { Keypair, PublicKey, SystemProgram } from "@solana/web3.js";
import {
  DISC,
  PUMP_AMM_PROGRAM_ID,
  PUMP_FEE_PROGRAM_ID,
  PUMP_PROGRAM_ID,
  TOKEN_2022_PROGRAM_ID,
  collectCoinCreatorFeeInstruction,
  collectCreatorFeeInstruction,
  collectCreatorFeeV2Instruction,
  collectPoolIntoCreatorInstructions,
  decodeBondingCurve,
  decodeCreateArgs,
  decodeMinimumDistributableFee,
  decodeSharingConfig,
  distributeCreatorFeesInstruction,
  getMinimumDistributableFeeInstruction,
  pumpPdas,
  transferCreatorFeesToPumpInstruction,
  unknownLayout,
} from "../../src/chain/pump/layout";
import { createPumpLaunchProgram } from "../../src/chain/pump";
import {
  AMM_IDL,
  PUMP_IDL,
  ammProgram,
  bondingCurveBytes,
  confirmedTx,
  curveEventIx,
  idlAccountDisc,
  idlEventDisc,
  idlInstruction,
  mapReader,
  minimumDistributableReturn,
  poolEventIx,
  pumpProgram,
  viewOf,
  matchesIdl,
  poolBytes,
  sameInstruction,
  sharingConfigBytes,
} from "./support/fixtures";

const hex = (b: Uint8Array | number[]) => Buffer.from(Uint8Array.from(b)).toString("hex");
const anchorDisc = (preimage: string) => createHash("sha256").update(preimage).digest().subarray(0, 8).toString("hex");

describe("discriminators", () => {
  test("match the shipped IDLs, PUMP.md and Anchor's sha256 rule", () => {
    const cases: [Uint8Array, number[] | Uint8Array, string, string][] = [
      [DISC.create, idlInstruction(PUMP_IDL, "create").discriminator, "global:create", "181ec828051c0777"],
      [DISC.createV2, idlInstruction(PUMP_IDL, "create_v2").discriminator, "global:create_v2", "d6904cec5f8b31b4"],
      [
        DISC.collectCreatorFee,
        idlInstruction(PUMP_IDL, "collect_creator_fee").discriminator,
        "global:collect_creator_fee",
        "1416567bc61cdb84",
      ],
      [
        DISC.collectCoinCreatorFee,
        idlInstruction(AMM_IDL, "collect_coin_creator_fee").discriminator,
        "global:collect_coin_creator_fee",
        "a039592ab58b2b42",
      ],
      [DISC.buy, idlInstruction(PUMP_IDL, "buy").discriminator, "global:buy", "66063d1201daebea"],
      [
        DISC.buyExactSolIn,
        idlInstruction(PUMP_IDL, "buy_exact_sol_in").discriminator,
        "global:buy_exact_sol_in",
        "38fc74089edfcd5f",
      ],
      [
        DISC.collectCreatorFeeEvent,
        idlEventDisc(PUMP_IDL, "CollectCreatorFeeEvent"),
        "event:CollectCreatorFeeEvent",
        "7a027f010ebf0caf",
      ],
      [
        DISC.collectCoinCreatorFeeEvent,
        idlEventDisc(AMM_IDL, "CollectCoinCreatorFeeEvent"),
        "event:CollectCoinCreatorFeeEvent",
        "e8f5c2eeeada3a59",
      ],
      [DISC.createEvent, idlEventDisc(PUMP_IDL, "CreateEvent"), "event:CreateEvent", "1b72a94ddeeb6376"],
      [DISC.bondingCurveAccount, idlAccountDisc(PUMP_IDL, "BondingCurve"), "account:BondingCurve", "17b7f83760d8ac60"],
    ];
    for (const [ours, idl, preimage, pumpMd] of cases) {
      expect([preimage, hex(ours)]).toEqual([preimage, hex(idl)]);
      expect([preimage, hex(ours)]).toEqual([preimage, anchorDisc(preimage)]);
      expect([preimage, hex(ours)]).toEqual([preimage, pumpMd]);
    }
    // sha256("anchor:event")[..8], written little-endian by Anchor
    expect(hex(DISC.eventIxTag)).toBe("e445a52e51cb9a1d");
  });
});

describe("collect instructions", () => {
  const creator = Keypair.generate().publicKey;
  const treasury = Keypair.generate().publicKey;

  test("collect_creator_fee: IDL order, and byte-identical to the SDK's builder", async () => {
    const ours = collectCreatorFeeInstruction(creator);
    matchesIdl(ours, idlInstruction(PUMP_IDL, "collect_creator_fee"), {
      creator,
      creator_vault: pumpPdas.creatorVault(creator),
      event_authority: pumpPdas.eventAuthority(),
      program: PUMP_PROGRAM_ID,
    });
    expect(ours.keys.length).toBe(5);
    expect(ours.keys.some((k) => k.isSigner)).toBe(false); // permissionless (PUMP.md §4)
    sameInstruction(ours, await pumpProgram.methods.collectCreatorFee().accountsPartial({ creator }).instruction());
  });

  test("collect_creator_fee_v2 (token-quoted vaults): IDL order, and byte-identical to the SDK's builder", async () => {
    const quoteMint = Keypair.generate().publicKey;
    for (const program of [TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID]) {
      const ours = collectCreatorFeeV2Instruction(creator, quoteMint, program);
      matchesIdl(ours, idlInstruction(PUMP_IDL, "collect_creator_fee_v2"), {
        creator,
        creator_vault: pumpPdas.creatorVault(creator),
        quote_mint: quoteMint,
        quote_token_program: program,
        event_authority: pumpPdas.eventAuthority(),
        program: PUMP_PROGRAM_ID,
      });
      expect(ours.keys.some((k) => k.isSigner)).toBe(false);
      sameInstruction(
        ours,
        await pumpProgram.methods
          .collectCreatorFeeV2()
          .accountsPartial({
            creator,
            quoteMint,
            quoteTokenProgram: program,
            creatorVault: pumpPdas.creatorVault(creator),
          })
          .instruction(),
      );
    }
  });

  test("collect_coin_creator_fee: IDL order, and byte-identical to the SDK's builder", async () => {
    const ours = collectCoinCreatorFeeInstruction(creator);
    matchesIdl(ours, idlInstruction(AMM_IDL, "collect_coin_creator_fee"), {
      quote_mint: NATIVE_MINT,
      quote_token_program: TOKEN_PROGRAM_ID,
      coin_creator: creator,
      coin_creator_vault_authority: pumpPdas.ammCreatorVaultAuthority(creator),
      coin_creator_vault_ata: pumpPdas.ammCreatorVaultWsolAta(creator),
      coin_creator_token_account: pumpPdas.creatorWsolAta(creator),
      program: PUMP_AMM_PROGRAM_ID,
    });
    expect(ours.keys.length).toBe(8);
    sameInstruction(
      ours,
      await ammProgram.methods
        .collectCoinCreatorFee()
        .accountsPartial({
          coinCreator: creator,
          coinCreatorTokenAccount: pumpPdas.creatorWsolAta(creator),
          quoteMint: NATIVE_MINT,
          quoteTokenProgram: TOKEN_PROGRAM_ID,
        })
        .instruction(),
    );
  });

  test("pool part: WSOL ATA created by the treasury, collected into, closed into the creator (as the SDK does)", async () => {
    const ours = collectPoolIntoCreatorInstructions(creator, treasury);
    const vaultExists = { data: Buffer.alloc(165), owner: TOKEN_PROGRAM_ID, lamports: 0, executable: false };
    const state = {
      coinCreator: creator,
      quoteMint: NATIVE_MINT,
      quoteTokenProgram: TOKEN_PROGRAM_ID,
      coinCreatorVaultAuthority: pumpPdas.ammCreatorVaultAuthority(creator),
      coinCreatorVaultAta: pumpPdas.ammCreatorVaultWsolAta(creator),
      coinCreatorTokenAccount: pumpPdas.creatorWsolAta(creator),
      coinCreatorVaultAtaAccountInfo: vaultExists,
      coinCreatorTokenAccountInfo: null,
    };
    // treasury-paid: SDK creates the ATA and collects; it only closes when the creator pays
    const sdkTreasuryPaid = await PUMP_AMM_SDK.collectCoinCreatorFee(state, treasury);
    expect(sdkTreasuryPaid.length).toBe(2);
    sameInstruction(ours[0]!, sdkTreasuryPaid[0]!);
    sameInstruction(ours[1]!, sdkTreasuryPaid[1]!);
    const sdkCreatorPaid = await PUMP_AMM_SDK.collectCoinCreatorFee(state, creator);
    sameInstruction(ours[2]!, sdkCreatorPaid[sdkCreatorPaid.length - 1]!);
    // close: account = creator ATA, destination = creator, authority = creator (signs)
    expect(ours[2]!.keys.map((k) => [k.pubkey.toBase58(), k.isSigner])).toEqual([
      [pumpPdas.creatorWsolAta(creator).toBase58(), false],
      [creator.toBase58(), false],
      [creator.toBase58(), true],
    ]);
  });

  test("a sweep: collects for each vault with fees, then one transfer signed by the creator", () => {
    const launch = createPumpLaunchProgram(mapReader(new Map()));
    const mint = Keypair.generate().publicKey.toBase58();
    const ixs = launch.sweepInstructions(
      [
        {
          token: { mint, creator: creator.toBase58() },
          reading: { mint, curveLamports: 5_000_000n, poolLamports: 7_000_000n, creatorLamports: 0n, bonded: true },
        },
      ],
      treasury,
    );
    expect(ixs.map((ix) => ix.programId.toBase58())).toEqual([
      PUMP_PROGRAM_ID.toBase58(),
      "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL",
      PUMP_AMM_PROGRAM_ID.toBase58(),
      TOKEN_PROGRAM_ID.toBase58(),
      SystemProgram.programId.toBase58(),
    ]);
    const transfer = ixs[4]!;
    expect(transfer.keys.map((k) => [k.pubkey.toBase58(), k.isSigner])).toEqual([
      [creator.toBase58(), true],
      [treasury.toBase58(), false],
    ]);
    // 12M of fees − 890,880 reserve + 2,039,280 ATA rent the treasury fronted
    expect(Buffer.from(transfer.data).readBigUInt64LE(4)).toBe(12_000_000n - 890_880n + 2_039_280n);
  });
});

describe("collect events", () => {
  const creator = Keypair.generate().publicKey;
  const creatorAta = pumpPdas.creatorWsolAta(creator).toBase58();
  const launch = createPumpLaunchProgram(mapReader(new Map()));
  const programData = (ix: { data: Uint8Array }) =>
    `Program data: ${Buffer.from(ix.data.subarray(8)).toString("base64")}`;

  test("decode to the right amounts, each counted once even when also logged as Program data", () => {
    const curve = curveEventIx(creator, 1_234_567n);
    const pool = poolEventIx(creator, 7_654_321n);
    const tx = confirmedTx({
      innerInstructions: [
        { ...curve, outerIndex: 1 },
        { ...pool, outerIndex: 3 },
      ],
      logMessages: ["Program 6EF8 invoke [1]", programData(curve), programData(pool), programData(curve)],
      balances: {
        [creator.toBase58()]: [900_000n, 890_880n],
        [creatorAta]: [0n, 0n],
      },
    });
    const [effect] = launch.decodeSweep(tx, [creator.toBase58()]);
    expect(effect!.collectedLamports).toBe(1_234_567n + 7_654_321n);
    // pre 900,000 + collected − post 890,880
    expect(effect!.movedToTreasuryLamports).toBe(900_000n + 8_888_888n - 890_880n);
  });

  test("an event found only in the logs is not counted (inner instructions are the one source)", () => {
    const tx = confirmedTx({ logMessages: [programData(curveEventIx(creator, 5n))] });
    expect(launch.decodeSweep(tx, [creator.toBase58()])[0]!.collectedLamports).toBe(0n);
  });

  test("pre-2026-05 CollectCreatorFeeEvent (no quote_mint) decodes", () => {
    const tx = confirmedTx({ innerInstructions: [{ ...curveEventIx(creator, 42n, false), outerIndex: 0 }] });
    expect(launch.decodeSweep(tx, [creator.toBase58()])[0]!.collectedLamports).toBe(42n);
  });

  test("forged events are ignored: wrong event authority, wrong program, other creator", () => {
    const other = Keypair.generate().publicKey;
    const forgedAuthority = { ...curveEventIx(creator, 99n), accounts: [Keypair.generate().publicKey.toBase58()] };
    const wrongProgram = { ...curveEventIx(creator, 99n), programId: Keypair.generate().publicKey.toBase58() };
    const tx = confirmedTx({
      innerInstructions: [forgedAuthority, wrongProgram, curveEventIx(other, 99n)].map((ix) => ({
        ...ix,
        outerIndex: 0,
      })),
    });
    expect(launch.decodeSweep(tx, [creator.toBase58()])[0]!.collectedLamports).toBe(0n);
  });

  test("a failed transaction collected and moved nothing", () => {
    const tx = confirmedTx({
      err: '{"InstructionError":[2,{"Custom":6049}]}',
      innerInstructions: [{ ...curveEventIx(creator, 10n), outerIndex: 0 }],
      balances: { [creator.toBase58()]: [2_000_000n, 1_995_000n] },
    });
    expect(launch.decodeSweep(tx, [creator.toBase58()])).toEqual([
      { creator: creator.toBase58(), collectedLamports: 0n, movedToTreasuryLamports: 0n },
    ]);
  });
});

describe("create verification", () => {
  const mint = Keypair.generate().publicKey;
  const creator = Keypair.generate().publicKey;
  const user = Keypair.generate().publicKey;
  const uri = "https://example.test/meta/abc.json";
  const launch = createPumpLaunchProgram(mapReader(new Map()));
  const expected = { mint: mint.toBase58(), creator: creator.toBase58(), uri };

  const createEventIx = async (over: Partial<{ creator: PublicKey; uri: string }> = {}) => ({
    programId: PUMP_PROGRAM_ID.toBase58(),
    accounts: [pumpPdas.eventAuthority().toBase58()],
    data: Uint8Array.from([
      ...DISC.eventIxTag,
      ...DISC.createEvent,
      ...pumpProgram.coder.types.encode("createEvent", {
        name: "Name",
        symbol: "SYM",
        uri: over.uri ?? uri,
        mint,
        bondingCurve: pumpPdas.bondingCurve(mint),
        user,
        creator: over.creator ?? creator,
        timestamp: new BN(1),
        virtualTokenReserves: new BN(1),
        virtualSolReserves: new BN(1),
        realTokenReserves: new BN(1),
        tokenTotalSupply: new BN(1),
        tokenProgram: TOKEN_PROGRAM_ID,
        isMayhemMode: false,
        isCashbackEnabled: false,
        quoteMint: PublicKey.default,
        virtualQuoteReserves: new BN(1),
        creatorFeeBps: new BN(0),
        isHolderReward: false,
      }),
    ]),
    outerIndex: 0,
  });

  test("create (legacy) built by the SDK verifies; fields come from the instruction", async () => {
    const ix = await PUMP_SDK.createInstruction({ mint, name: "Name", symbol: "SYM", uri, creator, user });
    matchesIdl(ix, idlInstruction(PUMP_IDL, "create"), { mint, bonding_curve: pumpPdas.bondingCurve(mint), user });
    const result = launch.verifyCreate(
      confirmedTx({ instructions: [viewOf(ix)], innerInstructions: [await createEventIx()] }),
      expected,
    );
    expect(result).toEqual({
      ok: true,
      create: {
        mint: mint.toBase58(),
        creator: creator.toBase58(),
        uri,
        name: "Name",
        symbol: "SYM",
        deployer: user.toBase58(),
        slot: 100n,
        blockTime: new Date(1_760_000_000_000),
      },
    });
  });

  test("create_v2 (Token-2022) verifies, also when CPI'd from another program", async () => {
    const ix = await PUMP_SDK.createV2Instruction({
      mint,
      name: "Name",
      symbol: "SYM",
      uri,
      creator,
      user,
      mayhemMode: false,
    });
    matchesIdl(ix, idlInstruction(PUMP_IDL, "create_v2"), { mint, bonding_curve: pumpPdas.bondingCurve(mint), user });
    const top = launch.verifyCreate(confirmedTx({ instructions: [viewOf(ix)] }), expected);
    expect(top.ok && top.create.deployer).toBe(user.toBase58());
    const cpi = launch.verifyCreate(confirmedTx({ innerInstructions: [{ ...viewOf(ix), outerIndex: 0 }] }), expected);
    expect(cpi.ok).toBe(true);
  });

  test("refuses: failed tx, other creator, other uri, other mint, forged bonding curve, disagreeing CreateEvent", async () => {
    const ix = await PUMP_SDK.createInstruction({ mint, name: "Name", symbol: "SYM", uri, creator, user });
    const ok = confirmedTx({ instructions: [viewOf(ix)] });
    const reasons = [
      launch.verifyCreate({ ...ok, err: '"InsufficientFundsForRent"' }, expected),
      launch.verifyCreate(ok, { ...expected, creator: Keypair.generate().publicKey.toBase58() }),
      launch.verifyCreate(ok, { ...expected, uri: `${uri}x` }),
      launch.verifyCreate(ok, { ...expected, mint: Keypair.generate().publicKey.toBase58() }),
      launch.verifyCreate(
        confirmedTx({
          instructions: [
            {
              ...viewOf(ix),
              accounts: viewOf(ix).accounts.map((a, i) => (i === 2 ? Keypair.generate().publicKey.toBase58() : a)),
            },
          ],
        }),
        expected,
      ),
      launch.verifyCreate(
        confirmedTx({ instructions: [viewOf(ix)], innerInstructions: [await createEventIx({ creator: user })] }),
        expected,
      ),
      launch.verifyCreate(
        confirmedTx({ instructions: [{ ...viewOf(ix), programId: Keypair.generate().publicKey.toBase58() }] }),
        expected,
      ),
    ];
    for (const r of reasons) expect(r.ok).toBe(false);
  });
});

describe("BondingCurve", () => {
  const creator = Keypair.generate().publicKey;
  const full = bondingCurveBytes({ complete: true, creator, creatorFeeBps: 30n, isMayhemMode: true });

  test("every length the program has written decodes, missing tails as zero, like the SDK", () => {
    for (const length of [49, 81, 82, 83, 115, 124, 125, 151]) {
      const data = full.subarray(0, length);
      const ours = decodeBondingCurve(data);
      const sdk = PUMP_SDK.decodeBondingCurve({
        data: Buffer.from(data),
        owner: PUMP_PROGRAM_ID,
        lamports: 0,
        executable: false,
      });
      expect([length, ours.complete]).toEqual([length, true]);
      expect([length, ours.complete]).toEqual([length, sdk.complete]);
      expect([length, ours.creator]).toEqual([length, sdk.creator.toBase58()]);
      expect([length, ours.creator]).toEqual([
        length,
        length >= 81 ? creator.toBase58() : PublicKey.default.toBase58(),
      ]);
      expect([length, ours.virtualTokenReserves]).toEqual([length, BigInt(sdk.virtualTokenReserves.toString())]);
      expect([length, ours.creatorFeeBps]).toEqual([length, length >= 123 ? 30n : 0n]);
      expect([length, ours.isMayhemMode]).toEqual([length, length >= 82]);
    }
  });

  test("too short or not a BondingCurve is refused", () => {
    expect(() => decodeBondingCurve(full.subarray(0, 48))).toThrow();
    const other = Uint8Array.from(full);
    other[0] = other[0]! ^ 0xff;
    expect(() => decodeBondingCurve(other)).toThrow();
  });
});

describe("fee sharing (coins whose creator moved to their sharing config)", () => {
  const mint = Keypair.generate().publicKey;
  const ours = Keypair.generate().publicKey;
  const other = Keypair.generate().publicKey;
  const shareholders = [
    { address: ours, shareBps: 6_000 },
    { address: other, shareBps: 4_000 },
  ];

  test("the sharing config PDA is the SDK's", async () => {
    const { feeSharingConfigPda } = await import("@pump-fun/pump-sdk");
    expect(pumpPdas.sharingConfig(mint).toBase58()).toBe(feeSharingConfigPda(mint).toBase58());
  });

  test("SharingConfig decodes as the SDK decodes it", () => {
    for (const active of [true, false]) {
      const bytes = sharingConfigBytes(mint, shareholders, active);
      const sdk = PUMP_SDK.decodeSharingConfig({
        data: Buffer.from(bytes),
        owner: PUMP_FEE_PROGRAM_ID,
        lamports: 0,
        executable: false,
      });
      const decoded = decodeSharingConfig(bytes);
      expect(decoded.mint).toBe(sdk.mint.toBase58());
      expect(decoded.shareholders).toEqual(
        sdk.shareholders.map((h) => ({ address: h.address.toBase58(), shareBps: h.shareBps })),
      );
      expect(decoded.active).toBe(Object.keys((sdk as unknown as { status: object }).status)[0] === "active");
      expect(decoded.active).toBe(active);
    }
    expect(() => decodeSharingConfig(bondingCurveBytes({ complete: false, creator: ours }))).toThrow();
  });

  test("distribute_creator_fees: IDL order, shareholders as writable remaining accounts, byte-identical to the SDK's builder", async () => {
    const ix = distributeCreatorFeesInstruction(
      mint,
      shareholders.map((h) => h.address),
    );
    const config = pumpPdas.sharingConfig(mint);
    matchesIdl(ix, idlInstruction(PUMP_IDL, "distribute_creator_fees"), {
      mint,
      bonding_curve: pumpPdas.bondingCurve(mint),
      sharing_config: config,
      creator_vault: pumpPdas.creatorVault(config),
      event_authority: pumpPdas.eventAuthority(),
      program: PUMP_PROGRAM_ID,
    });
    expect(ix.keys.some((k) => k.isSigner)).toBe(false); // permissionless (PUMP.md §7)
    const sdkConfig = PUMP_SDK.decodeSharingConfig({
      data: Buffer.from(sharingConfigBytes(mint, shareholders)),
      owner: PUMP_FEE_PROGRAM_ID,
      lamports: 0,
      executable: false,
    });
    sameInstruction(
      ix,
      await PUMP_SDK.distributeCreatorFees({ mint, sharingConfig: sdkConfig, sharingConfigAddress: config }),
    );
  });

  test("transfer_creator_fees_to_pump: IDL order, byte-identical to the SDK's builder (as its distribution helper calls it)", async () => {
    const config = pumpPdas.sharingConfig(mint);
    const ix = transferCreatorFeesToPumpInstruction(config);
    matchesIdl(ix, idlInstruction(AMM_IDL, "transfer_creator_fees_to_pump"), {
      wsol_mint: NATIVE_MINT,
      token_program: TOKEN_PROGRAM_ID,
      coin_creator: config,
      coin_creator_vault_authority: pumpPdas.ammCreatorVaultAuthority(config),
      coin_creator_vault_ata: pumpPdas.ammCreatorVaultWsolAta(config),
      pump_creator_vault: pumpPdas.creatorVault(config),
      program: PUMP_AMM_PROGRAM_ID,
    });
    sameInstruction(
      ix,
      await ammProgram.methods
        .transferCreatorFeesToPump()
        .accountsPartial({ wsolMint: NATIVE_MINT, tokenProgram: TOKEN_PROGRAM_ID, coinCreator: config })
        .instruction(),
    );
  });

  test("the sweep reads the curve's creator fresh: a migrated coin distributes, and only System payouts inside a distribute count", async () => {
    const curve = pumpPdas.bondingCurve(mint);
    const config = pumpPdas.sharingConfig(mint);
    const accounts = new Map([
      [
        curve.toBase58(),
        {
          lamports: 1_000_000n,
          owner: PUMP_PROGRAM_ID.toBase58(),
          executable: false,
          data: bondingCurveBytes({ complete: false, creator: config }),
        },
      ],
      [
        config.toBase58(),
        {
          lamports: 2_000_000n,
          owner: PUMP_FEE_PROGRAM_ID.toBase58(),
          executable: false,
          data: sharingConfigBytes(mint, shareholders),
        },
      ],
      [
        pumpPdas.creatorVault(config).toBase58(),
        {
          lamports: 890_880n + 10_000_000n,
          owner: SystemProgram.programId.toBase58(),
          executable: false,
          data: new Uint8Array(),
        },
      ],
      [
        ours.toBase58(),
        { lamports: 5_000_000n, owner: SystemProgram.programId.toBase58(), executable: false, data: new Uint8Array() },
      ],
    ]);
    // the program's minimum distributable amount, as its view answers a simulation
    const launch = createPumpLaunchProgram(
      mapReader(accounts, { simulateReturnData: async () => minimumDistributableReturn(1_000_000n, 10_000_000n) }),
    );
    const token = { mint: mint.toBase58(), creator: ours.toBase58() };
    const [reading] = await launch.readVaults([token]);
    expect(reading!.feeSharing).toMatchObject({
      currentCreator: config.toBase58(),
      isSharingConfig: true,
      serviceShareBps: 6_000,
      distributableLamports: 10_000_000n,
      shareLamports: 6_000_000n,
      blockedReason: null,
    });
    const treasury = Keypair.generate().publicKey;
    const ixs = launch.sweepInstructions([{ token, reading: reading! }], treasury);
    expect(ixs.map((ix) => ix.programId.toBase58())).toEqual([
      PUMP_PROGRAM_ID.toBase58(),
      SystemProgram.programId.toBase58(),
    ]);
    sameInstruction(ixs[0]!, distributeCreatorFeesInstruction(mint, [ours, other]));
    // creator 5,000,000 + planned share (6,000,000 less 1 lamport of rounding slack per shareholder) - reserve
    expect(Buffer.from(ixs[1]!.data).readBigUInt64LE(4)).toBe(5_000_000n + 6_000_000n - 2n - 890_880n);
    // decoding: the payout inside the distribute counts; a same-looking transfer elsewhere does not
    const payout = (amount: bigint, outerIndex: number) => {
      const data = Buffer.alloc(12);
      data.writeUInt32LE(2, 0);
      data.writeBigUInt64LE(amount, 4);
      return {
        programId: SystemProgram.programId.toBase58(),
        accounts: [pumpPdas.creatorVault(config).toBase58(), ours.toBase58()],
        data: new Uint8Array(data),
        outerIndex,
      };
    };
    const tx = confirmedTx({
      instructions: [viewOf(ixs[0]!), viewOf(ixs[1]!)],
      innerInstructions: [payout(6_000_000n, 0), payout(999n, 1)],
      accountKeys: [treasury.toBase58(), ours.toBase58()],
      preBalances: [0n, 5_000_000n],
      postBalances: [10_109_120n, 890_880n],
    });
    const [effect] = launch.decodeSweep(tx, [ours.toBase58()]);
    expect(effect!.collectedLamports).toBe(6_000_000n);
    expect(effect!.movedToTreasuryLamports).toBe(5_000_000n - 890_880n + 6_000_000n);
  });
});

describe("fee-sharing bounds (transfer_creator_fees_to_pump below rent, the minimum distributable amount)", () => {
  const mint = Keypair.generate().publicKey;
  const ours = Keypair.generate().publicKey;
  const other = Keypair.generate().publicKey;

  test("get_minimum_distributable_fee: IDL order, byte-identical to the SDK's builder; its return data decodes as the SDK decodes it", async () => {
    const shareholders = [ours, other];
    const config = pumpPdas.sharingConfig(mint);
    const ix = getMinimumDistributableFeeInstruction(mint, shareholders);
    matchesIdl(ix, idlInstruction(PUMP_IDL, "get_minimum_distributable_fee"), {
      mint,
      bonding_curve: pumpPdas.bondingCurve(mint),
      sharing_config: config,
      creator_vault: pumpPdas.creatorVault(config),
    });
    const sdkConfig = PUMP_SDK.decodeSharingConfig({
      data: Buffer.from(
        sharingConfigBytes(
          mint,
          shareholders.map((address) => ({ address, shareBps: 5_000 })),
        ),
      ),
      owner: PUMP_FEE_PROGRAM_ID,
      lamports: 0,
      executable: false,
    });
    sameInstruction(
      ix,
      await PUMP_SDK.getMinimumDistributableFee({ mint, sharingConfig: sdkConfig, sharingConfigAddress: config }),
    );
    const answer = minimumDistributableReturn(1_234_567n, 1_000n);
    const sdk = PUMP_SDK.decodeMinimumDistributableFee(Buffer.from(answer.data));
    expect(decodeMinimumDistributableFee(answer.data)).toEqual({
      minimumRequiredLamports: BigInt(sdk.minimumRequired.toString()),
      distributableLamports: BigInt(sdk.distributableFees.toString()),
      canDistribute: sdk.canDistribute,
    });
    expect(decodeMinimumDistributableFee(answer.data.subarray(0, 16))).toBeNull();
  });

  /** A graduated coin moved to its sharing config: fees in both of the config's vaults, the creator address funded. */
  const sharedAccounts = (curveFeesLamports: bigint, poolFeesLamports: bigint) => {
    const config = pumpPdas.sharingConfig(mint);
    const wsol = Buffer.alloc(165);
    wsol.writeBigUInt64LE(poolFeesLamports, 64);
    return new Map([
      [
        pumpPdas.bondingCurve(mint).toBase58(),
        {
          lamports: 1_000_000n,
          owner: PUMP_PROGRAM_ID.toBase58(),
          executable: false,
          data: bondingCurveBytes({ complete: true, creator: config }),
        },
      ],
      [
        config.toBase58(),
        {
          lamports: 2_000_000n,
          owner: PUMP_FEE_PROGRAM_ID.toBase58(),
          executable: false,
          data: sharingConfigBytes(mint, [{ address: ours, shareBps: 10_000 }]),
        },
      ],
      [
        pumpPdas.creatorVault(config).toBase58(),
        {
          lamports: 890_880n + curveFeesLamports,
          owner: SystemProgram.programId.toBase58(),
          executable: false,
          data: new Uint8Array(),
        },
      ],
      [
        pumpPdas.ammCreatorVaultWsolAta(config).toBase58(),
        {
          lamports: 2_039_280n + poolFeesLamports,
          owner: TOKEN_PROGRAM_ID.toBase58(),
          executable: false,
          data: new Uint8Array(wsol),
        },
      ],
      [
        ours.toBase58(),
        { lamports: 5_000_000n, owner: SystemProgram.programId.toBase58(), executable: false, data: new Uint8Array() },
      ],
    ]);
  };
  const token = { mint: mint.toBase58(), creator: ours.toBase58() };
  const treasury = Keypair.generate().publicKey;

  test("AMM fees below the WSOL account's rent are left out: no transfer_creator_fees_to_pump, no share counted on them", async () => {
    const simulated: string[][] = [];
    const launch = createPumpLaunchProgram(
      mapReader(sharedAccounts(3_000_000n, 2_039_279n), {
        simulateReturnData: async (ixs) => {
          simulated.push(ixs.map((ix) => hex(ix.data.subarray(0, 8))));
          return minimumDistributableReturn(1_000_000n, 3_000_000n);
        },
      }),
    );
    const [reading] = await launch.readVaults([token]);
    expect(reading!.feeSharing).toMatchObject({
      distributableLamports: 3_000_000n + 2_039_279n,
      poolDistributableLamports: 2_039_279n,
      shareLamports: 3_000_000n,
      blockedReason: null,
      minimumDistributableLamports: 1_000_000n,
    });
    expect(reading!.feeSharing!.skippedReason).toMatch(/below the WSOL account's rent/);
    // the view is simulated as the distribution would run: without the transfer that would move nothing
    expect(simulated).toEqual([[hex(DISC.getMinimumDistributableFee)]]);
    const ixs = launch.sweepInstructions([{ token, reading: reading! }], treasury);
    expect(ixs.map((ix) => hex(ix.data.subarray(0, 8)))).not.toContain(hex(DISC.transferCreatorFeesToPump));
    expect(ixs.map((ix) => hex(ix.data.subarray(0, 8)))).toContain(hex(DISC.distributeCreatorFees));
    // creator 5,000,000 + the curve part (less 1 lamport of slack) - reserve; the AMM part waits
    expect(Buffer.from(ixs.at(-1)!.data).readBigUInt64LE(4)).toBe(5_000_000n + 3_000_000n - 1n - 890_880n);
  });

  test("at the rent the AMM part is transferred first, in the simulation as in the sweep", async () => {
    const simulated: string[][] = [];
    const launch = createPumpLaunchProgram(
      mapReader(sharedAccounts(0n, 2_039_280n), {
        simulateReturnData: async (ixs) => {
          simulated.push(ixs.map((ix) => hex(ix.data.subarray(0, 8))));
          return minimumDistributableReturn(1_000_000n, 2_039_280n);
        },
      }),
    );
    const [reading] = await launch.readVaults([token]);
    expect(reading!.feeSharing).toMatchObject({ shareLamports: 2_039_280n, skippedReason: null });
    expect(simulated).toEqual([[hex(DISC.transferCreatorFeesToPump), hex(DISC.getMinimumDistributableFee)]]);
    const ixs = launch.sweepInstructions([{ token, reading: reading! }], treasury);
    expect(ixs.map((ix) => hex(ix.data.subarray(0, 8))).slice(0, 2)).toEqual([
      hex(DISC.transferCreatorFeesToPump),
      hex(DISC.distributeCreatorFees),
    ]);
  });

  test("below the program's minimum distributable amount, or when it cannot be read, nothing is distributed and the creator address is still swept", async () => {
    for (const simulateReturnData of [
      async () => minimumDistributableReturn(5_000_000n, 3_000_000n),
      async () => null,
      async () => {
        throw new Error("node unreachable");
      },
      undefined,
    ]) {
      const launch = createPumpLaunchProgram(mapReader(sharedAccounts(3_000_000n, 0n), { simulateReturnData }));
      const [reading] = await launch.readVaults([token]);
      expect(reading!.feeSharing!.shareLamports).toBe(0n);
      expect(reading!.feeSharing!.blockedReason).toBeNull();
      expect(reading!.feeSharing!.skippedReason).toMatch(/minimum distributable amount/);
      const ixs = launch.sweepInstructions([{ token, reading: reading! }], treasury);
      expect(ixs.map((ix) => ix.programId.toBase58())).toEqual([SystemProgram.programId.toBase58()]);
      expect(Buffer.from(ixs[0]!.data).readBigUInt64LE(4)).toBe(5_000_000n - 890_880n);
    }
  });
});

describe("program-change guard (layouts this adapter knows)", () => {
  const creator = Keypair.generate().publicKey;
  const mint = Keypair.generate().publicKey;
  const curve = bondingCurveBytes({ complete: false, creator });

  test("every BondingCurve, Pool, SharingConfig and Global layout pump has written is known", () => {
    for (const length of [49, 81, 82, 83, 115, 123, 124, 125, 151])
      expect([length, unknownLayout("BondingCurve", curve.subarray(0, length))]).toEqual([length, null]);
    const pool = poolBytes(mint, creator, PublicKey.unique(), PublicKey.unique());
    for (const length of [211, 243, 244, 245, 261, 270, 300]) {
      const data = new Uint8Array(length);
      data.set(pool.subarray(0, Math.min(length, pool.length)));
      expect([length, unknownLayout("Pool", data)]).toEqual([length, null]);
    }
    const config = sharingConfigBytes(mint, [{ address: creator, shareBps: 10_000 }]);
    expect(unknownLayout("SharingConfig", config)).toBeNull();
    const allocated = new Uint8Array(1_024); // Pump Fees allocates up to SharingConfig::MAX_SIZE
    allocated.set(config);
    expect(unknownLayout("SharingConfig", allocated)).toBeNull();
    for (const length of [1_045, 1_054, 1_087, 1_200]) {
      const global = new Uint8Array(length);
      global.set(idlAccountDisc(PUMP_IDL, "Global"));
      expect([length, unknownLayout("Global", global)]).toEqual([length, null]);
    }
  });

  test("a non-zero field past byte 125 of a curve (v3 creator_fee), a new length, another discriminator: changed", () => {
    const v3 = new Uint8Array(151);
    v3.set(curve.subarray(0, 125));
    v3[125] = 1;
    expect(unknownLayout("BondingCurve", v3)).toMatch(/non-zero byte at 125/);
    const longer = new Uint8Array(159);
    longer.set(curve.subarray(0, 125));
    expect(unknownLayout("BondingCurve", longer)).toMatch(/159 bytes/);
    const other = Uint8Array.from(curve);
    other[0] = other[0]! ^ 0xff;
    expect(unknownLayout("BondingCurve", other)).toMatch(/discriminator/);
    const pool = new Uint8Array(300);
    pool.set(poolBytes(mint, creator, PublicKey.unique(), PublicKey.unique()));
    pool[280] = 7; // Pool.creator_fees of v3
    expect(unknownLayout("Pool", pool)).toMatch(/non-zero byte at 280/);
    expect(unknownLayout("Pool", new Uint8Array(300))).toMatch(/discriminator/);
    const config = new Uint8Array(1_024);
    config.set(sharingConfigBytes(mint, [{ address: creator, shareBps: 10_000 }]));
    config[200] = 1;
    expect(unknownLayout("SharingConfig", config)).toMatch(/after its shareholders/);
    const global = new Uint8Array(1_100);
    global.set(idlAccountDisc(PUMP_IDL, "Global"));
    global[1_090] = 1;
    expect(unknownLayout("Global", global)).toMatch(/non-zero byte at 1090/);
    expect(
      unknownLayout(
        "Global",
        new Uint8Array(1_060).fill(0).map((_, i) => (i < 8 ? 0xa7 : 0)),
      ),
    ).toMatch(/discriminator/);
  });

  test("readVaults marks the token program-changed (a changed Global: every token) and the sweep builds nothing for it", async () => {
    const curveAddress = pumpPdas.bondingCurve(mint).toBase58();
    const v3 = new Uint8Array(151);
    v3.set(curve.subarray(0, 125));
    new DataView(v3.buffer).setBigUint64(125, 4_000_001n, true);
    const accounts = new Map([
      [curveAddress, { lamports: 1_000_000n, owner: PUMP_PROGRAM_ID.toBase58(), executable: false, data: v3 }],
      [
        pumpPdas.creatorVault(creator).toBase58(),
        {
          lamports: 890_880n + 2_000_000n,
          owner: SystemProgram.programId.toBase58(),
          executable: false,
          data: new Uint8Array(),
        },
      ],
    ]);
    const launch = createPumpLaunchProgram(mapReader(accounts));
    const token = { mint: mint.toBase58(), creator: creator.toBase58() };
    const [reading] = await launch.readVaults([token]);
    expect(reading!.programChanged).toMatch(/^program-changed: BondingCurve has a non-zero byte at 125/);
    expect(launch.sweepInstructions([{ token, reading: reading! }], Keypair.generate().publicKey)).toEqual([]);
    accounts.set(curveAddress, { ...accounts.get(curveAddress)!, data: Uint8Array.from(curve) });
    const global = new Uint8Array(1_200);
    global.set(idlAccountDisc(PUMP_IDL, "Global"));
    global[1_150] = 1;
    accounts.set(pumpPdas.global().toBase58(), {
      lamports: 1n,
      owner: PUMP_PROGRAM_ID.toBase58(),
      executable: false,
      data: global,
    });
    const [again] = await launch.readVaults([token]);
    expect(again!.programChanged).toMatch(/^program-changed: Global/);
  });
});

describe("create_v2 trailing arguments", () => {
  const mint = Keypair.generate().publicKey;
  const creator = Keypair.generate().publicKey;
  const user = Keypair.generate().publicKey;
  const uri = "https://example.test/meta/v2.json";
  const launch = createPumpLaunchProgram(mapReader(new Map()));
  const expected = { mint: mint.toBase58(), creator: creator.toBase58(), uri };
  const build = (over: { mayhemMode?: boolean; creatorFeeBps?: BN; holderReward?: boolean } = {}) =>
    PUMP_SDK.createV2Instruction({
      mint,
      name: "Name",
      symbol: "SYM",
      uri,
      creator,
      user,
      mayhemMode: over.mayhemMode ?? false,
      creatorFeeBps: over.creatorFeeBps,
      holderReward: over.holderReward,
    } as Parameters<typeof PUMP_SDK.createV2Instruction>[0]);

  test("decoded as the SDK encodes them (fixed width: is_mayhem_mode, OptionBool, OptionU64, OptionBool)", async () => {
    const ix = await build({ mayhemMode: true, creatorFeeBps: new BN(75) });
    expect(decodeCreateArgs(ix.data)).toMatchObject({
      variant: "create_v2",
      creator: creator.toBase58(),
      isMayhemMode: true,
      isCashbackEnabled: false,
      creatorFeeBps: 75n,
      isHolderReward: false,
    });
    const holder = await build({ holderReward: true });
    expect(decodeCreateArgs(holder.data)).toMatchObject({ isHolderReward: true, creatorFeeBps: 0n });
    // the program reads an argument only when bytes remain; a cut-off one is malformed
    expect(decodeCreateArgs(holder.data.subarray(0, holder.data.length - 1))).toMatchObject({ isHolderReward: false });
    expect(decodeCreateArgs(holder.data.subarray(0, holder.data.length - 5))).toBeNull();
  });

  test("a holder-reward launch is refused: the program ignores `creator` and pays the holders", async () => {
    const ok = launch.verifyCreate(confirmedTx({ instructions: [viewOf(await build())] }), expected);
    expect(ok.ok).toBe(true);
    const refused = launch.verifyCreate(
      confirmedTx({ instructions: [viewOf(await build({ holderReward: true }))] }),
      expected,
    );
    expect(refused).toEqual({
      ok: false,
      reason: "holder-reward coin: the program ignores the creator",
      coinRefused: true,
    });
  });
});
