/**
 * Node-side helpers for pump's emulated programs, as a wallet uses them: create a coin
 * (`create_v2`), buy and sell on its curve or, once migrated, its pool, each transaction built by
 * pump's own SDKs over the node's accounts and signed by keys the caller passes. A buy that
 * completes a curve is followed by `migrate`, as pump's migration service follows it on mainnet.
 * The demo, the trade simulator and tests use them; the service never does (it goes through RPC).
 */
import { createHash } from "node:crypto";
import { getAssociatedTokenAddressSync, NATIVE_MINT, TOKEN_2022_PROGRAM_ID } from "@solana/spl-token";
import {
  type AccountInfo,
  type Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  type TransactionInstruction,
} from "@solana/web3.js";
import { BN } from "@coral-xyz/anchor";
import {
  bondingCurvePda,
  canonicalPumpPoolPda,
  creatorVaultPda,
  getBuyTokenAmountFromSolAmount,
  getSellSolAmountFromTokenAmount,
  OnlinePumpSdk,
  PUMP_SDK,
} from "@pump-fun/pump-sdk";
import { coinCreatorVaultAuthorityPda, OnlinePumpAmmSdk, PUMP_AMM_SDK } from "@pump-fun/pump-swap-sdk";
import type { SolanaTxError } from "./errors";
import type { LocalNode } from "./node";
import { lamportsAsNumber } from "./lamports";

export interface PumpTradeResult {
  signature: string;
  err: SolanaTxError | null;
  /** tokens bought or sold (base units) */
  tokens: bigint;
  /** what the trade asked to spend (buy) or sold for at least (sell), lamports */
  lamports: bigint;
  /** the creator fee the trade left in the creator's vault */
  feeLamports: bigint;
  vault: "curve" | "pool";
}

const PUMP_PROGRAM = new PublicKey("6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P");
/** BondingCurve's `complete` flag (PUMP.md §5). */
const CURVE_COMPLETE_OFFSET = 48;

/** Slippage the helpers' trades allow, in percent (the SDKs' unit). */
const SLIPPAGE_PERCENT = 1;

export class PumpLaunchHelpers {
  /** Pays for coins created here when no payer is given; derived from the chain's seed, funded once. */
  readonly deployer: Keypair;
  private readonly connection: Connection;
  /** bonding curve → mint, for the coins the node knows */
  private readonly curveMints = new Map<string, string>();
  /** mints whose migrate is under way, and its end */
  private readonly migrating = new Map<string, Promise<void>>();

  constructor(private readonly node: LocalNode) {
    this.deployer = Keypair.fromSeed(
      createHash("sha256").update("localnet pump deployer").update(node.programSeed).digest(),
    );
    if (!node.hasWritten(this.deployer.publicKey.toBase58()))
      node.fund(this.deployer.publicKey, 1_000_000n * BigInt(LAMPORTS_PER_SOL));
    this.connection = nodeConnection(node);
    // pump's migration service: whoever's buy completes a curve (a wallet's, the service's burn
    // buy), the coin moves to its pool shortly after, as it does on mainnet.
    node.addListener({ onTransaction: (record) => this.migrateCompleted(record.accountKeys, record.writable) });
  }

  /** Curves a landed transaction wrote that are now complete and not yet migrated: migrated next. */
  private migrateCompleted(keys: readonly PublicKey[], writable: readonly boolean[]): void {
    keys.forEach((key, i) => {
      if (!writable[i]) return;
      const account = this.node.getAccount(key);
      if (!account || !account.owner.equals(PUMP_PROGRAM) || account.data[CURVE_COMPLETE_OFFSET] !== 1) return;
      const mint = this.mintOfCurve(key.toBase58());
      if (mint === null || this.migrated(mint) || this.migrating.has(mint)) return;
      const migration = this.migrateIfComplete(new PublicKey(mint))
        .catch(() => {})
        .finally(() => this.migrating.delete(mint));
      this.migrating.set(mint, migration);
    });
  }

  private mintOfCurve(curve: string): string | null {
    if (!this.curveMints.has(curve))
      for (const mint of this.node.pumpMints())
        this.curveMints.set(bondingCurvePda(new PublicKey(mint)).toBase58(), mint);
    return this.curveMints.get(curve) ?? null;
  }

  /** pump's `create_v2` (SOL quote, Token-2022), signed by the payer and the mint. */
  async createToken(p: {
    name: string;
    symbol: string;
    uri: string;
    creator: PublicKey | string;
    payer?: Keypair;
    mint?: Keypair;
  }): Promise<{ mint: string; signature: string; err: SolanaTxError | null }> {
    const mint = p.mint ?? Keypair.generate();
    const payer = p.payer ?? this.deployer;
    const ix = await PUMP_SDK.createV2Instruction({
      mint: mint.publicKey,
      name: p.name,
      symbol: p.symbol,
      uri: p.uri,
      creator: new PublicKey(p.creator),
      user: payer.publicKey,
      mayhemMode: false,
    });
    const r = this.node.submitInstructions([ix], payer, [mint]);
    return { mint: mint.publicKey.toBase58(), signature: r.signature, err: r.err };
  }

  /** The coin's base units `owner` holds in its associated (Token-2022) account. */
  tokenBalance(mint: string, owner: PublicKey): bigint {
    const account = this.node.getAccount(
      getAssociatedTokenAddressSync(new PublicKey(mint), owner, true, TOKEN_2022_PROGRAM_ID),
    );
    return account ? Buffer.from(account.data).readBigUInt64LE(64) : 0n;
  }

  // Built once: each builds Anchor programs from the IDLs, which costs more than a trade.
  private onlinePump: OnlinePumpSdk | null = null;
  private onlineAmm: OnlinePumpAmmSdk | null = null;
  private pumpSdk(): OnlinePumpSdk {
    this.onlinePump ??= new OnlinePumpSdk(this.connection);
    return this.onlinePump;
  }
  private ammSdk(): OnlinePumpAmmSdk {
    this.onlineAmm ??= new OnlinePumpAmmSdk(this.connection);
    return this.onlineAmm;
  }

  /** The creator pump's bonding curve names for the coin now; null for a mint pump did not create. */
  creatorOf(mint: string): string | null {
    const curve = this.node.getAccount(bondingCurvePda(new PublicKey(mint)));
    if (!curve || !curve.owner.equals(PUMP_PROGRAM)) return null;
    return PUMP_SDK.decodeBondingCurve(asAccountInfo(curve)).creator.toBase58();
  }

  /** Resolves once the migration a landed transaction started for `mint`, if any, has ended. */
  async settled(mint: string): Promise<void> {
    await this.migrating.get(mint);
  }

  /** Whether the coin trades on its pool (the curve completed and was migrated). */
  migrated(mint: string): boolean {
    return this.node.getAccount(canonicalPumpPoolPda(new PublicKey(mint))) !== null;
  }

  async buy(p: { mint: string; buyer: Keypair; solInLamports: bigint }): Promise<PumpTradeResult> {
    const mint = new PublicKey(p.mint);
    if (this.migrated(p.mint)) {
      const state = await this.ammSdk().swapSolanaState(canonicalPumpPoolPda(mint), p.buyer.publicKey);
      const ixs = await PUMP_AMM_SDK.buyQuoteInput(state, new BN(p.solInLamports.toString()), SLIPPAGE_PERCENT);
      return this.trade("pool", p.mint, p.buyer, ixs, p.solInLamports, () =>
        this.tokenBalance(p.mint, p.buyer.publicKey),
      );
    }
    const sdk = this.pumpSdk();
    const [global, feeConfig, state] = await Promise.all([
      sdk.fetchGlobal(),
      sdk.fetchFeeConfig(),
      sdk.fetchBuyState(mint, p.buyer.publicKey, TOKEN_2022_PROGRAM_ID),
    ]);
    const solAmount = new BN(p.solInLamports.toString());
    const amount = getBuyTokenAmountFromSolAmount({
      global,
      feeConfig,
      mintSupply: state.bondingCurve.tokenTotalSupply,
      bondingCurve: state.bondingCurve,
      amount: solAmount,
      quoteMint: state.quoteMint,
    });
    const ixs = await PUMP_SDK.buyInstructions({
      global,
      bondingCurveAccountInfo: state.bondingCurveAccountInfo,
      bondingCurve: state.bondingCurve,
      associatedUserAccountInfo: state.associatedUserAccountInfo,
      mint,
      user: p.buyer.publicKey,
      amount,
      solAmount,
      slippage: SLIPPAGE_PERCENT,
      tokenProgram: TOKEN_2022_PROGRAM_ID,
    });
    const result = await this.trade("curve", p.mint, p.buyer, ixs, p.solInLamports, () =>
      this.tokenBalance(p.mint, p.buyer.publicKey),
    );
    if (!result.err) await (this.migrating.get(p.mint) ?? this.migrateIfComplete(mint));
    return result;
  }

  async sell(p: { mint: string; seller: Keypair; tokensIn: bigint }): Promise<PumpTradeResult> {
    const mint = new PublicKey(p.mint);
    const amount = new BN(p.tokensIn.toString());
    if (this.migrated(p.mint)) {
      const state = await this.ammSdk().swapSolanaState(canonicalPumpPoolPda(mint), p.seller.publicKey);
      const ixs = await PUMP_AMM_SDK.sellBaseInput(state, amount, SLIPPAGE_PERCENT);
      return this.trade("pool", p.mint, p.seller, ixs, 0n, () => p.tokensIn);
    }
    const sdk = this.pumpSdk();
    const [global, feeConfig, state] = await Promise.all([
      sdk.fetchGlobal(),
      sdk.fetchFeeConfig(),
      sdk.fetchSellState(mint, p.seller.publicKey, TOKEN_2022_PROGRAM_ID),
    ]);
    const solAmount = getSellSolAmountFromTokenAmount({
      global,
      feeConfig,
      mintSupply: state.bondingCurve.tokenTotalSupply,
      bondingCurve: state.bondingCurve,
      amount,
    });
    const ixs = await PUMP_SDK.sellInstructions({
      global,
      bondingCurveAccountInfo: state.bondingCurveAccountInfo,
      bondingCurve: state.bondingCurve,
      mint,
      user: p.seller.publicKey,
      amount,
      solAmount,
      slippage: SLIPPAGE_PERCENT,
      tokenProgram: TOKEN_2022_PROGRAM_ID,
      mayhemMode: false,
    });
    return this.trade("curve", p.mint, p.seller, ixs, BigInt(solAmount.toString()), () => p.tokensIn);
  }

  /** pump's `migrate` for a complete curve not yet on its pool; the deployer pays. */
  async migrateIfComplete(mint: PublicKey): Promise<void> {
    if (this.migrated(mint.toBase58())) return;
    const curve = this.node.getAccount(bondingCurvePda(mint));
    if (!curve) return;
    const decoded = PUMP_SDK.decodeBondingCurve(asAccountInfo(curve));
    if (!decoded.complete) return;
    const global = await this.pumpSdk().fetchGlobal();
    const ix = await PUMP_SDK.migrateInstruction({
      withdrawAuthority: global.withdrawAuthority,
      mint,
      user: this.deployer.publicKey,
      tokenProgram: TOKEN_2022_PROGRAM_ID,
    });
    this.node.submitInstructions([ix], this.deployer);
  }

  /** The creator fee a trade left: the curve vault's lamports or the pool vault's WSOL, after less before. */
  private creatorVaultHolding(mint: string, vault: "curve" | "pool"): bigint {
    const key = new PublicKey(mint);
    if (vault === "curve") {
      const curve = this.node.getAccount(bondingCurvePda(key));
      if (!curve) return 0n;
      return this.node.getBalance(creatorVaultPda(PUMP_SDK.decodeBondingCurve(asAccountInfo(curve)).creator));
    }
    const pool = this.node.getAccount(canonicalPumpPoolPda(key));
    if (!pool) return 0n;
    const coinCreator = PUMP_AMM_SDK.decodePool(asAccountInfo(pool)).coinCreator;
    const ata = getAssociatedTokenAddressSync(NATIVE_MINT, coinCreatorVaultAuthorityPda(coinCreator), true);
    const account = this.node.getAccount(ata);
    return account ? Buffer.from(account.data).readBigUInt64LE(64) : 0n;
  }

  private async trade(
    vault: "curve" | "pool",
    mint: string,
    signer: Keypair,
    ixs: TransactionInstruction[],
    lamports: bigint,
    tokensAfter: () => bigint,
  ): Promise<PumpTradeResult> {
    const tokensBefore = this.tokenBalance(mint, signer.publicKey);
    const feeBefore = this.creatorVaultHolding(mint, vault);
    const r = this.node.submitInstructions(ixs, signer);
    const moved = tokensAfter();
    return {
      signature: r.signature,
      err: r.err,
      tokens: r.err ? 0n : moved === tokensBefore ? 0n : moved > tokensBefore ? moved - tokensBefore : moved,
      lamports,
      feeLamports: r.err ? 0n : this.creatorVaultHolding(mint, vault) - feeBefore,
      vault,
    };
  }
}

function asAccountInfo(a: {
  lamports: bigint;
  owner: PublicKey;
  executable: boolean;
  data: Uint8Array;
}): AccountInfo<Buffer> {
  return {
    lamports: lamportsAsNumber(a.lamports),
    owner: a.owner,
    executable: a.executable,
    data: Buffer.from(a.data),
    rentEpoch: 0,
  };
}

/**
 * The reads pump's online SDKs make, answered from the node in-process: enough of web3.js's
 * Connection for `OnlinePumpSdk` and `OnlinePumpAmmSdk` (and Anchor's account fetches).
 */
function nodeConnection(node: LocalNode): Connection {
  const info = (k: PublicKey): AccountInfo<Buffer> | null => {
    const a = node.getAccount(k);
    return a ? asAccountInfo(a) : null;
  };
  const context = () => ({ slot: Number(node.getSlot()) });
  return {
    commitment: "confirmed",
    rpcEndpoint: "in-process",
    getAccountInfo: async (k: PublicKey) => info(k),
    getAccountInfoAndContext: async (k: PublicKey) => ({ context: context(), value: info(k) }),
    getMultipleAccountsInfo: async (ks: PublicKey[]) => ks.map(info),
    getMultipleAccountsInfoAndContext: async (ks: PublicKey[]) => ({ context: context(), value: ks.map(info) }),
    getMinimumBalanceForRentExemption: async (len: number) =>
      lamportsAsNumber(node.minimumBalanceForRentExemption(len)),
  } as unknown as Connection;
}
