/**
 * Coins the service must refuse at launch (issue 61, item 8): the create transaction the verifier
 * reads is the one pump's own SDK builds, with cashback on, a creator fee of the coin's own, a
 * holder-reward coin or a token quote; each is refused with its reason and marked as a refused
 * coin (the mint exists, so the launch ends), while an ordinary create, and the launch page's own
 * create, are accepted.
 */
import { describe, expect, test } from "bun:test";
import { BN } from "@coral-xyz/anchor";
import { PUMP_SDK } from "@pump-fun/pump-sdk";
import { TOKEN_PROGRAM_ID } from "@solana/spl-token";
import { Keypair, PublicKey } from "@solana/web3.js";
import { createPumpLaunchProgram } from "../../src/chain/pump";
import { DISC, PUMP_PROGRAM_ID, decodeCreateArgs, pumpPdas } from "../../src/chain/pump/layout";
import { confirmedTx, mapReader, pumpProgram, viewOf } from "./support/fixtures";

const USDC = new PublicKey("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v");

describe("verifyCreate refuses coins whose creator fees would not reach the recipients", () => {
  const mint = Keypair.generate().publicKey;
  const creator = Keypair.generate().publicKey;
  const user = Keypair.generate().publicKey;
  const uri = "https://example.test/meta/refusals.json";
  const launch = createPumpLaunchProgram(mapReader(new Map()));
  const expected = { mint: mint.toBase58(), creator: creator.toBase58(), uri };
  type V2 = Parameters<typeof PUMP_SDK.createV2Instruction>[0];
  const build = (over: Partial<V2> = {}) =>
    PUMP_SDK.createV2Instruction({ mint, name: "Name", symbol: "SYM", uri, creator, user, mayhemMode: false, ...over });
  const verify = async (over: Partial<V2> = {}) =>
    launch.verifyCreate(confirmedTx({ instructions: [viewOf(await build(over))] }), expected);

  /** The program's CreateEvent for this mint, as a #[event_cpi] self-invocation. */
  const createEventIx = (over: { isCashbackEnabled?: boolean; quoteMint?: PublicKey } = {}) => ({
    programId: PUMP_PROGRAM_ID.toBase58(),
    accounts: [pumpPdas.eventAuthority().toBase58()],
    data: Uint8Array.from([
      ...DISC.eventIxTag,
      ...DISC.createEvent,
      ...pumpProgram.coder.types.encode("createEvent", {
        name: "Name",
        symbol: "SYM",
        uri,
        mint,
        bondingCurve: pumpPdas.bondingCurve(mint),
        user,
        creator,
        timestamp: new BN(1),
        virtualTokenReserves: new BN(1),
        virtualSolReserves: new BN(1),
        realTokenReserves: new BN(1),
        tokenTotalSupply: new BN(1),
        tokenProgram: TOKEN_PROGRAM_ID,
        isMayhemMode: false,
        isCashbackEnabled: over.isCashbackEnabled ?? false,
        quoteMint: over.quoteMint ?? PublicKey.default,
        virtualQuoteReserves: new BN(1),
        creatorFeeBps: new BN(0),
        isHolderReward: false,
      }),
    ]),
    outerIndex: 0,
  });

  test("an ordinary create_v2 is accepted, with or without the program's CreateEvent", async () => {
    const plain = await verify();
    expect(plain.ok && plain.create.deployer).toBe(user.toBase58());
    const withEvent = launch.verifyCreate(
      confirmedTx({ instructions: [viewOf(await build())], innerInstructions: [createEventIx()] }),
      expected,
    );
    expect(withEvent.ok).toBe(true);
  });

  test("cashback on: refused, the creator fee goes to the traders", async () => {
    expect(await verify({ cashback: true })).toEqual({
      ok: false,
      reason: "cashback coin: its creator fee goes to the traders, not to the creator",
      coinRefused: true,
    });
  });

  test("a creator fee of the coin's own (creator_fee_bps) other than the configured schedule: refused", async () => {
    for (const bps of [1, 30, 95]) {
      expect(await verify({ creatorFeeBps: new BN(bps) })).toEqual({
        ok: false,
        reason: `the coin sets its own creator fee (${bps} bps) instead of the configured fee schedule`,
        coinRefused: true,
      });
    }
    // zero is what "omitted" means to the program: the configured schedule applies
    expect((await verify({ creatorFeeBps: new BN(0) })).ok).toBe(true);
  });

  test("a holder-reward coin is refused as a coin (the program ignores the creator)", async () => {
    expect(await verify({ holderReward: true })).toEqual({
      ok: false,
      reason: "holder-reward coin: the program ignores the creator",
      coinRefused: true,
    });
  });

  test("a coin quoted in a token is refused: its creator fees would not be SOL", async () => {
    const refused = await verify({ quoteMint: USDC, creatorFeeBps: new BN(0) });
    expect(refused).toMatchObject({ ok: false, coinRefused: true });
    expect(!refused.ok && refused.reason).toMatch(/quoted in a token/);
  });

  test("the program's CreateEvent is read too: a cashback or token-quoted record is refused", async () => {
    for (const over of [{ isCashbackEnabled: true }, { quoteMint: USDC }]) {
      const result = launch.verifyCreate(
        confirmedTx({ instructions: [viewOf(await build())], innerInstructions: [createEventIx(over)] }),
        expected,
      );
      expect(result).toMatchObject({ ok: false, coinRefused: true });
    }
  });

  test("a create that is not our launch's stays a plain rejection, never a refused coin", async () => {
    const ix = await build({ cashback: true });
    const other = launch.verifyCreate(confirmedTx({ instructions: [viewOf(ix)] }), {
      ...expected,
      creator: Keypair.generate().publicKey.toBase58(),
    });
    expect(other).toEqual({ ok: false, reason: "creator is not ours" });
  });

  test("the launch page's create (buildCreate) sets none of them, and is accepted", async () => {
    const page = createPumpLaunchProgram(mapReader(new Map()));
    const [[create]] = (await page.buildCreate({
      mint: mint.toBase58(),
      creator: creator.toBase58(),
      deployer: user.toBase58(),
      name: "Name",
      symbol: "SYM",
      uri,
      firstBuyLamports: 0n,
    })) as [[import("@solana/web3.js").TransactionInstruction]];
    expect(decodeCreateArgs(create.data)).toMatchObject({
      variant: "create_v2",
      isMayhemMode: false,
      isCashbackEnabled: false,
      creatorFeeBps: 0n,
      isHolderReward: false,
    });
    // no remaining accounts: the quote is SOL
    expect(create.keys.length).toBe(16);
    expect(page.verifyCreate(confirmedTx({ instructions: [viewOf(create)] }), expected).ok).toBe(true);
  });
});
