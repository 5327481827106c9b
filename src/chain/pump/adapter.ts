/**
 * The `pump` LaunchProgram: pump.fun's bonding curve and PumpSwap AMM on mainnet/devnet, reached
 * through a ChainReader (any RPC URL).
 *
 *   const launch = createPumpLaunchProgram(reader);
 *
 * Sweep rule (one transaction, treasury pays, each token's derived creator key signs):
 *   collect_creator_fee (curve vault → creator), create WSOL ATA → collect_coin_creator_fee →
 *   close ATA (pool vault → creator, unwrapped), then transfer creator → treasury.
 * The transfer leaves CREATOR_RESERVE_LAMPORTS (the rent-exempt minimum) in the creator address.
 * Why: the transfer amount is fixed when the transaction is built, but fees keep accruing until it
 * lands; a creator address left with 0 < lamports < rent-exempt minimum makes the whole
 * transaction fail. With the reserve, anything collected beyond the reading simply stays and is
 * swept next time. A token whose creator-owned total does not exceed the reserve yet gets no
 * instructions (packSweeps reports it as nothing-to-sweep).
 *
 * decodeSweep: collected = CPI collect events (inner instructions only); moved = lamports the
 * creator-owned accounts (creator address + its WSOL ATA) gave up net: Σ(pre − post) + collected.
 * The WSOL ATA rent the treasury fronts comes back in the same transfer and nets out, so the
 * ledger credits exactly the creator's money that reached the treasury.
 */
import {
  AccountLayout,
  MintLayout,
  NATIVE_MINT,
  TOKEN_PROGRAM_ID,
  createAssociatedTokenAccountIdempotentInstruction,
  createBurnCheckedInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import { type AccountInfo, PublicKey, SystemProgram, type TransactionInstruction } from "@solana/web3.js";
import { BN } from "@coral-xyz/anchor";
import { PUMP_SDK, computeFeesBps, getBuyTokenAmountFromSolAmount, userVolumeAccumulatorPda } from "@pump-fun/pump-sdk";
import {
  GLOBAL_CONFIG_PDA,
  PUMP_AMM_FEE_CONFIG_PDA,
  PUMP_AMM_SDK,
  buyQuoteInput,
  type SwapSolanaState,
} from "@pump-fun/pump-swap-sdk";
import type {
  AccountSnapshot,
  BurnBuyPlan,
  ChainReader,
  ConfirmedTransaction,
  CreateParams,
  FeeSharingReading,
  LaunchProgram,
  SweepEffect,
  TokenRef,
  VaultAddresses,
  VaultReading,
  VerifiedCreate,
  VerifyCreateResult,
} from "../ports";
import {
  DISC,
  PUMP_AMM_PROGRAM_ID,
  PUMP_FEE_PROGRAM_ID,
  PUMP_PROGRAM_ID,
  PUMP_WATCHED_PROGRAMS,
  RENT_EXEMPT_SYSTEM_ACCOUNT_LAMPORTS,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_ACCOUNT_RENT_LAMPORTS,
  type BondingCurveState,
  collectCreatorFeeInstruction,
  collectPoolIntoCreatorInstructions,
  coinRefusal,
  cpiEvents,
  decodeBondingCurve,
  decodeCreateArgs,
  decodeMinimumDistributableFee,
  decodeSharingConfig,
  distributeCreatorFeesInstruction,
  getMinimumDistributableFeeInstruction,
  type MinimumDistributableFee,
  type PumpAccountKind,
  unknownLayout,
  poolCoinCreator,
  pumpPdas,
  type SharingConfigState,
  transferCreatorFeesToPumpInstruction,
  startsWith,
  tokenAccountAmount,
} from "./layout";
import { AppError } from "../../lib/errors";
import { pumpLaunchOps } from "./launch-ops";
import { memoInstruction, memoTexts } from "../memo";
import { buyPriceImpactBps } from "../impact";
import { addressOfKey } from "@fee-ledger/localnet/address";

/** Lamports each creator address keeps so it is never left rent-paying (see the header). */
export const CREATOR_RESERVE_LAMPORTS = RENT_EXEMPT_SYSTEM_ACCOUNT_LAMPORTS;

export interface PumpLaunchProgram extends LaunchProgram {
  /** Current on-chain BondingCurve (creator can change after create: set_creator, fee sharing). */
  readBondingCurve(mint: string): Promise<BondingCurveState | null>;
}

export interface PumpLaunchProgramOptions {
  /** pick among fee recipients; injectable so tests are deterministic */
  random?: () => number;
}

/**
 * Lamports a distribution is planned to pay the creator key below its expected share: the program's
 * own rounding per shareholder may differ from ours, and a transfer planned on a lamport the
 * creator does not receive would fail the whole transaction. What is left over is swept next time.
 */
const DISTRIBUTION_SLACK_LAMPORTS_PER_SHAREHOLDER = 1n;

/** The part of a fee-sharing distribution a sweep plans to move on (0n when there is none). */
function plannedShareLamports(reading: VaultReading): bigint {
  const sharing = reading.feeSharing;
  if (!sharing || sharing.blockedReason !== null || sharing.shareLamports <= 0n) return 0n;
  const slack = DISTRIBUTION_SLACK_LAMPORTS_PER_SHAREHOLDER * BigInt(sharing.shareholders.length);
  return sharing.shareLamports > slack ? sharing.shareLamports - slack : 0n;
}

/** Lamports a sweep would move to the treasury for this reading (0n: nothing to sweep yet). */
function sweepableLamports(reading: VaultReading): bigint {
  // A reading resting on a layout this adapter does not know moves nothing (set aside instead).
  if (reading.programChanged) return 0n;
  const total = reading.creatorLamports + reading.curveLamports + reading.poolLamports + plannedShareLamports(reading);
  return total > CREATOR_RESERVE_LAMPORTS ? total - CREATOR_RESERVE_LAMPORTS : 0n;
}

const pk = (s: string) => new PublicKey(s);
const toBN = (v: bigint) => new BN(v.toString());
const toBigInt = (v: BN) => BigInt(v.toString());

/** The SDK decoders want web3.js AccountInfo; they read data and owner only. */
function asAccountInfo(s: AccountSnapshot): AccountInfo<Buffer> {
  return { data: Buffer.from(s.data), owner: pk(s.owner), executable: s.executable, lamports: 0 };
}

/** Pure PDA derivation, no I/O. */
function vaultAddresses(token: TokenRef): VaultAddresses {
  const creator = pk(token.creator);
  return {
    curveVault: addressOfKey(pumpPdas.creatorVault(creator)),
    poolVault: addressOfKey(pumpPdas.ammCreatorVaultWsolAta(creator)),
    bondingCurve: addressOfKey(pumpPdas.bondingCurve(pk(token.mint))),
  };
}

function mustGet(accounts: Map<string, AccountSnapshot | null>, address: string, what: string): AccountSnapshot {
  const a = accounts.get(address);
  if (!a) throw new AppError("LAUNCH_PROGRAM_ACCOUNT_MISSING", { account: what });
  return a;
}

async function readBondingCurve(reader: ChainReader, mint: string): Promise<BondingCurveState | null> {
  const address = pumpPdas.bondingCurve(pk(mint)).toBase58();
  const account = (await reader.getAccounts([address])).get(address);
  if (!account || account.owner !== PUMP_PROGRAM_ID.toBase58()) return null;
  return decodeBondingCurve(account.data);
}

/** What the builders that read the chain or pick a fee recipient need. */
interface PumpContext {
  reader: ChainReader;
  random: () => number;
}

export function createPumpLaunchProgram(
  reader: ChainReader,
  options: PumpLaunchProgramOptions = {},
): PumpLaunchProgram {
  const ctx: PumpContext = { reader, random: options.random ?? Math.random };
  return {
    kind: "pump",
    programId: PUMP_PROGRAM_ID.toBase58(),
    programs: PUMP_WATCHED_PROGRAMS,
    vaultAddresses,
    readBondingCurve: (mint) => readBondingCurve(reader, mint),
    readVaults: (tokens) => readVaults(reader, tokens),
    sweepInstructions,
    decodeSweep,
    verifyCreate,
    buildBurnBuy: (token, buyer, lamports, slippageBps) => buildBurnBuy(ctx, token, buyer, lamports, slippageBps),
    buildBurn: (mint, owner, amount) => buildBurn(reader, mint, owner, amount),
    decodeBoughtAmount,
    buyRentAccounts,
    buildCreate: (params) => buildCreate(ctx, params),
    launchOps: pumpLaunchOps,
    creatorFeeBps: () => creatorFeeBps(reader),
    buildMemo: (text, signer) => memoInstruction(text, signer),
    decodeMemos: (tx) => memoTexts(tx),
  };
}

/**
 * For tokens whose creator moved to a sharing config: the configs and the vaults of the creators
 * the programs now read (one request for all); empty when no token's creator moved.
 */
async function readSharingAccounts(
  reader: ChainReader,
  mints: readonly string[],
  currentCreators: readonly (string | null)[],
): Promise<Map<string, AccountSnapshot | null>> {
  const moved = [...new Set(currentCreators.filter((c): c is string => c !== null))];
  if (moved.length === 0) return new Map<string, AccountSnapshot | null>();
  return reader.getAccounts(
    [
      ...new Set(mints.flatMap((mint, i) => (currentCreators[i] ? [pumpPdas.sharingConfig(pk(mint)).toBase58()] : []))),
    ].concat(
      moved.flatMap((c) => [
        pumpPdas.creatorVault(pk(c)).toBase58(),
        pumpPdas.ammCreatorVaultWsolAta(pk(c)).toBase58(),
      ]),
    ),
  );
}

/** The bonding curve's `complete`; an account the program does not own, or that does not decode, is not complete. */
function curveComplete(curve: AccountSnapshot | null | undefined): boolean {
  if (!curve || curve.owner !== PUMP_PROGRAM_ID.toBase58()) return false;
  try {
    return decodeBondingCurve(curve.data).complete;
  } catch {
    return false;
  }
}

async function readVaults(reader: ChainReader, tokens: readonly TokenRef[]): Promise<VaultReading[]> {
  const rows = tokens.map((token) => ({
    token,
    ...vaultAddresses(token),
    pool: pumpPdas.canonicalPool(pk(token.mint)).toBase58(),
  }));
  const globalAddress = pumpPdas.global().toBase58();
  const accounts = await reader.getAccounts([
    ...rows.flatMap((r) => [r.token.creator, r.curveVault, r.poolVault, r.bondingCurve, r.pool]),
    globalAddress,
  ]);
  const globalChanged = layoutChange("Global", accounts.get(globalAddress), PUMP_PROGRAM_ID);
  // The creator as the programs read it (PUMP.md §7: never cached): the curve's creator, and
  // the pool's coin creator once migrated. Fee sharing moves both to the sharing config.
  const currentCreators = rows.map((r) =>
    currentCreatorOf(r.token, accounts.get(r.bondingCurve), accounts.get(r.pool)),
  );
  const second = await readSharingAccounts(
    reader,
    rows.map((r) => r.token.mint),
    currentCreators,
  );
  const readings = rows.map((r, i): VaultReading => {
    const curveVault = accounts.get(r.curveVault);
    const poolVault = accounts.get(r.poolVault);
    const curve = accounts.get(r.bondingCurve);
    const pool = accounts.get(r.pool);
    const currentCreator = currentCreators[i] ?? null;
    const programChanged =
      globalChanged ??
      layoutChange("BondingCurve", curve, PUMP_PROGRAM_ID) ??
      layoutChange("Pool", pool, PUMP_AMM_PROGRAM_ID) ??
      (currentCreator === null
        ? null
        : layoutChange(
            "SharingConfig",
            second.get(pumpPdas.sharingConfig(pk(r.token.mint)).toBase58()),
            PUMP_FEE_PROGRAM_ID,
          ));
    const curveLamports =
      curveVault && curveVault.lamports > RENT_EXEMPT_SYSTEM_ACCOUNT_LAMPORTS
        ? curveVault.lamports - RENT_EXEMPT_SYSTEM_ACCOUNT_LAMPORTS
        : 0n;
    // The WSOL token amount, not lamports: the lamports include the ATA's rent.
    const poolLamports =
      poolVault && poolVault.owner === TOKEN_PROGRAM_ID.toBase58() ? tokenAccountAmount(poolVault.data) : 0n;
    const complete = curveComplete(curve);
    return {
      mint: r.token.mint,
      curveLamports,
      poolLamports,
      creatorLamports: accounts.get(r.token.creator)?.lamports ?? 0n,
      // Graduated = the canonical pool exists (PUMP.md §5); complete alone is bonded-not-migrated.
      bonded: complete || Boolean(pool),
      feeSharing: currentCreator === null ? null : feeSharingReading(r.token, currentCreator, second),
      ...(programChanged ? { programChanged } : {}),
    };
  });
  // Only readings that would distribute ask the program for its minimum; independent, so at once.
  await Promise.all(
    readings.map(async (reading, i) => {
      if (reading.feeSharing && !reading.programChanged)
        reading.feeSharing = await withMinimumDistributable(reader, rows[i]!.token, reading.feeSharing);
    }),
  );
  return readings;
}

/**
 * "program-changed: …" when an account the reading rests on has a layout this adapter does not
 * know; null when it does, or when the account is absent or another program's (nothing to read).
 */
function layoutChange(
  kind: PumpAccountKind,
  account: AccountSnapshot | null | undefined,
  owner: PublicKey,
): string | null {
  if (!account || account.owner !== owner.toBase58()) return null;
  const change = unknownLayout(kind, account.data);
  return change === null ? null : `program-changed: ${change}`;
}

/**
 * The SDK's own wallet for simulating fee-sharing views (`getMinimumDistributableFee`): a
 * simulation needs a funded fee payer, and the reading has no key of the service's to offer.
 */
const SIMULATION_PAYER = "UqN2p5bAzBqYdHXcgB6WLtuVrdvmy9JSAtgqZb3CMKw";

/**
 * distribute_creator_fees needs at least the program's minimum distributable amount, which only
 * the program's `get_minimum_distributable_fee` view knows (no account holds it). It is simulated
 * as the SDK does (onlineSdk.ts): after the AMM consolidation the sweep would do, so the view sees
 * the vault the distribution would. Below it, or when it cannot be read, nothing is distributed
 * this run: a distribution short of the planned transfer would fail the whole transaction.
 */
async function withMinimumDistributable(
  reader: ChainReader,
  token: TokenRef,
  sharing: FeeSharingReading,
): Promise<FeeSharingReading> {
  if (sharing.blockedReason !== null || sharing.shareLamports <= 0n) return sharing;
  const mint = pk(token.mint);
  const instructions = [
    ...(poolPartIsTransferred(sharing) ? [transferCreatorFeesToPumpInstruction(pk(sharing.currentCreator))] : []),
    getMinimumDistributableFeeInstruction(
      mint,
      sharing.shareholders.map((h) => pk(h.address)),
    ),
  ];
  let minimum: MinimumDistributableFee | null = null;
  try {
    const answer = reader.simulateReturnData ? await reader.simulateReturnData(instructions, SIMULATION_PAYER) : null;
    if (answer && answer.programId === PUMP_PROGRAM_ID.toBase58()) minimum = decodeMinimumDistributableFee(answer.data);
  } catch {
    minimum = null; // an unreachable node: the distribution waits for a run that can read it
  }
  const skipped = { ...sharing, shareLamports: 0n };
  if (!minimum)
    return {
      ...skipped,
      minimumDistributableLamports: null,
      skippedReason: "the program's minimum distributable amount could not be read: no distribution this run",
    };
  const planned = plannedDistributionLamports(sharing);
  if (!minimum.canDistribute || planned < minimum.minimumRequiredLamports)
    return {
      ...skipped,
      minimumDistributableLamports: minimum.minimumRequiredLamports,
      skippedReason: `fees to distribute (${planned} lamports) are below the program's minimum distributable amount (${minimum.minimumRequiredLamports} lamports)`,
    };
  return { ...sharing, minimumDistributableLamports: minimum.minimumRequiredLamports };
}

/**
 * transfer_creator_fees_to_pump (v1) does nothing while the AMM fees are below the WSOL account's
 * rent (pump_amm IDL): those fees are neither transferred nor counted until they reach it.
 */
function poolPartIsTransferred(sharing: Pick<FeeSharingReading, "poolDistributableLamports">): boolean {
  return sharing.poolDistributableLamports >= TOKEN_ACCOUNT_RENT_LAMPORTS;
}

/** What this run's distribution would pay out in all: the curve vault's fees and the AMM part that moves. */
function plannedDistributionLamports(
  sharing: Pick<FeeSharingReading, "distributableLamports" | "poolDistributableLamports">,
): bigint {
  const curveLamports = sharing.distributableLamports - sharing.poolDistributableLamports;
  return curveLamports + (poolPartIsTransferred(sharing) ? sharing.poolDistributableLamports : 0n);
}

function sweepInstructions(
  items: readonly { token: TokenRef; reading: VaultReading }[],
  treasury: PublicKey,
): TransactionInstruction[] {
  const out: TransactionInstruction[] = [];
  for (const { token, reading } of items) {
    const move = sweepableLamports(reading);
    if (move === 0n) continue;
    const creator = pk(token.creator);
    let rentBack = 0n;
    if (reading.curveLamports > 0n) out.push(collectCreatorFeeInstruction(creator));
    if (reading.poolLamports > 0n) {
      out.push(...collectPoolIntoCreatorInstructions(creator, treasury));
      // The treasury fronts the ATA rent; closing the ATA hands it to the creator address.
      rentBack = TOKEN_ACCOUNT_RENT_LAMPORTS;
    }
    if (plannedShareLamports(reading) > 0n) {
      const sharing = reading.feeSharing!;
      const empty = reading.creatorLamports === 0n && reading.curveLamports === 0n && reading.poolLamports === 0n;
      // The program refuses to pay an account that does not exist (6070): an empty creator
      // address gets the rent-exempt minimum from the treasury first. That becomes its reserve,
      // so everything the distribution brought moves on (`move` assumed the reserve came out of
      // the fees); the treasury's net gain, and so the credit, is the fees less that reserve.
      if (empty) {
        out.push(
          SystemProgram.transfer({ fromPubkey: treasury, toPubkey: creator, lamports: CREATOR_RESERVE_LAMPORTS }),
        );
        rentBack += CREATOR_RESERVE_LAMPORTS;
      }
      out.push(...distributeInstructions(token, sharing));
    }
    out.push(SystemProgram.transfer({ fromPubkey: creator, toPubkey: treasury, lamports: move + rentBack }));
  }
  return out;
}

function decodeSweep(tx: ConfirmedTransaction, creators: readonly string[]): SweepEffect[] {
  const collected = new Map<string, bigint>(creators.map((c) => [c, 0n]));
  if (tx.err === null) {
    for (const { event } of cpiEvents(tx.innerInstructions)) {
      if (!collected.has(event.creator)) continue;
      if (event.kind === "collectCreatorFee") {
        // only SOL: a non-SOL quote pays tokens into an ATA, not lamports
        if (
          event.quoteMint !== null &&
          event.quoteMint !== PublicKey.default.toBase58() &&
          event.quoteMint !== NATIVE_MINT.toBase58()
        )
          continue;
        collected.set(event.creator, collected.get(event.creator)! + event.feeLamports);
      } else if (event.kind === "collectCoinCreatorFee") {
        if (event.vaultAta !== pumpPdas.ammCreatorVaultWsolAta(pk(event.creator)).toBase58()) continue;
        collected.set(event.creator, collected.get(event.creator)! + event.feeLamports);
      }
    }
  }
  const distributed = tx.err === null ? distributedTo(tx, new Set(creators)) : new Map<string, bigint>();
  // One effect per creator even if the caller repeats one: a duplicate would be credited twice.
  return [...new Set(creators)].map((creator): SweepEffect => {
    const collectedLamports = (collected.get(creator) ?? 0n) + (distributed.get(creator) ?? 0n);
    if (tx.err !== null) return { creator, collectedLamports: 0n, movedToTreasuryLamports: 0n };
    let net = 0n;
    for (const address of [creator, pumpPdas.creatorWsolAta(pk(creator)).toBase58()]) {
      const i = tx.accountKeys.indexOf(address);
      if (i < 0) continue;
      net += (tx.preBalances[i] ?? 0n) - (tx.postBalances[i] ?? 0n);
    }
    // Never negative: with these instructions only creator-owned money can leave; a negative
    // figure could only come from a transaction we did not build, and must not debit anyone.
    const moved = net + collectedLamports;
    return { creator, collectedLamports, movedToTreasuryLamports: moved > 0n ? moved : 0n };
  });
}

function verifyCreate(
  tx: ConfirmedTransaction,
  expected: { mint: string; creator: string; uri: string },
): VerifyCreateResult {
  if (tx.err !== null) return { ok: false, reason: `transaction failed: ${tx.err}` };
  const pumpId = PUMP_PROGRAM_ID.toBase58();
  const candidates = [...tx.instructions, ...tx.innerInstructions].filter((ix) => ix.programId === pumpId);
  const found = candidates
    .map((ix) => ({ ix, args: decodeCreateArgs(ix.data) }))
    .find(({ ix, args }) => args !== null && ix.accounts[0] === expected.mint);
  if (!found?.args) return { ok: false, reason: "no pump create instruction for this mint" };
  const { ix, args } = found;
  const bondingCurve = pumpPdas.bondingCurve(pk(expected.mint)).toBase58();
  if (ix.accounts[2] !== bondingCurve) return { ok: false, reason: "bonding curve account is not the mint's PDA" };
  const tokenProgram = ix.accounts[args.variant === "create" ? 9 : 7];
  const expectedProgram = args.variant === "create" ? TOKEN_PROGRAM_ID : TOKEN_2022_PROGRAM_ID;
  if (tokenProgram !== expectedProgram.toBase58()) return { ok: false, reason: "unexpected token program" };
  if (args.creator !== expected.creator) return { ok: false, reason: "creator is not ours" };
  if (args.uri !== expected.uri) return { ok: false, reason: "uri differs" };
  const createEvent = cpiEvents(tx.innerInstructions).find(
    (e) => e.programId === pumpId && e.event.kind === "create" && e.event.mint === expected.mint,
  )?.event;
  const event = createEvent?.kind === "create" ? createEvent : null;
  // A holder-reward coin's event names the holder-rewards PDA as creator: refused below, with its reason.
  const creatorDisagrees = event !== null && !args.isHolderReward && event.creator !== args.creator;
  if (event && (creatorDisagrees || event.uri !== args.uri || event.bondingCurve !== bondingCurve)) {
    return { ok: false, reason: "CreateEvent disagrees with the instruction" };
  }
  // This transaction created our launch's mint; what kind of coin it made is settled for good.
  const refusal = coinRefusal(args, args.variant === "create_v2" ? ix.accounts[16] : undefined, event?.coin ?? null);
  if (refusal) return { ok: false, reason: refusal, coinRefused: true };
  const deployer = ix.accounts[args.variant === "create" ? 7 : 5];
  if (!deployer) return { ok: false, reason: "create instruction has too few accounts" };
  const create: VerifiedCreate = {
    mint: expected.mint,
    creator: args.creator,
    uri: args.uri,
    name: args.name,
    symbol: args.symbol,
    deployer,
    slot: tx.slot,
    blockTime: tx.blockTime,
  };
  return { ok: true, create };
}

async function buildBurnBuy(
  ctx: PumpContext,
  token: TokenRef,
  buyer: PublicKey,
  lamports: bigint,
  slippageBps: number,
): Promise<BurnBuyPlan> {
  if (lamports <= 0n) throw new AppError("LAUNCH_PROGRAM_AMOUNT_NOT_POSITIVE", { amount: "buy amount" });
  if (!Number.isInteger(slippageBps) || slippageBps < 0 || slippageBps >= 10_000) {
    throw new AppError("LAUNCH_PROGRAM_SLIPPAGE_INVALID", { slippageBps });
  }
  const mint = pk(token.mint);
  const curveAddr = pumpPdas.bondingCurve(mint).toBase58();
  const poolAddr = pumpPdas.canonicalPool(mint).toBase58();
  const globalAddr = pumpPdas.global().toBase58();
  const feeConfigAddr = pumpPdas.pumpFeeConfig().toBase58();
  const accounts = await ctx.reader.getAccounts([token.mint, curveAddr, poolAddr, globalAddr, feeConfigAddr]);
  const mintAccount = mustGet(accounts, token.mint, "mint");
  const tokenProgram = pk(mintAccount.owner);
  const curveAccount = accounts.get(curveAddr);
  const curve = curveAccount ? decodeBondingCurve(curveAccount.data) : null;
  const bound = (expected: bigint) => (expected * BigInt(10_000 - slippageBps)) / 10_000n;
  const inputs: BuyInputs = { mint, buyer, lamports, tokenProgram, mintAccount, accounts, bound };
  if (curve && !curve.complete) return curveBurnBuy(ctx.random, inputs, curveAccount!);
  return poolBurnBuy(ctx.reader, inputs, poolAddr);
}

/** What a buy on either venue starts from: the accounts read once, and the slippage bound. */
interface BuyInputs {
  mint: PublicKey;
  buyer: PublicKey;
  lamports: bigint;
  tokenProgram: PublicKey;
  mintAccount: AccountSnapshot;
  /** the mint, its curve, its canonical pool, pump's Global and fee config */
  accounts: Map<string, AccountSnapshot | null>;
  bound: (expected: bigint) => bigint;
}

/** A buy on the bonding curve (not complete yet). */
async function curveBurnBuy(
  random: () => number,
  inputs: BuyInputs,
  curveAccount: AccountSnapshot,
): Promise<BurnBuyPlan> {
  const { mint, buyer, lamports, tokenProgram, mintAccount, accounts, bound } = inputs;
  const globalAddr = pumpPdas.global().toBase58();
  const feeConfigAddr = pumpPdas.pumpFeeConfig().toBase58();
  const global = PUMP_SDK.decodeGlobal(asAccountInfo(mustGet(accounts, globalAddr, "pump global")));
  const feeConfigAccount = accounts.get(feeConfigAddr);
  const feeConfig = feeConfigAccount ? PUMP_SDK.decodeFeeConfig(asAccountInfo(feeConfigAccount)) : null;
  const sdkCurve = PUMP_SDK.decodeBondingCurve(asAccountInfo(curveAccount));
  const mintInfo = MintLayout.decode(mintAccount.data);
  const quote = (budget: bigint) =>
    toBigInt(
      getBuyTokenAmountFromSolAmount({
        global,
        feeConfig,
        mintSupply: toBN(mintInfo.supply),
        bondingCurve: sdkCurve,
        amount: toBN(budget),
        quoteMint: NATIVE_MINT,
      }),
    );
  const expected = quote(lamports);
  const minTokenOut = bound(expected);
  if (minTokenOut <= 0n) throw new AppError("LAUNCH_PROGRAM_BUY_TOO_SMALL", { buy: "buy" });
  const recipients = sdkCurve.isMayhemMode
    ? [global.reservedFeeRecipient, ...global.reservedFeeRecipients]
    : [global.feeRecipient, ...global.feeRecipients];
  const feeRecipient = recipients[Math.floor(random() * recipients.length)] ?? global.feeRecipient;
  // The SDK builds the 16 IDL accounts plus the two remaining ones; only the arguments differ:
  // buy_exact_sol_in spends exactly `lamports` and fails below `minTokenOut`.
  const buyIx = await PUMP_SDK.getBuyInstructionRaw({
    user: buyer,
    mint,
    creator: sdkCurve.creator,
    amount: toBN(minTokenOut),
    solAmount: toBN(lamports),
    feeRecipient,
    tokenProgram,
    buybackFeeRecipient: buybackFeeRecipientOf(global, random),
  });
  // Volume not tracked: the treasury's buys would earn incentives nobody claims (see buyRentAccounts).
  buyIx.data = encodeBuyExactSolIn(lamports, minTokenOut, false);
  const ata = getAssociatedTokenAddressSync(mint, buyer, true, tokenProgram);
  return {
    instructions: [createAssociatedTokenAccountIdempotentInstruction(buyer, ata, buyer, mint, tokenProgram), buyIx],
    minTokenOut,
    priceImpactBps: buyPriceImpactBps(lamports, quote),
  };
}

/** A buy on the swap venue the token graduated to. */
async function poolBurnBuy(reader: ChainReader, inputs: BuyInputs, poolAddr: string): Promise<BurnBuyPlan> {
  const { mint, buyer, lamports, tokenProgram, mintAccount, accounts, bound } = inputs;
  const poolAccount = accounts.get(poolAddr);
  if (!poolAccount) throw new AppError("LAUNCH_PROGRAM_POOL_MISSING");
  const pool = PUMP_AMM_SDK.decodePool(asAccountInfo(poolAccount));
  const userBase = getAssociatedTokenAddressSync(mint, buyer, true, tokenProgram);
  const userQuote = getAssociatedTokenAddressSync(NATIVE_MINT, buyer, true, TOKEN_PROGRAM_ID);
  const more = await reader.getAccounts([
    GLOBAL_CONFIG_PDA.toBase58(),
    PUMP_AMM_FEE_CONFIG_PDA.toBase58(),
    pool.poolBaseTokenAccount.toBase58(),
    pool.poolQuoteTokenAccount.toBase58(),
    pool.quoteMint.toBase58(),
    userBase.toBase58(),
    userQuote.toBase58(),
  ]);
  const ammFeeConfig = more.get(PUMP_AMM_FEE_CONFIG_PDA.toBase58());
  const userBaseAccount = more.get(userBase.toBase58());
  const userQuoteAccount = more.get(userQuote.toBase58());
  const state: SwapSolanaState = {
    globalConfig: PUMP_AMM_SDK.decodeGlobalConfig(
      asAccountInfo(mustGet(more, GLOBAL_CONFIG_PDA.toBase58(), "AMM global config")),
    ),
    feeConfig: ammFeeConfig ? PUMP_AMM_SDK.decodeFeeConfig(asAccountInfo(ammFeeConfig)) : null,
    poolKey: pk(poolAddr),
    poolAccountInfo: asAccountInfo(poolAccount),
    pool,
    poolBaseAmount: toBN(
      AccountLayout.decode(mustGet(more, pool.poolBaseTokenAccount.toBase58(), "pool base account").data).amount,
    ),
    poolQuoteAmount: toBN(
      AccountLayout.decode(mustGet(more, pool.poolQuoteTokenAccount.toBase58(), "pool quote account").data).amount,
    ),
    baseTokenProgram: tokenProgram,
    quoteTokenProgram: pk(mustGet(more, pool.quoteMint.toBase58(), "quote mint").owner),
    baseMint: mint,
    baseMintAccount: MintLayout.decode(mintAccount.data),
    user: buyer,
    userBaseTokenAccount: userBase,
    userQuoteTokenAccount: userQuote,
    userBaseAccountInfo: userBaseAccount ? asAccountInfo(userBaseAccount) : null,
    userQuoteAccountInfo: userQuoteAccount ? asAccountInfo(userQuoteAccount) : null,
  };
  const quote = (budget: bigint) => toBigInt(quoteInput(budget).base);
  const quoteInput = (budget: bigint) =>
    buyQuoteInput({
      quote: toBN(budget),
      slippage: 0,
      baseReserve: state.poolBaseAmount,
      quoteReserve: state.poolQuoteAmount,
      virtualQuoteReserves: pool.virtualQuoteReserves,
      globalConfig: state.globalConfig,
      baseMintAccount: state.baseMintAccount,
      baseMint: mint,
      coinCreator: pool.coinCreator,
      creator: pool.creator,
      feeConfig: state.feeConfig,
      quoteMint: pool.quoteMint,
      isMayhemMode: pool.isMayhemMode,
      creatorFeeBps: pool.creatorFeeBps,
    });
  const minTokenOut = bound(quote(lamports));
  if (minTokenOut <= 0n) throw new AppError("LAUNCH_PROGRAM_BUY_TOO_SMALL", { buy: "buy" });
  // The SDK wraps exactly the budget into WSOL and closes the account after the buy; its `buy`
  // (exact out, budget as ceiling) would leave the unspent slippage allowance in the treasury
  // while the whole order is booked as burned. buy_exact_quote_in takes the same accounts and
  // spends exactly `spendable_quote_in` (fees included), so what is booked is what left.
  const instructions = await PUMP_AMM_SDK.buyInstructions(state, toBN(minTokenOut), toBN(lamports));
  const buyIx = instructions.find((ix) => ix.programId.equals(PUMP_AMM_PROGRAM_ID) && startsWith(ix.data, DISC.buy));
  if (!buyIx) throw new AppError("LAUNCH_PROGRAM_AMM_BUY_MISSING");
  buyIx.data = encodeBuyExactQuoteIn(lamports, minTokenOut, false);
  return { instructions, minTokenOut, priceImpactBps: buyPriceImpactBps(lamports, quote) };
}

async function buildBurn(
  reader: ChainReader,
  mint: string,
  owner: PublicKey,
  amount: bigint,
): Promise<TransactionInstruction[]> {
  if (amount <= 0n) throw new AppError("LAUNCH_PROGRAM_AMOUNT_NOT_POSITIVE", { amount: "burn amount" });
  const mintAccount = (await reader.getAccounts([mint])).get(mint);
  if (!mintAccount) throw new AppError("LAUNCH_PROGRAM_ACCOUNT_MISSING", { account: "mint" });
  const program = pk(mintAccount.owner);
  // The mint's own program: Token-2022 for create_v2 coins, SPL Token for legacy create.
  if (!program.equals(TOKEN_PROGRAM_ID) && !program.equals(TOKEN_2022_PROGRAM_ID)) {
    throw new AppError("LAUNCH_PROGRAM_MINT_NOT_TOKEN");
  }
  if (mintAccount.data.length < 82) throw new AppError("LAUNCH_PROGRAM_MINT_TOO_SHORT");
  const decimals = mintAccount.data[44]!;
  const ata = getAssociatedTokenAddressSync(pk(mint), owner, true, program);
  return [createBurnCheckedInstruction(ata, pk(mint), owner, amount, decimals, [], program)];
}

/**
 * The buyer's accounts a buy funds or empties: its token account of the mint (under either token
 * program: the mint's owner is not known here, and only the one that exists moves), its WSOL
 * account for a pool buy (closed again in the same transaction: nothing stays, and what a stranger
 * put in it comes back), and the user volume accumulators of the curve and the AMM. Burn buys do
 * not track volume (track_volume false), so nothing accrues in those: no incentives left unclaimed.
 * The programs still create the accumulator on a buyer's first buy whatever track_volume says (the
 * IDLs' buy_exact_sol_in and buy_exact_quote_in docs ask the payer for its rent unconditionally,
 * and buy_v2 documents it "initialized if needed"), once per program: its rent is booked as held
 * (about 0.0018 SOL each), not closed again, since a close in every buy would fail every burn the
 * day the program's close refuses (its conditions are not in the IDL and cannot be tried here).
 */
function buyRentAccounts(mint: string, buyer: string): string[] {
  const m = pk(mint);
  const b = pk(buyer);
  return [
    getAssociatedTokenAddressSync(m, b, true, TOKEN_PROGRAM_ID).toBase58(),
    getAssociatedTokenAddressSync(m, b, true, TOKEN_2022_PROGRAM_ID).toBase58(),
    getAssociatedTokenAddressSync(NATIVE_MINT, b, true, TOKEN_PROGRAM_ID).toBase58(),
    userVolumeAccumulatorPda(b).toBase58(),
    userVolumeAccumulatorPda(b, PUMP_AMM_PROGRAM_ID).toBase58(),
  ];
}

function decodeBoughtAmount(tx: ConfirmedTransaction, mint: string, owner: string): bigint {
  if (!tx.preTokenBalances || !tx.postTokenBalances) {
    throw new AppError("LAUNCH_PROGRAM_NO_TOKEN_BALANCES");
  }
  const sum = (list: NonNullable<ConfirmedTransaction["postTokenBalances"]>) =>
    list.filter((b) => b.mint === mint && b.owner === owner).reduce((n, b) => n + b.amount, 0n);
  return sum(tx.postTokenBalances) - sum(tx.preTokenBalances);
}

async function buildCreate(ctx: PumpContext, params: CreateParams): Promise<TransactionInstruction[][]> {
  const { reader, random } = ctx;
  // PUMP.md §2 limits; the program would reject longer values after the deployer paid the fee.
  if ([...params.name].length > 32 || [...params.symbol].length > 13 || [...params.uri].length > 200) {
    throw new AppError("LAUNCH_PROGRAM_METADATA_TOO_LONG");
  }
  if (params.firstBuyLamports < 0n) throw new AppError("LAUNCH_PROGRAM_FIRST_BUY_NEGATIVE");
  const mint = pk(params.mint);
  const deployer = pk(params.deployer);
  // create_v2: Token-2022 with metadata in the mint; the creator does not sign (PUMP.md §2).
  const create = await PUMP_SDK.createV2Instruction({
    mint,
    name: params.name,
    symbol: params.symbol,
    uri: params.uri,
    creator: pk(params.creator),
    user: deployer,
    mayhemMode: false,
  });
  if (params.firstBuyLamports === 0n) return [[create]];
  const globalAddr = pumpPdas.global().toBase58();
  const feeConfigAddr = pumpPdas.pumpFeeConfig().toBase58();
  const accounts = await reader.getAccounts([globalAddr, feeConfigAddr]);
  const global = PUMP_SDK.decodeGlobal(asAccountInfo(mustGet(accounts, globalAddr, "pump global")));
  const feeConfigAccount = accounts.get(feeConfigAddr);
  const feeConfig = feeConfigAccount ? PUMP_SDK.decodeFeeConfig(asAccountInfo(feeConfigAccount)) : null;
  // A curve that does not exist yet: the SDK quotes it from Global's initial reserves.
  const expected = toBigInt(
    getBuyTokenAmountFromSolAmount({
      global,
      feeConfig,
      mintSupply: null,
      bondingCurve: null,
      amount: toBN(params.firstBuyLamports),
      quoteMint: NATIVE_MINT,
    }),
  );
  // Create and buy are one transaction, so nobody trades in between; 1 % covers rounding only.
  const minTokenOut = (expected * 9_900n) / 10_000n;
  if (minTokenOut <= 0n) throw new AppError("LAUNCH_PROGRAM_BUY_TOO_SMALL", { buy: "first buy" });
  const recipients = [global.feeRecipient, ...global.feeRecipients];
  const buyIx = await PUMP_SDK.getBuyInstructionRaw({
    user: deployer,
    mint,
    creator: pk(params.creator),
    amount: toBN(minTokenOut),
    solAmount: toBN(params.firstBuyLamports),
    feeRecipient: recipients[Math.floor(random() * recipients.length)] ?? global.feeRecipient,
    tokenProgram: TOKEN_2022_PROGRAM_ID,
    buybackFeeRecipient: buybackFeeRecipientOf(global, random),
  });
  buyIx.data = encodeBuyExactSolIn(params.firstBuyLamports, minTokenOut, true);
  const ata = getAssociatedTokenAddressSync(mint, deployer, true, TOKEN_2022_PROGRAM_ID);
  return [
    [
      create,
      createAssociatedTokenAccountIdempotentInstruction(deployer, ata, deployer, mint, TOKEN_2022_PROGRAM_ID),
      buyIx,
    ],
  ];
}

async function creatorFeeBps(reader: ChainReader): Promise<number> {
  const globalAddr = pumpPdas.global().toBase58();
  const feeConfigAddr = pumpPdas.pumpFeeConfig().toBase58();
  const accounts = await reader.getAccounts([globalAddr, feeConfigAddr]);
  const global = PUMP_SDK.decodeGlobal(asAccountInfo(mustGet(accounts, globalAddr, "pump global")));
  const feeConfigAccount = accounts.get(feeConfigAddr);
  if (!feeConfigAccount) return Number(global.creatorFeeBasisPoints.toString());
  const feeConfig = PUMP_SDK.decodeFeeConfig(asAccountInfo(feeConfigAccount));
  // The rate of a fresh SOL curve: the tier every token starts in.
  const { creatorFeeBps } = computeFeesBps({
    global,
    feeConfig,
    mintSupply: global.tokenTotalSupply,
    virtualQuoteReserves: global.initialVirtualQuoteReserves ?? global.initialVirtualSolReserves,
    virtualTokenReserves: global.initialVirtualTokenReserves,
    quoteMint: NATIVE_MINT,
  });
  return Number(creatorFeeBps.toString());
}

/**
 * The creator the programs pay now when it is no longer the token's derived key: the bonding
 * curve's `creator`, else the pool's `coin_creator` (a coin can be migrated on either). null when
 * both still name the derived key (or cannot be read: nothing is concluded from a missing account).
 */
function currentCreatorOf(
  token: TokenRef,
  curve: AccountSnapshot | null | undefined,
  pool: AccountSnapshot | null | undefined,
): string | null {
  const zero = PublicKey.default.toBase58();
  if (curve && curve.owner === PUMP_PROGRAM_ID.toBase58()) {
    try {
      const creator = decodeBondingCurve(curve.data).creator;
      if (creator !== token.creator && creator !== zero) return creator;
    } catch {
      // an undecodable curve says nothing about its creator
    }
  }
  if (pool && pool.owner === PUMP_AMM_PROGRAM_ID.toBase58()) {
    const coinCreator = poolCoinCreator(pool.data);
    if (coinCreator && coinCreator !== token.creator && coinCreator !== zero) return coinCreator;
  }
  return null;
}

function feeSharingReading(
  token: TokenRef,
  currentCreator: string,
  accounts: Map<string, AccountSnapshot | null>,
): FeeSharingReading {
  const creatorKey = pk(currentCreator);
  const curveVault = accounts.get(pumpPdas.creatorVault(creatorKey).toBase58());
  const poolVault = accounts.get(pumpPdas.ammCreatorVaultWsolAta(creatorKey).toBase58());
  const poolDistributableLamports =
    poolVault && poolVault.owner === TOKEN_PROGRAM_ID.toBase58() ? tokenAccountAmount(poolVault.data) : 0n;
  const distributableLamports =
    (curveVault && curveVault.lamports > RENT_EXEMPT_SYSTEM_ACCOUNT_LAMPORTS
      ? curveVault.lamports - RENT_EXEMPT_SYSTEM_ACCOUNT_LAMPORTS
      : 0n) + poolDistributableLamports;
  const sharingAddress = pumpPdas.sharingConfig(pk(token.mint)).toBase58();
  const base = {
    currentCreator,
    distributableLamports,
    poolDistributableLamports,
    shareholders: [] as FeeSharingReading["shareholders"],
    serviceShareBps: 0,
    shareLamports: 0n,
  };
  if (currentCreator !== sharingAddress) {
    return {
      ...base,
      isSharingConfig: false,
      blockedReason: "the launch program's creator was changed to a key that is not the coin's sharing config",
    };
  }
  const account = accounts.get(sharingAddress);
  let config: SharingConfigState | null = null;
  if (account && account.owner === PUMP_FEE_PROGRAM_ID.toBase58()) {
    try {
      config = decodeSharingConfig(account.data);
    } catch {
      config = null;
    }
  }
  if (!config || config.mint !== token.mint)
    return { ...base, isSharingConfig: true, blockedReason: "the coin's sharing config cannot be read" };
  const serviceShareBps = config.shareholders
    .filter((h) => h.address === token.creator)
    .reduce((n, h) => n + h.shareBps, 0);
  const reading = { ...base, isSharingConfig: true, shareholders: config.shareholders, serviceShareBps };
  if (serviceShareBps === 0)
    return { ...reading, blockedReason: "the coin's sharing config does not name the service's key as a shareholder" };
  if (!config.active) return { ...reading, blockedReason: "the coin's sharing config is paused" };
  const planned = plannedDistributionLamports(reading);
  return {
    ...reading,
    shareLamports: (planned * BigInt(serviceShareBps)) / 10_000n,
    blockedReason: null,
    skippedReason:
      poolDistributableLamports > 0n && !poolPartIsTransferred(reading)
        ? `the AMM fees (${poolDistributableLamports} lamports) are below the WSOL account's rent (${TOKEN_ACCOUNT_RENT_LAMPORTS} lamports): transfer_creator_fees_to_pump would move nothing yet`
        : null,
  };
}

/** transfer_creator_fees_to_pump when the sharing config's AMM vault holds fees, then distribute. */
function distributeInstructions(token: TokenRef, sharing: FeeSharingReading): TransactionInstruction[] {
  const out: TransactionInstruction[] = [];
  const config = pk(sharing.currentCreator);
  // As the SDK does: graduated fees are first consolidated from the AMM vault into the Pump vault.
  if (poolPartIsTransferred(sharing)) out.push(transferCreatorFeesToPumpInstruction(config));
  out.push(
    distributeCreatorFeesInstruction(
      pk(token.mint),
      sharing.shareholders.map((h) => pk(h.address)),
    ),
  );
  return out;
}

/**
 * Lamports each creator received from distribute_creator_fees in this transaction: the System
 * transfers the Pump program made (its creator vault is a system account, so every payout is a
 * System CPI) inside a top-level distribute instruction. Exact, unlike re-deriving shares from the
 * event, and a transfer outside a distribute (a collect, or anyone else's) is never counted here.
 */
function distributedTo(tx: ConfirmedTransaction, creators: Set<string>): Map<string, bigint> {
  const out = new Map<string, bigint>();
  const system = SystemProgram.programId.toBase58();
  const pumpId = PUMP_PROGRAM_ID.toBase58();
  for (const ix of tx.innerInstructions) {
    const outer = tx.instructions[ix.outerIndex];
    if (!outer || outer.programId !== pumpId || !startsWith(outer.data, DISC.distributeCreatorFees)) continue;
    if (
      ix.programId !== system ||
      ix.data.length < 12 ||
      ix.data[0] !== 2 ||
      ix.data[1] !== 0 ||
      ix.data[2] !== 0 ||
      ix.data[3] !== 0
    )
      continue;
    const to = ix.accounts[1];
    if (!to || !creators.has(to) || ix.accounts[0] !== outer.accounts[3]) continue;
    const amount = new DataView(ix.data.buffer, ix.data.byteOffset + 4, 8).getBigUint64(0, true);
    out.set(to, (out.get(to) ?? 0n) + amount);
  }
  return out;
}

/**
 * The buyback fee recipient a curve buy names, from the `Global` account the program checks it
 * against (`buyback_fee_recipients`), not from the SDK's static list, which lags behind the chain.
 * Only a Global written before the field existed (all zero keys) falls back to the SDK's choice.
 */
function buybackFeeRecipientOf(global: { buybackFeeRecipients?: PublicKey[] }, random: () => number): PublicKey {
  const set = (global.buybackFeeRecipients ?? []).filter((k) => !k.equals(PublicKey.default));
  if (set.length > 0) return set[Math.floor(random() * set.length)] ?? set[0]!;
  return undefined as unknown as PublicKey; // the SDK's default parameter applies
}

/**
 * buy_exact_sol_in args: spendable_sol_in u64, min_tokens_out u64, track_volume OptionBool (the
 * IDL's one-bool struct: one byte). A burn buy does not track volume; a deployer's first buy does
 * (the incentives are the deployer's).
 */
export function encodeBuyExactSolIn(spendableLamports: bigint, minTokensOut: bigint, trackVolume: boolean): Buffer {
  const data = Buffer.alloc(8 + 8 + 8 + 1);
  data.set(DISC.buyExactSolIn, 0);
  data.writeBigUInt64LE(spendableLamports, 8);
  data.writeBigUInt64LE(minTokensOut, 16);
  data.writeUInt8(trackVolume ? 1 : 0, 24);
  return data;
}

/** PumpSwap buy_exact_quote_in args: spendable_quote_in u64, min_base_amount_out u64, track_volume OptionBool. */
export function encodeBuyExactQuoteIn(spendableLamports: bigint, minBaseOut: bigint, trackVolume: boolean): Buffer {
  const data = Buffer.alloc(8 + 8 + 8 + 1);
  data.set(DISC.buyExactQuoteIn, 0);
  data.writeBigUInt64LE(spendableLamports, 8);
  data.writeBigUInt64LE(minBaseOut, 16);
  data.writeUInt8(trackVolume ? 1 : 0, 24);
  return data;
}
