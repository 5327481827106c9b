/**
 * The `local` LaunchProgram adapter: the service's view of the local launch program. It reads the
 * chain only through a ChainReader (JSON-RPC to the local node), like the pump adapter does, and
 * derives addresses from the program's keys without I/O.
 */
import { AppError } from "../../lib/errors";
import { PublicKey, type TransactionInstruction, SystemProgram, type VersionedTransaction } from "@solana/web3.js";
import { MINT_SIZE, createBurnCheckedInstruction } from "@solana/spl-token";
import type {
  AccountSnapshot,
  BurnBuyPlan,
  ChainReader,
  ConfirmedTransaction,
  CreateParams,
  FeeSharingReading,
  LaunchOp,
  LaunchProgram,
  SweepEffect,
  TokenRef,
  VaultAddresses,
  VaultReading,
  VerifyCreateResult,
  WatchedProgram,
} from "../ports";
import { launchProgramAddress } from "@fee-ledger/localnet/upgradeable";
import {
  type LocalProgramKeys,
  buildBuyOp,
  buildCollectOp,
  buildCreateOp,
  buildDistributeOp,
  decodeLocalSharingConfig,
  mintAuthorityOf,
  sharesOf,
  decodeEvent,
  spendWithin,
  feeFor,
  mintIsBonded,
  quoteBuy,
  readU64LE,
  CURVE_SALE_TOKENS,
  RESERVED_TOKENS,
  unsweptLamports,
  TOKEN_DECIMALS,
  TOKEN_PROGRAM_ID,
  SYSTEM_ACCOUNT_RENT_LAMPORTS,
  type CurveState,
  type LocalProgramConfig,
  type LaunchEvent,
  MINIMUM_DISTRIBUTABLE_LAMPORTS,
  POOL_TRANSFER_MIN_LAMPORTS,
  distributableFrom,
} from "@fee-ledger/localnet/program";
import { unknownLayout } from "../pump/layout";
import { MEMO_PROGRAM_ID, associatedTokenAddress } from "@fee-ledger/localnet/program";
import { memoInstruction, memoTexts } from "../memo";
import { buyPriceImpactBps } from "../impact";

const MAX_SLIPPAGE_BPS = 5_000;

/** Tokens a first buy asks for, below the fresh-curve quote: a buy landing first must not fail ours. */
const FIRST_BUY_SLIPPAGE_BPS = 500;

export class LocalLaunchProgram implements LaunchProgram {
  readonly kind = "local" as const;
  readonly programId: string;
  readonly programs: readonly WatchedProgram[];
  private readonly eventAuthority: string;

  constructor(
    private readonly keys: LocalProgramKeys,
    private readonly config: LocalProgramConfig,
    private readonly reader: ChainReader,
  ) {
    this.eventAuthority = keys.eventAuthority.publicKey.toBase58();
    // The program is identified by its event authority: only it can sign the program's events.
    this.programId = this.eventAuthority;
    // The node holds the program as agave holds an upgradeable one (packages/localnet/src/upgradeable.ts).
    const address = launchProgramAddress(this.eventAuthority).toBase58();
    this.programs = [{ name: "launch program", address, builtBy: ["sweep", "burns", "launches"] }];
  }

  vaultAddresses(token: TokenRef): VaultAddresses {
    return {
      curveVault: this.keys.curveVaultAddress(token.creator),
      poolVault: this.keys.poolVaultAddress(token.creator),
      bondingCurve: this.keys.bondingCurveAddress(token.mint),
    };
  }

  async readVaults(tokens: readonly TokenRef[]): Promise<VaultReading[]> {
    // Only the two vaults, and those from the token's record when it has them: each address is a
    // key derivation, and a detail's refresh reads one token's vaults on the request thread.
    const vaults = tokens.map(
      (t) =>
        t.vaults ?? {
          curveVault: this.keys.curveVaultAddress(t.creator),
          poolVault: this.keys.poolVaultAddress(t.creator),
        },
    );
    // The bonding curve too: its layout is what tells a changed program (programLayout fault).
    const curves = tokens.map((t) => this.keys.bondingCurveAddress(t.mint));
    const addresses = tokens.flatMap((t, i) => [
      vaults[i]!.curveVault,
      vaults[i]!.poolVault,
      t.creator,
      t.mint,
      curves[i]!,
    ]);
    const accounts = await this.reader.getAccounts([...new Set(addresses)]);
    // The creator as the program reads it: the mint authority, which the share op moves from the
    // bonding curve to the sharing config. A mint that cannot be read concludes nothing.
    const current = tokens.map((t) => this.movedCreatorOf(t, accounts.get(t.mint)?.data));
    const moved = [...new Set(current.filter((c): c is string => c !== null))];
    const second = moved.length
      ? await this.reader.getAccounts(
          moved.flatMap((c) => [c, this.keys.curveVaultAddress(c), this.keys.poolVaultAddress(c)]),
        )
      : new Map<string, AccountSnapshot | null>();
    return tokens.map((t, i) => {
      const v = vaults[i]!;
      const mint = accounts.get(t.mint);
      const currentCreator = current[i] ?? null;
      const programChanged = this.layoutChange(
        accounts.get(curves[i]!),
        mint,
        currentCreator === null ? null : second.get(currentCreator),
      );
      return {
        mint: t.mint,
        curveLamports: unsweptLamports(accounts.get(v.curveVault)?.lamports ?? 0n),
        poolLamports: unsweptLamports(accounts.get(v.poolVault)?.lamports ?? 0n),
        creatorLamports: accounts.get(t.creator)?.lamports ?? 0n,
        bonded: mint ? mintIsBonded(mint.data) : false,
        feeSharing: currentCreator === null ? null : this.feeSharingReading(t, currentCreator, second),
        ...(programChanged ? { programChanged } : {}),
      };
    });
  }

  /**
   * The local program's layouts: a bonding curve is a data-less system account (its reserves are
   * its lamports), a mint is an SPL mint, a sharing config pump's SharingConfig. Anything else is
   * a program this adapter does not know (the programLayout fault): nothing is concluded from it.
   */
  private layoutChange(
    curve: AccountSnapshot | null | undefined,
    mint: AccountSnapshot | null | undefined,
    sharingConfig: AccountSnapshot | null | undefined,
  ): string | null {
    if (curve && (curve.owner !== SystemProgram.programId.toBase58() || curve.data.length !== 0))
      return `program-changed: the bonding curve carries ${curve.data.length} bytes of a layout this adapter does not know`;
    if (mint && mint.owner === TOKEN_PROGRAM_ID.toBase58() && mint.data.length !== MINT_SIZE)
      return `program-changed: the mint is ${mint.data.length} bytes`;
    if (sharingConfig && sharingConfig.owner === this.keys.feeProgram.toBase58()) {
      const change = unknownLayout("SharingConfig", sharingConfig.data);
      if (change) return `program-changed: ${change}`;
    }
    return null;
  }

  private movedCreatorOf(token: TokenRef, mintData: Uint8Array | undefined): string | null {
    if (!mintData) return null;
    // Only the share op moves the mint authority (to the sharing config); any other authority is a
    // mint this program did not create, which says nothing about a creator.
    const authority = mintAuthorityOf(mintData);
    return authority !== null && authority === this.keys.sharingConfigAddress(token.mint) ? authority : null;
  }

  private feeSharingReading(
    token: TokenRef,
    currentCreator: string,
    accounts: Map<string, AccountSnapshot | null>,
  ): FeeSharingReading {
    const curveFees = unsweptLamports(accounts.get(this.keys.curveVaultAddress(currentCreator))?.lamports ?? 0n);
    const poolFees = unsweptLamports(accounts.get(this.keys.poolVaultAddress(currentCreator))?.lamports ?? 0n);
    const base = {
      currentCreator,
      distributableLamports: curveFees + poolFees,
      poolDistributableLamports: poolFees,
      shareholders: [] as FeeSharingReading["shareholders"],
      serviceShareBps: 0,
      shareLamports: 0n,
    };
    const account = accounts.get(currentCreator);
    const isSharingConfig =
      currentCreator === this.keys.sharingConfigAddress(token.mint) &&
      account?.owner === this.keys.feeProgram.toBase58();
    if (!isSharingConfig)
      return {
        ...base,
        isSharingConfig: false,
        blockedReason: "the launch program's creator was changed to a key that is not the coin's sharing config",
      };
    const config = decodeLocalSharingConfig(account!.data);
    if (!config) return { ...base, isSharingConfig: true, blockedReason: "the coin's sharing config cannot be read" };
    const serviceShareBps = config.shareholders
      .filter((h) => h.address === token.creator)
      .reduce((n, h) => n + h.shareBps, 0);
    const reading = { ...base, isSharingConfig: true, shareholders: config.shareholders, serviceShareBps };
    if (serviceShareBps === 0)
      return {
        ...reading,
        blockedReason: "the coin's sharing config does not name the service's key as a shareholder",
      };
    if (!config.active) return { ...reading, blockedReason: "the coin's sharing config is paused" };
    // exactly what the distribute ops below pay the creator key: per vault, rounded down per
    // shareholder, and only what the program lets move now (distributableFrom)
    const ours = (fees: bigint) =>
      sharesOf(fees, config.shareholders)
        .filter(([a]) => a === token.creator)
        .reduce((n, [, l]) => n + l, 0n);
    const curvePart = distributableFrom("curve", curveFees);
    const poolPart = distributableFrom("pool", poolFees);
    const waiting = (curveFees > 0n && curvePart === 0n) || (poolFees > 0n && poolPart === 0n);
    return {
      ...reading,
      shareLamports: ours(curvePart) + ours(poolPart),
      blockedReason: null,
      minimumDistributableLamports: MINIMUM_DISTRIBUTABLE_LAMPORTS,
      skippedReason: waiting
        ? `fees below the program's minimum distributable amount (${MINIMUM_DISTRIBUTABLE_LAMPORTS} lamports), or pool fees below the WSOL account's rent (${POOL_TRANSFER_MIN_LAMPORTS} lamports), wait for more`
        : null,
    };
  }

  sweepInstructions(
    items: readonly { token: TokenRef; reading: VaultReading }[],
    treasury: PublicKey,
  ): TransactionInstruction[] {
    const out: TransactionInstruction[] = [];
    for (const { token, reading } of items) {
      // A reading resting on a layout this adapter does not know moves nothing (set aside instead).
      if (reading.programChanged) continue;
      const creator = new PublicKey(token.creator);
      if (reading.curveLamports > 0n)
        out.push(...buildCollectOp(this.keys, { creator, vault: "curve", amountLamports: reading.curveLamports }));
      if (reading.poolLamports > 0n)
        out.push(...buildCollectOp(this.keys, { creator, vault: "pool", amountLamports: reading.poolLamports }));
      const sharing = reading.feeSharing;
      let shared = 0n;
      if (sharing && sharing.blockedReason === null && sharing.shareLamports > 0n) {
        const curveFees = sharing.distributableLamports - sharing.poolDistributableLamports;
        for (const [vault, fees] of [
          ["curve", curveFees],
          ["pool", sharing.poolDistributableLamports],
        ] as const) {
          if (distributableFrom(vault, fees) > 0n)
            out.push(
              ...buildDistributeOp(this.keys, {
                mint: new PublicKey(token.mint),
                vault,
                distributedLamports: fees,
                shareholders: sharing.shareholders,
              }),
            );
        }
        shared = sharing.shareLamports;
      }
      // Everything the creator address will hold leaves it, so it closes (no rent left behind).
      const move = reading.creatorLamports + reading.curveLamports + reading.poolLamports + shared;
      if (move > 0n) out.push(SystemProgram.transfer({ fromPubkey: creator, toPubkey: treasury, lamports: move }));
    }
    return out;
  }

  decodeSweep(tx: ConfirmedTransaction, creators: readonly string[]): SweepEffect[] {
    const collected = new Map<string, bigint>(creators.map((c) => [c, 0n]));
    if (tx.err === null) {
      // Events are top-level memos; a memo CPI'd by another program would be inner. Both are read,
      // each instruction once, so no event counts twice.
      const all = [...tx.instructions, ...tx.innerInstructions];
      for (const [index, ix] of all.entries()) {
        const ev = decodeEvent(ix, this.eventAuthority);
        if (ev?.e === "distribute") {
          // The node checked every payout against the config before signing for the vault: the
          // op's body is the `n` System transfers right before its event, one per shareholder.
          if (index >= tx.instructions.length) continue; // ops are top-level; an inner copy is not ours
          for (const payout of tx.instructions.slice(Math.max(0, index - ev.n), index)) {
            const to = payout.accounts[1];
            if (
              payout.programId !== SystemProgram.programId.toBase58() ||
              !to ||
              !collected.has(to) ||
              payout.data.length < 12
            )
              continue;
            collected.set(to, collected.get(to)! + readU64LE(payout.data, 4));
          }
          continue;
        }
        if (ev?.e !== "collect" || !collected.has(ev.c)) continue;
        collected.set(ev.c, collected.get(ev.c)! + BigInt(ev.fee));
      }
    }
    return creators.map((creator) => {
      const i = tx.accountKeys.indexOf(creator);
      const collectedLamports = collected.get(creator) ?? 0n;
      // The creator pays no fee (the treasury does), so what left it is pre + collected - post.
      const moved = i < 0 || tx.err !== null ? 0n : tx.preBalances[i]! + collectedLamports - tx.postBalances[i]!;
      return { creator, collectedLamports, movedToTreasuryLamports: moved > 0n ? moved : 0n };
    });
  }

  verifyCreate(tx: ConfirmedTransaction, expected: { mint: string; creator: string; uri: string }): VerifyCreateResult {
    if (tx.err !== null) return { ok: false, reason: `transaction failed: ${tx.err}` };
    const idx = tx.instructions.findIndex((ix) => {
      const ev = decodeEvent(ix, this.eventAuthority);
      return ev?.e === "create" && ev.m === expected.mint;
    });
    if (idx < 0) return { ok: false, reason: "no create event for this mint from the local launch program" };
    const ev = decodeEvent(tx.instructions[idx]!, this.eventAuthority) as Extract<LaunchEvent, { e: "create" }>;
    // The op's first instruction creates the mint account: accounts [payer, mint].
    const createAccount = tx.instructions[idx - 6];
    if (!createAccount || createAccount.accounts[1] !== expected.mint)
      return { ok: false, reason: "create op does not create this mint" };
    if (ev.c !== expected.creator) return { ok: false, reason: "creator differs" };
    if (ev.u !== expected.uri) return { ok: false, reason: "uri differs" };
    return {
      ok: true,
      create: {
        mint: ev.m,
        creator: ev.c,
        uri: ev.u,
        name: ev.n,
        symbol: ev.s,
        deployer: createAccount.accounts[0]!,
        slot: tx.slot,
        blockTime: tx.blockTime,
      },
    };
  }

  async buildBurnBuy(token: TokenRef, buyer: PublicKey, lamports: bigint, slippageBps: number): Promise<BurnBuyPlan> {
    if (!Number.isInteger(slippageBps) || slippageBps < 0 || slippageBps > MAX_SLIPPAGE_BPS)
      throw new AppError("LAUNCH_PROGRAM_SLIPPAGE_INVALID", { slippageBps });
    const state = await this.curveState(token.mint);
    // As pump's buy_exact_sol_in: the largest input whose (rounded-up) fee fits in the budget, so
    // a lamport or so of the budget can stay with the buyer. The books burn what was spent and
    // hand the rest back to the orders.
    const { solInLamports: solIn, feeLamports: fee } = spendWithin(lamports, this.config.creatorFeeBps);
    const quoted = quoteBuy(state, solIn);
    const minTokenOut = (quoted * BigInt(10_000 - slippageBps)) / 10_000n;
    if (minTokenOut <= 0n) throw new AppError("LAUNCH_PROGRAM_BUY_TOO_SMALL", { buy: "buy" });
    // The local program delivers exactly the asked amount if the curve still quotes at least that.
    const instructions = buildBuyOp(this.keys, {
      buyer,
      mint: new PublicKey(token.mint),
      // the program pays the fee to whoever is the creator now (the sharing config once shared)
      creator: new PublicKey(state.creator ?? token.creator),
      vault: state.bonded ? "pool" : "curve",
      solInLamports: solIn,
      tokensOut: minTokenOut,
      feeLamports: fee,
    });
    const priceImpactBps = buyPriceImpactBps(lamports, (budget) =>
      quoteBuy(state, spendWithin(budget, this.config.creatorFeeBps).solInLamports),
    );
    return { instructions, minTokenOut, priceImpactBps };
  }

  /**
   * The program's own create op, and a first buy as a SECOND transaction: the local program refuses
   * a buy of a mint created in the same transaction. That buy is priced on the fresh curve with a
   * slippage margin, since somebody else's buy may land between the two.
   */
  async buildCreate(p: CreateParams): Promise<TransactionInstruction[][]> {
    const mint = new PublicKey(p.mint);
    const creator = new PublicKey(p.creator);
    const deployer = new PublicKey(p.deployer);
    const create = buildCreateOp(this.keys, {
      payer: deployer,
      mint,
      creator,
      name: p.name,
      symbol: p.symbol,
      uri: p.uri,
    });
    if (p.firstBuyLamports <= 0n) return [create];
    const fresh = { realSolLamports: 0n, curveTokens: CURVE_SALE_TOKENS + RESERVED_TOKENS, bonded: false };
    const quoted = quoteBuy(fresh, p.firstBuyLamports);
    const tokensOut = (quoted * BigInt(10_000 - FIRST_BUY_SLIPPAGE_BPS)) / 10_000n;
    if (tokensOut <= 0n) return [create];
    const buy = buildBuyOp(this.keys, {
      buyer: deployer,
      mint,
      creator,
      vault: "curve",
      solInLamports: p.firstBuyLamports,
      tokensOut,
      feeLamports: feeFor(p.firstBuyLamports, this.config.creatorFeeBps),
    });
    return [create, buy];
  }

  /**
   * The program's ops end in a memo signed by its event authority (`programId`): each such event
   * memo of the transaction, as a create, a buy or another op. Program ids and accounts are read
   * from the static keys only: an address from a lookup table is not resolved (unknown).
   */
  launchOps(tx: VersionedTransaction): LaunchOp[] {
    const keys = tx.message.staticAccountKeys.map((k) => k.toBase58());
    const ops: LaunchOp[] = [];
    for (const ix of tx.message.compiledInstructions) {
      const programKey = keys[ix.programIdIndex];
      const accounts = ix.accountKeyIndexes.map((i) => keys[i] ?? "");
      if (accounts[0] !== this.eventAuthority) continue;
      const event = decodeEvent({ programId: programKey ?? "", accounts, data: ix.data }, this.eventAuthority);
      if (!event) continue;
      if (event.e === "create") ops.push({ kind: "create", mint: event.m });
      else if (event.e === "buy")
        ops.push({
          kind: "buy",
          mint: event.m,
          maxSolLamports: /^\d{1,20}$/.test(event.sol) ? BigInt(event.sol) : null,
        });
      else ops.push({ kind: "other", mint: null });
    }
    return ops;
  }

  async buildBurn(mint: string, owner: PublicKey, amount: bigint): Promise<TransactionInstruction[]> {
    const mintKey = new PublicKey(mint);
    const ata = associatedTokenAddress(mintKey, owner);
    return [createBurnCheckedInstruction(ata, mintKey, owner, amount, TOKEN_DECIMALS, [], TOKEN_PROGRAM_ID)];
  }

  decodeBoughtAmount(tx: ConfirmedTransaction, mint: string, owner: string): bigint {
    if (tx.err !== null) return 0n;
    const ata = associatedTokenAddress(mint, owner).toBase58();
    const tokenProgram = TOKEN_PROGRAM_ID.toBase58();
    let total = 0n;
    for (let i = 0; i < tx.instructions.length; i++) {
      const ev = decodeEvent(tx.instructions[i]!, this.eventAuthority);
      if (ev?.e !== "buy" || ev.m !== mint) continue;
      // The op's last body instruction is TransferChecked(curve ATA -> buyer ATA): [source, mint, dest, authority].
      const transfer = tx.instructions[i - 1];
      if (!transfer || transfer.programId !== tokenProgram || transfer.accounts[2] !== ata || transfer.data[0] !== 12)
        continue;
      total += readU64LE(transfer.data, 1);
    }
    return total;
  }

  /** The buyer's token account of the mint: the one account the local program's buy creates. */
  buyRentAccounts(mint: string, buyer: string): string[] {
    return [associatedTokenAddress(mint, buyer).toBase58()];
  }

  async creatorFeeBps(): Promise<number> {
    return this.config.creatorFeeBps;
  }

  buildMemo(text: string, signer: PublicKey): TransactionInstruction {
    return memoInstruction(text, signer, MEMO_PROGRAM_ID);
  }

  decodeMemos(tx: ConfirmedTransaction): { text: string; signers: string[] }[] {
    return memoTexts(tx, MEMO_PROGRAM_ID);
  }

  private async curveState(mint: string): Promise<CurveState & { creator: string | null }> {
    const curve = this.keys.bondingCurveAddress(mint);
    const curveAta = this.keys.curveTokenAccount(mint).toBase58();
    const accounts = await this.reader.getAccounts([mint, curve, curveAta]);
    const mintAcc = accounts.get(mint);
    if (!mintAcc) throw new AppError("LAUNCH_PROGRAM_ACCOUNT_MISSING", { account: `mint ${mint}` });
    const curveLamports = accounts.get(curve)?.lamports ?? 0n;
    return {
      realSolLamports: curveLamports > SYSTEM_ACCOUNT_RENT_LAMPORTS ? curveLamports - SYSTEM_ACCOUNT_RENT_LAMPORTS : 0n,
      curveTokens: readU64LE(accounts.get(curveAta)?.data ?? new Uint8Array(), 64),
      bonded: mintIsBonded(mintAcc.data),
      creator: this.movedCreatorOf({ mint, creator: "" }, mintAcc.data),
    };
  }
}
