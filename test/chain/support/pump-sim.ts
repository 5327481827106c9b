/**
 * An in-memory emulation of the accounts a pump sweep touches, so the pump adapter can be
 * exercised end to end without the real programs (they cannot be loaded offline):
 * System transfer, ATA create-idempotent, SPL Token CloseAccount, ComputeBudget, and pump's
 * create_v2 (the mint and its curve, nothing more), collect_creator_fee / PumpSwap's
 * collect_coin_creator_fee with their #[event_cpi] events
 * (also echoed as "Program data:" logs, as some programs do, to prove nothing counts twice).
 * Solana's rules that matter here are enforced: signatures, atomicity, the fee payer pays
 * 5,000 lamports per signature, and no system account may end between 0 and rent-exempt.
 */
import {
  ACCOUNT_SIZE,
  AccountLayout,
  MINT_SIZE,
  MintLayout,
  NATIVE_MINT,
  TOKEN_PROGRAM_ID,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import { GLOBAL_CONFIG_PDA, POOL_ACCOUNT_NEW_SIZE } from "@pump-fun/pump-swap-sdk";
import {
  ComputeBudgetProgram,
  type Keypair,
  PublicKey,
  SystemProgram,
  type TransactionInstruction,
} from "@solana/web3.js";
import bs58 from "bs58";
import { compileTransaction } from "../../../src/chain/packing";
import type {
  AccountSnapshot,
  ChainReader,
  CompiledInstructionView,
  ConfirmedTransaction,
} from "../../../src/chain/ports";
import {
  DISC,
  PUMP_AMM_PROGRAM_ID,
  PUMP_FEE_PROGRAM_ID,
  PUMP_PROGRAM_ID,
  RENT_EXEMPT_SYSTEM_ACCOUNT_LAMPORTS,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_ACCOUNT_RENT_LAMPORTS,
  decodeCreateArgs,
  decodeSharingConfig,
  pumpPdas,
} from "../../../src/chain/pump/layout";
import { ammGlobalConfigBytes, bondingCurveBytes, poolBytes, sharingConfigBytes } from "./fixtures";

const SYSTEM = SystemProgram.programId.toBase58();
const ATA_PROGRAM = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";
const LAMPORTS_PER_SIGNATURE = 5_000n;

type Account = { lamports: bigint; owner: string; data: Uint8Array };

class SimError extends Error {}

function tokenAccount(mint: PublicKey, owner: PublicKey, amount: bigint, native: boolean): Uint8Array {
  const b = Buffer.alloc(ACCOUNT_SIZE);
  AccountLayout.encode(
    {
      mint,
      owner,
      amount,
      delegateOption: 0,
      delegate: PublicKey.default,
      state: 1,
      isNativeOption: native ? 1 : 0,
      isNative: native ? TOKEN_ACCOUNT_RENT_LAMPORTS : 0n,
      delegatedAmount: 0n,
      closeAuthorityOption: 0,
      closeAuthority: PublicKey.default,
    },
    b,
  );
  return new Uint8Array(b);
}

function mintData(supply: bigint, decimals: number): Uint8Array {
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

function eventBody(parts: Uint8Array[]): Uint8Array {
  return Uint8Array.from(parts.flatMap((p) => [...p]));
}
const u64 = (v: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(v);
  return new Uint8Array(b);
};

export class PumpSim {
  readonly accounts = new Map<string, Account>();
  /**
   * What this emulation's `get_minimum_distributable_fee` answers and its distribute_creator_fees
   * requires (pump's figure is the program's own; only its view tells it).
   */
  minimumDistributableLamports = 1_000_000n;
  private returnData: Uint8Array | null = null;
  private readonly txs = new Map<string, ConfirmedTransaction>();
  private readonly fees = new Map<string, bigint>();
  private slot = 1n;

  fund(address: string, lamports: bigint): void {
    const a = this.accounts.get(address) ?? { lamports: 0n, owner: SYSTEM, data: new Uint8Array() };
    a.lamports += lamports;
    this.accounts.set(address, a);
  }

  createToken(mint: PublicKey, creator: PublicKey): void {
    // create_v2: a Token-2022 mint of 6 decimals
    this.accounts.set(mint.toBase58(), {
      lamports: 1_461_600n,
      owner: TOKEN_2022_PROGRAM_ID.toBase58(),
      data: mintData(1_000_000_000_000_000n, 6),
    });
    this.accounts.set(pumpPdas.bondingCurve(mint).toBase58(), {
      lamports: 1_500_000n,
      owner: PUMP_PROGRAM_ID.toBase58(),
      data: bondingCurveBytes({ complete: false, creator }),
    });
  }

  /**
   * What pump's announced v3 does to a curve (pump-public-docs SWEEP_FEES.md, TRADE_V3.md): the
   * creator fee stays in the curve account, a u64 after the 125 bytes of the layout known today.
   */
  switchCurveToV3(mint: PublicKey, creatorFeeLamports: bigint): void {
    const curve = this.accounts.get(pumpPdas.bondingCurve(mint).toBase58())!;
    const data = Buffer.alloc(151);
    data.set(curve.data.subarray(0, 125));
    data.writeBigUInt64LE(creatorFeeLamports, 125);
    curve.data = new Uint8Array(data);
  }

  /** The creator the token's bonding curve names now. */
  currentCreator(mint: PublicKey): PublicKey {
    const curve = this.accounts.get(pumpPdas.bondingCurve(mint).toBase58())!;
    return new PublicKey(curve.data.subarray(49, 81));
  }

  /**
   * What create_fee_sharing_config (or the global admin) does: the coin's sharing config is created
   * under Pump Fees and becomes the curve's creator; new fees accrue to its vaults from now on.
   */
  migrateToSharing(
    mint: PublicKey,
    shareholders: { address: PublicKey; shareBps: number }[],
    active = true,
  ): PublicKey {
    const config = pumpPdas.sharingConfig(mint);
    const curve = this.accounts.get(pumpPdas.bondingCurve(mint).toBase58())!;
    config.toBuffer().copy(Buffer.from(curve.data.buffer, curve.data.byteOffset, curve.data.length), 49);
    this.accounts.set(config.toBase58(), {
      lamports: 2_000_000n,
      owner: PUMP_FEE_PROGRAM_ID.toBase58(),
      data: sharingConfigBytes(mint, shareholders, active),
    });
    return config;
  }

  /** Fees accruing from trades: lamports into the curve vault, WSOL into the pool vault (migrating the token). */
  accrue(mint: PublicKey, creator: PublicKey, venue: "curve" | "pool", lamports: bigint): void {
    if (venue === "curve") {
      const vault = pumpPdas.creatorVault(creator).toBase58();
      if (!this.accounts.has(vault)) this.fund(vault, RENT_EXEMPT_SYSTEM_ACCOUNT_LAMPORTS);
      this.fund(vault, lamports);
      return;
    }
    const pool = pumpPdas.canonicalPool(mint).toBase58();
    if (!this.accounts.has(pool)) this.listOnPool(mint, creator);
    const vault = pumpPdas.ammCreatorVaultWsolAta(creator).toBase58();
    const existing = this.accounts.get(vault);
    const amount = (existing ? AccountLayout.decode(existing.data).amount : 0n) + lamports;
    this.accounts.set(vault, {
      lamports: TOKEN_ACCOUNT_RENT_LAMPORTS + amount,
      owner: TOKEN_PROGRAM_ID.toBase58(),
      data: tokenAccount(NATIVE_MINT, pumpPdas.ammCreatorVaultAuthority(creator), amount, true),
    });
  }

  /**
   * What migrate does, as far as a buyer can see: the curve completes and the canonical pool opens
   * with reserves (base on Token-2022, WSOL quote) and the AMM's global config.
   */
  private listOnPool(mint: PublicKey, creator: PublicKey): void {
    const poolKey = pumpPdas.canonicalPool(mint);
    const base = getAssociatedTokenAddressSync(mint, poolKey, true, TOKEN_2022_PROGRAM_ID);
    const quote = getAssociatedTokenAddressSync(NATIVE_MINT, poolKey, true, TOKEN_PROGRAM_ID);
    const curve = this.accounts.get(pumpPdas.bondingCurve(mint).toBase58())!;
    curve.data = bondingCurveBytes({
      complete: true,
      creator: new PublicKey(curve.data.subarray(49, 81)),
      realTokenReserves: 0n,
    });
    const data = new Uint8Array(POOL_ACCOUNT_NEW_SIZE);
    data.set(poolBytes(mint, creator, base, quote));
    this.accounts.set(poolKey.toBase58(), { lamports: 3_000_000n, owner: PUMP_AMM_PROGRAM_ID.toBase58(), data });
    this.accounts.set(base.toBase58(), {
      lamports: TOKEN_ACCOUNT_RENT_LAMPORTS,
      owner: TOKEN_2022_PROGRAM_ID.toBase58(),
      data: tokenAccount(mint, poolKey, 200_000_000_000_000n, false),
    });
    this.accounts.set(quote.toBase58(), {
      lamports: TOKEN_ACCOUNT_RENT_LAMPORTS + 85_000_000_000n,
      owner: TOKEN_PROGRAM_ID.toBase58(),
      data: tokenAccount(NATIVE_MINT, poolKey, 85_000_000_000n, true),
    });
    if (!this.accounts.has(GLOBAL_CONFIG_PDA.toBase58())) {
      this.accounts.set(GLOBAL_CONFIG_PDA.toBase58(), {
        lamports: 2_000_000n,
        owner: PUMP_AMM_PROGRAM_ID.toBase58(),
        data: ammGlobalConfigBytes(),
      });
    }
    if (!this.accounts.has(NATIVE_MINT.toBase58())) {
      this.accounts.set(NATIVE_MINT.toBase58(), {
        lamports: 1_461_600n,
        owner: TOKEN_PROGRAM_ID.toBase58(),
        data: mintData(0n, 9),
      });
    }
  }

  feeOf(signature: string): bigint {
    return this.fees.get(signature) ?? 0n;
  }

  balance(address: string): bigint {
    return this.accounts.get(address)?.lamports ?? 0n;
  }

  reader(): ChainReader {
    const snap = (a: Account | undefined): AccountSnapshot | null =>
      a ? { lamports: a.lamports, owner: a.owner, executable: false, data: Uint8Array.from(a.data) } : null;
    return {
      getAccounts: async (addresses) => new Map(addresses.map((x) => [x, snap(this.accounts.get(x))])),
      getBalances: async (addresses) => new Map(addresses.map((x) => [x, this.balance(x)])),
      getTransaction: async (signature) => this.txs.get(signature) ?? null,
      getSignatureStatuses: async (signatures) =>
        new Map(
          signatures.map((s) => {
            const tx = this.txs.get(s);
            return [s, tx ? { slot: tx.slot, err: tx.err, confirmationStatus: "finalized" as const } : null];
          }),
        ),
      getBlockHeight: async () => this.slot,
      getLatestBlockhash: async () => ({
        blockhash: bs58.encode(new Uint8Array(32).fill(Number(this.slot % 250n) + 1)),
        lastValidBlockHeight: this.slot + 150n,
      }),
      simulateReturnData: async (instructions) => this.simulate(instructions),
    };
  }

  /** Runs on a copy of the state, nothing kept, no fee, signatures unchecked: the return data, or null on failure. */
  simulate(instructions: readonly TransactionInstruction[]): { programId: string; data: Uint8Array } | null {
    const working = new Map([...this.accounts].map(([k, v]) => [k, { ...v, data: Uint8Array.from(v.data) }]));
    const signed = new Set(
      instructions.flatMap((ix) => ix.keys.filter((k) => k.isSigner).map((k) => k.pubkey.toBase58())),
    );
    this.returnData = null;
    try {
      for (const [index, ix] of instructions.entries()) this.run(working, ix, index, signed, [], []);
    } catch (e) {
      if (!(e instanceof SimError)) throw e;
      return null;
    }
    return this.returnData ? { programId: PUMP_PROGRAM_ID.toBase58(), data: this.returnData } : null;
  }

  /** Executes atomically; the payer's fee is charged even when an instruction fails. */
  execute(
    instructions: readonly TransactionInstruction[],
    payer: Keypair,
    signers: readonly Keypair[],
  ): ConfirmedTransaction {
    const tx = compileTransaction({
      instructions,
      payer: payer.publicKey,
      recentBlockhash: bs58.encode(new Uint8Array(32).fill(5)),
    });
    tx.sign([payer, ...signers]);
    const keys = tx.message.staticAccountKeys.map((k) => k.toBase58());
    const signed = new Set(keys.slice(0, tx.message.header.numRequiredSignatures));
    const signature = bs58.encode(tx.signatures[0]!);
    const pre = keys.map((k) => this.balance(k));
    const preTokens = this.tokenBalances(keys);
    const fee = LAMPORTS_PER_SIGNATURE * BigInt(tx.signatures.length);
    this.slot += 1n;

    const working = new Map([...this.accounts].map(([k, v]) => [k, { ...v, data: Uint8Array.from(v.data) }]));
    const inner: ConfirmedTransaction["innerInstructions"] = [];
    const logs: string[] = [];
    let err: string | null = null;
    try {
      this.debit(working, keys[0]!, fee);
      for (const [index, ix] of instructions.entries()) this.run(working, ix, index, signed, inner, logs);
      for (const k of keys) {
        const a = working.get(k);
        if (
          a &&
          a.owner === SYSTEM &&
          a.data.length === 0 &&
          a.lamports > 0n &&
          a.lamports < RENT_EXEMPT_SYSTEM_ACCOUNT_LAMPORTS
        ) {
          throw new SimError(`{"InsufficientFundsForRent":{"account_index":${keys.indexOf(k)}}}`);
        }
      }
      for (const [k, a] of working) if (a.lamports === 0n) working.delete(k);
      this.accounts.clear();
      for (const [k, v] of working) this.accounts.set(k, v);
    } catch (e) {
      if (!(e instanceof SimError)) throw e;
      err = e.message;
      inner.length = 0;
      logs.length = 0;
      this.debit(this.accounts, keys[0]!, fee);
    }
    const confirmed: ConfirmedTransaction = {
      signature,
      slot: this.slot,
      blockTime: new Date(1_760_000_000_000 + Number(this.slot) * 400),
      err,
      accountKeys: keys,
      preBalances: pre,
      postBalances: keys.map((k) => this.balance(k)),
      instructions: tx.message.compiledInstructions.map((ix) => ({
        programId: keys[ix.programIdIndex]!,
        accounts: ix.accountKeyIndexes.map((i) => keys[i]!),
        data: Uint8Array.from(ix.data),
      })),
      innerInstructions: inner,
      logMessages: logs,
      preTokenBalances: preTokens,
      postTokenBalances: this.tokenBalances(keys),
    };
    this.txs.set(signature, confirmed);
    this.fees.set(signature, fee);
    return confirmed;
  }

  private tokenBalances(keys: string[]): NonNullable<ConfirmedTransaction["preTokenBalances"]> {
    const out: NonNullable<ConfirmedTransaction["preTokenBalances"]> = [];
    keys.forEach((k, accountIndex) => {
      const a = this.accounts.get(k);
      if (
        !a ||
        a.data.length < 165 ||
        (a.owner !== TOKEN_PROGRAM_ID.toBase58() && a.owner !== TOKEN_2022_PROGRAM_ID.toBase58())
      )
        return;
      const d = AccountLayout.decode(a.data);
      out.push({ accountIndex, mint: d.mint.toBase58(), owner: d.owner.toBase58(), amount: d.amount });
    });
    return out;
  }

  private debit(state: Map<string, Account>, address: string, lamports: bigint): void {
    const a = state.get(address);
    if (!a || a.lamports < lamports) throw new SimError('"InsufficientFundsForFee"');
    a.lamports -= lamports;
  }

  private credit(state: Map<string, Account>, address: string, lamports: bigint): void {
    const a = state.get(address) ?? { lamports: 0n, owner: SYSTEM, data: new Uint8Array() };
    a.lamports += lamports;
    state.set(address, a);
  }

  private emit(
    programId: PublicKey,
    authority: PublicKey,
    outerIndex: number,
    payload: Uint8Array,
    inner: ConfirmedTransaction["innerInstructions"],
    logs: string[],
  ) {
    const view: CompiledInstructionView = {
      programId: programId.toBase58(),
      accounts: [authority.toBase58()],
      data: Uint8Array.from([...DISC.eventIxTag, ...payload]),
    };
    inner.push({ ...view, outerIndex });
    logs.push(`Program data: ${Buffer.from(payload).toString("base64")}`);
  }

  private run(
    state: Map<string, Account>,
    ix: TransactionInstruction,
    index: number,
    signed: Set<string>,
    inner: ConfirmedTransaction["innerInstructions"],
    logs: string[],
  ): void {
    const program = ix.programId.toBase58();
    const key = (i: number) => ix.keys[i]!.pubkey.toBase58();
    const fail = (why: string) => {
      throw new SimError(`{"InstructionError":[${index},"${why}"]}`);
    };
    if (program === ComputeBudgetProgram.programId.toBase58()) return;
    if (program === SYSTEM) {
      if (ix.data.readUInt32LE(0) !== 2) fail("UnsupportedSystemInstruction");
      const amount = ix.data.readBigUInt64LE(4);
      if (!signed.has(key(0))) fail("MissingRequiredSignature");
      const from = state.get(key(0));
      if (!from || from.owner !== SYSTEM || from.lamports < amount) fail("Custom(1)"); // ResultWithNegativeLamports
      from!.lamports -= amount;
      this.credit(state, key(1), amount);
      return;
    }
    if (program === ATA_PROGRAM) {
      if (ix.data[0] !== 1) fail("UnsupportedAtaInstruction");
      const ata = key(1);
      if (state.has(ata)) return;
      const mint = ix.keys[3]!.pubkey;
      const tokenProgram = ix.keys[5]!.pubkey;
      if (!state.has(mint.toBase58()) && !mint.equals(NATIVE_MINT)) fail("UnsupportedMint");
      if (!getAssociatedTokenAddressSync(mint, ix.keys[2]!.pubkey, true, tokenProgram).equals(ix.keys[1]!.pubkey))
        fail("InvalidSeeds");
      const payer = state.get(key(0));
      if (!payer || payer.lamports < TOKEN_ACCOUNT_RENT_LAMPORTS) fail("InsufficientFunds");
      payer!.lamports -= TOKEN_ACCOUNT_RENT_LAMPORTS;
      state.set(ata, {
        lamports: TOKEN_ACCOUNT_RENT_LAMPORTS,
        owner: tokenProgram.toBase58(),
        data: tokenAccount(mint, ix.keys[2]!.pubkey, 0n, mint.equals(NATIVE_MINT)),
      });
      return;
    }
    if (
      (program === TOKEN_PROGRAM_ID.toBase58() || program === TOKEN_2022_PROGRAM_ID.toBase58()) &&
      ix.data[0] === 17
    ) {
      // SyncNative: the WSOL amount follows the lamports above rent
      const account = state.get(key(0));
      if (!account) fail("UninitializedAccount");
      const d = AccountLayout.decode(account!.data);
      if (d.isNativeOption !== 1) fail("NonNativeNotSupported");
      account!.data = tokenAccount(d.mint, d.owner, account!.lamports - TOKEN_ACCOUNT_RENT_LAMPORTS, true);
      return;
    }
    if (
      (program === TOKEN_PROGRAM_ID.toBase58() || program === TOKEN_2022_PROGRAM_ID.toBase58()) &&
      ix.data[0] === 15
    ) {
      // BurnChecked: account, mint, owner; amount u64, decimals u8
      const account = state.get(key(0));
      const mint = state.get(key(1));
      if (!account || !mint || account.owner !== program || mint.owner !== program) fail("InvalidAccount");
      const d = AccountLayout.decode(account!.data);
      if (!d.owner.equals(ix.keys[2]!.pubkey) || !signed.has(key(2))) fail("OwnerMismatchOrMissingSignature");
      const amount = ix.data.readBigUInt64LE(1);
      if (d.amount < amount) fail("InsufficientFunds");
      account!.data = tokenAccount(d.mint, d.owner, d.amount - amount, false);
      const m = MintLayout.decode(mint!.data);
      mint!.data = mintData(m.supply - amount, m.decimals);
      return;
    }
    if (program === TOKEN_PROGRAM_ID.toBase58() || program === TOKEN_2022_PROGRAM_ID.toBase58()) {
      if (ix.data[0] !== 9) fail("UnsupportedTokenInstruction");
      const account = state.get(key(0));
      if (!account) fail("UninitializedAccount");
      const decoded = AccountLayout.decode(account!.data);
      if (!decoded.owner.equals(ix.keys[2]!.pubkey) || !signed.has(key(2))) fail("OwnerMismatchOrMissingSignature");
      if (decoded.isNativeOption !== 1 && decoded.amount > 0n) fail("NonNativeHasBalance");
      this.credit(state, key(1), account!.lamports);
      state.delete(key(0));
      return;
    }
    if (
      program === PUMP_PROGRAM_ID.toBase58() &&
      Buffer.from(ix.data.subarray(0, 8)).equals(Buffer.from(DISC.createV2))
    ) {
      // create_v2 accounts: [mint, mint_authority, bonding_curve, ..., user (5), ...]
      const args = decodeCreateArgs(ix.data);
      if (!args) fail("InstructionDidNotDeserialize");
      const mint = ix.keys[0]!.pubkey;
      if (!signed.has(key(0)) || !signed.has(key(5))) fail("MissingRequiredSignature");
      if (key(2) !== pumpPdas.bondingCurve(mint).toBase58()) fail("ConstraintSeeds");
      if (state.has(key(0))) fail("AccountAlreadyInUse");
      this.debit(state, key(5), 1_461_600n + 1_500_000n);
      state.set(key(0), {
        lamports: 1_461_600n,
        owner: TOKEN_2022_PROGRAM_ID.toBase58(),
        data: mintData(1_000_000_000_000_000n, 6),
      });
      state.set(key(2), {
        lamports: 1_500_000n,
        owner: PUMP_PROGRAM_ID.toBase58(),
        data: bondingCurveBytes({ complete: false, creator: new PublicKey(args!.creator) }),
      });
      return;
    }
    if (
      program === PUMP_PROGRAM_ID.toBase58() &&
      Buffer.from(ix.data.subarray(0, 8)).equals(Buffer.from(DISC.getMinimumDistributableFee))
    ) {
      const mint = ix.keys[0]!.pubkey;
      const config = pumpPdas.sharingConfig(mint);
      if (key(1) !== pumpPdas.bondingCurve(mint).toBase58() || key(2) !== config.toBase58()) fail("ConstraintSeeds");
      if (key(3) !== pumpPdas.creatorVault(config).toBase58()) fail("ConstraintSeeds");
      const vault = state.get(key(3));
      const distributable =
        vault && vault.lamports > RENT_EXEMPT_SYSTEM_ACCOUNT_LAMPORTS
          ? vault.lamports - RENT_EXEMPT_SYSTEM_ACCOUNT_LAMPORTS
          : 0n;
      const data = Buffer.alloc(17);
      data.writeBigUInt64LE(this.minimumDistributableLamports, 0);
      data.writeBigUInt64LE(distributable, 8);
      data.writeUInt8(distributable >= this.minimumDistributableLamports ? 1 : 0, 16);
      this.returnData = new Uint8Array(data);
      return;
    }
    if (
      program === PUMP_PROGRAM_ID.toBase58() &&
      Buffer.from(ix.data.subarray(0, 8)).equals(Buffer.from(DISC.distributeCreatorFees))
    ) {
      const mint = ix.keys[0]!.pubkey;
      const config = pumpPdas.sharingConfig(mint);
      if (key(1) !== pumpPdas.bondingCurve(mint).toBase58() || key(2) !== config.toBase58()) fail("ConstraintSeeds");
      const curve = state.get(key(1));
      if (!curve || !new PublicKey(curve.data.subarray(49, 81)).equals(config)) fail("Custom(6053)"); // BondingCurveAndSharingConfigCreatorMismatch
      if (key(3) !== pumpPdas.creatorVault(config).toBase58()) fail("ConstraintSeeds");
      const configAccount = state.get(key(2));
      if (!configAccount || configAccount.owner !== PUMP_FEE_PROGRAM_ID.toBase58()) fail("AccountNotInitialized");
      const { active, shareholders } = decodeSharingConfig(configAccount!.data);
      if (!active) fail("Custom(6051)"); // SharingConfigNotActive
      const remaining = ix.keys.slice(7).map((k) => k.pubkey.toBase58());
      if (remaining.length !== shareholders.length || remaining.some((r, i) => r !== shareholders[i]!.address))
        fail("Custom(6054)");
      const vault = state.get(key(3));
      const available =
        vault && vault.lamports > RENT_EXEMPT_SYSTEM_ACCOUNT_LAMPORTS
          ? vault.lamports - RENT_EXEMPT_SYSTEM_ACCOUNT_LAMPORTS
          : 0n;
      // Below the minimum distributable amount the program pays nothing out (PUMP.md §7): a plan
      // counting on it leaves the creator short of its transfer, and that fails the transaction.
      const amount = available >= this.minimumDistributableLamports ? available : 0n;
      let distributed = 0n;
      for (const holder of shareholders) {
        if (!state.has(holder.address)) fail("Custom(6070)"); // UnableToDistributeCreatorFeesToUninitializedAccount
        const share = (amount * BigInt(holder.shareBps)) / 10_000n;
        if (share === 0n) continue;
        vault!.lamports -= share;
        this.credit(state, holder.address, share);
        distributed += share;
        // the vault is a system account: every payout is a System CPI, seen as an inner instruction
        const data = Buffer.alloc(12);
        data.writeUInt32LE(2, 0);
        data.writeBigUInt64LE(share, 4);
        inner.push({
          programId: SYSTEM,
          accounts: [key(3), holder.address],
          data: new Uint8Array(data),
          outerIndex: index,
        });
      }
      this.emit(
        PUMP_PROGRAM_ID,
        pumpPdas.eventAuthority(),
        index,
        eventBody([
          Uint8Array.from(DISC.distributeCreatorFeesEvent),
          u64(1_760_000_000n),
          mint.toBytes(),
          u64(distributed),
        ]),
        inner,
        logs,
      );
      return;
    }
    if (
      program === PUMP_PROGRAM_ID.toBase58() &&
      Buffer.from(ix.data.subarray(0, 8)).equals(Buffer.from(DISC.collectCreatorFee))
    ) {
      const creator = ix.keys[0]!.pubkey;
      if (key(1) !== pumpPdas.creatorVault(creator).toBase58()) fail("ConstraintSeeds");
      if (state.get(creator.toBase58())?.owner === PUMP_FEE_PROGRAM_ID.toBase58()) fail("Custom(6049)"); // CreatorMigratedToSharingConfig
      const vault = state.get(key(1));
      const amount =
        vault && vault.lamports > RENT_EXEMPT_SYSTEM_ACCOUNT_LAMPORTS
          ? vault.lamports - RENT_EXEMPT_SYSTEM_ACCOUNT_LAMPORTS
          : 0n;
      if (amount > 0n) {
        vault!.lamports -= amount;
        this.credit(state, creator.toBase58(), amount);
      }
      this.emit(
        PUMP_PROGRAM_ID,
        pumpPdas.eventAuthority(),
        index,
        eventBody([
          Uint8Array.from(DISC.collectCreatorFeeEvent),
          u64(1_760_000_000n),
          creator.toBytes(),
          u64(amount),
          PublicKey.default.toBytes(),
        ]),
        inner,
        logs,
      );
      return;
    }
    if (
      program === PUMP_AMM_PROGRAM_ID.toBase58() &&
      Buffer.from(ix.data.subarray(0, 8)).equals(Buffer.from(DISC.buyExactQuoteIn))
    ) {
      // Spends exactly spendable_quote_in of the user's WSOL (fees left out: this emulation only
      // has to move the quote the program would take), base out by constant product.
      const spendable = ix.data.readBigUInt64LE(8);
      const minBaseOut = ix.data.readBigUInt64LE(16);
      if (!signed.has(key(1))) fail("MissingRequiredSignature");
      const userQuote = state.get(key(6));
      const userBase = state.get(key(5));
      const poolBase = state.get(key(7));
      const poolQuote = state.get(key(8));
      if (!userQuote || !userBase || !poolBase || !poolQuote) fail("AccountNotInitialized");
      const uq = AccountLayout.decode(userQuote!.data);
      if (uq.amount < spendable) fail("InsufficientFunds");
      const pb = AccountLayout.decode(poolBase!.data);
      const pq = AccountLayout.decode(poolQuote!.data);
      const out = (pb.amount * spendable) / (pq.amount + spendable);
      if (out < minBaseOut) fail("Custom(6004)"); // slippage
      userQuote!.lamports -= spendable;
      userQuote!.data = tokenAccount(uq.mint, uq.owner, uq.amount - spendable, true);
      poolQuote!.lamports += spendable;
      poolQuote!.data = tokenAccount(pq.mint, pq.owner, pq.amount + spendable, true);
      poolBase!.data = tokenAccount(pb.mint, pb.owner, pb.amount - out, false);
      const ub = AccountLayout.decode(userBase!.data);
      userBase!.data = tokenAccount(ub.mint, ub.owner, ub.amount + out, false);
      return;
    }
    if (
      program === PUMP_AMM_PROGRAM_ID.toBase58() &&
      Buffer.from(ix.data.subarray(0, 8)).equals(Buffer.from(DISC.transferCreatorFeesToPump))
    ) {
      // WSOL of the coin creator's AMM vault, unwrapped into its Pump creator vault
      const creator = ix.keys[4]!.pubkey;
      if (
        key(6) !== pumpPdas.ammCreatorVaultWsolAta(creator).toBase58() ||
        key(7) !== pumpPdas.creatorVault(creator).toBase58()
      )
        fail("ConstraintSeeds");
      const vault = state.get(key(6));
      const amount = vault ? AccountLayout.decode(vault.data).amount : 0n;
      // v1 skips the transfer while the fees are below the WSOL account's rent (pump_amm IDL docs)
      if (amount >= TOKEN_ACCOUNT_RENT_LAMPORTS) {
        vault!.lamports -= amount;
        vault!.data = tokenAccount(NATIVE_MINT, pumpPdas.ammCreatorVaultAuthority(creator), 0n, true);
        if (!state.has(key(7))) this.credit(state, key(7), RENT_EXEMPT_SYSTEM_ACCOUNT_LAMPORTS);
        this.credit(state, key(7), amount);
      }
      return;
    }
    if (
      program === PUMP_AMM_PROGRAM_ID.toBase58() &&
      Buffer.from(ix.data.subarray(0, 8)).equals(Buffer.from(DISC.collectCoinCreatorFee))
    ) {
      const creator = ix.keys[2]!.pubkey;
      if (state.get(creator.toBase58())?.owner === PUMP_FEE_PROGRAM_ID.toBase58()) fail("Custom(6048)"); // CreatorVaultMigratedToSharingConfig
      if (key(4) !== pumpPdas.ammCreatorVaultWsolAta(creator).toBase58()) fail("ConstraintSeeds");
      const vault = state.get(key(4));
      const dest = state.get(key(5));
      if (!dest) fail("AccountNotInitialized");
      const amount = vault ? AccountLayout.decode(vault.data).amount : 0n;
      if (amount > 0n) {
        vault!.lamports -= amount;
        vault!.data = tokenAccount(NATIVE_MINT, pumpPdas.ammCreatorVaultAuthority(creator), 0n, true);
        const d = AccountLayout.decode(dest!.data);
        dest!.lamports += amount;
        dest!.data = tokenAccount(NATIVE_MINT, d.owner, d.amount + amount, true);
      }
      this.emit(
        PUMP_AMM_PROGRAM_ID,
        pumpPdas.ammEventAuthority(),
        index,
        eventBody([
          Uint8Array.from(DISC.collectCoinCreatorFeeEvent),
          u64(1_760_000_000n),
          creator.toBytes(),
          u64(amount),
          pumpPdas.ammCreatorVaultWsolAta(creator).toBytes(),
          pumpPdas.creatorWsolAta(creator).toBytes(),
        ]),
        inner,
        logs,
      );
      return;
    }
    fail("UnsupportedProgram");
  }
}
