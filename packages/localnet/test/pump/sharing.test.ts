/**
 * Creator fee sharing as the local chain emulates it, driven by the SDK's own builders: pump_fees
 * `create_fee_sharing_config` (curve, and pool for a graduated coin, repointed to the config by
 * CPIs into pump and pump_amm), `update_fee_shares(_v2)` (once, by the admin, pending fees paid to
 * the old shareholders first, a graduated coin's AMM fees swept in by pump_amm
 * `transfer_creator_fees_to_pump_v2`), pump `distribute_creator_fees` (to the lamport, in the
 * config's order) and the `get_minimum_distributable_fee` view read through simulation as the SDK
 * reads it, its event as the SDK decodes it.
 * Every refusal leaves every account as it was, the fee charged.
 */
import { describe, expect, test } from "bun:test";
import { EventParser, type Program } from "@coral-xyz/anchor";
import { ACCOUNT_SIZE, AccountLayout, AccountState, NATIVE_MINT, TOKEN_PROGRAM_ID } from "@solana/spl-token";
import {
  Connection,
  Keypair,
  PublicKey,
  SystemProgram,
  type TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import { getPumpFeeProgram, getPumpProgram, PUMP_SDK, type Shareholder } from "@pump-fun/pump-sdk";
import { coinCreatorVaultAtaPda, coinCreatorVaultAuthorityPda, PUMP_AMM_SDK } from "@pump-fun/pump-swap-sdk";
import type { LocalNode, TxRecord } from "../../src/node";
import { pumpCodecs } from "../../src/native/anchor";
import { accountInfo, send } from "./helpers";
import {
  accrue,
  type Coin,
  coin,
  events,
  PUMP,
  PUMP_AMM,
  PUMP_FEES,
  sharingNode,
  VAULT_RENT,
  wallet,
} from "./sharing-setup";

const FEE = 5_000n;
const CONFIG_SPACE = 1024;
/** Rent-exempt minimum of a 165-byte token account: what pump_amm's WSOL creator vault keeps. */
const TOKEN_ACCOUNT_RENT = 2_039_280n;

interface AmmVault {
  authority: PublicKey;
  ata: PublicKey;
}

/**
 * Fees accrued to a graduated coin's pump_amm creator vault (the WSOL ATA of
 * ["creator_vault", sharing_config]), written as pump_amm's swaps leave it: `feesLamports` WSOL
 * on top of the account's rent.
 */
function accrueAmm(node: LocalNode, sharingConfig: PublicKey, feesLamports: bigint): AmmVault {
  const authority = coinCreatorVaultAuthorityPda(sharingConfig);
  const ata = coinCreatorVaultAtaPda(authority, NATIVE_MINT, TOKEN_PROGRAM_ID);
  const data = Buffer.alloc(ACCOUNT_SIZE);
  AccountLayout.encode(
    {
      mint: NATIVE_MINT,
      owner: authority,
      amount: feesLamports,
      delegateOption: 0,
      delegate: PublicKey.default,
      state: AccountState.Initialized,
      isNativeOption: 1,
      isNative: TOKEN_ACCOUNT_RENT,
      delegatedAmount: 0n,
      closeAuthorityOption: 0,
      closeAuthority: PublicKey.default,
    },
    data,
  );
  node.setAccount(ata, {
    lamports: TOKEN_ACCOUNT_RENT + feesLamports,
    data,
    owner: TOKEN_PROGRAM_ID,
    executable: false,
  });
  return { authority, ata };
}

function wsolAmount(node: LocalNode, ata: PublicKey): bigint {
  return AccountLayout.decode(Buffer.from(node.getAccount(ata)!.data)).amount;
}

function config(node: LocalNode, c: Coin) {
  return PUMP_SDK.decodeSharingConfig(accountInfo(node, c.sharingConfig)!);
}

function curveCreator(node: LocalNode, c: Coin): PublicKey {
  return PUMP_SDK.decodeBondingCurve(accountInfo(node, c.bondingCurve)!).creator;
}

/** Balances and data of `addresses`, to compare before and after a refused transaction. */
function snapshot(node: LocalNode, addresses: readonly PublicKey[]) {
  return addresses.map((a) => {
    const acc = node.getAccount(a);
    return acc
      ? { lamports: acc.lamports, data: Buffer.from(acc.data).toString("hex"), owner: acc.owner.toBase58() }
      : null;
  });
}

/** Sends and expects the program's refusal `code` at instruction 0, nothing changed but the payer's fee. */
function expectRefused(
  node: LocalNode,
  payer: Keypair,
  ixs: TransactionInstruction[],
  watched: PublicKey[],
  code: number,
  signers: Keypair[] = [],
): TxRecord {
  const others = watched.filter((a) => !a.equals(payer.publicKey));
  const before = snapshot(node, others);
  const payerBefore = node.getBalance(payer.publicKey);
  const record = send(node, payer, ixs, signers);
  expect(record.err).toEqual({ InstructionError: [0, { Custom: code }] });
  expect(snapshot(node, others)).toEqual(before);
  expect(node.getBalance(payer.publicKey)).toBe(payerBefore - FEE);
  return record;
}

async function createIx(c: Coin, payer = c.creator.publicKey): Promise<TransactionInstruction> {
  return PUMP_SDK.createFeeSharingConfig({ creator: payer, mint: c.mint, pool: c.pool });
}

async function updateV2Ix(
  c: Coin,
  current: PublicKey[],
  next: Shareholder[],
  authority = c.creator.publicKey,
): Promise<TransactionInstruction> {
  return PUMP_SDK.updateFeeSharesV2({
    authority,
    mint: c.mint,
    currentShareholders: current,
    newShareholders: next,
    quoteMint: NATIVE_MINT,
    quoteTokenProgram: TOKEN_PROGRAM_ID,
  });
}

/** A coin opted in to sharing by its creator (the config's admin and sole shareholder). */
async function sharedCoin(node: LocalNode, o: { graduated?: boolean } = {}): Promise<Coin> {
  const c = coin(node, o);
  const record = send(node, c.creator, [await createIx(c)]);
  expect(record.err).toBeNull();
  return c;
}

/** update_fee_shares_v2 from the creator to `next`, landed. */
async function share(node: LocalNode, c: Coin, next: Shareholder[]): Promise<void> {
  const record = send(node, c.creator, [await updateV2Ix(c, [c.creator.publicKey], next)]);
  expect(record.err).toBeNull();
}

async function distributeIx(node: LocalNode, c: Coin): Promise<TransactionInstruction> {
  return PUMP_SDK.distributeCreatorFees({
    mint: c.mint,
    sharingConfig: config(node, c),
    sharingConfigAddress: c.sharingConfig,
  });
}

/** The instruction's data with its 8-byte discriminator's first byte flipped. */
function mutatedDiscriminator(ix: TransactionInstruction): TransactionInstruction {
  const data = Buffer.from(ix.data);
  data[0] = data[0]! ^ 0xff;
  return { ...ix, data } as TransactionInstruction;
}

function withKey(ix: TransactionInstruction, index: number, key: Partial<TransactionInstruction["keys"][number]>) {
  const keys = ix.keys.map((k, i) => (i === index ? { ...k, ...key } : k));
  return { ...ix, keys } as TransactionInstruction;
}

describe("create_fee_sharing_config", () => {
  test("the creator opts a curve coin in: config at its PDA, the curve's creator repointed, events", async () => {
    const node = sharingNode();
    const c = coin(node);
    const before = node.getBalance(c.creator.publicKey);
    const record = send(node, c.creator, [await createIx(c)]);
    expect(record.err).toBeNull();

    const rent = node.minimumBalanceForRentExemption(CONFIG_SPACE);
    const account = node.getAccount(c.sharingConfig)!;
    expect(account.owner.equals(PUMP_FEES)).toBe(true);
    expect(account.data.length).toBe(CONFIG_SPACE);
    expect(account.lamports).toBe(rent);
    expect(node.getBalance(c.creator.publicKey)).toBe(before - rent - FEE);
    const cfg = config(node, c);
    expect(cfg.mint.equals(c.mint)).toBe(true);
    expect(cfg.admin.equals(c.creator.publicKey)).toBe(true);
    expect(cfg.adminRevoked).toBe(false);
    expect(cfg.version).toBe(2);
    // status is in the IDL's SharingConfig though the SDK's type leaves it out
    expect((cfg as unknown as { status: unknown }).status).toEqual({ active: {} });
    expect(cfg.shareholders.map((h) => [h.address.toBase58(), h.shareBps])).toEqual([
      [c.creator.publicKey.toBase58(), 10_000],
    ]);
    expect(curveCreator(node, c).equals(c.sharingConfig)).toBe(true);

    const [created] = events(record, PUMP_FEES, "CreateFeeSharingConfigEvent");
    const ev = PUMP_SDK.decodeCreateFeeSharingConfigEvent(created!);
    expect(ev.mint.equals(c.mint)).toBe(true);
    expect(ev.bondingCurve.equals(c.bondingCurve)).toBe(true);
    expect(ev.pool).toBeNull();
    expect(ev.sharingConfig.equals(c.sharingConfig)).toBe(true);
    expect(ev.admin.equals(c.creator.publicKey)).toBe(true);
    expect(ev.initialShareholders.map((h) => h.shareBps)).toEqual([10_000]);
    const [migrated] = events(record, PUMP, "MigrateBondingCurveCreatorEvent");
    expect(migrated).toBeDefined();
    // The CPI into pump is pump's migrate_bonding_curve_creator, under the pump_fees instruction.
    const inner = record.innerInstructions.find((i) => i.index === 0)!.instructions;
    const pumpCpi = inner.find((i) => record.accountKeys[i.programIdIndex]!.equals(PUMP) && i.stackHeight === 2)!;
    expect(Buffer.from(pumpCpi.data).toString("hex")).toBe("577c34bf3426d6e8");
  });

  test("a graduated coin: the pool's coin_creator moves too (CPI into pump_amm); its pool is required", async () => {
    const node = sharingNode();
    const c = coin(node, { graduated: true });
    const without = { ...c, pool: null };
    expectRefused(node, c.creator, [await createIx(without)], [c.sharingConfig, c.bondingCurve, c.pool!], 6019);

    const record = send(node, c.creator, [await createIx(c)]);
    expect(record.err).toBeNull();
    const pool = PUMP_AMM_SDK.decodePool(accountInfo(node, c.pool!)!);
    expect(pool.coinCreator.equals(c.sharingConfig)).toBe(true);
    expect(curveCreator(node, c).equals(c.sharingConfig)).toBe(true);
    const ev = PUMP_SDK.decodeCreateFeeSharingConfigEvent(events(record, PUMP_FEES, "CreateFeeSharingConfigEvent")[0]!);
    expect(ev.pool?.equals(c.pool!)).toBe(true);
    expect(events(record, PUMP_AMM, "MigratePoolCoinCreatorEvent")).toHaveLength(1);
  });

  test("refused: a stranger (6016), a wrong pool (6008), a wrong config PDA (2006), a mutated discriminator (101)", async () => {
    const node = sharingNode();
    const c = coin(node, { graduated: true });
    const stranger = Keypair.generate();
    node.fund(stranger.publicKey, 1_000_000_000n);
    const watched = [c.sharingConfig, c.bondingCurve, c.pool!, c.creator.publicKey];
    expectRefused(node, stranger, [await createIx(c, stranger.publicKey)], watched, 6016);
    const other = coin(node, { graduated: true });
    expectRefused(node, c.creator, [await createIx({ ...c, pool: other.pool })], watched, 6008);
    const ix = await createIx(c);
    expectRefused(node, c.creator, [withKey(ix, 5, { pubkey: other.sharingConfig })], watched, 2006);
    expectRefused(node, c.creator, [mutatedDiscriminator(ix)], watched, 101);
    expect(node.getAccount(c.sharingConfig)).toBeNull();
  });

  test("a second call changes nothing", async () => {
    const node = sharingNode();
    const c = await sharedCoin(node);
    const before = snapshot(node, [c.sharingConfig, c.bondingCurve]);
    const payer = node.getBalance(c.creator.publicKey);
    const record = send(node, c.creator, [await createIx(c)]);
    expect(record.err).toBeNull();
    expect(snapshot(node, [c.sharingConfig, c.bondingCurve])).toEqual(before);
    expect(node.getBalance(c.creator.publicKey)).toBe(payer - FEE);
  });
});

/** update_fee_shares_v2's data with `shareholders` as given (the SDK's builder refuses bad lists itself). */
function withShareholders(ix: TransactionInstruction, shareholders: Shareholder[]): TransactionInstruction {
  const coder = getPumpFeeProgram(new Connection("http://127.0.0.1:1")).coder;
  const data = coder.instruction.encode("updateFeeSharesV2", { shareholders });
  return { ...ix, data } as TransactionInstruction;
}

const split = (a: PublicKey, b: PublicKey, c: PublicKey): Shareholder[] => [
  { address: a, shareBps: 5_000 },
  { address: b, shareBps: 3_000 },
  { address: c, shareBps: 2_000 },
];

describe("update_fee_shares_v2", () => {
  test("the admin sets the final split once: pending fees go to the old shareholders first", async () => {
    const node = sharingNode();
    const c = await sharedCoin(node);
    const vault = accrue(node, c.sharingConfig, 1_000_000n);
    const [a, b, d] = [wallet(node), wallet(node), wallet(node)];
    const before = node.getBalance(c.creator.publicKey);
    const record = send(node, c.creator, [await updateV2Ix(c, [c.creator.publicKey], split(a, b, d))]);
    expect(record.err).toBeNull();
    // The creator, sole shareholder until now, receives the pending 1,000,000 lamports.
    expect(node.getBalance(c.creator.publicKey)).toBe(before + 1_000_000n - FEE);
    expect(node.getBalance(vault)).toBe(VAULT_RENT);
    const cfg = config(node, c);
    expect(cfg.adminRevoked).toBe(true);
    expect(cfg.shareholders.map((h) => [h.address.toBase58(), h.shareBps])).toEqual([
      [a.toBase58(), 5_000],
      [b.toBase58(), 3_000],
      [d.toBase58(), 2_000],
    ]);
    expect(node.getAccount(c.sharingConfig)!.data.length).toBe(CONFIG_SPACE);
    const updated = PUMP_SDK.decodeUpdateFeeSharesEvent(events(record, PUMP_FEES, "UpdateFeeSharesEvent")[0]!);
    expect(updated.sharingConfig.equals(c.sharingConfig)).toBe(true);
    expect(updated.admin.equals(c.creator.publicKey)).toBe(true);
    expect(updated.newShareholders.map((h) => h.shareBps)).toEqual([5_000, 3_000, 2_000]);
    const paid = PUMP_SDK.decodeDistributeCreatorFeesEvent(events(record, PUMP, "DistributeCreatorFeesEvent")[0]!);
    expect(paid.distributed.toString()).toBe("1000000");
    expect(paid.shareholders.map((h) => h.address.toBase58())).toEqual([c.creator.publicKey.toBase58()]);

    // Once only: the admin is revoked.
    const again = await updateV2Ix(c, [a, b, d], [{ address: a, shareBps: 10_000 }]);
    expectRefused(node, c.creator, [again], [c.sharingConfig, vault, a, b, d], 6009);
  });

  test("a graduated coin: the AMM vault's fees are swept into pump's vault (transfer_creator_fees_to_pump_v2) and paid with the curve's", async () => {
    const node = sharingNode();
    const c = await sharedCoin(node, { graduated: true });
    const vault = accrue(node, c.sharingConfig, 1_000_000n);
    const amm = accrueAmm(node, c.sharingConfig, 3_000_000n);
    const [a, b, d] = [wallet(node), wallet(node), wallet(node)];
    const before = node.getBalance(c.creator.publicKey);
    const record = send(node, c.creator, [await updateV2Ix(c, [c.creator.publicKey], split(a, b, d))]);
    expect(record.err).toBeNull();
    // The creator, sole shareholder until now, receives both: 1,000,000 from the curve, 3,000,000 from the pool.
    expect(node.getBalance(c.creator.publicKey)).toBe(before + 4_000_000n - FEE);
    expect(node.getBalance(vault)).toBe(VAULT_RENT);
    expect(wsolAmount(node, amm.ata)).toBe(0n);
    expect(node.getBalance(amm.ata)).toBe(TOKEN_ACCOUNT_RENT);
    expect(node.getBalance(amm.authority)).toBe(0n);
    const paid = PUMP_SDK.decodeDistributeCreatorFeesEvent(events(record, PUMP, "DistributeCreatorFeesEvent")[0]!);
    expect(paid.distributed.toString()).toBe("4000000");
    const v2 = Buffer.from(pumpCodecs().pumpAmm.instructionDiscriminator("transferCreatorFeesToPumpV2"));
    const inner = record.innerInstructions.find((i) => i.index === 0)!.instructions;
    const sweep = inner.filter(
      (i) => record.accountKeys[i.programIdIndex]!.equals(PUMP_AMM) && Buffer.from(i.data.subarray(0, 8)).equals(v2),
    );
    expect(sweep).toHaveLength(1);
    expect(config(node, c).adminRevoked).toBe(true);
  });

  test("refused: not the admin (6001), bad lists (6010, 6011, 6012, 6014, 6017), a mutated discriminator (101)", async () => {
    const node = sharingNode();
    const c = await sharedCoin(node);
    const vault = accrue(node, c.sharingConfig, 1_000_000n);
    const stranger = Keypair.generate();
    node.fund(stranger.publicKey, 1_000_000_000n);
    const [a, b, d] = [wallet(node), wallet(node), wallet(node)];
    const watched = [c.sharingConfig, vault, c.creator.publicKey, a, b, d];
    const good = split(a, b, d);
    expectRefused(
      node,
      stranger,
      [await updateV2Ix(c, [c.creator.publicKey], good, stranger.publicKey)],
      watched,
      6001,
    );
    const ix = await updateV2Ix(c, [c.creator.publicKey], good);
    const eleven = Array.from({ length: 11 }, (_, i) => ({
      address: Keypair.generate().publicKey,
      shareBps: i === 0 ? 0 : 1_000,
    }));
    const cases: [Shareholder[], number][] = [
      [[], 6010],
      [eleven, 6011],
      [
        [
          { address: a, shareBps: 0 },
          { address: b, shareBps: 10_000 },
        ],
        6017,
      ],
      [
        [
          { address: a, shareBps: 5_000 },
          { address: b, shareBps: 4_999 },
        ],
        6014,
      ],
      [
        [
          { address: a, shareBps: 5_000 },
          { address: a, shareBps: 5_000 },
        ],
        6012,
      ],
    ];
    for (const [list, code] of cases) expectRefused(node, c.creator, [withShareholders(ix, list)], watched, code);
    expectRefused(node, c.creator, [mutatedDiscriminator(ix)], watched, 101);
    expect(config(node, c).adminRevoked).toBe(false);
  });
});

describe("transfer_creator_fees_to_pump_v2", () => {
  test("the SDK's builder unwraps a shared coin's AMM vault into pump's creator vault, permissionlessly; skipped below the rent", async () => {
    const node = sharingNode();
    const c = await sharedCoin(node, { graduated: true });
    const vault = accrue(node, c.sharingConfig, 0n);
    const cranker = Keypair.generate();
    node.fund(cranker.publicKey, 1_000_000_000n);
    const ix = await PUMP_SDK.transferCreatorFeesToPumpV2({
      payer: cranker.publicKey,
      mint: c.mint,
      quoteMint: NATIVE_MINT,
      quoteTokenProgram: TOKEN_PROGRAM_ID,
    });
    // Below a token account's rent nothing moves.
    const small = accrueAmm(node, c.sharingConfig, TOKEN_ACCOUNT_RENT - 1n);
    expect(send(node, cranker, [ix]).err).toBeNull();
    expect(wsolAmount(node, small.ata)).toBe(TOKEN_ACCOUNT_RENT - 1n);
    expect(node.getBalance(vault)).toBe(VAULT_RENT);

    const amm = accrueAmm(node, c.sharingConfig, 7_654_321n);
    const record = send(node, cranker, [ix]);
    expect(record.err).toBeNull();
    expect(node.getBalance(vault)).toBe(VAULT_RENT + 7_654_321n);
    expect(wsolAmount(node, amm.ata)).toBe(0n);
    expect(node.getBalance(amm.ata)).toBe(TOKEN_ACCOUNT_RENT);
    expect(node.getBalance(amm.authority)).toBe(0n);
    expect(node.getBalance(cranker.publicKey)).toBe(1_000_000_000n - 2n * FEE);
    // Close into the authority, System transfer to pump's vault, the ATA reopened.
    const inner = record.innerInstructions.find((i) => i.index === 0)!.instructions;
    expect(inner.map((i) => record.accountKeys[i.programIdIndex]!.toBase58())).toContain(
      SystemProgram.programId.toBase58(),
    );
  });

  test("refused: a payer that did not sign (3010), a wrong pump vault ATA or vault authority (2006), a token-quoted coin (101), a mutated discriminator (101)", async () => {
    const node = sharingNode();
    const c = await sharedCoin(node, { graduated: true });
    const vault = accrue(node, c.sharingConfig, 0n);
    const amm = accrueAmm(node, c.sharingConfig, 5_000_000n);
    const cranker = Keypair.generate();
    node.fund(cranker.publicKey, 1_000_000_000n);
    const other = Keypair.generate().publicKey;
    const ix = await PUMP_SDK.transferCreatorFeesToPumpV2({
      payer: other,
      mint: c.mint,
      quoteMint: NATIVE_MINT,
      quoteTokenProgram: TOKEN_PROGRAM_ID,
    });
    const watched = [vault, amm.ata, amm.authority, other];
    expectRefused(node, cranker, [withKey(ix, 0, { isSigner: false })], watched, 3010);
    const signed = withKey(ix, 0, { pubkey: cranker.publicKey });
    expectRefused(node, cranker, [withKey(signed, 9, { pubkey: other })], watched, 2006);
    expectRefused(node, cranker, [withKey(signed, 6, { pubkey: other })], watched, 2006);
    const usdc = new PublicKey("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v");
    expectRefused(node, cranker, [withKey(signed, 1, { pubkey: usdc })], watched, 101);
    expectRefused(node, cranker, [mutatedDiscriminator(signed)], watched, 101);
    expect(send(node, cranker, [signed]).err).toBeNull();
    expect(node.getBalance(vault)).toBe(VAULT_RENT + 5_000_000n);
  });
});

describe("distribute_creator_fees", () => {
  test("anyone distributes the vault less its rent by share_bps, to the lamport, in the config's order", async () => {
    const node = sharingNode();
    const c = await sharedCoin(node);
    const [a, b, d] = [wallet(node), wallet(node), wallet(node)];
    await share(node, c, split(a, b, d));
    const vault = accrue(node, c.sharingConfig, 1_000_003n);
    const cranker = Keypair.generate();
    node.fund(cranker.publicKey, 1_000_000_000n);
    const before = [a, b, d].map((k) => node.getBalance(k));
    const record = send(node, cranker, [await distributeIx(node, c)]);
    expect(record.err).toBeNull();
    // floor(1,000,003 × bps / 10,000): 500,001 / 300,000 / 200,000; the 2 lamports left stay.
    expect([a, b, d].map((k, i) => node.getBalance(k) - before[i]!)).toEqual([500_001n, 300_000n, 200_000n]);
    expect(node.getBalance(vault)).toBe(VAULT_RENT + 2n);
    expect(node.getBalance(cranker.publicKey)).toBe(1_000_000_000n - FEE);
    const ev = PUMP_SDK.decodeDistributeCreatorFeesEvent(events(record, PUMP, "DistributeCreatorFeesEvent")[0]!);
    expect(ev.distributed.toString()).toBe("1000001");
    expect(ev.mint.equals(c.mint)).toBe(true);
    expect((ev as unknown as { bondingCurve: PublicKey }).bondingCurve.equals(c.bondingCurve)).toBe(true);
    expect(ev.sharingConfig.equals(c.sharingConfig)).toBe(true);
    expect(ev.admin.equals(c.creator.publicKey)).toBe(true);
    expect(ev.shareholders.map((h) => h.shareBps)).toEqual([5_000, 3_000, 2_000]);
    // Each payout is a System transfer the program signs for the vault.
    const inner = record.innerInstructions.find((i) => i.index === 0)!.instructions;
    const transfers = inner.filter((i) => record.accountKeys[i.programIdIndex]!.equals(SystemProgram.programId));
    expect(transfers).toHaveLength(3);
  });

  test("refused: shareholders out of order or missing (6054), a wrong vault (2006), an account that does not exist (6070), a mutated discriminator (101)", async () => {
    const node = sharingNode();
    const c = await sharedCoin(node);
    const [a, b] = [wallet(node), wallet(node)];
    const ghost = Keypair.generate().publicKey;
    await share(node, c, split(a, b, ghost));
    const vault = accrue(node, c.sharingConfig, 1_000_000n);
    const cranker = Keypair.generate();
    node.fund(cranker.publicKey, 1_000_000_000n);
    const watched = [vault, a, b, ghost, c.sharingConfig];
    const ix = await distributeIx(node, c);
    const swapped = {
      ...ix,
      keys: [...ix.keys.slice(0, 7), ix.keys[8]!, ix.keys[7]!, ix.keys[9]!],
    } as TransactionInstruction;
    expectRefused(node, cranker, [swapped], watched, 6054);
    expectRefused(node, cranker, [{ ...ix, keys: ix.keys.slice(0, 9) } as TransactionInstruction], watched, 6054);
    const creatorVault = PublicKey.findProgramAddressSync(
      [Buffer.from("creator-vault"), c.creator.publicKey.toBuffer()],
      PUMP,
    )[0];
    expectRefused(node, cranker, [withKey(ix, 3, { pubkey: creatorVault })], watched, 2006);
    expectRefused(node, cranker, [ix], watched, 6070);
    expectRefused(node, cranker, [mutatedDiscriminator(ix)], watched, 101);
  });

  test("below the minimum distributable amount nothing moves, and the view says so", async () => {
    const node = sharingNode();
    const c = await sharedCoin(node);
    const [a, b] = [wallet(node), wallet(node)];
    await share(node, c, [
      { address: a, shareBps: 1 },
      { address: b, shareBps: 9_999 },
    ]);
    // A 1 bps shareholder gets a lamport only from 10,000 distributable lamports.
    const vault = accrue(node, c.sharingConfig, 9_999n);
    expect(await minimumView(node, c)).toEqual({
      minimumRequired: 10_000n,
      distributableFees: 9_999n,
      canDistribute: false,
    });
    const cranker = Keypair.generate();
    node.fund(cranker.publicKey, 1_000_000_000n);
    const before = snapshot(node, [vault, a, b]);
    const record = send(node, cranker, [await distributeIx(node, c)]);
    expect(record.err).toBeNull();
    expect(snapshot(node, [vault, a, b])).toEqual(before);
    expect(events(record, PUMP, "DistributeCreatorFeesEvent")).toHaveLength(0);

    accrue(node, c.sharingConfig, 1n);
    expect(await minimumView(node, c)).toEqual({
      minimumRequired: 10_000n,
      distributableFees: 10_000n,
      canDistribute: true,
    });
  });
});

/**
 * get_minimum_distributable_fee simulated as OnlinePumpSdk.getMinimumDistributableFee does, return
 * data decoded by the SDK; the MinimumDistributableFeeEvent it logs (`emit!`, a bare `Program data:`
 * line) decoded by the SDK's pump program says the same.
 */
async function minimumView(node: LocalNode, c: Coin) {
  const ix = await PUMP_SDK.getMinimumDistributableFee({
    mint: c.mint,
    sharingConfig: config(node, c),
    sharingConfigAddress: c.sharingConfig,
  });
  const signer = new PublicKey("UqN2p5bAzBqYdHXcgB6WLtuVrdvmy9JSAtgqZb3CMKw");
  if (node.getBalance(signer) === 0n) node.fund(signer, 1_000_000_000n);
  const tx = new VersionedTransaction(
    new TransactionMessage({
      payerKey: signer,
      recentBlockhash: node.getLatestBlockhash().blockhash,
      instructions: [ix],
    }).compileToV0Message(),
  );
  const sim = node.simulate(tx, { sigVerify: false, replaceRecentBlockhash: true });
  expect(sim.err).toBeNull();
  expect(sim.returnData!.programId.equals(PUMP)).toBe(true);
  const decoded = PUMP_SDK.decodeMinimumDistributableFee(Buffer.from(sim.returnData!.data));
  const program = getPumpProgram(new Connection("http://127.0.0.1:1")) as unknown as Program;
  const logged = [...new EventParser(program.programId, program.coder).parseLogs(sim.logs)];
  expect(logged.map((e) => e.name)).toEqual(["minimumDistributableFeeEvent"]);
  const event = logged[0]!.data as unknown as typeof decoded;
  expect([event.minimumRequired.toString(), event.distributableFees.toString(), event.canDistribute]).toEqual([
    decoded.minimumRequired.toString(),
    decoded.distributableFees.toString(),
    decoded.canDistribute,
  ]);
  // No self-CPI: the view names no event authority.
  expect(sim.innerInstructions.flatMap((i) => i.instructions)).toHaveLength(0);
  return {
    minimumRequired: BigInt(decoded.minimumRequired.toString()),
    distributableFees: BigInt(decoded.distributableFees.toString()),
    canDistribute: decoded.canDistribute,
  };
}

describe("get_minimum_distributable_fee", () => {
  test("simulated, it answers what the vault can distribute and changes nothing", async () => {
    const node = sharingNode();
    const c = await sharedCoin(node);
    const [a, b, d] = [wallet(node), wallet(node), wallet(node)];
    await share(node, c, split(a, b, d));
    expect(await minimumView(node, c)).toEqual({ minimumRequired: 5n, distributableFees: 0n, canDistribute: false });
    const vault = accrue(node, c.sharingConfig, 123_456n);
    const before = snapshot(node, [vault, a, b, d, c.sharingConfig]);
    expect(await minimumView(node, c)).toEqual({
      minimumRequired: 5n,
      distributableFees: 123_456n,
      canDistribute: true,
    });
    expect(snapshot(node, [vault, a, b, d, c.sharingConfig])).toEqual(before);
  });

  test("a list that is not the config's is refused (6054)", async () => {
    const node = sharingNode();
    const c = await sharedCoin(node);
    const [a, b, d] = [wallet(node), wallet(node), wallet(node)];
    await share(node, c, split(a, b, d));
    const ix = await PUMP_SDK.getMinimumDistributableFee({
      mint: c.mint,
      sharingConfig: { ...config(node, c), shareholders: split(a, d, b) },
      sharingConfigAddress: c.sharingConfig,
    });
    const payer = Keypair.generate();
    node.fund(payer.publicKey, 1_000_000_000n);
    const tx = new VersionedTransaction(
      new TransactionMessage({
        payerKey: payer.publicKey,
        recentBlockhash: node.getLatestBlockhash().blockhash,
        instructions: [ix],
      }).compileToV0Message(),
    );
    const sim = node.simulate(tx, { sigVerify: false, replaceRecentBlockhash: true });
    expect(sim.err).toEqual({ InstructionError: [0, { Custom: 6054 }] });
  });
});
